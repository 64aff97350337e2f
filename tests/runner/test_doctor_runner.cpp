// trainscope-run --doctor [--json|--markdown] as a user runs it: the exit code follows the
// problems (3) and warnings (0); without a driver (this CI) it says "no NVIDIA driver found" with
// the fix and still reports the CPU side; --markdown names neither the user nor the host.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>

#include "runner_test_util.h"

namespace ts::test {
namespace {

bool has_word(const std::string& text, const std::string& w) {
  for (std::size_t p = 0; !w.empty() && (p = text.find(w, p)) != std::string::npos; ++p) {
    const bool a = p == 0 || !std::isalnum(static_cast<unsigned char>(text[p - 1]));
    const bool b = p + w.size() >= text.size() || !std::isalnum(static_cast<unsigned char>(text[p + w.size()]));
    if (a && b) return true;
  }
  return false;
}

TEST(DoctorRunner, JsonExitCodeFollowsTheProblems) {
  const RunnerResult r = run_runner_split("--doctor --json");
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  ASSERT_FALSE(d.HasParseError()) << r.out << r.err;
  int problems = 0;
  for (const auto& f : d["findings"].GetArray()) problems += std::string(f["grade"].GetString()) == "problem";
  EXPECT_EQ(r.code, problems ? 3 : 0) << r.out;
  EXPECT_EQ(d["exit_code"].GetInt(), r.code);
  EXPECT_TRUE(d["host"].HasMember("cpu_model"));
  const auto& drv = d["cuda"]["driver_version"];
  if (drv.IsUint() && drv.GetUint() == 0) {  // no driver here: the finding, and exit 3
    bool no_driver = false;
    for (const auto& f : d["findings"].GetArray()) no_driver |= std::string(f["id"].GetString()) == "no_driver";
    EXPECT_TRUE(no_driver) << r.out;
    EXPECT_EQ(r.code, 3);
  }
}

TEST(DoctorRunner, TextSaysWhatIsWrongAndStillReportsTheCpu) {
  const RunnerResult r = run_runner_split("--doctor");
  EXPECT_TRUE(r.code == 0 || r.code == 3) << r.code << r.err;
  EXPECT_NE(r.out.find("Findings:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Host\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vector extensions"), std::string::npos);
  if (r.out.find("none (no driver)") != std::string::npos) {
    EXPECT_NE(r.out.find("[PROBLEM] no NVIDIA driver found"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("fix: Install the NVIDIA driver"), std::string::npos) << r.out;
    EXPECT_EQ(r.code, 3);
  }
}

TEST(DoctorRunner, MarkdownNamesNeitherUserNorHost) {
  const RunnerResult r = run_runner_split("--doctor --markdown");
  EXPECT_TRUE(r.code == 0 || r.code == 3) << r.err;
  EXPECT_EQ(r.out.rfind("## TrainScope environment", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("| CPU |"), std::string::npos) << r.out;
  char host[256] = "";
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  EXPECT_FALSE(has_word(r.out, host)) << host << "\n" << r.out;
  const char* user = std::getenv("USER");
  if (user && std::string(user) != "root") {  // "root" names no one
    EXPECT_FALSE(has_word(r.out, user)) << r.out;
  }
}

TEST(DoctorRunner, JsonAndMarkdownTogetherIsABadArgument) {
  const RunnerResult r = run_runner_split("--doctor --json --markdown");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("not both"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ts::test
