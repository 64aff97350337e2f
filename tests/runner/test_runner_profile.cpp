// trainscope-run --profile under stress: a file size limit reached while recording
// (training goes on, one warning line naming the file, the file keeps the batches before), and
// SIGINT/SIGTERM during a profiled run (exit 130, the session is flushed and closed, no step row after
// the last completed step).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>

#include <vector>

#include "engine/synthetic_data.h"
#include "lessons/session_pack.h"
#include "runner_test_util.h"
#include "profiling/event_source.h"

namespace fs = std::filesystem;

namespace {

using ts::test::have_cpu_backend;
std::string profile_sample_dir() { return ts::test::runner_sample_dir(); }

void remove_session(const std::string& p) {
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(p + suffix);
}

std::string temp_session(const std::string& name) {
  const std::string p =
      (fs::temp_directory_path() / ("ts_runner_" + std::to_string(getpid()) + "_" + name + ".tsession")).string();
  remove_session(p);
  return p;
}

struct Child {
  pid_t pid = -1;
  int out = -1;  // stdout+stderr
};

/// Starts the runner with `args`; `fsize_limit` > 0 sets RLIMIT_FSIZE (SIGXFSZ ignored: writes fail with EFBIG).
Child start(const std::vector<std::string>& args, rlim_t fsize_limit = 0) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    setenv("XDG_CACHE_HOME", (fs::temp_directory_path() / "ts_runner_cache").c_str(), 1);
    if (fsize_limit > 0) {
      signal(SIGXFSZ, SIG_IGN);  // stays ignored across exec
      const rlimit lim{fsize_limit, fsize_limit};
      if (setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(126);
    }
    std::vector<char*> argv{const_cast<char*>(TRAINSCOPE_RUNNER)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(TRAINSCOPE_RUNNER, argv.data());
    _exit(127);
  }
  close(fds[1]);
  return {pid, fds[0]};
}

/// Reads until `needle` appears (or EOF when needle is empty).
void read_until(int fd, std::string& out, const std::string& needle = "") {
  char buf[4096];
  while (needle.empty() || out.find(needle) == std::string::npos) {
    const auto n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
}

int finish(Child& c, std::string& out) {
  read_until(c.out, out);
  close(c.out);
  int status = 0;
  waitpid(c.pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// The highest global step among the "epoch E step S/N" progress lines.
std::int64_t last_reported_step(const std::string& out) {
  static const std::regex re(R"(epoch (\d+) step (\d+)/(\d+))");
  std::int64_t last = 0;
  for (std::sregex_iterator it(out.begin(), out.end(), re), end; it != end; ++it) {
    const std::int64_t e = std::stoll((*it)[1]), s = std::stoll((*it)[2]), n = std::stoll((*it)[3]);
    last = std::max(last, (e - 1) * n + s);
  }
  return last;
}

/// Every line of `out` containing `needle`.
std::vector<std::string> lines_with(const std::string& out, const std::string& needle) {
  std::vector<std::string> r;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (line.find(needle) != std::string::npos) r.push_back(line);
  return r;
}

TEST(RunnerProfile, EpochRowsReachTheSession) {
  if (!have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  const std::string data = profile_sample_dir();
  const std::string path = temp_session("epochs");
  Child c = start({"--device", "cpu", "--session", path, "--epochs", "2", "--batch-size", "64", "--limit-train",
                   "128", "--num-workers", "1", "--data", data, "--quiet"});
  std::string out;
  ASSERT_EQ(finish(c, out), 0) << out;
  std::unique_ptr<ts::prof::EventSource> src;
  ASSERT_NO_THROW(src = ts::prof::open_session(path)) << out;
  const ts::prof::EventStore& s = src->store();
  ASSERT_EQ(s.epochs.size(), 2u) << out;
  EXPECT_EQ(s.epochs[0].epoch, 1);
  EXPECT_EQ(s.epochs[1].epoch, 2);
  EXPECT_GT(s.epochs[1].images_per_s, 0);
  EXPECT_GT(s.epochs[1].train_ns, 0);
  EXPECT_GE(s.epochs[1].test_accuracy, 0);
  EXPECT_LE(s.epochs[1].test_accuracy, 1);
  remove_session(path);
}

TEST(RunnerProfile, FileSizeLimitStopsRecordingNotTraining) {
  if (!have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  const std::string data = profile_sample_dir();
  const std::string path = temp_session("fsize");
  // 4 epochs of 63 steps write ~8000 host ranges, ~500 KB: past a 180 KB file size limit whatever the
  // speed. Once the main file is at the limit the batches stay in the WAL (a failed checkpoint is not
  // an error), and the WAL reaches the limit too: 2 epochs (~250 KB since the compact format 4) fitted
  // in the file and its WAL together on some runs, and recording never failed.
  Child c = start({"--device", "cpu", "--profile", "--session", path, "--epochs", "4", "--batch-size", "32",
                   "--log-every", "1", "--data", data},
                  180000);
  ASSERT_GT(c.pid, 0);
  std::string out;
  const int code = finish(c, out);
  EXPECT_EQ(code, 0) << out;  // training went on
  EXPECT_EQ(last_reported_step(out), 252) << out;
  EXPECT_EQ(lines_with(out, "\"interrupted\":false").size(), 1u) << out;  // the JSON summary
  // One warning line, naming the file, saying recording stopped and why (the JSON summary's "session"
  // carries the same words as its error).
  const auto warnings = lines_with(out, "warning: session file");
  ASSERT_EQ(warnings.size(), 1u) << out;
  EXPECT_NE(warnings[0].find("session file " + path + ": "), std::string::npos) << warnings[0];
  EXPECT_TRUE(warnings[0].find("file size limit") != std::string::npos ||
              warnings[0].find("disk full") != std::string::npos) << warnings[0];
  EXPECT_EQ(warnings[0].find("disk I/O error"), std::string::npos) << warnings[0];
  EXPECT_EQ(warnings[0].find(path), warnings[0].rfind(path)) << "path named twice: " << warnings[0];
  // The file opens and holds what was written before the limit: steps 1..k, k < 252, and their ranges.
  std::unique_ptr<ts::prof::EventSource> src;
  ASSERT_NO_THROW(src = ts::prof::open_session(path)) << out;
  const auto& s = src->store();
  EXPECT_GT(s.steps.size(), 0u);
  EXPECT_LT(s.steps.size(), 252u) << "the limit was not hit before the end";
  for (std::size_t i = 0; i < s.steps.size(); ++i) EXPECT_EQ(s.steps[i].global_step, static_cast<std::int64_t>(i + 1));
  EXPECT_GT(s.host_ranges.size(), 0u);
  // The summary says what the file holds, not the steps the run took: the line and the JSON.
  const auto held = lines_with(out, "the file holds " + std::to_string(s.steps.size()) + " of the run's 252 steps");
  EXPECT_EQ(held.size(), 1u) << out;
  const auto json = lines_with(out, "\"interrupted\":false");
  ASSERT_EQ(json.size(), 1u);
  rapidjson::Document d;
  d.Parse(json[0].c_str() + json[0].find('{'));
  ASSERT_TRUE(d.IsObject() && d.HasMember("session")) << json[0];
  EXPECT_EQ(d["session"]["steps_written"].GetInt64(), static_cast<std::int64_t>(s.steps.size()));
  EXPECT_EQ(d["session"]["steps_taken"].GetInt64(), 252);
  EXPECT_FALSE(d["session"]["complete"].GetBool());
  EXPECT_TRUE(d["session"].HasMember("error"));
  remove_session(path);
}

void signal_during_profiled_run(int sig) {
  const std::string data = profile_sample_dir();
  const std::string path = temp_session(sig == SIGINT ? "sigint" : "sigterm");
  Child c = start({"--device", "cpu", "--profile", "--session", path, "--epochs", "50", "--batch-size", "32",
                   "--log-every", "1", "--data", data});
  ASSERT_GT(c.pid, 0);
  std::string out;
  read_until(c.out, out, " step 2/");  // training has started, and some batches were written
  kill(c.pid, sig);
  const int code = finish(c, out);
  EXPECT_EQ(code, 130) << out;
  const std::int64_t last = last_reported_step(out);
  ASSERT_GE(last, 2) << out;
  std::unique_ptr<ts::prof::EventSource> src;
  ASSERT_NO_THROW(src = ts::prof::open_session(path)) << out;
  const auto& s = src->store();
  ASSERT_GT(s.steps.size(), 0u);
  EXPECT_GT(s.host_ranges.size(), 0u);
  // The session was flushed: every completed step is there, and none after the last completed one.
  std::int64_t max_step = 0;
  for (std::size_t i = 0; i < s.steps.size(); ++i) max_step = std::max(max_step, s.steps[i].global_step);
  EXPECT_EQ(max_step, last) << out;
  EXPECT_EQ(static_cast<std::int64_t>(s.steps.size()), last);
  for (std::size_t i = 0; i < s.host_ranges.size(); ++i) EXPECT_LE(s.host_ranges[i].step, last);
  EXPECT_TRUE(lines_with(out, "recording stopped").empty()) << out;
  remove_session(path);
}

TEST(RunnerProfile, SigintFlushesAndClosesTheSession) {
  if (!have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  signal_during_profiled_run(SIGINT);
}

TEST(RunnerProfile, SigtermFlushesAndClosesTheSession) {
  if (!have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  signal_during_profiled_run(SIGTERM);
}

}  // namespace

namespace {

// --analyze on a real CPU session: text and one JSON object; GPU metrics absent (null), never zero.
TEST(RunnerProfile, AnalyzeACpuSession) {
  if (!have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  const std::string data = profile_sample_dir();
  const std::string path = temp_session("analyze");
  Child c = start({"--device", "cpu", "--session", path, "--epochs", "1", "--batch-size", "16", "--limit-train",
                   "256", "--num-workers", "0", "--augment", "--data", data, "--quiet"});
  std::string out;
  ASSERT_EQ(finish(c, out), 0) << out;
  Child a = start({"--analyze", path, "--json"});
  std::string json;
  ASSERT_EQ(finish(a, json), 0) << json;
  EXPECT_NE(json.find("\"steps\":15,\"warmup_steps_skipped\":1"), std::string::npos) << json;
  EXPECT_NE(json.find("\"gpu_utilization\":null"), std::string::npos) << json;
  EXPECT_NE(json.find("\"verdicts\":["), std::string::npos) << json;
  Child t = start({"--analyze", path});
  std::string text;
  ASSERT_EQ(finish(t, text), 0) << text;
  EXPECT_NE(text.find("step-time breakdown"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU metrics: absent"), std::string::npos) << text;
  Child bad = start({"--analyze", path + ".missing"});
  std::string err;
  EXPECT_EQ(finish(bad, err), 2) << err;
  remove_session(path);
}

// The H200 nw0 session's raw data-loader wait under the name the window's views give it (the GUI
// test oneFigureReadsTheSameEverywhereForOneWindow reads 35.1 % in the banner, Verdicts and Compare).
TEST(RunnerProfile, AnalyzeNamesTheRawDataLoaderWaitAsTheWindowDoes) {
  Child t = start({"--analyze", std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/gpu_b128_nw0_augment.tsession"});
  std::string text;
  ASSERT_EQ(finish(t, text), 0) << text;
  EXPECT_NE(text.find("data-loader wait (raw) 35.1 %"), std::string::npos) << text;
  EXPECT_NE(text.find("by priority"), std::string::npos) << text;
}

// A lesson's recording (*.tsession.zst) reads as the plain session does.
TEST(RunnerProfile, AnalyzeReadsACompressedRecording) {
  const std::string plain = std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/gpu_b128_nw0_augment.tsession";
  const std::string packed = (std::filesystem::temp_directory_path() / ("ts_analyze_" + std::to_string(getpid()) + ".tsession.zst")).string();
  ts::lessons::compress_session(plain, packed);
  Child t = start({"--analyze", packed});
  std::string text;
  ASSERT_EQ(finish(t, text), 0) << text;
  EXPECT_NE(text.find("data-loader wait (raw) 35.1 %"), std::string::npos) << text;
  std::filesystem::remove(packed);
}

}  // namespace
