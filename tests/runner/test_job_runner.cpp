// trainscope-run --analyze DIR / several files and --compare JOB_A JOB_B: a distributed job's ranks
// as one job (profiling/job), on the recorded 2-rank jobs of tests/data/jobs.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <string>

#include "runner/runner_test_util.h"

namespace {

std::string jobs(const char* name) {
  return std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/jobs/" + name;
}

}  // namespace

TEST(RunnerJob, AnalyzeFolderPrintsTheJob) {
  const auto r = ts::test::run_runner_split("--analyze " + jobs("j2_straggler"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("job of 2 rank(s), world size 2; launcher"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("residual skew"), std::string::npos);
  EXPECT_NE(r.out.find("straggler (rank 1)"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
}

TEST(RunnerJob, TheLaunchersSessionPointsAtItsJob) {
  // torchrun's own process (no rank) analysed alone is all "other": it says where the job is.
  auto r = ts::test::run_runner_split("--analyze " + jobs("j2_straggler/ddp.tsession"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("its folder holds 2 rank sessions of a job: trainscope-run --analyze " + jobs("j2_straggler")),
            std::string::npos)
      << r.out;
  r = ts::test::run_runner_split("--analyze " + jobs("j2_straggler/ddp-rank1.tsession"));  // a rank: no pointer
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("its folder holds"), std::string::npos) << r.out;
}

TEST(RunnerJob, SeveralFilesAndJson) {
  const auto r = ts::test::run_runner_split("--analyze " + jobs("j2_balanced/ddp-rank0.tsession") + " " +
                                            jobs("j2_balanced/ddp-rank1.tsession") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  ASSERT_FALSE(d.HasParseError()) << r.out;
  EXPECT_EQ(d["world_size"].GetInt(), 2);
  EXPECT_EQ(d["ranks"].Size(), 2u);
  EXPECT_TRUE(d["launcher"].IsNull());
  for (const auto& v : d["verdicts"].GetArray())  // communication_bound may come with collective ranges
    EXPECT_STRNE(v["id"].GetString(), "straggler");
  EXPECT_GT(d["ranks"][0]["step_period_ns"].GetInt64(), 0);
}

TEST(RunnerJob, CompareTwoJobs) {
  const auto r = ts::test::run_runner_split("--compare " + jobs("j2_balanced") + " " + jobs("j2_straggler"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("job A:"), std::string::npos);
  EXPECT_NE(r.out.find("B against A"), std::string::npos) << r.out;
}

TEST(RunnerJob, MissingRankIsOneLineOnStderr) {
  const auto r = ts::test::run_runner_split("--analyze " + jobs("j2_straggler/ddp-rank1.tsession") + " " +
                                            jobs("j2_straggler/ddp.tsession"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("rank(s) 0 missing"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}
