// The headless runner: options, data and model resolution, progress lines and the JSON summary.
#include "app/runner/runner.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "base/errors.h"
#include "engine/memory.h"
#include "base/printable.h"
#include "engine/synthetic_data.h"
#include "engine/trainer.h"
#include "lessons/session_pack.h"
#include "profiling/analysis/analysis.h"
#include "profiling/event_source.h"
#include "profiling/session/session_file.h"
#include "profiling/import/trace_analysis.h"
#include "profiling/import/trace_import.h"
#include "profiling/profiler.h"

namespace ts {
namespace fs = std::filesystem;

namespace {

/// A numeric lower bound with a short message ("--lr: must be > 0, got 0"); CLI11's
/// PositiveNumber prints the whole double range instead.
CLI::Validator bound(double lo, bool inclusive) {
  const std::string desc = std::string(inclusive ? ">= " : "> ") + fmt::format("{:g}", lo);
  return CLI::Validator(
      [lo, inclusive, desc](std::string& s) -> std::string {
        double v = 0;
        try {
          std::size_t used = 0;
          v = std::stod(s, &used);
          if (used != s.size()) return "must be a number, got '" + s + "'";
        } catch (const std::exception&) {
          return "must be a number, got '" + s + "'";
        }
        if (!std::isfinite(v)) return "must be a finite number " + desc + ", got " + s;
        return (inclusive ? v >= lo : v > lo) ? std::string() : "must be " + desc + ", got " + s;
      },
      desc);
}
const CLI::Validator kPositive = bound(0, false);
const CLI::Validator kNonNegative = bound(0, true);

/// A closed numeric range that refuses NaN (CLI11's Range lets NaN through: every comparison with
/// it is false).
CLI::Validator closed_range(double lo, double hi) {
  const std::string desc = fmt::format("from {:g} to {:g}", lo, hi);
  return CLI::Validator(
      [lo, hi, desc](std::string& s) -> std::string {
        try {
          std::size_t used = 0;
          const double v = std::stod(s, &used);
          if (used == s.size() && v >= lo && v <= hi) return {};
        } catch (const std::exception&) {
        }
        return "must be a number " + desc + ", got " + s;
      },
      desc);
}

/// A seed: decimal digits, 0 to 2^64 - 1. CLI11 alone reads "-1" and "18446744073709551616" as
/// 18446744073709551615.
const CLI::Validator kSeed(
    [](std::string& s) -> std::string {
      const std::string range = "must be an integer from 0 to 18446744073709551615, got " + s;
      if (s.empty() || s.size() > 20 || s.find_first_not_of("0123456789") != std::string::npos) return range;
      if (s.size() == 20 && s > "18446744073709551615") return range;
      return {};
    },
    "0 to 2^64-1");

/// A float as JSON with the digits it has (0.001, not 0.0010000000474974514).
double json_float(float v) { return std::stod(fmt::format("{:.7g}", v)); }

/// An option that takes one of `choices`, its default shown in --help.
void add_choice(CLI::App& app, const std::string& name, std::string& value, const std::string& help,
                std::vector<std::string> choices) {
  app.add_option(name, value, help)->check(CLI::IsMember(std::move(choices)))->capture_default_str();
}

}  // namespace

int exit_code(const Error& e) {
  if (dynamic_cast<const InputError*>(&e)) return 2;
  if (dynamic_cast<const DeviceError*>(&e)) return 3;
  return 1;
}

void add_runner_options(CLI::App& app, RunnerOptions& o) {
  app.add_option("--data", o.data,
                 "CIFAR-10 binary folder (data_batch_1..5.bin, test_batch.bin); default: TrainScope's generated "
                 "sample set (not CIFAR-10)");
  std::string presets;
  for (const std::string& p : runconfig::preset_names()) presets += (presets.empty() ? "" : ", ") + p;
  app.add_option("--model", o.model, "model preset (" + presets + ") or a model spec JSON file")
      ->capture_default_str();
  add_choice(app, "--device", o.device, "cuda, cpu, or auto (cuda when a GPU is usable)",
             {"auto", "cuda", "cpu"});
  app.add_option("--epochs", o.epochs, "epochs to train")->check(kPositive)->capture_default_str();
  app.add_option("--batch-size", o.batch_size, "images per step")->capture_default_str();
  app.add_option("--num-workers", o.num_workers,
                 "data-loader worker threads (0 = the trainer thread loads; at most 4 per hardware thread)")
      ->check(kNonNegative)->capture_default_str();
  // The default is RunConfig's, the window's too (run_config.h); CLI11 writes the negation's value
  // after the names ("{false}"), so the help says the default in words.
  app.add_flag("--pin-memory,!--no-pin-memory", o.pin_memory,
               std::string("page-locked batch buffers (faster host-to-device copies, as DataLoader(pin_memory=True)); "
                           "default: ") + (runconfig::RunConfig{}.pin_memory ? "on" : "off") +
                   " for CUDA runs (ignored and recorded off on the CPU); --no-pin-memory: pageable buffers")
      ->capture_default_str();
  app.add_option("--lr", o.lr, "learning rate")->check(kPositive)->capture_default_str();
  add_choice(app, "--optimizer", o.optimizer, "sgd, adam or adamw",
             {"sgd", "adam", "adamw"});
  app.add_option("--momentum", o.momentum, "SGD momentum")->check(closed_range(0.0, 1.0))->capture_default_str();
  app.add_option("--weight-decay", o.weight_decay, "weight decay (default: 0, AdamW 0.01)")->check(kNonNegative);
  app.add_flag("--nesterov", o.nesterov, "Nesterov momentum (SGD)");
  app.add_option("--seed", o.seed, "seed for initialisation, shuffling, augmentation and dropout")
      ->check(kSeed)->capture_default_str();
  app.add_option("--limit-train", o.limit_train, "use only the first N training images (0 = all)")
      ->check(kNonNegative)->capture_default_str();
  app.add_flag("--augment", o.augment, "random crop (padding 4) and horizontal flip");
  app.add_flag("--sync-every-step", o.sync_every_step,
               "read the loss back every step (a device sync, what loss.item() does)");
  app.add_option("--log-every", o.log_every, "steps between loss read-backs and progress lines")
      ->check(kPositive)->capture_default_str();
  app.add_option("--cpu-threads", o.cpu_threads,
                 "threads of the CPU backend (0 = all cores; at most 4 per hardware thread)")
      ->check(kNonNegative);
  add_choice(app, "--amp", o.amp,
                 "automatic mixed precision: off (fp32), fp16 (dynamic loss scaling, GradScaler's semantics) or "
                 "bf16 (no scaling); CUDA only (the CPU backend refuses it with the reason)",
             {"off", "fp16", "bf16"});
  app.add_option("--accumulate", o.accumulate,
                 "gradient accumulation: micro-batches of --batch-size per optimizer step (loss divided by N)")
      ->check(kPositive)->capture_default_str();
  app.add_option("--memory-limit", o.memory_limit_gib,
                 "simulate a smaller card: cap the allocator's reserved memory at this many GiB (fractions allowed, "
                 "e.g. 0.5; as torch.cuda.set_per_process_memory_fraction); past it the run stops with the OOM message "
                 "and its advice, and the analysis judges memory against the cap")
      ->check(kPositive);
  app.add_flag("--deterministic", o.deterministic,
               "deterministic cuDNN algorithms (no autotuning) and fixed reduction order: same seed, same losses");
  app.add_option("--cuda-graphs", o.cuda_graphs,
                 "on: each training step is one replay of a CUDA graph captured at its first step per batch size "
                 "(the host launches one graph instead of every kernel and cuDNN/cuBLAS call); off: eager steps. "
                 "CUDA only (ignored on the CPU); steps with --accumulate > 1 stay eager; lessons run eager unless they say "
                 "otherwise. Default on: faster at every batch size measured")
      ->transform(CLI::CheckedTransformer(std::map<std::string, std::string>{{"on", "true"}, {"off", "false"}}))
      ->default_str("on");
  app.add_option("--checkpoint-every", o.checkpoint_every, "write a checkpoint every N epochs (0 = never)")
      ->check(kNonNegative)->capture_default_str();
  app.add_option("--checkpoint", o.checkpoint,
                 "checkpoint file, or a folder (existing or ending in /) for checkpoint-epochN.tsckpt files")
      ->capture_default_str();
  app.add_option("--resume", o.resume, "continue the run saved in this checkpoint file (same model and seed)");
  app.add_flag("--quiet,-q", o.quiet, "print only the epoch lines and the summary");
  app.add_flag("--profile", o.profile,
               "record a session: host ranges, GPU activity (CUPTI), samples -> a .tsession file (SQLite)");
  app.add_option("--session", o.session, "session file to write (implies --profile; default trainscope-<time>.tsession)");
  app.add_flag("--overwrite", o.overwrite,
               "let --session replace a file already at its path (an earlier recording is otherwise kept and the run "
               "refused; docs/output-paths.md)");
  app.add_option("--profile-schedule", o.profile_schedule,
                 "record only some steps, as torch.profiler.schedule: wait=W,warmup=U,active=A,repeat=R"
                 "[,skip_first=S][,skip_first_wait=0|1] (implies --profile)");
  app.add_flag("--profile-every-kernel", o.profile_every_kernel,
               "trace every kernel of every step. Without it, a profiled run of CUDA-graph steps (--cuda-graphs on, "
               "--accumulate 1) and no --profile-schedule traces kernels in 20-step windows (steps 3-22, then every 200 "
               "steps) and each step between as one whole CUDA-graph replay: ~3-4 % of a b128 step and ~0.5 % of a b2048 one "
               "instead of ~6 % and ~2.6 % on an H100 "
               "(docs/session-format.md, \"Recording\")");
  app.add_option("--analyze", o.analyze_paths,
                 "analyse a recorded session (or a PyTorch profiler trace) instead of training: step-time "
                 "breakdown, GPU metrics and verdicts (docs/metrics.md); a folder or several files: the ranks "
                 "of a distributed job, as one job (docs/profile-a-program.md, \"Distributed jobs\")")
      ->expected(1, 64)
      ->each([&o](const std::string& s) { if (o.analyze.empty()) o.analyze = s; });
  app.add_flag("--json", o.json, "with --analyze, --compare, --playground or --doctor: print one JSON object");
  app.add_flag("--doctor", o.doctor,
               "check the environment: driver, CUDA, cuDNN, CUPTI permissions, each GPU's health (a ~0.5 s copy "
               "load per GPU); exit 3 when a problem is found (docs/doctor.md)");
  app.add_flag("--markdown", o.markdown, "with --doctor: a Markdown bug report to paste, without user or host names");
  app.add_option("--analyze-warmup", o.analyze_warmup,
                 "with --analyze: leading steps left out as warm-up (cuDNN algorithm search, first allocations)")
      ->check(kNonNegative)->capture_default_str();
  app.add_option("--import", o.import_trace,
                 "convert a PyTorch profiler trace (*.pt.trace.json[.gz]), Chrome trace JSON or an Nsight Systems "
                 "SQLite export (*.sqlite) into a session "
                 "(--session OUT.tsession; default: the trace's name + .tsession)");
  app.add_option("--compare", o.compare, "compare two or more sessions: config diff, throughput, accuracy, "
                 "step-time breakdown, verdicts, kernel diff (text, or --json)")->expected(2, 64);
  app.add_option("--export", o.export_session, "export a session (see --format, --output)");
  add_choice(app, "--format", o.export_format, "with --export: chrome (JSON for ui.perfetto.dev / chrome://tracing), "
                 "kernels-csv or steps-csv",
             {"chrome", "kernels-csv", "steps-csv"});
  app.add_option("--output,-o", o.output, "with --export: the file to write (\"-\" = stdout)");
  app.add_option("--playground", o.playground,
                 "run teaching kernels' ladders on the GPU: vector_add, copy, stride, transpose, reduction, sgemm, "
                 "tensor, divergence, occupancy (comma-separated), or all; --session FILE records the run "
                 "(docs/playground.md)");
  app.add_option("--playground-session", o.playground_session,
                 "print the ladders of a playground run recorded with --playground ... --session FILE (no GPU needed)");
  app.add_option("--size", o.size, "with --playground: the family's problem size (elements, or a matrix side; 0 = its default)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--measure", o.measure,
               "with --playground: measure each row once more with the GPU's counters (CUPTI range profiler): "
               "achieved occupancy, SM and DRAM throughput, DRAM GB/s beside the estimated figures (docs/playground.md)");
  app.add_option("--threads-per-block", o.threads_per_block, "with --playground vector_add: threads per block")
      ->capture_default_str();
  app.add_option("--blocks-per-grid", o.blocks_per_grid,
                 "with --playground vector_add: blocks per grid (0 = one element per thread)")
      ->capture_default_str();
  app.add_option("--lesson", o.lesson,
                 "run a lesson (a built-in name, or a lesson JSON file; docs/lessons.md): each of its runs is "
                 "trained and recorded, then judged; without the device it needs, its recording is opened");
  app.add_option("--lesson-dir", o.lesson_dir,
                 "with --lesson: the folder for the runs' sessions and manifest.json (default lesson-NAME)");
  app.add_option("--lesson-runs", o.lesson_runs,
                 "with --lesson: run only these runs (by id) and keep the folder's others, e.g. a CPU run made "
                 "on one machine and a GPU run on another")->expected(1, 8);
  app.add_option("--recordings", o.recordings, "with --lesson: the folder of recorded lessons");
  app.add_flag("--recorded", o.recorded, "with --lesson: open the lesson's recording instead of running it");
  app.add_flag("--lesson-compress", o.lesson_compress,
               "with --lesson: compress the runs' sessions afterwards (ID.tsession.zst, zstd), as the shipped recordings are");
  app.add_option("--step-range", o.step_range,
                 "with --import / --analyze of a trace, or -- PROGRAM, without ProfilerStep#N: host ranges (NVTX, record_function) whose "
                 "whole name matches this regular expression (RE2 syntax, case-insensitive, a step number after it allowed) are the "
                 "steps; with none, the whole trace is one step (docs/metrics.md, Steps)")->capture_default_str();
  add_choice(app, "--inject-mode", o.inject_mode,
                 "with -- PROGRAM: lean (kernels, copies, blocking syncs; memory from NVML: the default, cheapest), full "
                 "(+ memsets, CUPTI's sync and allocation records and every CUDA runtime call: launch-bound and "
                 "host-wait verdicts) or nvtx (NVTX ranges only; CUPTI "
                 "left to the program's own profiler) (docs/profile-a-program.md)",
             {"lean", "full", "nvtx"});
  add_choice(app, "--inject-pm", o.inject_pm,
             "with -- PROGRAM: measured GPU metrics by CUPTI PM sampling at 1 kHz (SM and tensor active, warp occupancy, "
             "DRAM and PCIe throughput; docs/metrics.md): on or off; default on with --inject-mode full, off otherwise",
             {"on", "off"});
  add_choice(app, "--python", o.python,
                 "with -- PROGRAM: the Python insight, no code changes: a sitecustomize first on PYTHONPATH marks "
                 "steps at optimizer.step, the DataLoader's next() as data, forward/backward/optimizer, the file:line "
                 "of .item()/.cpu()/synchronize() that wait, and samples the stepping thread's Python stack (lean: "
                 "100 Hz; full: also every module's forward, 250 Hz; off: nothing) (docs/profile-a-program.md)",
             {"off", "lean", "full"});
  app.add_option("program", o.program,
                 "-- PROGRAM ARGS...: record any CUDA program (a PyTorch script included) into --session; its exit "
                 "code is trainscope-run's (docs/profile-a-program.md)");
  app.add_option("--setup", o.setup,
                 "take the run's model and knobs (or a lesson) from a setup: a .tsetup file or a 'trainscope:...' "
                 "line (docs/setups.md); options given beside it win over the setup's");
  app.add_flag("--allow-setup-paths", o.allow_setup_paths,
               "let --setup's model name a file on this machine (a shared setup is otherwise refused when it does: "
               "it may only carry its model inline or as a preset)");
  app.add_option("--save-setup", o.save_setup,
                 "write this command line's model and knobs (or, with --lesson, the lesson) as a setup file and "
                 "print its one-line form; nothing is trained");
}

namespace {
/// A session without a rank beside rank sessions of a job (torchrun's launcher, recorded with the
/// ranks): one line naming the folder to analyse as a job; "" otherwise.
std::string job_pointer(const std::string& path, int rank) {
  if (rank >= 0) return "";
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::error_code ec;
  int ranks = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.empty() ? "." : dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.find("rank") != std::string::npos && name.ends_with(".tsession")) ++ranks;
  }
  if (ranks < 2) return "";
  return fmt::format("this session has no rank; its folder holds {} rank sessions of a job: trainscope-run --analyze {} "
                     "analyses them as one job\n",
                     ranks, dir.empty() ? "." : dir.string());
}
}  // namespace

