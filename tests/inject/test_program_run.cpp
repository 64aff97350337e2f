// trainscope-run -- PROGRAM, run as a user would, with programs that are not CUDA programs: the exit
// code passes through, a program without CUDA or NVTX is said to be one and still leaves a readable
// session, a program using NVTX (nvtx_program.cpp) loads the library through NVTX_INJECTION64_PATH
// and records its steps, forked children record nothing, ranks name the files, and SIGINT/SIGTERM
// sent to the runner reach the program and leave a readable session.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "engine/host_trace.h"
#include "profiling/analysis/analysis.h"
#include "profiling/session/session_file.h"

namespace fs = std::filesystem;
using namespace ts::prof;

namespace {

struct Result {
  int code = -1;
  std::string output;
};

fs::path temp_dir(const char* name) {
  const fs::path d = fs::temp_directory_path() / ("ts-inject-run-" + std::to_string(getpid()) + "-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// Runs trainscope-run ARGS with `env` added; with `signal_after_ms` > 0 sends `sig` to the runner
/// then. Output (stdout and stderr) is collected from a file.
Result run(const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& env = {},
           int signal_after_ms = 0, int sig = SIGINT) {
  const fs::path out = fs::temp_directory_path() / ("ts-inject-run-" + std::to_string(getpid()) + ".out");
  const pid_t p = fork();
  if (p == 0) {
    const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1), dup2(fd, 2);
    setpgid(0, 0);  // as timeout(1) runs it: signals come from kill, not a terminal
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    setenv("TRAINSCOPE_NOTICE_AFTER_S", "1", 0);
    std::vector<char*> argv{const_cast<char*>(TRAINSCOPE_RUNNER)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(TRAINSCOPE_RUNNER, argv.data());
    _exit(126);
  }
  if (signal_after_ms > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(signal_after_ms));
    kill(p, sig);
  }
  int st = 0;
  waitpid(p, &st, 0);
  Result r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  std::ifstream f(out);
  std::stringstream ss;
  ss << f.rdbuf();
  r.output = ss.str();
  return r;
}

std::map<std::string, std::string> meta_of(const std::string& path) {
  EventStore s;
  read_session(path, s);
  return s.meta();
}

const std::vector<std::pair<std::string, std::string>> kLib{{"TRAINSCOPE_INJECT_LIB", TRAINSCOPE_INJECT_LIB_PATH}};

}  // namespace

TEST(ProgramRun, NotACudaProgramIsSaidAndItsExitCodePasses) {
  const fs::path d = temp_dir("plain");
  const std::string session = (d / "plain.tsession").string();
  const Result r = run({"--session", session, "--", "/bin/sh", "-c", "echo hello from sh; sleep 2; exit 3"}, kLib);
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("hello from sh"), std::string::npos);
  EXPECT_NE(r.output.find("has not started CUDA or NVTX after 1 s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("not a CUDA program"), std::string::npos) << r.output;
  const auto m = meta_of(session);  // readable, and says why it is empty
  EXPECT_NE(m.at("gpu_activity").find("never initialised CUDA"), std::string::npos);
  fs::remove_all(d);
}

TEST(ProgramRun, AProgramThatExitsAtOnceAndOneThatCannotStart) {
  const fs::path d = temp_dir("quick");
  const Result quick = run({"--session", (d / "q.tsession").string(), "--", "/bin/true"}, kLib);
  EXPECT_EQ(quick.code, 0) << quick.output;
  check_session((d / "q.tsession").string());
  const Result missing = run({"--session", (d / "m.tsession").string(), "--", "/no/such/program"}, kLib);
  EXPECT_EQ(missing.code, 127);
  EXPECT_NE(missing.output.find("cannot start /no/such/program"), std::string::npos) << missing.output;
  const Result stray = run({"python3", "x.py"}, kLib);  // no "--": not a program to record, not training either
  EXPECT_EQ(stray.code, 2) << stray.output;
  EXPECT_NE(stray.output.find("goes after --"), std::string::npos) << stray.output;
  const Result nothing = run({"--"}, kLib);
  EXPECT_EQ(nothing.code, 2) << nothing.output;
  // A session that cannot be written is said before the program runs (not after an hour of training).
  const fs::path marker = d / "ran";
  const Result nowhere = run({"--session", "/nonexistent-dir/x.tsession", "--", "/bin/sh", "-c", "touch " + marker.string()},
                             kLib);
  EXPECT_EQ(nowhere.code, 2) << nowhere.output;
  EXPECT_NE(nowhere.output.find("the folder /nonexistent-dir does not exist"), std::string::npos) << nowhere.output;
  EXPECT_FALSE(fs::exists(marker));
  fs::remove_all(d);
}

TEST(ProgramRun, NvtxStepsAreRecordedAndForkedChildrenRecordNothing) {
  const fs::path d = temp_dir("nvtx");
  const std::string session = (d / "n.tsession").string();
  const Result r = run({"--session", session, "--", TRAINSCOPE_NVTX_PROGRAM, "--steps", "12", "--step-ms", "5", "--fork", "--exit", "5"}, kLib);
  EXPECT_EQ(r.code, 5) << r.output;
  EXPECT_NE(r.output.find("nvtx program: 12 steps"), std::string::npos);
  EventStore s;
  read_session(session, s);
  ASSERT_EQ(s.steps.size(), 12u);  // the child's 3 "step" ranges are not in it
  const auto m = s.meta();
  EXPECT_EQ(m.at("steps.rule"), "ranges matching 'step'");
  EXPECT_EQ(m.at("inject.status"), "closed: the program exited");
  EXPECT_NE(m.at("gpu_activity").find("did not initialise CUDA"), std::string::npos);
  ASSERT_EQ(s.threads.size(), 1u);  // the step thread's lane carries its OS name (comm: 15 characters);
  EXPECT_EQ(s.strings.get(s.threads[0].name), "ts_inject_nvtx_");  // nvtxNameOsThreadA(0, ...) names no thread
  EXPECT_EQ(std::distance(fs::directory_iterator(d), fs::directory_iterator()), 1);  // no -pid file of the child
  analysis::Options o;
  o.warmup_steps = 1;  // as --analyze
  const analysis::Report rep = analysis::analyze(s, o);
  EXPECT_EQ(rep.steps, 11);  // one warm-up step left out
  EXPECT_GT(rep.data_wait_ns, 0);
  const Result a = run({"--analyze", session});
  EXPECT_EQ(a.code, 0) << a.output;
  EXPECT_NE(a.output.find("recorded with --inject-mode lean: not available: the launch calls"), std::string::npos) << a.output;
  EXPECT_NE(a.output.find("input_bound"), std::string::npos) << a.output;  // >= 1 ms of data in each ~6 ms step
  fs::remove_all(d);
}

TEST(ProgramRun, StepRangeAndRankNameTheSession) {
  const fs::path d = temp_dir("rank");
  const std::string session = (d / "r.tsession").string();
  const Result r = run({"--session", session, "--step-range", "train_step", "--", TRAINSCOPE_NVTX_PROGRAM, "--steps", "4",
                        "--name", "train_step"},
                       {kLib[0], {"RANK", "3"}, {"WORLD_SIZE", "8"}});
  EXPECT_EQ(r.code, 0) << r.output;
  const std::string ranked = (d / "r-rank3.tsession").string();
  ASSERT_TRUE(fs::exists(ranked)) << r.output;
  EventStore s;
  read_session(ranked, s);
  EXPECT_EQ(s.steps.size(), 4u);
  EXPECT_EQ(s.meta().at("distributed.rank"), "3");
  EXPECT_EQ(s.meta().at("steps.rule"), "ranges matching 'train_step'");
  EXPECT_EQ(run({"--step-range", "(", "--", "/bin/true"}, kLib).code, 2);  // a bad pattern, before starting anything
  const Result plain = run({"--session", session, "--", "/bin/true"}, {kLib[0], {"RANK", "5"}});
  EXPECT_TRUE(fs::exists(d / "r-rank5.tsession")) << plain.output;  // the empty session of a rank, named as its own
  fs::remove_all(d);
}

TEST(ProgramRun, InterruptAndTerminateLeaveAReadableSession) {
  const fs::path d = temp_dir("signals");
  const std::string a = (d / "int.tsession").string(), b = (d / "term.tsession").string();
  const Result i = run({"--session", a, "--", TRAINSCOPE_NVTX_PROGRAM, "--forever", "--step-ms", "50"}, kLib, 2500, SIGINT);
  EXPECT_EQ(i.code, 130) << i.output;  // SIGINT forwarded; the program had no handler
  EventStore s;
  read_session(a, s);  // killed before it closed: all but the last second
  EXPECT_GE(s.steps.size(), 10u);
  const Result t = run({"--session", b, "--", TRAINSCOPE_NVTX_PROGRAM, "--forever", "--step-ms", "50"}, kLib, 2500, SIGTERM);
  EXPECT_EQ(t.code, 143) << t.output;
  const auto m = meta_of(b);
  EXPECT_NE(m.at("inject.status").find("signal 15"), std::string::npos);  // closed by the deferred handler
  fs::remove_all(d);
}

// Python, as a PyTorch script: NVTX through a ctypes-loaded library, a forked worker, then an uncaught
// KeyboardInterrupt (Python finalizes, then kills itself with SIGINT: no C atexit handler runs, the
// Py_AtExit one does, so the session is closed, not left as a killed recording).
TEST(ProgramRun, PythonKeyboardInterruptClosesTheSession) {
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const fs::path d = temp_dir("python");
  const std::string session = (d / "py.tsession").string();
  const std::string script = std::string("import ctypes, os\n") + "lib = ctypes.CDLL('" + TRAINSCOPE_NVTX_SHIM + "')\n" +
                             "lib.ts_steps(4, 5)\n"
                             "pid = os.fork()\n"
                             "if pid == 0:\n    lib.ts_steps(3, 1)\n    os._exit(0)\n"
                             "os.waitpid(pid, 0)\n"
                             "lib.ts_steps(4, 5)\n"
                             "raise KeyboardInterrupt\n";
  const Result r = run({"--session", session, "--", "python3", "-c", script}, kLib);
  EXPECT_EQ(r.code, 130) << r.output;
  EventStore s;
  read_session(session, s);
  EXPECT_EQ(s.steps.size(), 8u);  // not the forked worker's 3
  EXPECT_EQ(s.meta().at("inject.status"), "closed: the program exited");
  fs::remove_all(d);
}

// The CUPTI side without a GPU: a stand-in libcupti (TRAINSCOPE_CUPTI) and a program that calls
// InitializeInjection as cuInit does. Kernels reach the session; a refused subscription is said
// plainly and the NVTX steps are still recorded.
TEST(ProgramRun, CuptiGlueWithAStandInCupti) {
  const fs::path d = temp_dir("fakecupti");
  const std::string ok = (d / "ok.tsession").string(), busy = (d / "busy.tsession").string();
  const Result r = run({"--session", ok, "--", TRAINSCOPE_FAKE_DRIVER}, {kLib[0], {"TRAINSCOPE_CUPTI", TRAINSCOPE_FAKE_CUPTI}});
  EXPECT_EQ(r.code, 0) << r.output;
  EventStore s;
  read_session(ok, s);
  EXPECT_GE(s.kernels.size(), 50u) << r.output;  // one per 10 ms of a ~1.5 s run, the last ones by the forced flush at exit
  EXPECT_EQ(s.steps.size(), 60u);
  EXPECT_EQ(s.strings.get(s.kernels[0].name), "fakeKernel()");
  const auto m = s.meta();
  EXPECT_EQ(m.at("gpu_activity"), "collected (CUPTI)");
  EXPECT_EQ(m.at("cupti.path"), TRAINSCOPE_FAKE_CUPTI);
  EXPECT_EQ(m.at("inject.kinds"), "CONCURRENT_KERNEL,MEMCPY,SYNC_CALLS");
  const Result b = run({"--session", busy, "--", TRAINSCOPE_FAKE_DRIVER},
                       {kLib[0], {"TRAINSCOPE_CUPTI", TRAINSCOPE_FAKE_CUPTI}, {"FAKE_CUPTI", "busy"}});
  EXPECT_EQ(b.code, 0) << b.output;
  EXPECT_NE(b.output.find("CUPTI allows one subscriber per process"), std::string::npos) << b.output;
  EXPECT_NE(b.output.find("NVTX ranges and steps still are"), std::string::npos) << b.output;
  EventStore sb;
  read_session(busy, sb);
  EXPECT_EQ(sb.kernels.size(), 0u);
  EXPECT_EQ(sb.steps.size(), 60u);
  EXPECT_NE(sb.meta().at("gpu_activity").find("CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"), std::string::npos);
  // SYNC_CALLS: each step's 10 ms stream sync becomes a sync range of the step's thread, inside the step.
  const std::string syn = (d / "sync.tsession").string();
  const Result y = run({"--session", syn, "--", TRAINSCOPE_FAKE_DRIVER, "--steps", "20", "--sync-ms", "10"},
                       {kLib[0], {"TRAINSCOPE_CUPTI", TRAINSCOPE_FAKE_CUPTI},
                        {"TRAINSCOPE_INJECT_KINDS", "CONCURRENT_KERNEL,SYNC_CALLS"}});
  EXPECT_EQ(y.code, 0) << y.output;
  EventStore sy;
  read_session(syn, sy);
  ASSERT_EQ(sy.steps.size(), 20u);
  int syncs = 0;
  for (std::size_t i = 0; i < sy.host_ranges.size(); ++i) {
    const HostRangeRecord& h = sy.host_ranges[i];
    if (h.kind != static_cast<std::uint8_t>(ts::trace::RangeKind::sync)) continue;
    ++syncs;
    EXPECT_EQ(sy.strings.get(h.name), "cudaStreamSynchronize");
    EXPECT_GE(h.end - h.start, 9'000'000);
    EXPECT_GE(h.step, 1);
    const StepRecord& st = sy.steps[static_cast<std::size_t>(h.step - 1)];
    EXPECT_TRUE(h.start >= st.start && h.end <= st.end) << "sync outside its step " << h.step;
  }
  EXPECT_EQ(syncs, 20);
  analysis::Options o;
  o.warmup_steps = 1;
  EXPECT_GT(analysis::analyze(sy, o).sync_ns, 19 * 9'000'000);
  // The same program without SYNC_CALLS (the default kinds): no sync ranges from callbacks.
  const std::string nos = (d / "nosync.tsession").string();
  EXPECT_EQ(run({"--session", nos, "--", TRAINSCOPE_FAKE_DRIVER, "--steps", "5", "--sync-ms", "10"},
                {kLib[0], {"TRAINSCOPE_CUPTI", TRAINSCOPE_FAKE_CUPTI}, {"TRAINSCOPE_INJECT_KINDS", "CONCURRENT_KERNEL"}})
                .code, 0);
  EventStore sn;
  read_session(nos, sn);
  for (std::size_t i = 0; i < sn.host_ranges.size(); ++i)
    EXPECT_NE(sn.host_ranges[i].kind, static_cast<std::uint8_t>(ts::trace::RangeKind::sync));
  const Result none = run({"--session", (d / "none.tsession").string(), "--", TRAINSCOPE_FAKE_DRIVER, "--steps", "2"},
                          {kLib[0], {"TRAINSCOPE_CUPTI", "/no/such/libcupti.so.13"}});
  EXPECT_EQ(none.code, 0);
  EXPECT_NE(none.output.find("GPU activity is not recorded"), std::string::npos) << none.output;
  fs::remove_all(d);
}

// The Python insight end to end, without torch or a GPU: trainscope-run puts trainscope_site first on
// PYTHONPATH, the stand-in torch (tests/inject/python/fake_torch) sends its NVTX calls through real
// NVTX (the shim) into the library, the sampler calls trainscope_py_* through ctypes. The session has
// steps from optimizer.step, the data fetches as data waits, the .item() call site, Python samples of
// the stepping thread, and --python off leaves all of it out.
TEST(ProgramRun, PythonInsightRecordsStepsPhasesAndStackSamples) {
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const fs::path src = fs::path(TRAINSCOPE_SOURCE_DIR) / "tests" / "inject" / "python";
  const fs::path d = temp_dir("insight");
  const std::string on = (d / "on.tsession").string(), off = (d / "off.tsession").string();
  const std::vector<std::pair<std::string, std::string>> env = {
      kLib[0], {"PYTHONPATH", (src / "fake_torch").string()}, {"FAKE_TORCH_NVTX_SHIM", TRAINSCOPE_NVTX_SHIM},
      {"PYTHONDONTWRITEBYTECODE", "1"}};
  const std::string prog = (src / "programs" / "prog_recorded.py").string();
  const Result r = run({"--session", on, "--", "python3", prog}, env);
  ASSERT_EQ(r.code, 0) << r.output;
  EventStore s;
  read_session(on, s);
  const auto meta = s.meta();
  EXPECT_EQ(meta.at("steps.rule"), "optimizer.step calls (Python insight)");
  EXPECT_EQ(meta.at("python.insight"), "lean");
  EXPECT_EQ(s.steps.size(), 40u) << r.output;
  std::size_t data = 0, forward = 0, item = 0;
  for (std::size_t i = 0; i < s.host_ranges.size(); ++i) {
    const HostRangeRecord& h = s.host_ranges[i];
    data += h.kind == static_cast<std::uint8_t>(ts::trace::RangeKind::data_wait);
    forward += h.kind == static_cast<std::uint8_t>(ts::trace::RangeKind::forward);
    item += s.strings.get(h.name).starts_with("sync: .item() prog_recorded.py:");
  }
  EXPECT_GE(data, 40u);
  EXPECT_GE(forward, 80u);  // the model and the loss module
  EXPECT_EQ(item, 40u);
  EXPECT_GT(s.steps[5].data_wait_ns, 6'000'000);  // the ~8 ms fetch is the step's data wait
  ASSERT_GT(s.py_samples.size(), 10u) << "no stack samples";
  // The samples name the dataset's line (the innermost frame of the program's own code).
  const analysis::Report rep = analysis::analyze(s);
  EXPECT_GT(rep.python_samples, 10);
  ASSERT_TRUE(rep.frames_by_cause.count("idle"));
  // (The stand-in torch is no site-packages folder: its frames count as the program's own.)
  const auto& top = rep.frames_by_cause.at("input");
  EXPECT_TRUE(std::any_of(top.begin(), top.end(), [](const analysis::FrameShare& f) {
    return f.where.rfind("prog_recorded.py:", 0) == 0 && f.function.find("__iter__") != std::string::npos;
  })) << top.front().where;
  EXPECT_NE(analysis::to_text(rep).find("Python insight: lean"), std::string::npos);
  // --python off: a plain recording (no steps from the optimizer, no samples).
  const Result r2 = run({"--session", off, "--python", "off", "--", "python3", prog}, env);
  ASSERT_EQ(r2.code, 0) << r2.output;
  EventStore s2;
  read_session(off, s2);
  EXPECT_EQ(s2.py_samples.size(), 0u);
  EXPECT_EQ(s2.meta().count("python.insight"), 0u);
  fs::remove_all(d);
}
