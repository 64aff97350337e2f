// trainscope-run --compare on two playground sessions (written here from hand-made ladders, no GPU):
// the ladder comparison as text and JSON; a playground session beside a training session refused.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>

#include "common/playground_fixture.h"
#include "lessons/session_pack.h"
#include "runner_test_util.h"

namespace {

using ts::test::run_runner_split;

TEST(RunnerPlaygroundCompare, TwoPlaygroundSessionsCompareTheirLadders) {
  const auto dir = ts::test::fresh_temp_dir("ts_runner_pg_cmp");
  const std::string a = (dir / "a100.tsession").string(), b = (dir / "h200.tsession").string();
  ts::test::pg_write_session(a, ts::test::pg_run(1, "NVIDIA A100-SXM4-80GB"));
  ts::test::pg_write_session(b, ts::test::pg_run(2, "NVIDIA H200"));
  const auto r = run_runner_split("--compare " + a + " " + b);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("A: a100.tsession (NVIDIA A100-SXM4-80GB)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("differs: device"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("== sgemm"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2.00x"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no time"), std::string::npos) << "the failed check shows no time: " << r.out;
  EXPECT_NE(r.out.find("B faster in"), std::string::npos) << r.out;
  const auto j = run_runner_split("--compare " + a + " " + b + " --json");
  ASSERT_EQ(j.code, 0) << j.err;
  rapidjson::Document d;
  d.Parse(j.out.c_str());
  ASSERT_FALSE(d.HasParseError()) << j.out;
  EXPECT_STREQ(d["device_b"].GetString(), "NVIDIA H200");
  EXPECT_GE(d["ladders"].Size(), 4u);
  // The shipped recording is compressed: --compare and --playground-session read it as it is.
  const std::string zst = (dir / "h200.tsession.zst").string();
  ts::lessons::compress_session(b, zst);
  const auto z = run_runner_split("--compare " + a + " " + zst);
  EXPECT_EQ(z.code, 0) << z.err;
  EXPECT_NE(z.out.find("B: h200.tsession.zst (NVIDIA H200)"), std::string::npos) << z.out;
  const auto p = run_runner_split("--playground-session " + zst);
  EXPECT_EQ(p.code, 1) << p.err;  // the session's failed check (sgemm step 3) is exit 1, as when it ran
  EXPECT_NE(p.out.find("1 check(s) FAILED"), std::string::npos) << p.out;
  std::filesystem::remove_all(dir);
}

TEST(RunnerPlaygroundCompare, APlaygroundSessionBesideATrainingSessionIsRefused) {
  const auto dir = ts::test::fresh_temp_dir("ts_runner_pg_cmp2");
  const std::string a = (dir / "pg.tsession").string();
  ts::test::pg_write_session(a, ts::test::pg_run());
  const auto r = run_runner_split("--compare " + a + " " + std::string(TRAINSCOPE_SOURCE_DIR) +
                                  "/tests/data/gpu_b16_nw4.tsession");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("holds no playground run"), std::string::npos) << r.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