int run_analysis(const RunnerOptions& o) {
  if (o.analyze_paths.size() > 1 || std::filesystem::is_directory(o.analyze)) return run_job_analysis(o);
  prof::analysis::Options options;
  options.per_step = false;
  options.warmup_steps = o.analyze_warmup;
  prof::analysis::Report r;
  std::string recorded_from_outside;  // a program recorded with -- PROGRAM: what its mode could not see
  if (prof::import::is_trace_path(o.analyze)) {  // a PyTorch profiler / Chrome trace, analysed as imported
    prof::import::ImportOptions io;
    io.step_range = o.step_range;
    const prof::import::ImportedTrace t = prof::import::import_trace(o.analyze, io);
    // What the import tolerated (a cut gzip stream, events out of order...) qualifies the analysis.
    if (!t.summary.warnings.empty())
      fmt::print(stderr, "warning: {}: {} event(s) with problems ({})\n", o.analyze, t.summary.warning_count(),
                 t.summary.warnings_text());
    r = prof::import::analyze_imported(*t.store, options);
  } else {
    const lessons::PlainSession plain(o.analyze);  // a lesson's recording is zstd-compressed (*.tsession.zst)
    const auto src = [&] {
      try {
        return prof::open_session(plain.path());
      } catch (const prof::SessionError& e) {  // the file the user named, not its temporary copy
        throw prof::SessionError(e.kind, plain.named(e.what()));
      }
    }();
    // A session converted from a trace (--import) holds only the profiler's active steps.
    r = prof::import::analyze_session(src->store(), options);
    const auto meta = src->store().meta();
    if (auto m = meta.find("inject.mode"), u = meta.find("inject.unavailable"); m != meta.end() && u != meta.end() && !u->second.empty())
      recorded_from_outside = "recorded with --inject-mode " + m->second + ": not available: " + u->second + "\n";
    recorded_from_outside += job_pointer(o.analyze, r.rank);
  }
  if (o.json) fmt::print("{}\n", prof::analysis::to_json(r));
  else fmt::print("session {}\n{}{}", o.analyze, recorded_from_outside, prof::analysis::to_text(r));
  std::fflush(stdout);
  return 0;
}

