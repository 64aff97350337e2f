// trainscope-run --memory-limit GiB ("simulate a smaller card") on the CPU backend, as a lesson runs
// it: a batch that does not fit the cap ends with the OOM message naming the simulated card and its
// advice (exit 3, no summary); the advised --batch-size/--accumulate (the same effective batch) then
// fits; a cap large enough changes nothing; the cap is in run.config and the summary; --analyze
// judges memory against the cap (device_memory_fraction, memory_pressure "Simulated ... card").
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>

#include "profiling/event_source.h"
#include "runner_test_util.h"

namespace fs = std::filesystem;

namespace {

using ts::test::have_cpu_backend;
using ts::test::RunnerResult;
using ts::test::summary;

constexpr std::int64_t kGiB = 1ll << 30;

/// The runner on the 2000-image sample set, the first 1024 training images, the CPU backend.
RunnerResult run_cpu(const std::string& args) {
  return ts::test::run_runner_split("--device cpu --data " + ts::test::runner_sample_dir() +
                                    " --limit-train 1024 --epochs 1 --num-workers 1 --quiet " + args);
}

std::string temp_session(const std::string& name) {
  const std::string p =
      (fs::temp_directory_path() / ("ts_memlimit_" + std::to_string(getpid()) + "_" + name + ".tsession")).string();
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(p + suffix);
  return p;
}

TEST(RunnerMemoryLimit, BadValuesExit2) {
  for (const char* v : {"0", "-1", "abc", "0.0000001"}) {
    const auto r = ts::test::run_runner_split(std::string("--device cpu --memory-limit ") + v);
    EXPECT_EQ(r.code, 2) << v << ": " << r.err;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  }
  EXPECT_NE(ts::test::run_runner_split("--help").out.find("--memory-limit"), std::string::npos);
}

// The lesson: batch 512 does not fit a 0.25 GiB card; the message says so, as simulated, with a batch
// size that fits and --accumulate for the same effective batch; that advice then runs to the end.
TEST(RunnerMemoryLimit, CpuOomAtTheCapAdvisesAndTheAdviceFits) {
  if (!have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  const auto oom = run_cpu("--batch-size 512 --memory-limit 0.25");
  EXPECT_EQ(oom.code, 3) << oom.err;  // a device error (main.cpp's exit codes)
  EXPECT_EQ(oom.err.rfind("error: out of memory (simulated 0.25 GiB card, --memory-limit 0.25): ", 0), 0u) << oom.err;
  EXPECT_NE(oom.err.find("free of 256.0 MiB"), std::string::npos) << oom.err;
  EXPECT_NE(oom.err.find("fits on the simulated 0.25 GiB card"), std::string::npos) << oom.err;
  EXPECT_NE(oom.err.find("the same effective batch of 512"), std::string::npos) << oom.err;
  EXPECT_NE(oom.err.find("--amp bf16"), std::string::npos) << oom.err;
  EXPECT_EQ(std::count(oom.err.begin(), oom.err.end(), '\n'), 1) << oom.err;  // one line
  EXPECT_FALSE(summary(oom.out).IsObject()) << oom.out;

  std::smatch m;
  const std::string err = oom.err;
  ASSERT_TRUE(std::regex_search(err, m, std::regex("a batch size of at most (\\d+) fits"))) << err;
  const long fits = std::stol(m[1]);
  EXPECT_GE(fits, 32);
  EXPECT_LT(fits, 512);
  ASSERT_TRUE(std::regex_search(err, m, std::regex("use --batch-size (\\d+) --accumulate (\\d+)"))) << err;
  const long micro = std::stol(m[1]), accumulate = std::stol(m[2]);
  EXPECT_EQ(micro * accumulate, 512) << err;
  EXPECT_LE(micro, fits);

  const auto fixed = run_cpu("--batch-size " + std::to_string(micro) + " --accumulate " + std::to_string(accumulate) +
                             " --memory-limit 0.25");
  ASSERT_EQ(fixed.code, 0) << fixed.err;
  const auto s = summary(fixed.out);
  ASSERT_TRUE(s.IsObject()) << fixed.out;
  EXPECT_EQ(s["memory_limit_bytes"].GetInt64(), kGiB / 4);
  EXPECT_EQ(s["accumulate"].GetInt(), accumulate);
  EXPECT_LE(s["peak_allocated_bytes"].GetInt64(), kGiB / 4);
  EXPECT_EQ(s["images_trained"].GetInt64(), 1024);
  // The largest batch the message promised fits too.
  EXPECT_EQ(run_cpu("--batch-size " + std::to_string(fits) + " --memory-limit 0.25").code, 0);
}

TEST(RunnerMemoryLimit, ACapLargeEnoughLetsTheRunFinish) {
  if (!have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  const auto r = ts::test::run_runner_split("--device cpu --data " + ts::test::runner_sample_dir() +
                                            " --limit-train 1024 --epochs 1 --num-workers 1 --batch-size 512 "
                                            "--memory-limit 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("device cpu ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", simulated 2 GiB card, --memory-limit 2), model"), std::string::npos) << r.out;
  const auto s = summary(r.out);
  ASSERT_TRUE(s.IsObject()) << r.out;
  EXPECT_EQ(s["memory_limit_bytes"].GetInt64(), 2 * kGiB);
  const auto plain = run_cpu("--batch-size 512");
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_EQ(summary(plain.out)["memory_limit_bytes"].GetInt64(), 0);
}

// A run recorded near its cap: run.config holds the cap, and --analyze takes the cap as the card:
// the fraction is the peak of the reserved bytes over the cap, memory_pressure says "Simulated".
TEST(RunnerMemoryLimit, SessionRecordsTheCapAndTheAnalysisJudgesAgainstIt) {
  if (!have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  const auto probe = run_cpu("--batch-size 64");
  ASSERT_EQ(probe.code, 0) << probe.err;
  const std::int64_t peak = summary(probe.out)["peak_allocated_bytes"].GetInt64();
  // A card 5 % larger than the run: about 95 % used, above memory_pressure's 90 %, below its 97 %.
  char gib[64];
  std::snprintf(gib, sizeof gib, "%.9f", static_cast<double>(peak) * 1.05 / static_cast<double>(kGiB));
  const std::string session = temp_session("near_cap");
  const auto r = run_cpu("--batch-size 64 --memory-limit " + std::string(gib) + " --session " + session);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::int64_t cap = std::llround(std::stod(gib) * static_cast<double>(kGiB));
  EXPECT_EQ(summary(r.out)["memory_limit_bytes"].GetInt64(), cap);

  const auto src = ts::prof::open_session(session);
  const auto meta = src->store().meta();
  rapidjson::Document config;
  config.Parse(meta.at("run.config").c_str());
  ASSERT_TRUE(config.IsObject());
  EXPECT_EQ(config["memory_limit_bytes"].GetInt64(), cap);

  const auto a = ts::test::run_runner_split("--analyze " + session + " --json");
  ASSERT_EQ(a.code, 0) << a.err;
  rapidjson::Document j;
  j.Parse(a.out.c_str());
  ASSERT_TRUE(j.IsObject()) << a.out;
  EXPECT_EQ(j["memory_limit_bytes"].GetInt64(), cap);
  ASSERT_TRUE(j["peak_reserved_bytes"].IsInt64()) << a.out;
  ASSERT_TRUE(j["device_memory_fraction"].IsNumber()) << a.out;  // a CPU run: no card without the cap
  const double fraction = j["device_memory_fraction"].GetDouble();
  EXPECT_DOUBLE_EQ(fraction, static_cast<double>(j["peak_reserved_bytes"].GetInt64()) / static_cast<double>(cap));
  EXPECT_GT(fraction, 0.90) << a.out;
  EXPECT_LE(fraction, 1.0) << a.out;
  bool pressure = false;
  for (const auto& v : j["verdicts"].GetArray()) {
    if (std::string(v["id"].GetString()) != "memory_pressure") continue;
    pressure = true;
    EXPECT_NE(std::string(v["title"].GetString()).find("Simulated"), std::string::npos) << v["title"].GetString();
    EXPECT_TRUE(v["evidence"].HasMember("simulated_card_gib"));
    EXPECT_DOUBLE_EQ(v["evidence"]["device_memory_used_pct"].GetDouble(), 100 * fraction);
  }
  EXPECT_TRUE(pressure) << a.out;
  const auto text = ts::test::run_runner_split("--analyze " + session);
  EXPECT_NE(text.out.find("simulated "), std::string::npos) << text.out;
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(session + suffix);
}

}  // namespace
