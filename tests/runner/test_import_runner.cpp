// trainscope-run --import TRACE [--session OUT]: run as a user would. The session it writes opens
// with the session reader and holds what the trace held; bad input exits 2 with one line naming
// the file and the byte.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>

#include "profiling/event_source.h"
#include "runner_test_util.h"

namespace fs = std::filesystem;

namespace {

using Result = ts::test::RunnerResult;

/// Runs `cd CWD && trainscope-run ARGS` (CWD empty: here); stdout and stderr apart.
Result run_import(const std::string& args, const std::string& cwd = "") { return ts::test::run_runner_split(args, cwd); }

std::string line_starting(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) return line;
  return "";
}

std::string fixture(const std::string& name) { return std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/traces/" + name; }

}  // namespace

TEST(RunnerImport, WritesASessionAndPrintsEventsStepsWarnings) {
  const fs::path out = fs::temp_directory_path() / "ts_import_small.tsession";
  fs::remove(out);
  const Result r = run_import("--import " + fixture("kineto_small.json") + " --session " + out.string());
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(line_starting(r.out, "events: 21 read").find("kernels 1, copies 1, memsets 1, runtime calls 4"), std::string::npos) << r.out;
  EXPECT_EQ(line_starting(r.out, "steps: "), "steps: 2 (ProfilerStep#N ranges)");
  EXPECT_EQ(line_starting(r.out, "warnings: "), "warnings: 0");
  const auto src = ts::prof::open_session(out.string());
  const auto& s = src->store();
  EXPECT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.steps.size(), 2u);
  EXPECT_EQ(s.steps[0].data_wait_ns, 30'000);
  EXPECT_EQ(s.memory.size(), 3u);
  EXPECT_EQ(s.meta().at("device.compute_capability"), "9.0");
  EXPECT_EQ(s.meta().at("import.kind"), "PyTorch trace");
  // The converted session is analysed as the trace would be: no warm-up step, verdicts from 3 steps.
  const Result a = run_import("--analyze " + out.string() + " --json");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_NE(a.out.find("\"min_steps_for_verdicts\":3"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("\"steps\":2"), std::string::npos) << a.out;
  fs::remove(out);
}

TEST(RunnerImport, WarningsAreCountedOnTheirLine) {
  const fs::path out = fs::temp_directory_path() / "ts_import_bad.tsession";
  const Result r = run_import("--import " + fixture("bad_events.json") + " --session " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string w = line_starting(r.out, "warnings: ");
  EXPECT_EQ(w.rfind("warnings: 10 (", 0), 0u) << w;
  EXPECT_NE(w.find("first at byte"), std::string::npos) << w;
  fs::remove(out);
}

TEST(RunnerImport, BadInputExitsTwoWithOneLine) {
  const Result r = run_import("--import " + fixture("not_json.json") + " --session " +
                              (fs::temp_directory_path() / "ts_import_never.tsession").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(fixture("not_json.json")), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("at byte 0"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(fs::temp_directory_path() / "ts_import_never.tsession"));
  const Result missing = run_import("--import /nonexistent/worker0.pt.trace.json.gz");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/worker0.pt.trace.json.gz"), std::string::npos) << missing.err;
}

TEST(RunnerImport, DefaultSessionNameIsTheTracesInTheCurrentFolder) {
  const fs::path dir = fs::temp_directory_path() / "ts_import_cwd";
  fs::create_directories(dir);
  const Result r = run_import("--import " + fixture("nccl.json"), dir.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "nccl.tsession")) << r.out;
  EXPECT_NE(r.out.find("NCCL kernels 2"), std::string::npos) << r.out;
  fs::remove_all(dir);
}
