// trainscope-run: the headless runner (Qt-free). Trains a model spec on CIFAR-10 (or TrainScope's
// generated sample set when no --data is given) on the GPU or the CPU, prints one line per epoch
// and a one-line JSON summary. Exit codes: 0 success, 2 bad arguments or input, 3 device errors,
// 130 stopped by SIGINT/SIGTERM (after the current step, summary still printed).
#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "app/runner/output_paths.h"
#include "app/runner/runner.h"
#include "base/crash_report.h"
#include "base/errors.h"

namespace {

std::atomic<bool> g_stop{false};

// SIGINT/SIGTERM never interrupt the threads that compute. main() blocks them before any other thread
// exists (the OpenMP pool, the loader workers and the profiler's threads inherit the mask), and one
// thread, "ts-signals", takes them with sigwait(): the first stops the run after the current step
// (the summary is still printed), a second quits at once (what impatient users expect from a second
// Ctrl-C). Why not a handler: oneDNN 2.6's inner product keeps live data below the stack pointer,
// past the 128-byte red zone that the kernel leaves alone when it pushes a signal frame; a handler
// run on the trainer thread (or an OpenMP worker) inside that code overwrote it, and the run later
// aborted in free() with "corrupted size vs. prev_size" (RunnerSignals in
// tests/runner/test_runner.cpp checks every thread's mask).
sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

void start_signal_thread() {
  const sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);  // this thread and every thread created after it
  std::thread([set] {
    pthread_setname_np(pthread_self(), "ts-signals");
    for (int received = 0;;) {
      int sig = 0;
      if (sigwait(&set, &sig) != 0) continue;
      if (++received == 1) {
        g_stop.store(true);
        continue;
      }
      static const char msg[] = "\nsecond interrupt: quitting now without a summary\n";
      [[maybe_unused]] const auto n = write(2, msg, sizeof msg - 1);
      _exit(130);
    }
  }).detach();
}

}  // namespace

int main(int argc, char** argv) {
  // A crash (SIGSEGV...) prints what the run was doing and a backtrace before the process dies of it,
  // so a crash seen only on a GPU machine says where it happened (base/crash_report.h).
  ts::install_crash_report();
  // First, before any other thread exists; a program to record (-- PROGRAM) shares the terminal's
  // signals with the runner instead (run_program).
  if (!ts::launches_program(argc, argv)) start_signal_thread();
  ts::RunnerOptions opt;
  CLI::App app{"trainscope-run: train a CNN on CIFAR-10 with TrainScope's engine, headless"};
  app.set_version_flag("--version", std::string("trainscope-run ") + TRAINSCOPE_VERSION);
  ts::add_runner_options(app, opt);
  app.footer("Exit codes: 0 success, 1 the run failed (e.g. the loss became NaN), 2 bad arguments or input, "
             "3 device error (no GPU, out of memory), 130 stopped by Ctrl-C/SIGTERM (summary still printed).");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "error: {} (see --help)\n", e.what());
    return 2;
  }
  try {
    ts::apply_setup(app, opt);
    if (opt.doctor) return ts::run_doctor(opt);
    if (!opt.save_setup.empty()) return ts::run_save_setup(opt);
    if (ts::launches_program(argc, argv)) return ts::run_program(opt);
    if (!opt.program.empty())  // a stray word is no program: CLI11 took it as the positional
      throw ts::InputError("unexpected argument " + opt.program.front() + " (a program to record goes after --)");
    if (!opt.analyze.empty()) return ts::run_analysis(opt);
    if (!opt.import_trace.empty()) return ts::run_import(opt);
    if (!opt.compare.empty()) return ts::run_compare(opt);
    if (!opt.export_session.empty()) return ts::run_export(opt);
    if (!opt.lesson.empty() || opt.lesson_setup) return ts::run_lesson(opt, g_stop);
    if (!opt.playground.empty() || !opt.playground_session.empty()) return ts::run_playground(opt);
    ts::check_training_outputs(opt);  // before the data or the --resume file is read
    return ts::run_training(opt, g_stop);
  } catch (const ts::Error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return ts::exit_code(e);
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: internal: {}\n", e.what());
    return 1;
  }
}
