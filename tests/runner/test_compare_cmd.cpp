// trainscope-run --compare and --export as a user runs them, on the H200 sessions of tests/data:
// text and JSON of a comparison, a Chrome trace to a file and CSV to stdout ("-"), and bad input
// (missing file, not a session, an output folder that does not exist) -> exit 2 with one line.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "base/format_number.h"
#include "runner_test_util.h"

namespace fs = std::filesystem;

namespace {

using Result = ts::test::RunnerResult;

std::string temp(const std::string& name) {
  return (fs::temp_directory_path() / ("ts_runner_cmp_" + std::to_string(getpid()) + "_" + name)).string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Runs the runner with `args` (shell words); stdout and stderr captured apart.
Result run(const std::string& args) { return ts::test::run_runner_split(args); }

std::string data(const char* name) { return std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/" + name; }
const std::string kNw4 = data("gpu_b128_nw4.tsession");
const std::string kNw0 = data("gpu_b128_nw0_augment.tsession");

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

TEST(RunnerCompare, TextTables) {
  const Result r = run("--compare " + kNw4 + " " + kNw0);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("configuration and hardware (only what differs)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("num_workers"), std::string::npos);
  EXPECT_NE(r.out.find("augment"), std::string::npos);
  EXPECT_EQ(r.out.find("batch_size"), std::string::npos) << "batch size is the same in both";
  // One throughput, named as the window and the lessons name it; no host-step rate beside it.
  EXPECT_NE(r.out.find("images/s (training time)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("img/s, median of steps"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("host step, mean ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("data wait/step (raw) ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("data_loader_wait"), std::string::npos);
  EXPECT_NE(r.out.find("input_bound"), std::string::npos);
  EXPECT_NE(r.out.find("kernel diff B against A"), std::string::npos);
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(RunnerCompare, OneJsonObject) {
  const Result r = run("--compare " + kNw4 + " " + kNw0 + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(lines(r.out), 1);
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  ASSERT_FALSE(d.HasParseError()) << r.out.substr(0, 300);
  ASSERT_EQ(d["sessions"].Size(), 2u);
  EXPECT_EQ(std::string(d["sessions"][0]["label"].GetString()), kNw4);
  ASSERT_EQ(d["config_diff"].Size(), 2u);
  EXPECT_STREQ(d["config_diff"][0]["key"].GetString(), "num_workers");
  EXPECT_STREQ(d["config_diff"][1]["key"].GetString(), "augment");
  auto fired = [&](int i) {
    for (const auto& v : d["sessions"][i]["verdicts"].GetArray())
      if (std::string(v["id"].GetString()) == "input_bound") return true;
    return false;
  };
  EXPECT_FALSE(fired(0));
  EXPECT_TRUE(fired(1));
  EXPECT_GT(d["kernel_diffs"][0]["kernels"].Size(), 20u);
  EXPECT_EQ(d["step_alignment"]["global_step"].GetInt(), 2);
}

// The text writes images/s as the window does: thousands grouped, and marked where a heavy first step
// weighs the rate down (gpu_b128_nw4's first step took 37.4 ms, 76x its median), with the reason under
// the table; the JSON carries that step's time and the finding. Both from one run's JSON figures.
TEST(RunnerCompare, ImagesPerSecondAsTheWindowWritesThem) {
  const Result j = run("--compare " + kNw4 + " " + kNw0 + " --json");
  ASSERT_EQ(j.code, 0) << j.err;
  rapidjson::Document d;
  d.Parse(j.out.c_str());
  ASSERT_FALSE(d.HasParseError());
  const auto& a = d["sessions"][0]["throughput"];
  ASSERT_TRUE(a.HasMember("first_steps_ns") && a.HasMember("first_steps_outlier") && a.HasMember("first_steps_over_median"))
      << j.out.substr(0, 600);
  EXPECT_GT(a["first_steps_ns"].GetInt64(), 30'000'000);
  EXPECT_TRUE(a["first_steps_outlier"].GetBool());
  EXPECT_NEAR(a["first_steps_over_median"].GetDouble(), a["first_steps_ns"].GetInt64() / a["median_step_ns"].GetDouble(), 1e-9);
  EXPECT_GT(a["first_steps_over_median"].GetDouble(), 5.0);
  const double rate = a["training_img_per_s"].GetDouble();
  ASSERT_GT(rate, 1000);

  const Result t = run("--compare " + kNw4 + " " + kNw0);
  ASSERT_EQ(t.code, 0) << t.err;
  const std::string grouped = ts::format_grouped(rate);
  ASSERT_NE(grouped.find(','), std::string::npos);
  EXPECT_NE(t.out.find(" " + grouped + " ⚠"), std::string::npos) << t.out;
  EXPECT_EQ(t.out.find(std::to_string(std::llround(rate))), std::string::npos) << "ungrouped\n" << t.out;
  EXPECT_NE(t.out.find("\n  A ⚠ the first step took "), std::string::npos) << t.out;
  const bool b_heavy = d["sessions"][1]["throughput"]["first_steps_outlier"].GetBool();
  EXPECT_EQ(t.out.find("\n  B ⚠ ") != std::string::npos, b_heavy) << t.out;
}

TEST(RunnerCompare, BadInputExitsTwoWithOneLine) {
  const Result missing = run("--compare " + kNw4 + " /nonexistent/x.tsession");
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(lines(missing.err), 1) << missing.err;
  EXPECT_NE(missing.err.find("/nonexistent/x.tsession"), std::string::npos) << missing.err;
  const std::string text = temp("not_a_session.tsession");
  std::ofstream(text) << "hello, not SQLite\n";
  const Result bad = run("--compare " + text + " " + kNw4 + " --json");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(lines(bad.err), 1) << bad.err;
  EXPECT_NE(bad.err.find("not_a_session"), std::string::npos) << bad.err;
  EXPECT_TRUE(bad.out.empty());
  const Result one = run("--compare " + kNw4);
  EXPECT_EQ(one.code, 2);
  fs::remove(text);
}

TEST(RunnerExport, ChromeTraceToAFile) {
  const std::string out = temp("trace.json");
  const Result r = run("--export " + kNw4 + " --format chrome --output " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("3979 kernels"), std::string::npos) << r.err;
  rapidjson::Document d;
  d.Parse(slurp(out).c_str());
  ASSERT_FALSE(d.HasParseError());
  int kernels = 0, steps = 0;
  for (const auto& e : d["traceEvents"].GetArray()) {
    if (std::string(e["ph"].GetString()) != "X") continue;
    kernels += std::string(e["cat"].GetString()) == "kernel";
    steps += std::string(e["name"].GetString()).rfind("ProfilerStep#", 0) == 0;
  }
  EXPECT_EQ(kernels, 3979);
  EXPECT_EQ(steps, 80);
  fs::remove(out);
}

TEST(RunnerExport, CsvToStdout) {
  const Result s = run("--export " + kNw4 + " --format steps-csv --output -");
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_EQ(s.out.rfind("global_step,epoch,step,start_ns,duration_ns,images,data_wait_ns,loss\r\n", 0), 0u) << s.out.substr(0, 200);
  EXPECT_EQ(lines(s.out), 81);  // header + 80 steps
  EXPECT_NE(s.out.find("\r\n1,1,1,522035285,37419327,128,803535,2.30207"), std::string::npos) << s.out.substr(0, 300);
  const Result k = run("--export " + kNw4 + " --format kernels-csv -o -");
  ASSERT_EQ(k.code, 0) << k.err;
  EXPECT_EQ(k.out.rfind("name,calls,total_ns,", 0), 0u);
  EXPECT_NE(k.out.find("\"void implicit_convolve_sgemm<float, float, 1024, 5, 5, 3, 3, 3, 1, false, false, true>"),
            std::string::npos);  // commas in the name: quoted
}

TEST(RunnerExport, BadInputExitsTwoWithOneLine) {
  const Result missing = run("--export /nonexistent/x.tsession --output " + temp("x.json"));
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(lines(missing.err), 1) << missing.err;
  const Result no_dir = run("--export " + kNw4 + " --output /nonexistent-dir/x.json");
  EXPECT_EQ(no_dir.code, 2);
  EXPECT_EQ(lines(no_dir.err), 1) << no_dir.err;
  EXPECT_NE(no_dir.err.find("/nonexistent-dir/x.json"), std::string::npos) << no_dir.err;
  const Result no_output = run("--export " + kNw4);
  EXPECT_EQ(no_output.code, 2);
  EXPECT_NE(no_output.err.find("--output"), std::string::npos) << no_output.err;
  const Result bad_format = run("--export " + kNw4 + " --format xml --output -");
  EXPECT_EQ(bad_format.code, 2);
}

}  // namespace
