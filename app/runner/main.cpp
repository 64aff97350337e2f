// trainscope-run: the headless runner (Qt-free). Trains a model spec on CIFAR-10 (or TrainScope's
// generated sample set when no --data is given) on the GPU or the CPU, prints one line per epoch
// and a one-line JSON summary. Exit codes: 0 success, 2 bad arguments or input, 3 device errors,
// 130 stopped by SIGINT/SIGTERM (after the current step, summary still printed).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <unistd.h>

#include "app/runner/runner.h"
#include "engine/errors.h"

namespace {

std::atomic<bool> g_stop{false};

// First SIGINT/SIGTERM: stop after the current step and print the summary. A second one quits at
// once (what impatient users expect from a second Ctrl-C); only async-signal-safe calls here.
extern "C" void on_signal(int) {
  if (g_stop.exchange(true)) {
    static const char msg[] = "\nsecond interrupt: quitting now without a summary\n";
    [[maybe_unused]] const auto n = write(2, msg, sizeof msg - 1);
    _exit(130);
  }
}

}  // namespace

int main(int argc, char** argv) {
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
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  try {
    if (!opt.analyze.empty()) return ts::run_analysis(opt);
    if (!opt.import_trace.empty()) return ts::run_import(opt);
    if (!opt.compare.empty()) return ts::run_compare(opt);
    if (!opt.export_session.empty()) return ts::run_export(opt);
    return ts::run_training(opt, g_stop);
  } catch (const ts::InputError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  } catch (const ts::DeviceError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 3;
  } catch (const ts::Error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: internal: {}\n", e.what());
    return 1;
  }
}
