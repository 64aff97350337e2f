// trainscope-run -- PROGRAM ARGS...: record any CUDA process (docs/profile-a-program.md). The runner
// forks, the child sets the injection variables and execs the program, which keeps this terminal
// (its own stdin/stdout/stderr, the same process group, so Ctrl-C reaches it directly). The runner
// waits, forwards SIGINT/SIGTERM that were sent to the runner alone (kill, timeout -s INT), says when
// the program has not started CUDA or NVTX after a few seconds, and returns the program's exit code.
#include <fmt/core.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>

#include "app/runner/output_paths.h"
#include "app/runner/runner.h"
#include "base/errors.h"
#include "profiling/profiler.h"
#include "profiling/session/session_file.h"
#include "profiling/steps/step_rule.h"
#if defined(TRAINSCOPE_HAVE_INJECT)
#include "profiling/inject/inject_config.h"
#endif

namespace ts {
namespace fs = std::filesystem;

namespace {

constexpr const char* kLibrary = "libtrainscope_inject.so";

/// The injection library: TRAINSCOPE_INJECT_LIB, beside this executable, ../lib, then the build's.
std::string find_library() {
  if (const char* e = std::getenv("TRAINSCOPE_INJECT_LIB"); e && *e) {
    if (!fs::exists(e)) throw InputError(std::string("TRAINSCOPE_INJECT_LIB=") + e + ": no such file");
    return fs::absolute(e).string();
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  std::vector<fs::path> tried;
  if (!ec) tried = {exe.parent_path() / kLibrary, exe.parent_path().parent_path() / "lib" / kLibrary};
#if defined(TRAINSCOPE_INJECT_BUILD_PATH)
  tried.emplace_back(TRAINSCOPE_INJECT_BUILD_PATH);
#endif
  for (const auto& p : tried)
    if (fs::exists(p, ec)) return p.string();
  std::string where;
  for (const auto& p : tried) where.append(" ").append(p.string());
  throw InputError(std::string("-- PROGRAM: ") + kLibrary + " not found (looked at" + where +
                   "); build the trainscope_inject target (a CUDA build) or set TRAINSCOPE_INJECT_LIB");
}

/// The Python insight's sitecustomize folder (profiling/inject/python/trainscope_site):
/// TRAINSCOPE_PY_SITE, beside the library, ../share/trainscope/python beside it, then the source
/// tree's. "" when none is found (the program runs without it; the runner says so).
std::string find_python_site(const std::string& lib) {
  if (const char* e = std::getenv("TRAINSCOPE_PY_SITE"); e && *e) return fs::absolute(e).string();
  const fs::path dir = fs::path(lib).parent_path();
  std::vector<fs::path> tried = {dir / "trainscope_site", dir.parent_path() / "share" / "trainscope" / "python" / "trainscope_site"};
#if defined(TRAINSCOPE_PY_SITE_SOURCE_PATH)
  tried.emplace_back(TRAINSCOPE_PY_SITE_SOURCE_PATH);
#endif
  std::error_code ec;
  for (const auto& p : tried)
    if (fs::exists(p / "sitecustomize.py", ec)) return p.string();
  return {};
}

/// Session files of this run's name: the path itself and its -rankN / -pidN siblings (inject_config.h),
/// with their modification times.
using SessionFiles = std::map<std::string, fs::file_time_type>;
SessionFiles session_files(const fs::path& session) {
  SessionFiles out;
  std::error_code ec;
  const std::string stem = session.stem().string(), ext = session.extension().string();
  for (const auto& e : fs::directory_iterator(session.parent_path(), ec)) {
    const std::string n = e.path().filename().string();
    const bool ours = n == session.filename().string() ||
                      (n.starts_with(stem + "-rank") && n.ends_with(ext)) || (n.starts_with(stem + "-pid") && n.ends_with(ext));
    if (ours) out[e.path().string()] = e.last_write_time(ec);
  }
  return out;
}

/// The files of `session_files` that are new or changed since `before` (sorted).
std::vector<std::string> written_sessions(const fs::path& session, const SessionFiles& before) {
  std::vector<std::string> out;
  for (const auto& [path, t] : session_files(session))
    if (auto it = before.find(path); it == before.end() || it->second != t) out.push_back(path);
  return out;
}

/// A readable session for a program that never loaded the library (no CUDA, no NVTX).
void write_empty_session(const std::string& path, const std::string& program, const std::string& mode, int code) {
  prof::EventStore store;
  store.set_meta("session.source", "injected (trainscope-run -- PROGRAM; profiling/inject)");
  store.set_meta("inject.program", program);
  store.set_meta("inject.mode", mode);
  store.set_meta("inject.status", "the program never started CUDA or NVTX (exit code " + std::to_string(code) + ")");
  store.set_meta("gpu_activity", "none: the program never initialised CUDA (not a CUDA program)");
  store.set_meta("steps.rule", prof::step_rule_text(prof::StepRule::whole_trace, ""));
  prof::SessionRecorder(path, store).close();
}

std::string describe(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("was ended by signal ") + std::to_string(WTERMSIG(status)) + " (" +
                                  strsignal(WTERMSIG(status)) + ")";
  return "ended";
}

/// The Python insight's variables (PROTOCOL.md beside the package): its folder first on PYTHONPATH
/// (the user's PYTHONPATH after it, and in TRAINSCOPE_PY_PREV_PATH), the mode. Set for any program:
/// PYTHONPATH reaches only Python interpreters, so a shell script or torchrun that starts Python is
/// covered too, and a program that is not Python never reads it.
void set_python_env(const RunnerOptions& o, const std::string& site) {
  if (o.python == "off" || site.empty()) return;
  const char* prev = std::getenv("PYTHONPATH");
  setenv("TRAINSCOPE_PY_PREV_PATH", prev ? prev : "", 1);
  setenv("PYTHONPATH", (prev && *prev ? site + ":" + prev : site).c_str(), 1);
  setenv("TRAINSCOPE_PYTHON", o.python.c_str(), 1);
}

[[noreturn]] void exec_child(const RunnerOptions& o, const std::string& lib, const std::string& session,
                             const std::string& py_site, const sigset_t& old_mask) {
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  setenv("CUDA_INJECTION64_PATH", lib.c_str(), 1);
  setenv("NVTX_INJECTION64_PATH", lib.c_str(), 1);
  setenv("TRAINSCOPE_SESSION", session.c_str(), 1);
  setenv("TRAINSCOPE_INJECT_MODE", o.inject_mode.c_str(), 1);
  if (!o.inject_pm.empty()) setenv("TRAINSCOPE_INJECT_PM", o.inject_pm.c_str(), 1);
  setenv("TRAINSCOPE_STEP_RANGE", o.step_range.c_str(), 1);
  setenv("TRAINSCOPE_ROOT_PID", std::to_string(getpid()).c_str(), 1);
  setenv("TRAINSCOPE_QUIET", "1", 1);  // the runner names the session files itself
  set_python_env(o, py_site);
  std::vector<char*> argv;
  for (const auto& a : o.program) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  const std::string msg = "trainscope-run: cannot start " + o.program[0] + ": " + std::strerror(errno) + "\n";
  [[maybe_unused]] const auto n = write(2, msg.data(), msg.size());
  _exit(127);
}

/// Waits for `child`, forwarding signals sent to the runner alone; says once, after `notice_s`
/// seconds, when no session file has appeared. Returns the wait status.
int wait_for(pid_t child, const sigset_t& set, const fs::path& session, const SessionFiles& since, int notice_s,
             const std::string& name) {
  const auto t0 = std::chrono::steady_clock::now();
  bool noticed = false;
  for (;;) {
    int status = 0;
    if (waitpid(child, &status, WNOHANG) == child) return status;
    timespec ts{0, 200'000'000};
    siginfo_t info{};
    const int sig = sigtimedwait(&set, &info, &ts);
    // A signal from the terminal (SI_KERNEL) reached the program's process group already.
    if ((sig == SIGINT || sig == SIGTERM) && info.si_code != SI_KERNEL) kill(child, sig);
    if (!noticed && std::chrono::steady_clock::now() - t0 >= std::chrono::seconds(notice_s)) {
      noticed = true;
      if (written_sessions(session, since).empty())
        fmt::print(stderr,
                   "trainscope-run: {} has not started CUDA or NVTX after {} s: nothing is recorded yet (not a CUDA "
                   "program, or it starts CUDA later)\n",
                   name, notice_s);
    }
  }
}

}  // namespace

bool launches_program(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--") == 0) return true;
  return false;
}

int run_program(const RunnerOptions& o) {
  if (o.program.empty()) throw InputError("--: no program after it (trainscope-run -- PROGRAM ARGS...)");
  prof::StepRangePattern check(o.step_range);  // a bad pattern is an error here, not in the program
  const fs::path session = fs::absolute(o.session.empty() ? prof::default_session_path() : o.session);
  std::error_code ec;
  // Said now, not after an hour of training: the library could not have created the file either.
  if (const fs::path dir = session.parent_path(); !fs::is_directory(dir, ec))
    throw InputError("--session " + session.string() + ": the folder " + dir.string() + " does not exist");
  else if (access(dir.c_str(), W_OK) != 0)
    throw InputError("--session " + session.string() + ": the folder " + dir.string() + " is not writable");
  // As an engine run's --session: an earlier recording is kept unless --overwrite (docs/output-paths.md).
  check_output_path("--session", session.string(), run_inputs(o), ExistingFile::refuse_unless_overwrite, o.overwrite);
  const std::string lib = find_library();
  const std::string py_site = o.python == "off" ? std::string() : find_python_site(lib);
  if (o.python != "off" && py_site.empty())
    fmt::print(stderr, "trainscope-run: --python {}: the Python insight's folder (trainscope_site) was not found beside "
               "{} (set TRAINSCOPE_PY_SITE): the program runs without it\n", o.python, lib);
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(session.string() + suffix, ec);
  const SessionFiles since = session_files(session);  // a sibling left by an earlier run is not this run's
  if (const char* prev = std::getenv("CUDA_INJECTION64_PATH"); prev && *prev && lib != prev)
    fmt::print(stderr, "trainscope-run: CUDA_INJECTION64_PATH was {} (another tool's injection): replaced by {}\n", prev, lib);
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGCHLD);
  sigprocmask(SIG_BLOCK, &set, &old);
  std::fflush(stdout), std::fflush(stderr);
  const pid_t child = fork();
  if (child < 0) throw Error(std::string("cannot fork: ") + std::strerror(errno));
  if (child == 0) exec_child(o, lib, session.string(), py_site, old);
  int notice_s = 10;  // import torch and a data set take seconds before the first CUDA call
  if (const char* e = std::getenv("TRAINSCOPE_NOTICE_AFTER_S")) notice_s = std::max(0, std::atoi(e));
  const int status = wait_for(child, set, session, since, notice_s, o.program[0]);
  sigprocmask(SIG_SETMASK, &old, nullptr);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
  if (WIFEXITED(status) && code == 127 && written_sessions(session, since).empty()) return code;  // exec failed: said
  std::vector<std::string> files = written_sessions(session, since);
  if (files.empty()) {
    std::string empty = session.string();
#if defined(TRAINSCOPE_HAVE_INJECT)  // the name the program's own session would have had (its rank)
    const auto env = [](const char* n) { return static_cast<const char*>(std::getenv(n)); };
    prof::inject::InjectConfig c = prof::inject::read_config(env, child);
    empty = prof::inject::session_path(session.string(), c.rank, child, true);
#endif
    std::string where = "an empty session is in " + empty;
    try {
      write_empty_session(empty, o.program[0], o.inject_mode, code);
    } catch (const std::exception& e) {  // the program's exit code stands; say why there is no file
      where = std::string("no session either: ") + e.what();
    }
    fmt::print(stderr, "trainscope-run: {} {} without starting CUDA or NVTX (not a CUDA program?): nothing was "
               "recorded; {}\n", o.program[0], describe(status), where);
    return code;
  }
  for (const auto& f : files) {
    std::string state = "readable";
    try {
      prof::check_session(f);
    } catch (const std::exception& e) {
      state = std::string("NOT readable: ") + e.what();
    }
    fmt::print(stderr, "trainscope-run: {} {}; session {} ({}, --inject-mode {}): trainscope-run --analyze {}\n",
               o.program[0], describe(status), f, state, o.inject_mode, f);
  }
  return code;
}

}  // namespace ts