namespace {

std::string sample_data_dir() {
  const char* cache = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  fs::path base = cache && *cache ? fs::path(cache) : fs::path(home && *home ? home : "/tmp") / ".cache";
  return (base / "trainscope" / "sample-data").string();
}

/// The dataset to train on; writes the generated sample set on first use.
Cifar10 resolve_data(const RunnerOptions& o, const std::function<void(const std::string&)>& say) {
  if (!o.data.empty()) return load_cifar10(o.data, o.limit_train);
  const std::string dir = sample_data_dir();
  if (!check_cifar10_folder(dir).empty()) write_synthetic_cifar(dir, SyntheticOptions{});
  say("no --data given: training on TrainScope's generated sample set (NOT CIFAR-10) in " + dir);
  return load_cifar10(dir, o.limit_train);
}

/// torch.optim.SGD refuses nesterov without momentum ("Nesterov momentum requires a momentum and
/// zero dampening"); momentum and nesterov mean nothing to Adam/AdamW: say so instead of ignoring them.
void check_optimizer_options(const OptimizerConfig& c, const std::function<void(const std::string&)>& say) {
  if (c.type == OptimizerType::sgd && c.nesterov && (c.momentum <= 0 || c.dampening != 0))
    throw InputError("--nesterov needs --momentum > 0 (and zero dampening), as torch.optim.SGD");
  if (c.type != OptimizerType::sgd && (c.momentum != 0 || c.nesterov))
    say(std::string("warning: --momentum/--nesterov apply to sgd only; ignored with ") + optimizer_name(c.type));
}

Device resolve_device(const std::string& d, const std::function<void(const std::string&)>& say) {
  if (d == "cpu") return Device::cpu;
  if (d == "cuda") return Device::cuda;
  std::string why;
  if (cuda_available(&why)) return Device::cuda;
  say("no usable GPU (" + why + "): training on the CPU");
  return Device::cpu;
}

/// The run's JSON summary; with a session, its "session" object says what the file holds (steps and
/// events written, steps taken, the error that stopped recording).
std::string summary_json(const RunnerOptions& o, const TrainConfig& c, const TrainSummary& s,
                         std::int64_t train_images, const prof::ProfilerSummary* session) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("device"); w.String(device_name(s.device.device));
  w.Key("device_name"); w.String(s.device.name.c_str());
  w.Key("model"); w.String(c.model.name.c_str());
  w.Key("epochs"); w.Int(static_cast<int>(s.epochs.size()));
  w.Key("batch_size"); w.Int64(c.batch_size);
  w.Key("num_workers"); w.Int(c.num_workers);
  w.Key("pin_memory"); w.Bool(c.pin_memory);
  w.Key("sync_every_step"); w.Bool(c.sync_every_step);
  w.Key("optimizer"); w.String(optimizer_name(c.optimizer.type));
  w.Key("lr"); w.Double(json_float(c.optimizer.lr));
  w.Key("seed"); w.Uint64(c.seed);
  w.Key("amp"); w.String(amp_mode_name(c.amp));
  w.Key("accumulate"); w.Int(c.accumulate);
  w.Key("deterministic"); w.Bool(c.deterministic);
  // Whether the steps were graph replays: the knob on a CUDA device without accumulation (run.config keeps the knob).
  w.Key("cuda_graphs"); w.Bool(c.cuda_graphs && s.device.device == Device::cuda && c.accumulate == 1);
  w.Key("memory_limit_bytes"); w.Int64(c.memory_limit_bytes);  // 0: the real card
  w.Key("loss_scale"); w.Double(s.counters.loss_scale);
  w.Key("skipped_steps"); w.Int64(s.counters.skipped_steps);
  w.Key("optimizer_steps"); w.Int64(s.counters.optimizer_steps);
  w.Key("first_epoch"); w.Int(s.first_epoch);
  w.Key("train_images"); w.Int64(train_images);
  std::int64_t images_trained = 0;
  for (const auto& e : s.epochs) images_trained += e.images;
  w.Key("images_trained"); w.Int64(images_trained);  // less than epochs x train_images when interrupted
  w.Key("test_accuracy"); w.Double(s.test_accuracy);
  w.Key("train_loss"); w.Double(s.train_loss);
  w.Key("images_per_s"); w.Double(s.images_per_s);
  w.Key("epoch_test_accuracy");
  w.StartArray();
  for (const auto& e : s.epochs) w.Double(e.test_accuracy);
  w.EndArray();
  w.Key("peak_allocated_bytes"); w.Int64(s.memory.peak_allocated);
  w.Key("allocated_bytes");  // by the allocator's own categories, at the end of the run
  w.StartObject();
  for (std::size_t k = 0; k < kMemoryCategoryCount; ++k) {
    w.Key(memory_category_name(static_cast<MemoryCategory>(k)));
    w.Int64(s.memory.allocated[k]);
  }
  w.EndObject();
  w.Key("epoch_train_loss");
  w.StartArray();
  for (const auto& e : s.epochs) w.Double(e.train_loss);
  w.EndArray();
  w.Key("interrupted"); w.Bool(s.interrupted);
  if (s.device.device == Device::cuda) {
    w.Key("cudnn_version"); w.Int64(s.device.cudnn_version);
    w.Key("cuda_runtime_version"); w.Int(s.device.runtime_version);
    w.Key("driver_version"); w.Int(s.device.driver_version);
  }
  w.Key("data"); w.String(o.data.empty() ? "sample" : o.data.c_str());
  if (session) {
    w.Key("session");
    w.StartObject();
    w.Key("path"); w.String(session->path.c_str());
    w.Key("steps_written"); w.Int64(session->steps);
    w.Key("steps_taken"); w.Int64(session->steps_taken);
    w.Key("events_written"); w.Int64(session->events);
    w.Key("complete"); w.Bool(session->error.empty() && session->steps == session->steps_taken);
    if (!session->error.empty()) { w.Key("error"); w.String(session->error.c_str()); }
    w.EndObject();
  }
  w.EndObject();
  return buf.GetString();
}

