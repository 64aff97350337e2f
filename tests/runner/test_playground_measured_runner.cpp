// trainscope-run --playground --measure as a user runs it: without a GPU exit 3 with one line (as
// without --measure); a recorded run whose rows were measured prints the "measured" column group
// (occupancy %, SM %, DRAM %, DRAM GB/s) and a row not measured its reason, in text and in --json.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "common/playground_fixture.h"
#include "engine/network.h"
#include "runner_test_util.h"

namespace ts::test {
namespace {

TEST(RunnerPlaygroundMeasure, WithoutAGpuExit3WithOneLine) {
  std::string why;
  if (cuda_available(&why)) GTEST_SKIP() << "a GPU is here: ts_gpu_tests' PlaygroundGpu.MeasureFillsEveryTimedRow covers it";
  const RunnerResult r = run_runner_split("--playground copy --size 1048576 --measure");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("GPU"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(RunnerPlaygroundMeasure, ARecordedMeasuredRunPrintsTheMeasuredColumns) {
  const auto dir = fresh_temp_dir("ts_runner_pg_measured");
  const std::string path = (dir / "measured.tsession").string();
  playground::StoredRun run = pg_run();
  run.ladders.resize(2);  // vector_add, copy
  playground::Ladder& copy = run.ladders[1];
  playground::Measured m;
  m.occupancy_pct = 91.5, m.sm_pct = 12.5, m.dram_pct = 88.5, m.dram_gbps = 4123, m.duration_ns = 260e3, m.kernels = 1;
  copy.variants[0].measured = m;
  playground::Measured refused;
  refused.why = "GPU counters need root or RmProfilingAdminOnly=0";
  copy.variants[1].measured = refused;
  pg_write_session(path, run);

  const RunnerResult r = run_runner_split("--playground-session " + path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("| measured:  occ %   SM %  DRAM %  DRAM GB/s"), std::string::npos) << r.out;
  const std::size_t row = r.out.find("float per thread");
  ASSERT_NE(row, std::string::npos) << r.out;
  const std::string line = r.out.substr(row, r.out.find('\n', row) - row);
  EXPECT_NE(line.find("91.5"), std::string::npos) << line;
  EXPECT_NE(line.find("88.5"), std::string::npos) << line;
  EXPECT_NE(line.find("4123"), std::string::npos) << line;
  EXPECT_NE(r.out.find("not measured: GPU counters need root or RmProfilingAdminOnly=0"), std::string::npos) << r.out;
  // vector_add was not measured at all: no column group in its table.
  const std::string vector_add = r.out.substr(0, r.out.find("== device copy"));
  EXPECT_EQ(vector_add.find("| measured:"), std::string::npos) << vector_add;

  const RunnerResult j = run_runner_split("--playground-session " + path + " --json");
  ASSERT_EQ(j.code, 0) << j.err;
  rapidjson::Document d;
  d.Parse(j.out.c_str());
  ASSERT_FALSE(d.HasParseError()) << j.out.substr(0, 200);
  const auto& rows = d["ladders"][1]["variants"];
  EXPECT_DOUBLE_EQ(rows[0]["measured"]["occupancy_pct"].GetDouble(), 91.5);
  EXPECT_STREQ(rows[1]["measured"]["why"].GetString(), "GPU counters need root or RmProfilingAdminOnly=0");
  EXPECT_TRUE(d["ladders"][0]["variants"][0]["measured"].IsNull());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ts::test
