// trainscope-run's writers and what is at their path (app/runner/output_paths.h,
// docs/output-paths.md): an output that is one of the run's inputs is refused with one line and
// exit 2 and the input is left byte for byte (--export S -o S, --import T --session T, --model M
// --save-setup M, --data D --session D/test_batch.bin, --checkpoint onto a data file, --resume C
// --session C); so are a device, a folder, and an existing recording under --session without
// --overwrite; --export replaces its file whole (a run killed while writing leaves the previous one).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "runner_test_util.h"

namespace fs = std::filesystem;

namespace {

using Result = ts::test::RunnerResult;

Result run(const std::string& args) { return ts::test::run_runner_split(args); }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

const std::string kSession = std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/gpu_b16_nw4.tsession";
const std::string kTrace = std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/traces/kineto_small.json";

/// Runs `args`, expects exit 2 with one line holding `what`, and `file` as it was before.
void expect_refused(const std::string& args, const fs::path& file, const std::string& what) {
  const std::string before = slurp(file);
  const Result r = run(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.out << r.err;
  EXPECT_EQ(lines(r.err), 1u) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << args << "\n" << r.err;
  EXPECT_EQ(slurp(file), before) << args << ": the input changed";
}

TEST(RunnerOutputPaths, AnOutputThatIsAnInputIsRefusedAndTheInputKept) {
  const fs::path d = ts::test::fresh_temp_dir("ts_out_same");
  const fs::path s = d / "s.tsession", t = d / "t.json", m = d / "m.json", c = d / "c.tsckpt";
  fs::copy_file(kSession, s);
  fs::copy_file(kTrace, t);
  fs::copy_file(std::string(TRAINSCOPE_SOURCE_DIR) + "/resources/models/tiny_cnn.json", m);
  std::ofstream(c, std::ios::binary) << "not really a checkpoint, but it is the run's input";
  const std::string same = "is also an input of this run";
  expect_refused("--export " + s.string() + " -o " + s.string(), s, same);
  expect_refused("--export " + s.string() + " --format steps-csv -o " + d.string() + "/../" + d.filename().string() + "/s.tsession", s, same);
  expect_refused("--import " + t.string() + " --session " + t.string(), t, same);
  expect_refused("--model " + m.string() + " --save-setup " + m.string(), m, same);
  expect_refused("--resume " + c.string() + " --session " + c.string() + " --device cpu", c, same);
  // A hard link is the same file by another name.
  fs::create_hard_link(s, d / "link.tsession");
  expect_refused("--export " + s.string() + " -o " + (d / "link.tsession").string(), s, same);
  fs::create_symlink(t, d / "sym.json");
  expect_refused("--import " + (d / "sym.json").string() + " --session " + t.string() + " --overwrite", t, same);
  fs::remove_all(d);
}

TEST(RunnerOutputPaths, TrainingNeverWritesIntoItsDataFiles) {
  const fs::path d = ts::test::fresh_temp_dir("ts_out_data");
  for (const auto& e : fs::directory_iterator(ts::test::runner_sample_dir())) fs::copy_file(e.path(), d / e.path().filename());
  const std::string base = "--data " + d.string() + " --device cpu --limit-train 64 --batch-size 32";
  expect_refused(base + " --session " + (d / "test_batch.bin").string() + " --overwrite", d / "test_batch.bin",
                 "is also an input of this run");
  expect_refused(base + " --checkpoint-every 1 --checkpoint " + (d / "data_batch_5.bin").string(), d / "data_batch_5.bin",
                 "is also an input of this run");
  // Continuing a run into its own checkpoint is no clash: the --resume file is read whole before the
  // first checkpoint is written (here it is no checkpoint, and that is what is said).
  std::ofstream(d / "c.tsckpt", std::ios::binary) << "not a checkpoint";
  const Result resumed = run(base + " --checkpoint-every 1 --resume " + (d / "c.tsckpt").string() + " --checkpoint " +
                             (d / "c.tsckpt").string());
  EXPECT_EQ(resumed.code, 2);
  EXPECT_EQ(resumed.err.find("is also an input"), std::string::npos) << resumed.err;
  EXPECT_NE(resumed.err.find("c.tsckpt"), std::string::npos) << resumed.err;
  // A folder that does not exist is said before anything runs.
  const Result nowhere = run(base + " --session " + (d / "no/such/s.tsession").string());
  EXPECT_EQ(nowhere.code, 2);
  EXPECT_NE(nowhere.err.find("does not exist"), std::string::npos) << nowhere.err;
  fs::remove_all(d);
}

TEST(RunnerOutputPaths, DevicesAndFoldersAreNeverWritten) {
  const fs::path d = ts::test::fresh_temp_dir("ts_out_kinds");
  const fs::path empty = d / "empty";
  fs::create_directories(empty);
  const std::string data = "--data " + ts::test::runner_sample_dir() + " --device cpu --limit-train 64 --batch-size 32";
  for (const std::string& args : {data + " --checkpoint-every 1 --checkpoint /dev/null", data + " --session /dev/null --overwrite",
                                  "--export " + kSession + " -o /dev/null", "--import " + kTrace + " --session /dev/null"}) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("/dev/null: is a device"), std::string::npos) << args << "\n" << r.err;
  }
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  const Result folder = run("--import " + kTrace + " --session " + empty.string() + " --overwrite");
  EXPECT_EQ(folder.code, 2);
  EXPECT_NE(folder.err.find("is a folder, not a file"), std::string::npos) << folder.err;
  EXPECT_TRUE(fs::is_directory(empty));
  const Result exported = run("--export " + kSession + " -o " + empty.string());
  EXPECT_EQ(exported.code, 2);
  EXPECT_TRUE(fs::is_directory(empty));
  fs::remove_all(d);
}