TrainSummary train_and_report(Trainer& trainer, const TrainConfig& c, const Cifar10& data,
                              const std::function<void(const std::string&)>& say, const std::atomic<bool>& stop);
void report_session(std::FILE* out, const prof::ProfilerSummary& p, const std::function<void(const std::string&)>& say);
bool hybrid_by_default(const RunnerOptions& o, const TrainConfig& c);

}  // namespace

int run_training(const RunnerOptions& o, const std::atomic<bool>& stop, std::string* summary_out) {
  auto say = [&](const std::string& line) {
    if (!o.quiet) fmt::print(o.out, "{}\n", line);
    std::fflush(o.out);
  };
  const ModelSpec model = [&] {
    ModelSpec m = resolve_model(o.model);
    infer_shapes(m);
    return m;
  }();
  if (o.batch_size <= 0) throw InputError("--batch-size must be > 0, got " + std::to_string(o.batch_size));
  if (o.memory_limit_gib > 0) (void)memory_limit_bytes_from_gib(o.memory_limit_gib);  // refuses < 1 MiB
  const Cifar10 data = resolve_data(o, say);
  for (const auto& w : data.warnings) say("warning: " + w);
  runconfig::RunConfig recorded = o;  // the knobs as the run uses them: the device chosen, ...
  const Device device = resolve_device(o.device, say);
  recorded.device = device_name(device);
  // One serialisation: checkpoints and the session's run.config.
  const TrainConfig c = runconfig::to_train_config(recorded, model, device, "trainscope-run");
  check_optimizer_options(c.optimizer, say);

  std::unique_ptr<prof::Profiler> profiler;
  TrainerObserver obs;
  obs.on_step = [&](const StepReport& r) {
    if (o.quiet || r.step % o.log_every != 0) return;
    std::string amp;
    for (std::size_t i = 0; i < r.loss_scales.size(); ++i)  // an overflow never vanishes from the log
      if (r.loss_scales[i] < 0)
        amp += fmt::format("  [step {} skipped: inf/NaN gradients at loss scale {}]",
                           r.global_step - static_cast<std::int64_t>(r.loss_scales.size() - 1 - i), -r.loss_scales[i]);
    if (!r.loss_scales.empty() && r.loss_scales.back() > 0) amp += fmt::format("  scale {}", r.loss_scales.back());
    fmt::print(o.out, "  epoch {} step {}/{}  loss {:.4f}  {:.0f} img/s{}\n", r.epoch, r.step, r.steps_in_epoch,
               r.losses.empty() ? 0.0f : r.losses.back(), r.images_per_s, amp);
    std::fflush(o.out);
  };
  obs.on_message = [&](const std::string& m) { say(m); };
  obs.on_epoch = [&](const EpochResult& e) {
    fmt::print(o.out, "epoch {}/{}  train_loss {:.4f}  test_accuracy {:.4f}  images/s {:.0f}  epoch_s {:.2f}  "
               "(train {:.2f} s, eval {:.2f} s, data wait {:.2f} s)\n",
               e.epoch, c.epochs, e.train_loss, e.test_accuracy, e.images_per_s, e.train_seconds + e.eval_seconds,
               e.train_seconds, e.eval_seconds, static_cast<double>(e.data_wait_ns) * 1e-9);
    if (c.amp == AmpMode::fp16)
      fmt::print(o.out, "  loss scale {}  skipped steps {}\n", e.loss_scale, e.skipped_steps);
    if (!e.checkpoint.empty()) fmt::print(o.out, "  checkpoint {}\n", e.checkpoint);
    std::fflush(o.out);
    if (profiler) profiler->record_epoch(e);  // the session's epochs table (accuracy curve)
  };
  if (o.profile || !o.session.empty() || !o.profile_schedule.empty()) {
    prof::ProfilerOptions po;
    po.session_path = o.session;
    if (!o.profile_schedule.empty()) po.schedule = prof::parse_profile_schedule(o.profile_schedule);
    po.cuda_device = c.device == Device::cuda ? c.cuda_device : -1;
    if (hybrid_by_default(o, c)) {
      po.schedule = prof::default_hybrid_schedule();
      po.graph_replays_between_windows = true;
      say("profiling: kernels in windows of 20 steps (steps 3-22, then every 200 steps), each step between as one "
          "CUDA-graph replay; --profile-every-kernel traces every kernel");
    }
    profiler = std::make_unique<prof::Profiler>(po);  // before the trainer: construction is recorded too
    profiler->set_meta("run.config", c.run_config_json);
    profiler->set_meta("run.model_spec", to_json(c.model));
  }
  std::unique_ptr<Trainer> trainer_ptr;
  TrainSummary s;
  try {
    trainer_ptr = std::make_unique<Trainer>(c, data, obs);
    if (profiler) {
      profiler->set_hardware(trainer_ptr->network().device_info());
      profiler->set_memory_stats([net = &trainer_ptr->network()] { return net->memory_stats(); });
    }
    s = train_and_report(*trainer_ptr, c, data, say, stop);
  } catch (...) {
    if (profiler) report_session(o.out, profiler->stop(), say);  // the session keeps what was recorded
    throw;
  }
  std::optional<prof::ProfilerSummary> session_written;
  if (profiler) report_session(o.out, *(session_written = profiler->stop()), say);
  const std::string summary =
      summary_json(o, c, s, data.train.count(), session_written ? &*session_written : nullptr);
  if (summary_out) *summary_out = summary;
  if (!summary_out || !o.quiet) fmt::print(o.out, "{}\n", summary);  // a lesson keeps the summary in its manifest
  std::fflush(o.out);
  return s.interrupted ? 130 : 0;
}

