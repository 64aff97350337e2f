// trainscope-run --playground as a user runs it: a bad family or size is exit 2 with one line on any
// machine; without a GPU (or a CUDA build) exit 3 with one line; with a GPU, every check passes
// (exit 0) and --json is one parseable object.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "engine/network.h"
#include "runner_test_util.h"

namespace ts::test {
namespace {

TEST(RunnerPlayground, BadFamilyOrSizeIsExit2WithOneLine) {
  RunnerResult r = run_runner_split("--playground nope");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no family 'nope'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sgemm"), std::string::npos) << r.err;  // the names are listed
  r = run_runner_split("--playground sgemm --size 100");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("multiple of 128"), std::string::npos) << r.err;
  r = run_runner_split("--playground vector_add --threads-per-block 33");
  EXPECT_TRUE(r.code == 2 || r.code == 3) << r.err;  // 2 where it gets to the launch check
}

TEST(RunnerPlayground, WithoutAGpuExit3WithOneLineElseEveryCheckPasses) {
  std::string why;
  const RunnerResult r = run_runner_split("--playground copy,reduction --size 1048576 --json");
  if (!cuda_available(&why)) {
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_NE(r.err.find("GPU"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    return;
  }
  EXPECT_EQ(r.code, 0) << r.err;
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  ASSERT_FALSE(d.HasParseError()) << r.out;
  EXPECT_EQ(d["failed_checks"].GetInt(), 0);
  EXPECT_EQ(d["ladders"].Size(), 2u);
}

TEST(RunnerPlayground, ATrainingSessionHoldsNoPlaygroundRun) {
  const RunnerResult r = run_runner_split("--playground-session " + std::string(TRAINSCOPE_SOURCE_DIR) +
                                          "/tests/data/gpu_b16_nw4.tsession");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("holds no playground run"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ts::test
