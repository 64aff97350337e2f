// trainscope-run --doctor [--json|--markdown] as a user runs it: the exit code follows the
// problems (3) and warnings (0); on a machine with no NVIDIA device (this CI) that is no problem:
// exit 0, the GPU side "not applicable" and a line of what works here; with an NVIDIA device but
// no driver it says "no NVIDIA driver found" with the fix; --markdown names neither the user nor the host.
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
  bool no_driver = false;
  for (const auto& f : d["findings"].GetArray()) no_driver |= std::string(f["id"].GetString()) == "no_driver";
  if (d["no_nvidia_gpu"].GetBool()) {  // no NVIDIA device on the bus: a state, not a problem
    EXPECT_FALSE(no_driver) << r.out;
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(std::string(d["works_here"].GetString()).find("CPU training"), std::string::npos) << r.out;
  } else if (drv.IsUint() && drv.GetUint() == 0) {  // an NVIDIA device without a driver: the finding, exit 3
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
  if (r.out.find("no NVIDIA GPU on this machine") != std::string::npos) {
    EXPECT_EQ(r.out.find("[PROBLEM]"), std::string::npos) << r.out;
    const auto cupti = r.out.find("CUPTI activity tracing");
    ASSERT_NE(cupti, std::string::npos) << r.out;
    EXPECT_NE(r.out.substr(cupti, r.out.find('\n', cupti) - cupti).find("not applicable: no NVIDIA GPU"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("Works here: CPU training"), std::string::npos) << r.out;
    EXPECT_EQ(r.code, 0);
  } else if (r.out.find("none (no driver)") != std::string::npos) {
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
