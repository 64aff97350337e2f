// trainscope-run as a user runs it: exit codes (0 ok, 2 bad input, 3 device, 130 signal), the
// one-line error messages, per-epoch lines and the JSON summary.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/network.h"
#include "engine/synthetic_data.h"
#include "profiling/event_source.h"
#include "runner_test_util.h"

namespace fs = std::filesystem;

namespace {

struct Result {
  int code = -1;
  std::string out;
};

/// Runs the runner with `args` (shell words), stdout+stderr captured.
Result run(const std::string& args) {
  const std::string cmd = std::string("XDG_CACHE_HOME=") + fs::temp_directory_path().string() +
                          "/ts_runner_cache " TRAINSCOPE_RUNNER " " + args + " 2>&1";
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string sample_dir() { return ts::test::runner_sample_dir(); }
using ts::test::have_cpu_backend;
using ts::test::summary;

TEST(Runner, HelpAndVersion) {
  auto r = run("--help");
  EXPECT_EQ(r.code, 0);
  for (const char* opt : {"--data", "--model", "--device", "--epochs", "--batch-size", "--num-workers", "--pin-memory",
                          "--lr", "--optimizer", "--seed", "--limit-train", "--augment", "--sync-every-step"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
  // CLI11 writes "--pin-memory,--no-pin-memory{false}" (the negation's value): the default in words,
  // the window's too (RunSettings takes RunConfig's).
  EXPECT_NE(r.out.find("default: on for CUDA runs"), std::string::npos) << r.out;
  r = run("--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("trainscope-run " TRAINSCOPE_VERSION), std::string::npos) << r.out;
}

TEST(Runner, BadArgumentsExit2) {
  EXPECT_EQ(run("--epochs 0").code, 2);
  EXPECT_EQ(run("--device tpu").code, 2);
  EXPECT_EQ(run("--optimizer lbfgs").code, 2);
  EXPECT_EQ(run("--no-such-option").code, 2);
}

TEST(Runner, MissingDataFolderIsOneLine) {
  const auto r = run("--data /nonexistent/cifar --device cpu");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("/nonexistent/cifar"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
}

TEST(Runner, TruncatedFileNamesFileAndOffset) {
  const fs::path d = ts::test::fresh_temp_dir("ts_runner_truncated");
  ts::test::copy_sample_set(d);
  fs::resize_file(d / "data_batch_2.bin", 3073 * 5 + 100);
  const auto r = run("--data " + d.string() + " --device cpu");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("data_batch_2.bin"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(std::to_string(3073 * 5)), std::string::npos) << r.out;
}

TEST(Runner, InvalidModelSpecNamesLayer) {
  const fs::path f = fs::temp_directory_path() / "ts_bad_model.json";
  std::ofstream(f) << R"({"layers":[{"type":"Conv2d","in_channels":3,"out_channels":8,"kernel_size":3},
      {"type":"Flatten"},{"type":"Linear","in_features":100,"out_features":10}]})";
  const auto r = run("--model " + f.string() + " --data " + sample_dir() + " --device cpu");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("layer 2 (Linear)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("7200"), std::string::npos) << r.out;
  EXPECT_EQ(run("--model no_such_preset").code, 2);
}

TEST(Runner, BatchSizeZeroOrTooLarge) {
  EXPECT_EQ(run("--batch-size 0 --data " + sample_dir() + " --device cpu").code, 2);
  const auto r = run("--batch-size 100000 --data " + sample_dir() + " --device cpu");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("larger than the 2000 training images"), std::string::npos) << r.out;
}

TEST(Runner, CudaWithoutGpuSuggestsCpu) {
  if (ts::cuda_available()) GTEST_SKIP() << "a GPU is present";
  const auto r = run("--device cuda --data " + sample_dir());
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("--device cpu"), std::string::npos) << r.out;
}

TEST(Runner, TrainsOnSampleSetAndPrintsSummary) {
  if (!have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  const auto r = run("--device cpu --data " + sample_dir() + " --epochs 2 --batch-size 64 --num-workers 1 --seed 3");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("epoch 1/2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("epoch 2/2"), std::string::npos) << r.out;
  const auto s = summary(r.out);
  ASSERT_TRUE(s.IsObject()) << r.out;
  EXPECT_STREQ(s["device"].GetString(), "cpu");
  EXPECT_EQ(s["epochs"].GetInt(), 2);
  const double acc = s["test_accuracy"].GetDouble();
  EXPECT_GT(acc, 0.3) << "a 10-class sample set should be learnt well above chance";  // chance: 0.1
  EXPECT_LE(acc, 1.0);
  EXPECT_GT(s["images_per_s"].GetDouble(), 0);
  EXPECT_LT(s["train_loss"].GetDouble(), 2.2);  // log(10) = 2.303 at the start
  EXPECT_FALSE(s["interrupted"].GetBool());
}

TEST(Runner, SigintStopsAfterStepAndPrintsSummary) {
  if (!have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const std::string data = sample_dir();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    execl(TRAINSCOPE_RUNNER, TRAINSCOPE_RUNNER, "--device", "cpu", "--data", data.c_str(), "--epochs", "50",
          "--batch-size", "32", "--log-every", "1", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  // wait until training has started (a step line), then interrupt
  while (out.find("step ") == std::string::npos) {
    const auto n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  kill(pid, SIGINT);
  while (true) {
    const auto n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  close(fds[0]);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 130) << out;
  const auto s = summary(out);
  ASSERT_TRUE(s.IsObject()) << out;
  EXPECT_TRUE(s["interrupted"].GetBool());
  EXPECT_EQ(s["epochs"].GetInt(), 1);
}

}  // namespace

namespace {

std::string real_cifar_dir() {
  if (const char* env = std::getenv("TRAINSCOPE_CIFAR_DIR")) return env;
  return TRAINSCOPE_SHARED_DIR "/data/cifar-10-batches-bin";
}

// Acceptance of the engine slice on a machine without GPU: one epoch on the first 10,000 real
// CIFAR-10 training images reaches a test accuracy above 30 % (chance is 10 %).
TEST(RunnerRealCifar, CpuOneEpochOn10kImagesAbove30Percent) {
  if (!have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  if (!fs::exists(real_cifar_dir() + "/test_batch.bin")) GTEST_SKIP() << "real CIFAR-10 not found at " << real_cifar_dir();
  const auto r = run("--device cpu --data " + real_cifar_dir() + " --epochs 1 --limit-train 10000 --num-workers 1");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto s = summary(r.out);
  ASSERT_TRUE(s.IsObject()) << r.out;
  EXPECT_EQ(s["train_images"].GetInt64(), 10000);
  EXPECT_GT(s["test_accuracy"].GetDouble(), 0.30) << r.out;
  std::printf("real CIFAR-10, CPU, 1 epoch on 10k images: test accuracy %.4f, %.0f img/s\n",
              s["test_accuracy"].GetDouble(), s["images_per_s"].GetDouble());
}

}  // namespace

namespace {

TEST(RunnerAmp, CpuRefusesAmpWithReason) {
  if (!have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  const auto r = run("--device cpu --data " + sample_dir() + " --epochs 1 --amp fp16");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("error: --amp fp16 on the CPU: fp16 AMP is a CUDA feature"), std::string::npos) << r.out;
  const auto b = run("--device cpu --data " + sample_dir() + " --epochs 1 --amp bf16");
  EXPECT_EQ(b.code, 2) << b.out;
  EXPECT_NE(b.out.find("error: --amp bf16 on the CPU"), std::string::npos) << b.out;
  EXPECT_EQ(run("--amp fp8").code, 2);
}

// --cuda-graphs on|off: anything else is a bad argument; the summary says whether steps were replayed (never on
// the CPU, whatever the knob). (The replayed steps themselves are checked on a GPU: tests/gpu/test_cuda_graphs.cpp.)
TEST(RunnerGraphs, CudaGraphsTakesOnOrOff) {
  const auto bad = run("--device cpu --data " + sample_dir() + " --cuda-graphs maybe");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("--cuda-graphs"), std::string::npos) << bad.out;
  if (!have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  const auto dir = ts::test::fresh_temp_dir("ts_runner_graphs");
  for (const char* v : {"on", "off", ""}) {  // "": the default, on
    const std::string session = (dir / (std::string(*v ? v : "default") + ".tsession")).string();
    const auto r = run("--device cpu --data " + sample_dir() + " --limit-train 256 --batch-size 64 --num-workers 1 "
                       "--epochs 1 --quiet --session " + session + (*v ? " --cuda-graphs " + std::string(v) : std::string()));
    ASSERT_EQ(r.code, 0) << r.out;
    const auto s = summary(r.out);
    ASSERT_TRUE(s.IsObject()) << r.out;
    EXPECT_FALSE(s["cuda_graphs"].GetBool()) << r.out;  // a CPU run replays no graph, on by default or asked
    rapidjson::Document config;  // the knob itself, as run.config keeps it
    config.Parse(ts::prof::open_session(session)->store().meta().at("run.config").c_str());
    ASSERT_TRUE(config.IsObject() && config.HasMember("cuda_graphs")) << v;
    EXPECT_EQ(config["cuda_graphs"].GetBool(), std::string(v) != "off") << v;
    // No graph replays on the CPU: the hybrid default of CUDA-graph runs does not apply.
    EXPECT_EQ(ts::prof::open_session(session)->store().meta().at("session.trace_mode"), "every kernel") << v;
  }
  const auto every = run("--device cpu --data " + sample_dir() + " --limit-train 64 --batch-size 64 --num-workers 1 "
                         "--epochs 1 --quiet --profile-every-kernel --session " + (dir / "every.tsession").string());
  EXPECT_EQ(every.code, 0) << every.out;
  std::filesystem::remove_all(dir);
}

TEST(RunnerCheckpoint, TruncatedOrForeignResumeRefused) {
  const auto bad = (fs::temp_directory_path() / "ts_runner_bad.tsckpt").string();
  std::ofstream(bad) << "definitely not a checkpoint";
  const auto r = run("--device cpu --data " + sample_dir() + " --epochs 2 --resume " + bad);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("error: " + bad + ": not a TrainScope checkpoint"), std::string::npos) << r.out;
}

// Deterministic CPU run with a checkpoint after epoch 1, then a second process resumed from it: its
// epoch-2 train loss and accuracy equal the uninterrupted run's exactly; accumulation is on as well.
TEST(RunnerCheckpoint, ResumeReproducesUninterruptedRun) {
  if (!have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  const auto dir = (fs::temp_directory_path() / "ts_runner_ckpt/").string();
  fs::remove_all(dir);
  const std::string common = "--device cpu --data " + sample_dir() +
                             " --limit-train 512 --batch-size 64 --accumulate 2 --num-workers 1 --seed 5 "
                             "--deterministic --epochs 2 --quiet";
  const auto full = run(common + " --checkpoint-every 1 --checkpoint " + dir);
  ASSERT_EQ(full.code, 0) << full.out;
  ASSERT_TRUE(fs::exists(dir + "checkpoint-epoch1.tsckpt")) << full.out;
  const auto resumed = run(common + " --resume " + dir + "checkpoint-epoch1.tsckpt");
  ASSERT_EQ(resumed.code, 0) << resumed.out;
  const auto a = summary(full.out), b = summary(resumed.out);
  ASSERT_TRUE(a.IsObject() && b.IsObject()) << full.out << resumed.out;
  EXPECT_EQ(b["first_epoch"].GetInt(), 2);
  EXPECT_EQ(a["epoch_train_loss"][1].GetDouble(), b["epoch_train_loss"][0].GetDouble());
  EXPECT_EQ(a["test_accuracy"].GetDouble(), b["test_accuracy"].GetDouble());
  EXPECT_EQ(a["optimizer_steps"].GetInt64(), b["optimizer_steps"].GetInt64());
  EXPECT_EQ(a["optimizer_steps"].GetInt64(), 8);  // 2 epochs x 8 micro-batches / 2
  EXPECT_STREQ(a["amp"].GetString(), "off");
  EXPECT_EQ(a["skipped_steps"].GetInt64(), 0);
}

}  // namespace

namespace {

TEST(RunnerMessages, RangeErrorsAreShortAndPrefixed) {
  for (const char* args : {"--lr 0", "--epochs -1", "--num-workers -2", "--epochs 1.5x"}) {
    const auto r = run(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(r.out.rfind("error: ", 0), 0u) << r.out;
    EXPECT_LT(r.out.size(), 200u) << r.out;  // not the whole double range
  }
  EXPECT_NE(run("--lr 0").out.find("must be > 0"), std::string::npos);
}

TEST(RunnerMessages, NesterovWithoutMomentumRefused) {
  const auto r = run("--optimizer sgd --nesterov --data " + sample_dir() + " --device cpu");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--nesterov needs --momentum"), std::string::npos) << r.out;
}

// A SIGINT handled on the trainer thread while oneDNN's inner product ran corrupted the
// heap (glibc abort, exit 134, about 1 run in 20 here under load). Both interrupts must end in 130,
// also with the two signals back to back and both cores busy.
TEST(RunnerMessages, SecondInterruptQuitsAtOnce) {
  if (!have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  // The signals go once the runner has printed its first line: a SIGINT that comes before main() has
  // blocked it is lost (a background job of sh starts with SIGINT ignored), and the run would train
  // all 50 epochs. Then 1 s, so that they land in the middle of training steps.
  const std::string out = (fs::temp_directory_path() / ("ts_runner_sigint_" + std::to_string(getpid()))).string();
  const std::string cmd = std::string("XDG_CACHE_HOME=") + fs::temp_directory_path().string() + "/ts_runner_cache " +
                          TRAINSCOPE_RUNNER + " --device cpu --epochs 50 --batch-size 32 --data " + sample_dir() +
                          " > " + out + " 2>&1 & p=$!; for i in $(seq 600); do grep -q '^device' " + out +
                          " && break; sleep 0.1; done; sleep 1; kill -INT $p; kill -INT $p; wait $p; echo $?";
  FILE* f = popen(cmd.c_str(), "r");
  char buf[64] = {};
  const std::size_t n = fread(buf, 1, sizeof buf - 1, f);
  pclose(f);
  std::ifstream log(out);
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_EQ(std::string(buf, n), "130\n") << text;
  fs::remove(out);
}

/// Name and blocked-signal mask (SigBlk) of every thread of process `pid`, from /proc.
std::vector<std::pair<std::string, std::uint64_t>> thread_masks(pid_t pid) {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  std::error_code ec;
  for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream in(task.path() / "status");
    std::string line, name;
    std::uint64_t blocked = 0;
    while (std::getline(in, line)) {
      if (line.rfind("Name:", 0) == 0) name = line.substr(line.find_first_not_of(" \t", 5));
      if (line.rfind("SigBlk:", 0) == 0) blocked = std::stoull(line.substr(7), nullptr, 16);
    }
    if (!name.empty()) out.emplace_back(name, blocked);
  }
  return out;
}

// The cause of the abort above, checked directly: while a CPU run trains, SIGINT and SIGTERM are
// blocked in every thread (trainer, OpenMP pool, loader workers) but the one that waits for them.
TEST(RunnerSignals, OnlyTheSignalThreadTakesSigintAndSigterm) {
  if (!have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  const std::string data = sample_dir();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (!std::freopen("/dev/null", "w", stdout)) _exit(127);
    execl(TRAINSCOPE_RUNNER, TRAINSCOPE_RUNNER, "--device", "cpu", "--epochs", "50", "--batch-size", "32",
          "--num-workers", "2", "--data", data.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  std::vector<std::pair<std::string, std::uint64_t>> threads;
  for (int i = 0; i < 400; ++i) {  // up to 20 s until the loader workers run (training has started)
    threads = thread_masks(pid);
    bool loading = false;
    for (const auto& t : threads) loading |= t.first.rfind("loader-", 0) == 0;
    if (loading) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  constexpr std::uint64_t kStop = (1ull << (SIGINT - 1)) | (1ull << (SIGTERM - 1));
  int takers = 0, loaders = 0;
  for (const auto& [name, blocked] : threads) {
    loaders += name.rfind("loader-", 0) == 0;
    if ((blocked & kStop) == kStop) continue;
    ++takers;
    EXPECT_EQ(name, "ts-signals") << "thread '" << name << "' can take SIGINT/SIGTERM (SigBlk " << std::hex << blocked << ")";
  }
  EXPECT_EQ(takers, 1);
  EXPECT_GE(loaders, 1) << threads.size() << " threads, none a loader worker: training did not start";
  EXPECT_GE(threads.size(), 4u);  // trainer, signal thread, loader workers (and the OpenMP pool)
  kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 130);
}

// The crash report (base/crash_report.h): a training run catches SIGSEGV, and one that gets it writes
// the report (what it was doing, a backtrace) to stderr, then still dies of the signal.
TEST(RunnerSignals, ASegfaultPrintsACrashReportAndStillKillsTheRun) {
  if (!have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  const std::string data = sample_dir();
  const std::string err = (fs::temp_directory_path() / ("ts_crash_report_" + std::to_string(getpid()) + ".txt")).string();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (!std::freopen("/dev/null", "w", stdout) || !std::freopen(err.c_str(), "w", stderr)) _exit(127);
    execl(TRAINSCOPE_RUNNER, TRAINSCOPE_RUNNER, "--device", "cpu", "--epochs", "50", "--batch-size", "32",
          "--num-workers", "2", "--data", data.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  bool loading = false;
  for (int i = 0; i < 400 && !loading; ++i) {  // up to 20 s until training has started
    for (const auto& t : thread_masks(pid)) loading |= t.first.rfind("loader-", 0) == 0;
    if (!loading) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(loading) << "training did not start";
  std::uint64_t caught = 0;  // SigCgt: the signals the process has a handler for
  {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);)
      if (line.rfind("SigCgt:", 0) == 0) caught = std::stoull(line.substr(7), nullptr, 16);
  }
  EXPECT_NE(caught & (1ull << (SIGSEGV - 1)), 0u) << "no SIGSEGV handler (SigCgt " << std::hex << caught << ")";
  kill(pid, SIGSEGV);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exited " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  EXPECT_EQ(WTERMSIG(status), SIGSEGV);
  std::ifstream in(err);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("TrainScope crashed: SIGSEGV"), std::string::npos) << text;
  EXPECT_NE(text.find("backtrace"), std::string::npos) << text;
  EXPECT_NE(text.find("end of crash report"), std::string::npos) << text;
  fs::remove(err);
}

}  // namespace
