// The headless runner's options and run loop, separate from main() so that tests can drive it.
#pragma once
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "base/errors.h"
#include "engine/model_spec.h"
#include "lessons/lesson.h"
#include "runconfig/run_config.h"

namespace CLI { class App; }

namespace ts {

/// trainscope-run's options: a run's knobs (runconfig::RunConfig, with trainscope-run's defaults)
/// and the runner's own options (recording, analysis, import, lessons, setups, playground, ...).
struct RunnerOptions : runconfig::RunConfig {
  bool quiet = false;
  bool profile = false;          // record a session (profiling/): host ranges, CUPTI, samples
  /// --profile-every-kernel: trace every kernel of every step even when the steps are CUDA-graph
  /// replays (default there: kernels in windows, whole graph replays between; profiler.h "hybrid")
  bool profile_every_kernel = false;
  std::string session;           // session file; empty = trainscope-<time>.tsession in the cwd
  bool allow_setup_paths = false;  // --allow-setup-paths: a --setup's model may name a file here
  bool overwrite = false;        // --overwrite: --session may replace an existing file (output_paths.h)
  std::string analyze;           // --analyze SESSION: print the analysis of a recorded session, no training
  /// --analyze DIR, or several files: a distributed job's ranks (profiling/job); `analyze` is the first
  std::vector<std::string> analyze_paths;
  bool json = false;             // --json: the analysis as one JSON object
  std::int64_t analyze_warmup = 1;  // --analyze-warmup, prof::analysis::kDefaultWarmupSteps: leading steps left out (cuDNN search, first allocations)
  std::string step_range = "step";  // --step-range PATTERN: steps of a trace without ProfilerStep#N (profiling/steps)
  std::string import_trace;      // --import TRACE: a PyTorch profiler / Chrome trace JSON(.gz) -> a session
  std::vector<std::string> compare;  // --compare A B [C...]: sessions (or traces) side by side
  std::string export_session;    // --export SESSION: to --format, written to --output
  std::string export_format = "chrome";  // chrome (Perfetto / chrome://tracing JSON), kernels-csv, steps-csv
  std::string output;            // --output FILE ("-" = stdout)
  // --lesson (app/runner/lesson_cmd.cpp, docs/lessons.md)
  std::string lesson;            // --lesson NAME|FILE: run a lesson's runs and judge them
  std::string lesson_dir;        // --lesson-dir DIR: where the lesson's sessions and manifest go
  std::vector<std::string> lesson_runs;  // --lesson-runs ID...: only these runs (join the others' later)
  std::string recordings;        // --recordings DIR: recorded lessons (default: beside the program, the source tree)
  bool recorded = false;         // --recorded: open the lesson's recording even when this machine could run it
  bool lesson_compress = false;  // --lesson-compress: zstd the runs' sessions (ID.tsession.zst), as recordings keep them
  std::optional<lessons::Lesson> lesson_setup;  // a lesson given by --setup (then `lesson` is empty)
  // --setup / --save-setup (app/runner/setup_cmd.cpp, docs/setups.md)
  std::string setup;             // --setup FILE|LINE: the run's knobs (or a lesson) from a setup
  std::string save_setup;        // --save-setup FILE: write the command line's setup, print its line
  // --playground (app/runner/playground_cmd.cpp, docs/playground.md)
  std::string playground;        // --playground FAMILY[,FAMILY...]|all: teaching kernels' ladders
  std::int64_t size = 0;         // --size N: the family's problem size (0 = its default)
  int threads_per_block = 256;   // --threads-per-block: vector_add's launch
  int blocks_per_grid = 0;       // --blocks-per-grid: vector_add's launch (0 = one element per thread)
  std::string playground_session;  // --playground-session FILE: print a recorded playground run (no GPU)
  bool measure = false;          // --measure: with --playground, each row's counters by CUPTI's range profiler
  bool doctor = false;           // --doctor: the environment doctor (app/runner/doctor_cmd.cpp, docs/doctor.md)
  bool markdown = false;         // --markdown: with --doctor, a bug report to paste
  // -- PROGRAM ARGS... (app/runner/program_cmd.cpp, docs/profile-a-program.md)
  std::vector<std::string> program;  // everything after "--": a program to record with the injection library
  std::string inject_mode = "lean";  // --inject-mode lean|full|nvtx
  std::string inject_pm;             // --inject-pm on|off ("": the mode's default: on in full)
  std::string python = "lean";       // --python off|lean|full: the Python insight (profiling/inject/python)
  std::FILE* out = stdout;       // where a training run prints (a lesson's runs print to stderr)
};

/// Registers every option on `app` (names and defaults documented in --help).
void add_runner_options(CLI::App& app, RunnerOptions& opt);

/// trainscope-run's exit code when it stops on `e`: 2 for bad input (InputError), 3 for a device
/// that could not be used (DeviceError), 1 otherwise.
int exit_code(const Error& e);

/// --analyze: reads the session, prints the analysis (text or --json); returns the exit code.
/// Throws prof::SessionError (an InputError) for an unreadable session.
int run_analysis(const RunnerOptions& opt);
/// --analyze DIR / several files, --compare JOB_A JOB_B (folders): a distributed job (app/runner/job_cmd.cpp).
int run_job_analysis(const RunnerOptions& opt);
int run_job_compare(const RunnerOptions& opt);

/// --import: converts a trace into a session file (--session, default TRACE's name + .tsession) and
/// prints what was read (events, steps, warnings). app/runner/import_cmd.cpp.
int run_import(const RunnerOptions& opt);
/// --compare: config diff, throughput/accuracy, breakdowns, verdicts and kernel diff of 2+ sessions
/// (text, or --json). app/runner/compare_cmd.cpp.
int run_compare(const RunnerOptions& opt);
/// --export: a session to a Chrome trace JSON or CSV. app/runner/export_cmd.cpp.
int run_export(const RunnerOptions& opt);

/// --playground: runs the named families' ladders on the GPU (every variant checked before its time
/// is shown), prints them (text, or --json) and, with --session FILE, records the run as a session;
/// --playground-session FILE prints a recorded run. Returns 0, or 1 when a check failed; throws
/// InputError (exit 2) for a bad family or size and DeviceError (exit 3) without a GPU or without a
/// CUDA build. app/runner/playground_cmd.cpp.
int run_playground(const RunnerOptions& opt);

/// --doctor: the environment report (text, --json or --markdown); 3 when a finding is a problem, else
/// 0. Throws InputError for --json with --markdown. app/runner/doctor_cmd.cpp.
int run_doctor(const RunnerOptions& opt);
/// Whether the command line holds "--" (a program to record): main() then leaves SIGINT/SIGTERM to
/// run_program, which shares the terminal's signals with the program.
bool launches_program(int argc, char** argv);
/// `trainscope-run [--session OUT] [--step-range P] [--inject-mode M] -- PROGRAM ARGS...`: starts the
/// program with libtrainscope_inject.so (CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH), its output
/// on this terminal, and returns its exit code (128 + N when signal N ended it). Says after a few
/// seconds when the program has not started CUDA or NVTX, and writes an empty, readable session
/// when it never did. Throws InputError (exit 2) when the library is missing or nothing follows
/// "--". app/runner/program_cmd.cpp.
int run_program(const RunnerOptions& opt);

/// Loads data and model, trains, prints per-epoch lines and the JSON summary on opt.out.
/// Returns the exit code (0, or 130 when stopped by `stop`); throws ts::Error subclasses.
/// `summary_json`, when given, receives the summary too.
int run_training(const RunnerOptions& opt, const std::atomic<bool>& stop, std::string* summary_json = nullptr);
/// --lesson: runs a lesson's runs (or opens its recording where this machine lacks a device it
/// needs), prints the runs' figures and the checks; 0 when the lesson showed what it promised,
/// 1 when not. app/runner/lesson_cmd.cpp.
int run_lesson(const RunnerOptions& opt, const std::atomic<bool>& stop);

/// Applies a lesson or setup knob (lessons/knob_json.h) to the options (runconfig::apply_knob).
void apply_knob(RunnerOptions& o, const lessons::Knob& k);
/// After parsing: --setup's knobs applied where the command line did not give the option itself (a
/// lesson setup becomes lesson_setup). Throws InputError for a bad setup, naming the field.
void apply_setup(const CLI::App& app, RunnerOptions& o);
/// --save-setup: writes the options' setup (the lesson's with --lesson or a lesson setup), prints its
/// line; returns the exit code. A model given as a spec file is written inline, so the setup travels.
int run_save_setup(const RunnerOptions& o);

using runconfig::is_model_preset;
using runconfig::knob_option;
using runconfig::resolve_model;

}  // namespace ts