namespace {

/// Whether a profiled run records hybrid by default (profiler.h): its steps are CUDA-graph replays (on
/// CUDA, --cuda-graphs on, no accumulation), no schedule was asked for and not every kernel.
bool hybrid_by_default(const RunnerOptions& o, const TrainConfig& c) {
  return c.device == Device::cuda && c.cuda_graphs && c.accumulate == 1 && o.profile_schedule.empty() &&
         !o.profile_every_kernel;
}

TrainSummary train_and_report(Trainer& trainer, const TrainConfig& c, const Cifar10& data,
                              const std::function<void(const std::string&)>& say, const std::atomic<bool>& stop) {
  const DeviceInfo dev = trainer.network().device_info();
  const std::int64_t cap = c.memory_limit_bytes;
  if (cap > 0 && dev.total_memory_bytes > 0 && cap >= dev.total_memory_bytes)
    say(fmt::format("warning: --memory-limit {} GiB is not smaller than the card's {}: the real card runs out first",
                    memory_limit_gib_text(cap), format_bytes(dev.total_memory_bytes)));
  say(fmt::format("device {} ({}{}), model {}, {} training / {} test images, batch size {}, num_workers {}, "
                  "pin_memory {}, {} lr {}, amp {}, accumulate {}{}{}",
                  device_name(dev.device), dev.name, cap > 0 ? ", " + simulated_card_text(cap) : std::string(),
                  c.model.name, data.train.count(), data.test.count(),
                  c.batch_size, c.num_workers, c.pin_memory ? "on" : "off", optimizer_name(c.optimizer.type),
                  c.optimizer.lr, amp_mode_name(c.amp), c.accumulate, c.deterministic ? ", deterministic" : "",
                  c.cuda_graphs && dev.device == Device::cuda && c.accumulate == 1 ? ", CUDA graphs" : ""));
  const TrainSummary s = trainer.run(stop);
  if (s.interrupted) fmt::print(stderr, "stopped by signal after the current step\n");
  return s;
}

void report_session(std::FILE* out, const prof::ProfilerSummary& p, const std::function<void(const std::string&)>& say) {
  const auto& n = p.counts;
  // Always printed (also with --quiet): where the session went and what it cost.
  fmt::print(out, "session {}: {} events ({} kernels, {} memcpys, {} memsets, {} runtime calls, {} syncs, {} memory, "
             "{} host ranges{}), {} steps, {} bytes, {:.1f} bytes/event, dropped cupti {} host_ranges {}\n",
             p.path, p.events, n.kernels, n.memcpys, n.memsets, n.runtime, n.syncs, n.memory, n.host_ranges,
             n.graph_replays ? fmt::format(", {} CUDA-graph replays", n.graph_replays) : std::string(), p.steps,
             p.file_bytes, p.bytes_per_event, p.dropped.cupti, p.dropped.host_ranges);
  if (p.steps != p.steps_taken)  // a write failed (a full disk): the file holds fewer steps than the run took
    fmt::print(out, "session {}: the file holds {} of the run's {} steps (the later ones were not written)\n", p.path, p.steps,
               p.steps_taken);
  if (!p.gpu_status.empty()) say("session: " + p.gpu_status);
  if (!p.pm_status.empty() && p.pm_status.rfind("no measured metrics: the run is on the CPU", 0) != 0)
    say("session: measured metrics (PM sampling): " + p.pm_status);
  if (!p.error.empty()) fmt::print(stderr, "warning: {}\n", p.error);  // names the file
  std::fflush(out);
}

}  // namespace

}  // namespace ts
