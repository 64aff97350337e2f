// trainscope-run --playground as a user runs it: a bad family or size is exit 2 with one line on any
// machine; without a GPU (or a CUDA build) exit 3 with one line; with a GPU, every check passes
// (exit 0) and --json is one parseable object.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "doctor/host.h"
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
    // Either way the recorded run to open is named; with no NVIDIA device on the bus (this CI machine) a CUDA
    // build says so as the doctor does (a build without CUDA says that instead).
    const bool cuda_build = r.err.find("TRAINSCOPE_CUDA=OFF") == std::string::npos;
    const auto pci = doctor::read_nvidia_pci("/sys/bus/pci/devices");
    if (!cuda_build || (pci && pci->empty())) {
      EXPECT_NE(r.err.find("--playground-session"), std::string::npos) << r.err;
    }
    if (cuda_build && pci && pci->empty()) {
      EXPECT_NE(r.err.find("no NVIDIA GPU on this machine"), std::string::npos) << r.err;
      EXPECT_EQ(r.err.find("driver version is insufficient"), std::string::npos) << r.err;
    }
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

// The H200 recording the Playground workspace ships (at most 500 KB) opens on any machine:
// every family's ladder, every check passed, the acceptance rows present with their figures.
TEST(RunnerPlayground, TheShippedH200RecordingOpensAnywhere) {
  const std::string file = std::string(TRAINSCOPE_SOURCE_DIR) + "/resources/playground/h200.tsession.zst";
  std::FILE* f = std::fopen(file.c_str(), "rb");
  ASSERT_NE(f, nullptr) << file;
  std::fseek(f, 0, SEEK_END);
  EXPECT_LE(std::ftell(f), 500 * 1024);
  std::fclose(f);
  const RunnerResult r = run_runner_split("--playground-session " + file + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  ASSERT_FALSE(d.HasParseError()) << r.out.substr(0, 200);
  EXPECT_EQ(d["failed_checks"].GetInt(), 0);
  EXPECT_EQ(d["ladders"].Size(), 9u);
  EXPECT_NE(std::string(d["device"].GetString()).find("H200"), std::string::npos);
  bool tuned = false;
  for (const auto& l : d["ladders"].GetArray())
    for (const auto& v : l["variants"].GetArray())
      tuned = tuned || std::string(v["name"].GetString()) == "cuBLASLt BF16, tuned";
  EXPECT_TRUE(tuned);
  const RunnerResult cut = run_runner_split("--playground-session " + std::string(TRAINSCOPE_SOURCE_DIR) +
                                            "/tests/data/traces/bad_events.json");
  EXPECT_NE(cut.code, 0);
}

}  // namespace
}  // namespace ts::test
