// Values trainscope-run used to take without a word, each now refused with one line naming the
// option (or the file) and what is accepted, exit 2: a NaN or negative optimizer number, a seed
// that is negative or past 2^64 - 1, a checkpoint folder that cannot be written (said before the
// first epoch, not after it), and a checkpoint whose tensors do not fit the model (naming the file).
// A CIFAR-10 folder whose files do not hold 10,000 records trains, with a warning naming the file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine/checkpoint.h"
#include "runner_test_util.h"

namespace fs = std::filesystem;

namespace {

using Result = ts::test::RunnerResult;

Result run(const std::string& args) { return ts::test::run_runner_split(args); }

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

std::string base_args() {
  return "--device cpu --data " + ts::test::runner_sample_dir() + " --limit-train 64 --batch-size 32 --num-workers 0";
}

/// One line on stderr that starts with "error: " and holds `what`; exit 2; no epoch trained.
void expect_one_line_error(const Result& r, const std::string& what, const std::string& args) {
  EXPECT_EQ(r.code, 2) << args << "\n" << r.out << r.err;
  EXPECT_EQ(lines(r.err), 1u) << args << "\n" << r.err;
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << args << "\n" << r.err;
  EXPECT_EQ(r.out.find("epoch 1/"), std::string::npos) << args << "\n" << r.out;
}

TEST(RunnerQuiet, OptimizerNumbersOutOfRangeAreRefusedNamingTheOption) {
  const struct {
    const char* args;
    const char* what;
  } cases[] = {
      {"--optimizer sgd --momentum nan", "--momentum: must be a number from 0 to 1, got nan"},
      {"--optimizer sgd --momentum 1.5", "--momentum: must be a number from 0 to 1, got 1.5"},
      {"--weight-decay nan", "--weight-decay: must be a finite number >= 0, got nan"},
      {"--weight-decay -1", "--weight-decay: must be >= 0, got -1"},
      {"--weight-decay inf", "--weight-decay: must be a finite number >= 0, got inf"},
      {"--lr inf", "--lr: must be a finite number > 0, got inf"},
      {"--seed -1", "--seed: must be an integer from 0 to 18446744073709551615, got -1"},
      {"--seed 18446744073709551616", "--seed: must be an integer from 0 to 18446744073709551615"},
      {"--seed 1e3", "--seed: must be an integer from 0 to 18446744073709551615, got 1e3"},
  };
  for (const auto& c : cases) {
    const std::string args = base_args() + " " + c.args;
    expect_one_line_error(run(args), c.what, args);
  }
  // The ends of the ranges are taken.
  const Result ok = run(base_args() + " --optimizer sgd --momentum 1 --weight-decay 0 --seed 18446744073709551615 --quiet");
  EXPECT_EQ(ok.code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("\"seed\":18446744073709551615"), std::string::npos) << ok.out;
}

TEST(RunnerQuiet, UnwritableCheckpointFolderIsSaidBeforeTheFirstEpoch) {
  const fs::path d = ts::test::fresh_temp_dir("ts_quiet_ckpt");
  std::ofstream(d / "plain.txt") << "a file, not a folder";
  // A folder that cannot be made (under a regular file), and one that exists but takes no file
  // (also for root).
  for (const std::string& folder : {(d / "plain.txt" / "ckpt").string() + "/", std::string("/proc/")}) {
    const std::string args = base_args() + " --epochs 2 --checkpoint-every 1 --checkpoint " + folder;
    expect_one_line_error(run(args), "error: --checkpoint " + folder + ": cannot ", args);
  }
  fs::remove_all(d);
}

TEST(RunnerQuiet, CheckpointThatDoesNotFitTheModelNamesTheFile) {
  if (!ts::test::have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  const fs::path d = ts::test::fresh_temp_dir("ts_quiet_resume");
  const std::string common = base_args() + " --seed 4 --quiet";
  const Result first = run(common + " --epochs 1 --checkpoint-every 1 --checkpoint " + (d / "c.tsckpt").string());
  ASSERT_EQ(first.code, 0) << first.out << first.err;
  ts::TrainingState st = ts::load_checkpoint((d / "c.tsckpt").string());
  ASSERT_FALSE(st.parameters.empty());
  auto& t = st.parameters.front().tensor;  // one value more than the model's first parameter
  t.shape = {t.numel() + 1};
  t.data.resize(static_cast<std::size_t>(t.numel()));
  const std::string bad = (d / "reshaped.tsckpt").string();
  ts::save_checkpoint(bad, st);
  const std::string args = common + " --epochs 2 --resume " + bad;
  const Result r = run(args);
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("error: " + bad + ": ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("has shape"), std::string::npos) << r.err;
  fs::remove_all(d);
}

TEST(RunnerQuiet, CifarFileOfOneRecordTrainsWithAWarningNamingIt) {
  if (!ts::test::have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  const fs::path d = ts::test::fresh_temp_dir("ts_quiet_cifar");
  for (const auto& e : fs::directory_iterator(ts::test::runner_sample_dir()))
    if (e.path().extension() == ".bin") fs::copy_file(e.path(), d / e.path().filename());  // no meta: not the sample set
  std::string one(3073, '\0');
  one[0] = 2;
  std::ofstream(d / "data_batch_1.bin", std::ios::binary | std::ios::trunc) << one;
  const Result r = run("--device cpu --data " + d.string() + " --limit-train 64 --batch-size 32");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("warning: " + (d / "data_batch_1.bin").string() + " has 1 record, CIFAR-10's has 10000"),
            std::string::npos)
      << r.out;
  fs::remove_all(d);
}

}  // namespace
