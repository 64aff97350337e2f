// trainscope-run: the headless runner (Qt-free). Trains a model spec on CIFAR-10 (or TrainScope's
// generated sample set when no --data is given) on the GPU or the CPU, prints one line per epoch
// and a one-line JSON summary. Exit codes: 0 success, 2 bad arguments or input, 3 device errors,
// 130 stopped by SIGINT/SIGTERM (after the current step, summary still printed).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <atomic>
#include <csignal>
#include <cstdio>

#include "app/runner/runner.h"
#include "engine/errors.h"

namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_signal(int) { g_stop.store(true); }

}  // namespace

int main(int argc, char** argv) {
  ts::RunnerOptions opt;
  CLI::App app{"trainscope-run: train a CNN on CIFAR-10 with TrainScope's engine, headless"};
  app.set_version_flag("--version", std::string("trainscope-run ") + TRAINSCOPE_VERSION);
  ts::add_runner_options(app, opt);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  try {
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