TEST(RunnerOutputPaths, AnExistingRecordingIsKeptUnlessOverwrite) {
  const fs::path d = ts::test::fresh_temp_dir("ts_out_existing");
  const fs::path s = d / "s.tsession";
  ASSERT_EQ(run("--import " + kTrace + " --session " + s.string()).code, 0);
  const std::string first = slurp(s);
  const Result again = run("--import " + kTrace + " --session " + s.string());
  EXPECT_EQ(again.code, 2);
  EXPECT_EQ(lines(again.err), 1u) << again.err;
  EXPECT_NE(again.err.find("already exists"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("--overwrite"), std::string::npos) << again.err;
  EXPECT_EQ(slurp(s), first);
  const std::string data = "--data " + ts::test::runner_sample_dir() + " --device cpu --limit-train 64 --batch-size 32";
  const Result train = run(data + " --session " + s.string());
  EXPECT_EQ(train.code, 2) << train.err;
  EXPECT_EQ(slurp(s), first);
  const Result over = run("--import " + kTrace + " --session " + s.string() + " --overwrite");
  EXPECT_EQ(over.code, 0) << over.err;
  EXPECT_TRUE(fs::exists(s));
  fs::remove_all(d);
}

TEST(RunnerOutputPaths, ExportReplacesItsFileWhole) {
  const fs::path d = ts::test::fresh_temp_dir("ts_out_export");
  const fs::path e = d / "trace.json.gz";
  ASSERT_EQ(run("--export " + kSession + " -o " + e.string()).code, 0);
  const std::string first = slurp(e);
  ASSERT_GT(first.size(), 16u * 1024);
  ASSERT_EQ(first.substr(0, 2), "\x1f\x8b") << "gzip, by the name's suffix, through the temporary file too";
  // Killed while writing (SIGXFSZ at 8 KiB, as a full disk or a kill would stop it): the previous
  // export is still there, whole.
  const std::string cmd = "ulimit -f 8; " + std::string(TRAINSCOPE_RUNNER) + " --export " + kSession +
                          " --format chrome -o " + (d / "trace.json.gz").string() + " >/dev/null 2>&1";
  EXPECT_NE(std::system(("sh -c '" + cmd + "'").c_str()), 0);
  EXPECT_EQ(slurp(e), first);
  for (const auto& f : fs::directory_iterator(d))
    if (f.path() != e) fs::remove(f.path());  // the killed run's temporary file
  // A finished export replaces the file and leaves nothing beside it.
  ASSERT_EQ(run("--export " + kSession + " --format steps-csv -o " + e.string()).code, 0);
  EXPECT_NE(slurp(e), first);
  EXPECT_EQ(std::distance(fs::directory_iterator(d), fs::directory_iterator()), 1);
  fs::remove_all(d);
}

}  // namespace
