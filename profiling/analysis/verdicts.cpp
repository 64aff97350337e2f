// Verdicts: each with a severity, the evidence numbers and the fix in the runner's terms; for
// TrainScope runs also the fix as knobs with values (Verdict::settings) and plain advice, from which
// the window writes its own words and applies the knobs to its Run settings.
// Every threshold is a named constant with its source; docs/metrics.md lists them.
#include "profiling/analysis/analysis.h"
#include "profiling/analysis/health.h"
#include "base/nvml.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>

namespace ts::prof::analysis {

namespace {

/// No verdict on fewer analysed steps: one step's warm-up (cuDNN autotuning, allocator growth)
/// would dominate. TrainScope's choice; the PyTorch profiler's schedule records 3+ active steps.
constexpr std::int64_t kMinSteps = 10;  // Options::min_steps_for_verdicts's default (analysis.h)
/// Input-bound: the PyTorch profiler's TensorBoard plugin recommends more DataLoader workers when
/// DataLoader time is > 5 % of the step (DESIGN.md: moderate >= 5 %, high >= 20 %).
constexpr double kInputModerate = 0.05, kInputHigh = 0.20;
/// Sync-bound: GPU idle caused by host synchronisation >= 10 % of wall time (TrainScope's design threshold, DESIGN.md); high at 30 %.
constexpr double kSyncModerate = 0.10, kSyncHigh = 0.30;
/// Launch-bound: host-wait idle while the trainer launches >= 20 % of wall (TrainScope's design threshold; HTA's idle-time
/// breakdown names host wait as the launch-bound symptom); high at 40 %.
constexpr double kLaunchModerate = 0.20, kLaunchHigh = 0.40;
/// Host-bound: GPU idle while the stepping thread was busy elsewhere than launching, waiting for data,
/// in a collective or syncing (HostIdle::host) >= 20 % of wall, high at 40 % — launch-bound's thresholds, for the
/// other half of HTA's host-wait idle — while that thread used >= 50 % of a core over the steps (it
/// computed, rather than slept on something not recorded). TrainScope's choice.
constexpr double kHostModerate = 0.20, kHostHigh = 0.40, kHostCpuBusyPct = 50;
/// Low GPU utilisation: busy / wall < 50 % (TrainScope's design threshold); high below 25 %.
constexpr double kLowUtilModerate = 0.50, kLowUtilHigh = 0.25;
/// Memory pressure: device memory used > 90 % of the card (TrainScope's design threshold; the caching allocator starts
/// to retry / fragment near the limit); high above 97 %.
constexpr double kMemoryModerate = 0.90, kMemoryHigh = 0.97;
/// AMP-eligible: fp32 run on tensor-core hardware (cc >= 7.0) where GEMM/conv kernels are >= 30 %
/// of kernel time (AMP speeds up exactly those; TrainScope's choice).
constexpr double kAmpMatmulShare = 0.30;
/// Overflowed AMP steps: > 1 % of optimizer steps skipped. GradScaler's default growth_interval of
/// 2000 steps means about one skip per 2000 steps (0.05 %) in steady state.
constexpr double kOverflowShare = 0.01;
/// Communication-bound: exposed communication (collective kernels while no computation kernel runs)
/// >= 10 % of the step — the PyTorch profiler's TensorBoard plugin's 10 % communication threshold,
/// applied to the exposed part (hidden communication costs nothing); high at 30 % (TrainScope's choice).
constexpr double kCommModerate = 0.10, kCommHigh = 0.30;
/// Pageable copies: any host<->device copy from pageable memory, moderate when >= 2 % of wall time.
constexpr double kPageableModerate = 0.02;

/// Input-bound fix: 4 data-loader workers (the PyTorch DataLoader's customary starting point; the
/// nw4 sessions of tests/data show the wait gone on the H200), twice the count when already >= 4.
constexpr int kFixWorkers = 4, kMaxFixWorkers = 32;
/// Launch-bound fix: double the batch size while the run used at most this share of device memory
/// (activations grow about linearly with the batch, so twice the batch still fits; TrainScope's choice).
constexpr double kDoubleBatchMemory = 0.45;

double share(std::int64_t part, std::int64_t whole) { return whole > 0 ? static_cast<double>(part) / whole : 0; }

/// The last verdict's fix as knobs (TrainScope runs only: an imported trace has no Run settings).
/// Whether the run already had `f` (pin_memory on in a run that pinned): such a knob is not proposed
/// (a fix read "In Run settings: num_workers 4, pin_memory on" for a run with pin_memory on).
bool already_set(const RunConfig& c, const FixSetting& f) {
  if (f.knob == "pin_memory") return c.pin_memory == (f.value == "on");
  if (f.knob == "sync_every_step") return c.sync_every_step == (f.value == "on");
  if (f.knob == "augment") return c.augment == (f.value == "on");
  if (f.knob == "num_workers") return std::to_string(c.num_workers) == f.value;
  if (f.knob == "amp") return c.amp == f.value;
  if (f.knob == "batch_size") return std::to_string(c.batch_size) == f.value;
  return false;
}

void structured(Report& r, std::vector<FixSetting> settings, std::string advice) {
  if (!r.config.known || r.verdicts.empty()) return;
  std::erase_if(settings, [&](const FixSetting& f) { return already_set(r.config, f); });
  r.verdicts.back().settings = std::move(settings);
  r.verdicts.back().advice = std::move(advice);
}

std::string workers_fix(int now) {
  return std::to_string(now < kFixWorkers ? kFixWorkers : std::min(kMaxFixWorkers, 2 * now));
}

/// The fix in the user's terms: trainscope-run / window options for TrainScope's own recordings
/// (meta run.config present), PyTorch's words for an imported torch.profiler trace.
std::string fix(const Report& r, std::string trainscope, std::string pytorch) {
  return r.config.known ? std::move(trainscope) : std::move(pytorch);
}

/// The verdict's Python lines (Report::frames_by_cause[cause]), when the Python insight sampled them.
void attach_frames(Report& r, const char* cause) {
  if (r.verdicts.empty()) return;
  if (auto it = r.frames_by_cause.find(cause); it != r.frames_by_cause.end()) r.verdicts.back().frames = it->second;
}

/// A recorded program's host (TrainScope's own runs and imported traces are judged by launch_bound's
/// host-wait measure, with which their lessons and tests were made).
void host_bound(Report& r) {
  if (!r.idle_by_host || !r.recorded_program) return;
  const double s = share(r.idle_by_host->host, r.wall_ns);
  if (s < kHostModerate) return;
  if (r.stepping_thread_cpu_pct && *r.stepping_thread_cpu_pct < kHostCpuBusyPct) return;
  std::vector<std::pair<std::string, double>> ev = {{"gpu_idle_host_busy_pct", 100 * s},
                                                    {"gpu_utilization_pct", 100 * r.gpu_utilization.value_or(0)}};
  if (r.stepping_thread_cpu_pct) ev.emplace_back("stepping_thread_cpu_pct", *r.stepping_thread_cpu_pct);
  r.verdicts.push_back({"host_bound", s >= kHostHigh ? "high" : "moderate",
                        r.python_insight.empty() ? "CPU-bound: the GPU waits for the program's host thread"
                                                 : "CPU-bound: the GPU waits for the Python thread",
                        fix(r, "move the per-step host work to the GPU or off the training thread; a larger --batch-size",
                            "move the per-step Python/NumPy work to the GPU (torch ops) or into DataLoader workers, use "
                            "a larger batch size; CUDA graphs / torch.compile(mode=\"reduce-overhead\") when the time "
                            "is launch overhead"),
                        std::move(ev), {}, {}, {}});
  attach_frames(r, "host");
  structured(r, {}, "move the per-step host work to the GPU or off the training thread");
}

void input_bound(Report& r) {
  const double s = share(r.data_wait_ns, r.wall_ns);
  if (s < kInputModerate) return;
  r.verdicts.push_back({"input_bound", s >= kInputHigh ? "high" : "moderate",
                        "Input-bound: the trainer waits for the next batch",
                        fix(r,
                            "raise --num-workers (now " + std::to_string(r.config.num_workers) +
                                "), keep --pin-memory on, move augmentation to the GPU or drop --augment, keep the "
                                "dataset in memory",
                            "raise DataLoader(num_workers=...), set pin_memory=True (and persistent_workers=True), "
                            "move augmentation to the GPU, keep the dataset in memory"),
                        {{"data_loader_wait_pct", 100 * s},
                         {"data_loader_wait_ms_per_step", r.data_wait_ns / 1e6 / r.steps},
                         {"step_ms", r.wall_ns / 1e6 / r.steps}}, {}, {}, {}});
  if (r.config.num_workers >= 0) r.verdicts.back().evidence.emplace_back("num_workers", r.config.num_workers);
  structured(r, {{"num_workers", workers_fix(r.config.num_workers)}, {"pin_memory", "on"}},
             r.config.augment ? "move augmentation to the GPU or turn it off; keep the dataset in memory"
                              : "keep the dataset in memory");
  attach_frames(r, "input");
}

void sync_bound(Report& r) {
  if (!r.idle_sync_ns) return;
  const double s = share(*r.idle_sync_ns, r.wall_ns);
  if (s < kSyncModerate) return;
  r.verdicts.push_back({"sync_bound", s >= kSyncHigh ? "high" : "moderate",
                        "Sync-bound: the GPU idles while the host waits on it",
                        fix(r,
                            "stop reading the loss every step (drop --sync-every-step; raise --log-every), accumulate "
                            "metrics on the device, use pinned memory (--pin-memory)",
                            "stop calling loss.item() / .cpu() every step (log every N steps), accumulate metrics on "
                            "the device, use pin_memory=True and .to(device, non_blocking=True)"),
                        {{"gpu_idle_sync_pct", 100 * s},
                         {"host_sync_pct", 100 * share(r.sync_ns, r.wall_ns)},
                         {"gpu_utilization_pct", 100 * r.gpu_utilization.value_or(0)}}, {}, {}, {}});
  structured(r, {{"sync_every_step", "off"}, {"pin_memory", "on"}},
             "read the loss less often and accumulate metrics on the device");
  // The blocking calls by call site (exact), else the stack samples taken while syncing.
  if (!r.sync_sites.empty()) r.verdicts.back().frames = r.sync_sites;
  else attach_frames(r, "sync");
}

void communication_bound(Report& r) {
  if (!r.communication) return;
  const auto& c = *r.communication;
  const double s = share(c.exposed_ns, r.wall_ns);
  if (s < kCommModerate) return;
  // One rank's collective also holds the time it waits for the slowest rank: only the job's ranks
  // side by side tell a straggler from slow communication (profiling/job: straggler).
  const std::string one_rank = r.world_size > 1 || r.rank >= 0
                                   ? "; on one rank this includes waiting for slower ranks: analyse the job (trainscope-run "
                                     "--analyze FOLDER-OF-RANKS) to see whether a straggler is the cause"
                                   : "";
  r.verdicts.push_back({"communication_bound", s >= kCommHigh ? "high" : "moderate",
                        "Communication-bound: the GPUs wait on collectives that computation does not hide",
                        fix(r, "communicate less often or hide it: a larger batch per GPU, gradient accumulation" + one_rank,
                            "overlap communication with computation (DDP's gradient buckets: tune bucket_cap_mb so "
                            "all-reduces start during backward), a larger batch per GPU, gradient accumulation with "
                            "no_sync() on the micro-steps, fewer or fused collectives" + one_rank),
                        {{"exposed_communication_pct", 100 * s},
                         {"communication_ms_per_step", c.communication_ns / 1e6 / std::max<std::int64_t>(1, r.steps)},
                         {"overlap_pct", 100 * c.overlap()}}, {}, {}, {}});
}

void launch_bound(Report& r) {
  // The host's time per launch. A recorded program's is the launch interval (host_idle.cpp): the
  // launch call alone leaves out the framework's dispatch (10-20 us per eager PyTorch op beside a
  // few-us cudaLaunchKernel), and lean mode records no launch call. TrainScope's own runs and
  // imported traces keep the launch calls' median they were judged by. Until 2026-12 lean mode
  // compared the median launch gap, which is the interval minus the kernel before it: a kernel
  // had to be shorter than half the host's interval (a ResNet at batch 128 timed with a sync every
  // step, 8.6 us kernels, a 3.6 us gap, the GPU idle 31.5 % while launching, had no verdict).
  const bool interval = r.recorded_program || !r.median_launch_ns;
  const std::optional<double> launch = interval ? r.median_launch_interval_ns : r.median_launch_ns;
  if (!r.idle_host_launching_ns || !r.median_kernel_ns || !launch) return;
  const double s = share(*r.idle_host_launching_ns, r.wall_ns);
  if (s < kLaunchModerate || *r.median_kernel_ns >= *launch) return;
  r.verdicts.push_back({"launch_bound", s >= kLaunchHigh ? "high" : "moderate",
                        "Launch-bound: kernels finish faster than the CPU launches them",
                        fix(r,
                            "use a larger --batch-size (now " + std::to_string(r.config.batch_size) +
                                "); CUDA graphs and kernel fusion cut launches",
                            "use a larger batch size; CUDA graphs (torch.cuda.graphs / torch.compile "
                            "mode=\"reduce-overhead\") and kernel fusion (torch.compile) cut launches"),
                        {{"gpu_idle_host_wait_launching_pct", 100 * s},
                         {"median_kernel_us", *r.median_kernel_ns / 1e3},
                         {interval ? "median_launch_interval_us" : "median_launch_us", *launch / 1e3},
                         {"kernels_per_step", r.kernels_per_step.value_or(0)}}, {}, {}, {}});
  attach_frames(r, "launching");
  std::vector<FixSetting> knobs;
  if (r.config.batch_size > 0 && (!r.device_memory_fraction || *r.device_memory_fraction <= kDoubleBatchMemory))
    knobs.push_back({"batch_size", std::to_string(2 * r.config.batch_size)});
  std::string advice = knobs.empty() ? "use a larger batch size; CUDA graphs and kernel fusion cut launches"
                                     : "CUDA graphs and kernel fusion cut launches further";
  structured(r, std::move(knobs), std::move(advice));
}

void low_utilization(Report& r) {
  if (!r.gpu_utilization || *r.gpu_utilization >= kLowUtilModerate) return;
  r.verdicts.push_back({"low_utilization", *r.gpu_utilization < kLowUtilHigh ? "high" : "moderate",
                        "Low GPU utilization: the GPU is idle much of the step",
                        fix(r, "see the idle breakdown: a larger --batch-size, more --num-workers, no --sync-every-step",
                            "see the idle breakdown: a larger batch size, more DataLoader workers, no per-step "
                            "loss.item()"),
                        {{"gpu_utilization_pct", 100 * *r.gpu_utilization},
                         {"idle_host_wait_pct", 100 * share(r.idle->host_wait, r.wall_ns)},
                         {"idle_kernel_wait_pct", 100 * share(r.idle->kernel_wait, r.wall_ns)},
                         {"idle_other_pct", 100 * share(r.idle->other, r.wall_ns)}}, {}, {}, {}});
  structured(r, {}, "see the idle breakdown: a larger batch size, more data-loader workers, no sync every step");
}

void pageable_copies(Report& r) {
  if (r.pageable_copies == 0) return;
  const double s = share(r.pageable_copy_ns, r.wall_ns);
  r.verdicts.push_back({"pageable_memcpy", s >= kPageableModerate ? "moderate" : "low",
                        "Copies from pageable host memory (staged through a driver buffer, synchronous)",
                        fix(r, "turn on --pin-memory", "use DataLoader(pin_memory=True) / tensor.pin_memory()"),
                        {{"pageable_copies", static_cast<double>(r.pageable_copies)},
                                                 {"pageable_copy_mb", r.pageable_copy_bytes / 1e6},
                                                 {"pageable_copy_pct", 100 * s}}, {}, {}, {}});
  structured(r, {{"pin_memory", "on"}}, "");
}

void memory_pressure(Report& r) {
  if (!r.device_memory_fraction || *r.device_memory_fraction <= kMemoryModerate) return;
  const std::int64_t cap = r.config.memory_limit_bytes;
  const bool cpu = r.config.device == "cpu";  // the CPU backend has no AMP
  const double gib = static_cast<double>(1ll << 30);
  // A simulated card (--memory-limit): the cap is the card, the allocator's reserved bytes its use.
  // The measure keeps its name (device_memory_used_pct: the lessons' rule and Compare read it); the
  // title and simulated_card_gib say which card.
  std::vector<std::pair<std::string, double>> evidence;
  if (cap > 0)
    evidence = {{"device_memory_used_pct", 100 * *r.device_memory_fraction},
                {"peak_reserved_gib", static_cast<double>(r.peak_reserved_bytes.value_or(0)) / gib},
                {"simulated_card_gib", static_cast<double>(cap) / gib}};
  else
    evidence = {{"device_memory_used_pct", 100 * *r.device_memory_fraction},
                {"peak_device_memory_gb", static_cast<double>(r.peak_device_memory_bytes.value_or(0)) / 1e9}};
  char card[64];
  std::snprintf(card, sizeof card, "%g", static_cast<double>(cap) / gib);
  const std::string title =
      cap > 0 ? std::string("Simulated ") + card + " GiB card nearly full (--memory-limit " + card + ")"
              : "GPU memory nearly full";
  const std::string accumulate = "use a smaller --batch-size with --accumulate N to keep the effective batch";
  r.verdicts.push_back({"memory_pressure", *r.device_memory_fraction > kMemoryHigh ? "high" : "moderate", title,
                        fix(r, cpu ? accumulate : accumulate + ", or --amp bf16",
                            "use a smaller batch size with gradient accumulation, or torch.autocast(dtype=torch.bfloat16)"),
                        std::move(evidence), {}, {}, {}});
  if (r.config.batch_size > 1)  // half the batch, twice the micro-batches: the same effective batch
    structured(r, {{"batch_size", std::to_string(r.config.batch_size / 2)}, {"accumulate", std::to_string(2 * r.config.accumulate)}},
               cpu ? "or use a smaller model" : "or use AMP bf16");
  else
    structured(r, {}, cpu ? "use a smaller model" : "use AMP bf16 or a smaller model");
}

void amp(Report& r) {
  // Never on a run whose GEMMs and convolutions already run in bf16/fp16 (read from the kernels: a
  // recorded program or a trace says nothing of autocast in its configuration).
  if (r.config.amp == "off" && r.amp_from_kernels.empty() && r.device.known && r.matmul_kernel_share &&
      *r.matmul_kernel_share >= kAmpMatmulShare) {
    const bool bf16 = r.device.cc_major >= 8;  // bf16 tensor cores from Ampere (cc 8.0)
    r.verdicts.push_back({"amp_eligible", "moderate", "fp32 run on tensor-core hardware: AMP-eligible",
                          fix(r, std::string("run with --amp ") + (bf16 ? "bf16" : "fp16"),
                              std::string("use torch.autocast(\"cuda\", dtype=torch.") + (bf16 ? "bfloat16" : "float16") +
                                  (bf16 ? ")" : ") with torch.amp.GradScaler")),
                          {{"matmul_kernel_time_pct", 100 * *r.matmul_kernel_share},
                           {"tensor_core_kernel_time_pct", 100 * r.tensor_core_kernel_share.value_or(0)},
                           {"compute_capability", r.device.cc_major + r.device.cc_minor / 10.0}}, {}, {}, {}});
    structured(r, {{"amp", bf16 ? "bf16" : "fp16"}}, "");
  }
  if (r.skipped_steps && r.optimizer_steps && *r.optimizer_steps > 0) {
    const double s = share(*r.skipped_steps, *r.optimizer_steps);
    if (s > kOverflowShare)
      r.verdicts.push_back({"amp_overflow", "moderate", "fp16 steps skipped for inf/NaN gradients",
                            fix(r, "use --amp bf16 (no loss scaling), or lower --lr",
                                "use torch.autocast(dtype=torch.bfloat16) (no loss scaling), or lower the learning rate"),
                            {{"skipped_steps", static_cast<double>(*r.skipped_steps)},
                             {"skipped_pct", 100 * s}}, {}, {}, {}});
    if (r.device.cc_major >= 8) structured(r, {{"amp", "bf16"}}, "or lower the learning rate");
    else structured(r, {}, "lower the learning rate");
  }
}

// GPU clocks held down (NVML clock-event reasons other than idle / applications clocks, base/nvml.h)
// in >= kThrottledShare of the run's samples (health.h: 10 % of the run, the GPU-health design's threshold).
void throttled(Report& r) {
  if (!r.health || r.health->reason_samples == 0) return;
  const GpuHealth& h = *r.health;
  const double s = static_cast<double>(h.throttled_samples) / static_cast<double>(h.reason_samples);
  if (s < kThrottledShare) return;
  std::vector<std::pair<std::string, double>> ev = {{"throttled_samples_pct", 100 * s},
                                                    {"clock_event_reasons", static_cast<double>(h.reasons)}};
  std::string clock;
  if (h.sm_clock_throttled_mhz && h.sm_clock_max_mhz && *h.sm_clock_max_mhz > 0) {
    const double lost = 100 * (1 - *h.sm_clock_throttled_mhz / *h.sm_clock_max_mhz);
    ev.push_back({"sm_clock_throttled_mhz", *h.sm_clock_throttled_mhz});
    ev.push_back({"sm_clock_max_mhz", *h.sm_clock_max_mhz});
    ev.push_back({"sm_clock_lost_pct", lost});
    clock = fmt::format("; SM clock {:.0f} MHz of its {:.0f} MHz maximum ({:.0f} % lost)", *h.sm_clock_throttled_mhz,
                        *h.sm_clock_max_mhz, lost);
  }
  std::string names;
  for (const auto& n : nvml::reason_names(h.reasons)) names += (names.empty() ? "" : ", ") + n;
  r.verdicts.push_back({"throttled", s >= kThrottledHighShare ? "high" : "moderate",
                        fmt::format("GPU clocks held down ({}) in {:.0f} % of the samples, mostly {}{}", names, 100 * s,
                                    h.main_reason, clock),
                        nvml::reason_fix(h.reasons) + " `trainscope-run --doctor` checks the card.", ev, {}, {}, {}});
}

// Another process used the card during the run (a warning: the run's timings and memory were shared).
void shared_gpu(Report& r) {
  if (!r.health || r.health->max_other_processes < 1) return;
  const GpuHealth& h = *r.health;
  const double s = h.process_samples ? static_cast<double>(h.shared_samples) / static_cast<double>(h.process_samples) : 0;
  r.verdicts.push_back({"shared_gpu", "low",
                        fmt::format("another process used the GPU during the run (up to {:.0f}, {:.1f} GiB, in {:.0f} % "
                                    "of the samples): timings and memory were not this run's alone",
                                    h.max_other_processes, h.max_other_bytes / 1073741824.0, 100 * s),
                        "Stop the other processes (`nvidia-smi` lists them) or train on another GPU "
                        "(CUDA_VISIBLE_DEVICES), then measure again.",
                        {{"other_processes_max", h.max_other_processes},
                         {"other_processes_samples_pct", 100 * s},
                         {"other_processes_gib", h.max_other_bytes / 1073741824.0}},
                        {},
                        {},
                        {}});
}

}  // namespace

const std::vector<std::string>& whole_trace_verdicts() {
  static const std::vector<std::string> ids = {"low_utilization", "sync_bound", "pageable_memcpy", "amp_eligible",
                                               "communication_bound"};
  return ids;
}

void add_verdicts(Report& r) {
  r.verdicts.clear();
  r.verdicts_judged = false;
  const std::int64_t need = std::max<std::int64_t>(1, r.min_steps_for_verdicts);
  if (r.steps < need && r.whole_trace_step && r.steps == 1) {
    if (r.wall_ns < kWholeTraceMinNs || r.device_events < kWholeTraceMinDeviceEvents) {
      r.verdicts_withheld = fmt::format("a whole-trace step needs at least {} ms and {} device events ({:.1f} ms, {} here)",
                                        kWholeTraceMinNs / 1'000'000, kWholeTraceMinDeviceEvents, r.wall_ns / 1e6,
                                        r.device_events);
      return;
    }
    r.verdicts_judged = true;
    sync_bound(r);
    low_utilization(r);
    pageable_copies(r);
    amp(r);
    communication_bound(r);
    const auto& allowed = whole_trace_verdicts();
    std::erase_if(r.verdicts, [&](const Verdict& v) { return std::find(allowed.begin(), allowed.end(), v.id) == allowed.end(); });
    return;
  }
  if (r.steps < need) {
    r.verdicts_withheld = fmt::format("need at least {} steps ({} here)", need, r.steps);
    return;
  }
  r.verdicts_judged = true;
  input_bound(r);
  communication_bound(r);
  sync_bound(r);
  launch_bound(r);
  host_bound(r);
  low_utilization(r);
  pageable_copies(r);
  memory_pressure(r);
  amp(r);
  throttled(r);
  shared_gpu(r);
}

std::int64_t min_steps_for_verdicts() { return kMinSteps; }

}  // namespace ts::prof::analysis

