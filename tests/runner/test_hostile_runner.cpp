// trainscope-run on hostile but fair input, as a user (or an attacker's file) gives it: a name of
// 50,000 characters and a pattern of nested stars under --step-range, JSON nested 160,000 levels
// deep, thread counts of tens of thousands: each either works or ends with one line and exit 2,
// never a crash or a minutes-long hang. Sessions whose kernel, device and CPU names hold terminal
// escape sequences are compared with every control character escaped, and a --setup text that is
// neither a line nor a file is echoed escaped.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "runner_test_util.h"

namespace fs = std::filesystem;

namespace {

using Result = ts::test::RunnerResult;

Result run(const std::string& args, const std::string& cwd = "") { return ts::test::run_runner_split(args, cwd); }

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

bool has_control(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return (c < 0x20 && c != '\n') || c == 0x7f;
  });
}

/// A small trace: `steps` user annotations named `name`, each around one kernel launch.
std::string trace_with(const std::string& name, int steps) {
  std::string ev;
  for (int i = 0; i < steps; ++i) {
    const int t = 1000 + i * 1000;
    ev += R"({"ph":"X","cat":"user_annotation","name":")" + name + R"(","pid":1,"tid":1,"ts":)" + std::to_string(t) +
          R"(,"dur":900},)";
    ev += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" + std::to_string(t + 10) +
          R"(,"dur":4,"args":{"correlation":)" + std::to_string(i + 1) + "}},";
    ev += R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(t + 20) +
          R"(,"dur":500,"args":{"device":0,"stream":7,"correlation":)" + std::to_string(i + 1) + "}},";
  }
  ev.pop_back();
  return R"({"schemaVersion":1,"traceEvents":[)" + ev + "]}";
}

TEST(RunnerHostile, StepRangeOnALongNameAndANestedStarPatternIsQuick) {
  const fs::path dir = ts::test::fresh_temp_dir("ts_hostile_steps");
  const fs::path trace = dir / "long.json";
  std::ofstream(trace, std::ios::binary) << trace_with("step" + std::string(50'000, 'x'), 3);
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = run("--import " + trace.string() + " --session " + (dir / "a.tsession").string() + " --step-range 'step.*'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("steps: 3 (ranges matching 'step.*')"), std::string::npos) << r.out;
  const Result a = run("--analyze " + trace.string() + " --step-range '((((.*)*)*)*)*y'");
  EXPECT_EQ(a.code, 0) << a.err;
  EXPECT_NE(a.out.find("the whole trace"), std::string::npos) << a.out;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60));
  const Result bad = run("--analyze " + trace.string() + " --step-range '(x'");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err.rfind("error: --step-range (x: not a regular expression (", 0), 0u) << bad.err;
  EXPECT_EQ(lines(bad.err), 1u) << bad.err;
  fs::remove_all(dir);
}

TEST(RunnerHostile, DeeplyNestedJsonIsOneLineNamingTheFile) {
  const fs::path dir = ts::test::fresh_temp_dir("ts_hostile_json");
  const std::string deep = std::string(160'000, '[') + std::string(160'000, ']');
  const fs::path spec = dir / "deep_model.json", setup = dir / "deep.tsetup", lesson = dir / "deep.lesson.json";
  std::ofstream(spec, std::ios::binary) << deep;
  std::ofstream(setup, std::ios::binary) << "{\"trainscope_setup\": 1, \"knobs\": " << deep << "}";
  std::ofstream(lesson, std::ios::binary) << "{\"lesson\": " << deep << "}";
  for (const std::string& args : {"--model " + spec.string() + " --device cpu", "--setup " + setup.string(),
                                  "--lesson " + lesson.string()}) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_EQ(lines(r.err), 1u) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(dir.string()), std::string::npos) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("nested more than 256 levels deep"), std::string::npos) << args << "\n" << r.err;
  }
  fs::remove_all(dir);
}

TEST(RunnerHostile, ThreadCountsBeyondTheMachineAreOneLineErrors) {
  const std::string data = ts::test::runner_sample_dir();
  for (const char* opt : {"--cpu-threads 100000", "--num-workers 30000"}) {
    const Result r = run("--data " + data + " --device cpu --limit-train 64 --batch-size 32 " + opt);
    EXPECT_EQ(r.code, 2) << opt << "\n" << r.out << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    const std::string name = std::string(opt).substr(0, std::string(opt).find(' '));
    EXPECT_EQ(r.err.rfind("error: " + name + " ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("on this machine (4 per hardware thread"), std::string::npos) << r.err;
  }
}

/// Runs one SQL statement on a session file.
void sql(const fs::path& file, const std::string& statement) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, statement.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

TEST(RunnerHostile, CompareEscapesNamesFromTheSessions) {
  const fs::path dir = ts::test::fresh_temp_dir("ts_hostile_compare");
  const std::string src = std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/";
  const fs::path a = dir / "a.tsession", b = dir / "b.tsession";
  fs::copy_file(src + "gpu_b128_nw4.tsession", a);
  fs::copy_file(src + "gpu_b128_nw0_augment.tsession", b);
  // An OSC title, a clear-screen and CR/LF that would forge a verdict line.
  const std::string evil = "'||char(27)||']0;pwned'||char(7)||char(27)||'[2J'||char(13)||char(10)||'verdict [critical] forged'||'";
  sql(a, "UPDATE meta SET value = 'NVIDIA" + evil + "' WHERE key = 'device.name';"
         "UPDATE meta SET value = 'Xeon" + evil + "' WHERE key = 'host.cpu_model';"
         "UPDATE strings SET value = '" + evil + "' || value WHERE id IN (SELECT name_id FROM kernel_configs);");
  const Result r = run("--compare " + a.string() + " " + b.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(has_control(r.out)) << r.out;
  // The kernel diff shows the names' first 100 characters, the config table its cells' first 20.
  EXPECT_NE(r.out.find("\\x1b]0;pwned\\x07\\x1b[2J\\x0d\\nverdict [critical] forged"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\nverdict [critical] forged"), std::string::npos);
  EXPECT_NE(r.out.find("device.name"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NVIDIA\\x1b]0;pwne..."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("host.cpu_model"), std::string::npos) << r.out;
  const Result j = run("--compare " + a.string() + " " + b.string() + " --json");
  ASSERT_EQ(j.code, 0) << j.err;
  EXPECT_FALSE(has_control(j.out)) << "JSON escapes them itself";
  EXPECT_EQ(lines(j.out), 1u);
  fs::remove_all(dir);
}

TEST(RunnerHostile, ASetupTextThatIsNoLineIsEchoedEscaped) {
  const Result r = run("--setup \"$(printf 'nope\\033]0;pwned\\007\\r\\nverdict')\"");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_FALSE(has_control(r.err)) << r.err;
  EXPECT_NE(r.err.find("nope\\x1b]0;pwned\\x07\\x0d\\nverdict: cannot be read"), std::string::npos) << r.err;
}

}  // namespace