namespace ts::prof::analysis {

const std::vector<std::string>& verdict_ids() {
  static const std::vector<std::string> ids = {"input_bound",     "sync_bound",      "launch_bound",
                                               "host_bound",      "low_utilization", "pageable_memcpy", "memory_pressure",
                                               "amp_eligible",    "amp_overflow", "communication_bound",
                                               "throttled",       "shared_gpu"};
  return ids;
}

std::optional<VerdictRule> verdict_rule(const std::string& id) {
  if (id == "input_bound") return VerdictRule{"data_loader_wait_pct", 100 * kInputModerate, true};
  if (id == "sync_bound") return VerdictRule{"gpu_idle_sync_pct", 100 * kSyncModerate, true};
  if (id == "launch_bound") return VerdictRule{"gpu_idle_host_wait_launching_pct", 100 * kLaunchModerate, true};
  if (id == "host_bound") return VerdictRule{"gpu_idle_host_busy_pct", 100 * kHostModerate, true};
  if (id == "low_utilization") return VerdictRule{"gpu_utilization_pct", 100 * kLowUtilModerate, false};
  if (id == "pageable_memcpy") return VerdictRule{"pageable_copy_pct", 100 * kPageableModerate, true};
  if (id == "memory_pressure") return VerdictRule{"device_memory_used_pct", 100 * kMemoryModerate, true};
  if (id == "amp_eligible") return VerdictRule{"matmul_kernel_time_pct", 100 * kAmpMatmulShare, true};
  if (id == "amp_overflow") return VerdictRule{"skipped_pct", 100 * kOverflowShare, true};
  if (id == "communication_bound") return VerdictRule{"exposed_communication_pct", 100 * kCommModerate, true};
  if (id == "throttled") return VerdictRule{"throttled_samples_pct", 100 * kThrottledShare, true};
  if (id == "shared_gpu") return VerdictRule{"other_processes_max", 1, true};
  return std::nullopt;
}

std::optional<double> verdict_measure(const Report& r, const std::string& id) {
  if (r.wall_ns <= 0) return std::nullopt;
  if (id == "input_bound") return 100 * share(r.data_wait_ns, r.wall_ns);
  if (id == "sync_bound" && r.idle_sync_ns) return 100 * share(*r.idle_sync_ns, r.wall_ns);
  if (id == "launch_bound" && r.idle_host_launching_ns) return 100 * share(*r.idle_host_launching_ns, r.wall_ns);
  if (id == "host_bound" && r.idle_by_host) return 100 * share(r.idle_by_host->host, r.wall_ns);
  if (id == "low_utilization" && r.gpu_utilization) return 100 * *r.gpu_utilization;
  if (id == "pageable_memcpy") return 100 * share(r.pageable_copy_ns, r.wall_ns);
  if (id == "memory_pressure" && r.device_memory_fraction) return 100 * *r.device_memory_fraction;
  if (id == "amp_eligible" && r.matmul_kernel_share) return 100 * *r.matmul_kernel_share;
  if (id == "communication_bound" && r.communication) return 100 * share(r.communication->exposed_ns, r.wall_ns);
  if (id == "throttled" && r.health && r.health->reason_samples)
    return 100 * share(r.health->throttled_samples, r.health->reason_samples);
  if (id == "shared_gpu" && r.health && r.health->process_samples) return r.health->max_other_processes;
  if (id == "amp_overflow" && r.skipped_steps && r.optimizer_steps && *r.optimizer_steps > 0)
    return 100 * share(*r.skipped_steps, *r.optimizer_steps);
  return std::nullopt;
}

std::optional<double> verdict_margin(const VerdictRule& rule, double value) {
  if (rule.fires_above) return rule.threshold > 0 ? std::optional<double>(value / rule.threshold) : std::nullopt;
  return value > 0 ? std::optional<double>(rule.threshold / value) : std::nullopt;
}

}  // namespace ts::prof::analysis
