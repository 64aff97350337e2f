// Analysis: why a run is slow and what to change, from an EventStore (a live profiler or
// an opened session). Qt-free. Formulas, sources and thresholds: docs/metrics.md.
//
// Time model. Each training step gets a window: from its host step range's start to the later of
// its end and the end of the GPU work it launched (by correlation id: kernel -> runtime call -> the
// step whose host range contains the call), made disjoint from the previous window (PyTorch
// profiler's step boundaries). Every metric is over the union of the analysed windows ("wall").
// Absent values (a CPU run has no GPU activity) are std::nullopt / JSON null, never 0.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "profiling/event_store.h"

namespace ts::prof::analysis {

/// Step-time categories, in priority order: an instant covered by several counts for the first.
/// The step-time breakdown's categories, in priority order (an instant goes to the first one active).
/// communication: collective kernels (NCCL, RCCL; is_communication_kernel, or launched inside a
/// collective op) and the communication host ranges (`comm: ...` on any thread: gloo's collectives run
/// on the host; communication.h, the definition a job's per-rank figures use) while no computation
/// kernel, copy or memset runs — the exposed communication, as a job counts it.
enum class Category : int { kernel, memcpy, memset, communication, runtime, data_wait, sync_wait, cpu_exec, other, count };
constexpr int kCategoryCount = static_cast<int>(Category::count);
/// "kernel", "memcpy", "memset", "communication", "runtime", "data_loader_wait", "sync_wait", "cpu_exec", "other".
const char* category_name(Category c);

/// ns per category; total() equals the window length exactly.
struct Breakdown {
  std::int64_t ns[kCategoryCount] = {};
  std::int64_t total() const;
  std::int64_t operator[](Category c) const { return ns[static_cast<int>(c)]; }
  void add(const Breakdown& o);
};

/// GPU idle time (no kernel, copy or memset running) inside the windows.
struct IdleBreakdown {
  std::int64_t host_wait = 0;    // the op after the gap was launched after the gap began: queue empty
  std::int64_t kernel_wait = 0;  // the op was already queued and the gap is shorter than the launch cost
  std::int64_t other = 0;        // the op was already queued and waited longer (events, other streams)
  std::int64_t total() const { return host_wait + kernel_wait + other; }
  void add(const IdleBreakdown& o);
};

/// One step's (or one window's) time accounting.
struct StepMetrics {
  std::int64_t global_step = 0;
  std::int64_t start = 0, end = 0;  // the window (session ns)
  Breakdown breakdown;
  std::int64_t data_wait_ns = 0;     // trainer thread in data wait ranges (raw, not priority-reduced)
  std::int64_t sync_ns = 0;          // trainer thread in sync ranges / sync runtime calls (raw)
  std::int64_t gpu_busy_ns = 0;      // union of kernels, copies, memsets
  IdleBreakdown idle;
  std::int64_t idle_sync_ns = 0;     // idle caused by host synchronisation (docs/metrics.md)
  std::int64_t idle_host_launching_ns = 0;  // host-wait idle while the trainer neither waited on data nor synced
  std::int64_t kernels = 0;
  std::int64_t wall() const { return end - start; }
};

/// GPU idle time inside the windows by what the stepping thread did meanwhile (host_idle.cpp;
/// docs/metrics.md, "What the host did while the GPU idled"). Each idle instant counts once, in
/// this order: the thread waited in a host sync; it waited for data (a data fetch); it was in a
/// blocking collective (`comm: ...` but not `comm: async ...`: waiting for the other ranks, and the
/// transfer itself; communication.h); the next GPU op was already queued (full mode: the GPU waited on
/// itself, not on the host); the thread was launching (inside forward/backward/optimizer with gaps of
/// at most kLaunchGapNs between GPU ops, or, where no phases were recorded, any such short gap); else
/// it was busy elsewhere (Python, the program's own CPU work, a long gap inside a phase).
struct HostIdle {
  std::int64_t sync = 0, input = 0, collective = 0, device = 0, launching = 0, host = 0;
  std::int64_t total() const { return sync + input + collective + device + launching + host; }
};
/// A gap between GPU ops longer than this is more than launching (TrainScope's choice: 20 times
/// CUDA's few-microsecond launch cost and about five eager PyTorch ops, whose dispatch costs
/// 10-20 us each on the host).
constexpr std::int64_t kLaunchGapNs = 100'000;

/// A Python source line's share of some time, from the Python insight's stack samples or its
/// `sync: ...` call-site ranges (profiling/inject/python/PROTOCOL.md).
struct FrameShare {
  std::string where;      // "train.py:57": the innermost frame outside Python's library folders
  std::string function;   // its function (or the blocking call: ".item()")
  std::string innermost;  // of the line's samples, the innermost frame most of them were in, when it is another
                          // ("conv.py:549 _conv_forward"), else "": a line's share is never split among its callees
  double pct = 0;         // of the time its owner names (a verdict's cause), 0..100
  std::int64_t samples = 0;
};

/// Device properties for the occupancy calculator: from session meta (device.*), defaults by
/// compute capability otherwise (docs/metrics.md lists them and their source).
struct DeviceProps {
  bool known = false;  // a CUDA device with a compute capability
  int cc_major = 0, cc_minor = 0, sms = 0;
  int max_threads_per_sm = 0, max_threads_per_block = 1024, regs_per_sm = 0, regs_per_block = 65536;
  int warp_size = 32, max_blocks_per_sm = 0;
  std::int64_t smem_per_sm = 0, smem_per_block = 49152, smem_per_block_optin = 0, reserved_smem_per_block = 0;
  std::int64_t total_memory = 0;
  std::string source;  // "session meta" / "defaults for compute capability X.Y"
};
DeviceProps device_props(const std::map<std::string, std::string>& meta);

/// Tensor-core kernel by name (patterns in docs/metrics.md, after the PyTorch profiler's list).
bool is_tensor_core_kernel(const std::string& demangled_name);
/// A GEMM / convolution kernel (what AMP would move onto tensor cores).
bool is_matmul_kernel(const std::string& demangled_name);
/// The input precision a GEMM/conv kernel's name says: "bf16", "fp16", "fp8", "tf32", "int8", or ""
/// (not said: fp32 kernels mostly name none). From cuBLAS/cuDNN/CUTLASS naming: "bf16", "f16"/"fp16",
/// "h884"/"h1688"/"h16816" (half), "e4m3"/"e5m2", "tf32"; cuBLAS's Hopper "nvjet_[sm90_]XYZ" kernels by
/// their first type letter (h, b, t, s, e).
std::string kernel_precision(const std::string& demangled_name);
/// A collective-communication kernel by its name, case-insensitively: NCCL's ncclKernel_* and
/// ncclDevKernel_*, RCCL's (ROCm's NCCL: the same names, and rccl*).
bool is_communication_kernel(std::string_view demangled_name);
/// A host range that is a collective op (its kernels are communication even when their names do
/// not say so): "nccl:all_reduce", "c10d::allreduce_", "record_param_comms", ProcessGroupNCCL's, and
/// names with all_reduce / all_gather / reduce_scatter / all_to_all / broadcast (case-insensitive).
bool is_collective_op(std::string_view host_range_name);

/// Theoretical occupancy (0..1) of one launch configuration, CUDA's occupancy calculator; nullopt
/// when the device or the configuration is unknown, or the header was not available at build time.
std::optional<double> theoretical_occupancy(const DeviceProps& d, int block_threads, int registers,
                                            std::int64_t static_smem, std::int64_t dynamic_smem,
                                            int* active_blocks_per_sm = nullptr);

/// The run's configuration as recorded in meta run.config (absent fields keep these defaults).
struct RunConfig {
  bool known = false;
  std::string device, amp = "off";
  std::int64_t batch_size = 0;
  int num_workers = -1;
  int accumulate = 1;  // micro-batches per optimizer step
  bool pin_memory = false, augment = false, sync_every_step = false;
  /// A simulated smaller card (--memory-limit): the allocator's cap on reserved bytes; 0 = the real
  /// card. When set, the memory metrics and memory_pressure judge the reserved bytes against it.
  std::int64_t memory_limit_bytes = 0;
  std::string optimizer;  // "adam", "adamw", "sgd" ("" unknown)
  double momentum = 0;    // SGD's; > 0: a momentum buffer per parameter
};
/// The one reader of meta run.config in the analysis (verdicts, metrics, layer memory, evidence).
RunConfig run_config(const std::map<std::string, std::string>& meta);

/// One knob of a verdict's fix, as TrainScope's run configuration names it (trainscope-run's option
/// without "--", the window's Run settings field): each front end writes it in its own words.
///   knob: "num_workers", "pin_memory", "augment", "sync_every_step", "batch_size", "accumulate", "amp"
///   value: the new value: an integer, "on" / "off", or an AMP mode ("bf16", "fp16", "off").
struct FixSetting {
  std::string knob, value;
  bool operator==(const FixSetting&) const = default;
};

struct Verdict {
  std::string id;        // input_bound, sync_bound, launch_bound, low_utilization, memory_pressure, ...
  std::string severity;  // "high", "moderate", "low"
  std::string title;     // one line
  std::string fix;       // the concrete change: runner options (TrainScope runs), PyTorch's words (traces)
  std::vector<std::pair<std::string, double>> evidence;  // name -> number (units in the name)
  /// TrainScope runs (meta run.config known): the knobs the fix sets, with their values for the next
  /// run (a knob the run already had right may be listed: "keep pin_memory on"; a front end applying
  /// them reports what actually changed); empty for an imported trace (nothing to apply there).
  std::vector<FixSetting> settings;
  /// TrainScope runs: what the fix says beyond `settings`, in plain words without option names
  /// ("move augmentation to the GPU, keep the dataset in memory"); "" when the settings say it all.
  std::string advice;
  /// Where the cause sits in the program's Python (the Python insight): the top lines by share of
  /// the verdict's own time (input_bound: the data fetches; sync_bound: the blocking calls; host_bound
  /// and launch_bound: the GPU idle time they count). Empty without Python samples.
  std::vector<FrameShare> frames;
};

/// The GPU's health over the run, from the samplers' NVML series (profiling/analysis/health.cpp).
struct GpuHealth {
  std::int64_t reason_samples = 0;     // gpu.clock_event_reasons samples
  std::int64_t throttled_samples = 0;  // of those, with a bit of nvml::kThrottleMask set (base/nvml.h)
  std::uint64_t reasons = 0;           // OR of the throttle bits seen
  std::string main_reason;             // the throttle reason set in most samples ("sw_power_cap", ...)
  std::optional<double> sm_clock_throttled_mhz;  // mean gpu.sm_clock over the throttled samples
  std::optional<double> sm_clock_max_mhz;        // gpu.sm_clock_max
  std::int64_t process_samples = 0, shared_samples = 0;  // gpu.other_processes samples; those > 0
  double max_other_processes = 0, max_other_bytes = 0;
  std::optional<double> ecc_corrected_rise, ecc_uncorrected_rise;  // last - first volatile count
};

/// Measured GPU metrics of the analysed window from CUPTI PM sampling (the session's pm.* metric
/// series; docs/metrics.md, "Measured metrics"), shown beside the estimates, never instead of them.
/// "While kernels run": each sample weighted by the share of its interval some kernel ran (the kernel
/// records' union); without kernel records, a plain mean over the window (kernel_weighted false).
struct Measured {
  std::string status;                       // meta pm_sampling: rate, samples, samples lost, metrics
  std::map<std::string, std::string> absent;  // metric -> why (meta pm_sampling.absent.*)
  std::int64_t samples = 0;                 // samples of the window (of any one series)
  std::int64_t samples_lost = 0;            // the whole session's (meta pm_sampling.samples_lost)
  std::int64_t interval_ns = 0;
  bool kernel_weighted = false;
  std::optional<double> sm_active_pct, tensor_active_pct, warp_occupancy_pct;  // 0..100
  std::optional<double> dram_bytes_per_s;      // read + write
  std::optional<double> dram_peak_pct;         // the DRAM counter's own % of peak, 0..100
  std::optional<double> copy_ceiling_bytes_per_s;  // meta pm_sampling.copy_ceiling_bytes_per_s
  std::optional<double> dram_ceiling_share;    // dram_bytes_per_s / copy ceiling (0..1, may pass 1)
  std::optional<double> pcie_rx_bytes_per_s, pcie_tx_bytes_per_s;
  /// Why there is no copy ceiling (meta pm_sampling.copy_ceiling, "not measured: ..."), "" when there is one.
  std::string copy_ceiling_absent;
  /// memory_bound_kernels' outcome in words whether it fired or not ("not memory-bound: DRAM 28 % of the
  /// copy ceiling while kernels ran (the finding needs >= 70 %)", "not judged: no copy ceiling (...)"); "" when
  /// there is nothing measured to judge.
  std::string memory_bound;
};

/// The finding memory_bound_kernels fires when measured DRAM throughput while kernels run is at
/// least this share of the measured copy ceiling. TrainScope's choice: Nsight Compute's speed-of-light
/// rule calls a kernel's memory utilisation high from 60 % of peak and its roofline puts kernels near
/// the ridge within ~70-80 %; measured against what a plain copy reaches on the same card (not the
/// datasheet), 70 % leaves little a kernel could still gain from better access patterns alone.
constexpr double kMemoryBoundShare = 0.70;

/// GPU busy over every step the recording timed on the GPU (docs/metrics.md, "GPU busy over the run"):
/// the analysed steps by their kernels, copies and memsets (Report::gpu_busy_ns over Report::wall_ns),
/// and the steps without kernel records that hold a whole CUDA-graph replay (a hybrid recording's steps
/// between its windows: profiler.h) by the union of their replays inside each step's span. Steps with
/// neither (a window's lead-in, the capture step) are left out, as untraced. A figure, not a verdict:
/// the verdicts stay with the analysed steps.
struct RunGpuBusy {
  std::int64_t kernel_steps = 0, replay_steps = 0;  // steps counted from their kernels / graph replays
  std::int64_t wall_ns = 0, busy_ns = 0;            // summed over both
  std::int64_t replay_wall_ns = 0, replay_busy_ns = 0;  // the graph-replay steps' part
  double utilization() const { return wall_ns > 0 ? static_cast<double>(busy_ns) / static_cast<double>(wall_ns) : 0; }
};

/// Session (or rolling-window) metrics and verdicts.
struct Report {
  std::int64_t steps = 0;
  /// Where the steps came from (meta "steps.rule"; profiling/steps/step_rule.h): "TrainScope's step
  /// ranges", "ProfilerStep#N ranges", "ranges matching 'step'", "the whole trace (one step ...)".
  std::string step_rule;
  bool whole_trace_step = false;  // the one step is the whole trace (step rule 4)
  std::int64_t min_steps_for_verdicts = 10;  // the Options value it was analysed with
  /// Kernels, copies and memsets in the analysed window (the whole-trace rule counts them).
  std::int64_t device_events = 0;
  /// Whether verdicts were judged; `verdicts_withheld` says why not ("need at least 10 steps (3
  /// here)"). A whole-trace step of >= kWholeTraceMinNs with >= kWholeTraceMinDeviceEvents is
  /// judged for the verdicts that need no repeated steps only (whole_trace_verdicts()).
  bool verdicts_judged = false;
  std::string verdicts_withheld;
  std::int64_t warmup_steps_skipped = 0;  // leading steps left out (Options::warmup_steps)
  std::int64_t pending_steps_skipped = 0; // trailing steps left out, GPU records not in yet (Options::live)
  /// Steps a scheduled recording did not trace (meta session.schedule: outside its active windows),
  /// left out: they hold a step row but no host ranges and no GPU records; and the first active step
  /// of each window, whose start overlaps the untraced GPU work queued before it.
  std::int64_t untraced_steps_skipped = 0;
  std::int64_t wall_ns = 0;
  Breakdown breakdown;
  std::int64_t data_wait_ns = 0, sync_ns = 0;
  bool gpu_present = false;  // kernels or copies were recorded
  std::string device_vendor;  // meta device.vendor: "NVIDIA", "AMD", "Meta MTIA"; empty when unknown
  std::string device_name;    // meta device.name; empty when unknown
  std::string gpu_absent_reason;
  std::optional<double> gpu_utilization;        // busy / wall
  std::optional<double> sm_efficiency;          // duration-weighted min(1, blocks / SMs)
  std::optional<double> theoretical_occupancy;  // duration-weighted, occupancy calculator
  std::optional<double> achieved_occupancy_est; // duration-weighted, PyTorch profiler's estimate
  /// SM efficiency / achieved occupancy took a Kineto trace's own per-kernel estimates ("blocks per
  /// SM", "est. achieved occupancy %") where its kernels carry them (computed for the others).
  bool kineto_kernel_estimates = false;
  std::optional<IdleBreakdown> idle;
  std::optional<std::int64_t> idle_sync_ns, idle_host_launching_ns, gpu_busy_ns;
  /// Whole-run GPU busy with the graph replays between a hybrid recording's windows; nullopt when the
  /// session holds no graph replay in the steps read.
  std::optional<RunGpuBusy> run_gpu_busy;
  /// What the host did while the GPU idled (HostIdle); nullopt without GPU activity.
  std::optional<HostIdle> idle_by_host;
  /// Median idle gap between GPU ops while the host was launching: what each launch left the GPU
  /// waiting (ns).
  std::optional<double> median_launch_gap_ns;
  /// Median launch interval over the same gaps: from the start of the op before the gap to the start
  /// of the op after it (ns) — the host's time per launch as the kernel stream shows it, where lean
  /// mode records no launch call. With a launch every L ns and ops of d ns the gap is L - d, the
  /// interval L: launch_bound compares the median kernel with this.
  std::optional<double> median_launch_interval_ns;
  /// A recorded program with the Python insight (meta python.insight: "lean" / "full"); "" without.
  std::string python_insight;
  /// A program recorded by trainscope-run -- PROGRAM (meta session.source "injected ..."): host_bound
  /// and launch_bound's launching measure of HostIdle are judged on these only.
  bool recorded_program = false;
  /// The stepping thread's mean CPU use over the analysed steps (its cpu.percent series), 0..100.
  std::optional<double> stepping_thread_cpu_pct;
  /// Python stack samples of the stepping thread in the analysed steps, and by cause of GPU idle
  /// ("idle" every idle instant; "input", "sync", "launching", "host"): the top lines.
  std::int64_t python_samples = 0;
  std::map<std::string, std::vector<FrameShare>> frames_by_cause;
  /// Blocking calls by Python call site (`sync: ...` ranges): share of the GPU idle inside them.
  std::vector<FrameShare> sync_sites;
  // Launch statistics.
  std::optional<double> kernels_per_step;
  std::optional<double> median_kernel_ns, median_launch_ns, share_kernels_shorter_than_launch;
  std::int64_t launch_cost_ns = 0;              // kernel-wait threshold used
  // Tensor cores and precision.
  std::optional<double> tensor_core_kernel_share;  // of kernel time
  std::optional<double> matmul_kernel_share;       // GEMM/conv kernels, of kernel time
  /// The precision the GEMM/conv kernels ran in, read from their names (kernel_precision): "bf16",
  /// "fp16" or "fp8" when such kernels are >= half of the matmul time, else "" (fp32 / tf32).
  std::string amp_from_kernels;
  std::optional<double> reduced_precision_matmul_share;  // of matmul kernel time
  // Copies and memory.
  std::int64_t pageable_copies = 0, pageable_copy_bytes = 0, pageable_copy_ns = 0;
  std::optional<std::int64_t> peak_device_memory_bytes;  // max of device.memory.used (cudaMemGetInfo)
  /// The card's memory used at the peak, 0..1: peak_device_memory_bytes / device.total_memory_bytes;
  /// with a simulated card (config.memory_limit_bytes > 0) peak_reserved_bytes / the cap instead,
  /// the bytes the cap limits (docs/metrics.md).
  std::optional<double> device_memory_fraction;
  /// Max over sampler rounds of the allocator's reserved bytes summed over categories (memory.reserved.*).
  std::optional<std::int64_t> peak_reserved_bytes;
  std::optional<std::int64_t> skipped_steps, optimizer_steps;
  /// Distributed runs (docs/metrics.md, "Communication"): the rank and world size (meta
  /// distributed.rank / world_size, else the file name's "rank3"; -1 unknown) and, when collective
  /// kernels or communication host ranges (`comm: ...`) ran in the window, their time (union, ns;
  /// communication.h: the definition a job's per-rank figures use), the computation kernels' time
  /// (union), the overlap as Holistic Trace Analysis defines it (computation time while communicating ÷
  /// communication time) and the exposed communication (communicating while no computation kernel
  /// runs). nullopt: no communication found.
  std::int32_t rank = -1, world_size = -1;
  struct Communication {
    std::int64_t kernels = 0;
    std::int64_t host_ranges = 0;  // `comm: ...` host ranges (communication.h), in the session
    std::int64_t communication_ns = 0, computation_ns = 0, overlap_ns = 0, exposed_ns = 0;
    double overlap() const { return communication_ns > 0 ? static_cast<double>(overlap_ns) / communication_ns : 0; }
  };
  std::optional<Communication> communication;
  /// The samplers' GPU-health series over the whole run; nullopt where NVML gave none.
  std::optional<GpuHealth> health;
  DeviceProps device;
  RunConfig config;
  /// Measured GPU metrics (PM sampling); nullopt where the session has no pm.* series.
  std::optional<Measured> measured;
  std::vector<StepMetrics> per_step;
  std::vector<Verdict> verdicts;
  /// Findings from measured metrics, apart from the verdicts (no step rule, no lessons):
  /// memory_bound_kernels (kMemoryBoundShare).
  std::vector<Verdict> findings;
};

/// The warm-up steps TrainScope leaves out wherever a session's analysed steps are counted: the
/// runner's --analyze (--analyze-warmup), the window's Verdicts tab and Step breakdown mean, Compare:
/// step 1 carries cuDNN's algorithm search and first-touch allocations (Options::warmup_steps).
constexpr std::int64_t kDefaultWarmupSteps = 1;

struct Options {
  /// Analyse only the last N recorded steps (the rolling window); 0 = every step.
  std::int64_t last_steps = 0;
  bool per_step = true;  // fill Report::per_step
  bool verdicts = true;
  /// Leading steps of the recording left out as warm-up: the first step of a run carries cuDNN's
  /// algorithm search, the first cuBLAS/cuDNN handle use and first-touch allocations (45 ms against
  /// ~1 ms for the next steps at b512 on the H200), which would swamp a short recording. The same
  /// idea as torch.profiler.schedule(wait=1, warmup=1). Never leaves fewer than one step. The
  /// runner's --analyze leaves out kDefaultWarmupSteps by default (--analyze-warmup).
  std::int64_t warmup_steps = 0;
  /// Verdicts need at least this many analysed steps (default min_steps_for_verdicts(): 10, enough
  /// that one odd step cannot decide a verdict). An imported torch.profiler trace holds only its
  /// schedule's active steps — customarily 3 to 6, after the profiler's own warm-up — so its
  /// importer asks for fewer (profiling/import/trace_analysis.h).
  std::int64_t min_steps_for_verdicts = 10;
  /// A live store: CUPTI hands GPU records over in buffers (flushed every ~100 ms), so the newest
  /// steps' kernels may not be in the store yet. With live on, trailing steps that end after the
  /// newest GPU record are left out of the window (a GPU run only: the session meta says CUPTI
  /// collected), instead of being analysed as if their GPU had been idle.
  bool live = false;
};

/// Analyses `store` (any thread; reads a consistent prefix of each table).
Report analyze(const EventStore& store, const Options& options = {});
/// The rolling window: the last `n` steps (what the GUI shows while training).
inline Report analyze_last_steps(const EventStore& store, std::int64_t n) {
  return analyze(store, Options{n, false, true});
}

/// Fills report.verdicts from its metrics (thresholds: verdicts.cpp, docs/metrics.md); none when
/// report.steps < report.min_steps_for_verdicts, except on a whole-trace step (a trace without steps)
/// that spans >= kWholeTraceMinNs with >= kWholeTraceMinDeviceEvents: there the verdicts that need
/// no repeated steps are judged. Sets verdicts_judged / verdicts_withheld.
void add_verdicts(Report& report);
/// The whole-trace rule's floor (TrainScope's choice, docs/metrics.md): 100 ms holds
/// several iterations of the smallest training loops measured here (SimpleCNN b128 steps are about
/// 1.5 ms on the H200, 30 ms on the CPU), and 100 device events make a share of GPU time more than
/// one kernel's worth.
constexpr std::int64_t kWholeTraceMinNs = 100'000'000;
constexpr std::int64_t kWholeTraceMinDeviceEvents = 100;
/// The verdicts a whole-trace step may give: low_utilization, sync_bound, pageable_memcpy,
/// amp_eligible, communication_bound — each a share of time or a property of the kernels, with no
/// step-to-step comparison and no per-step wait (input_bound, launch_bound and memory_pressure
/// need steps or the sampler's memory series).
const std::vector<std::string>& whole_trace_verdicts();
/// How a verdict is judged: the measure it holds against its threshold (a name of its evidence, in
/// that evidence's units), the threshold at which it fires (the moderate one; verdicts.cpp has each
/// with its source), and whether it fires at or above it (true) or below it (low_utilization).
struct VerdictRule {
  std::string measure;
  double threshold = 0;
  bool fires_above = true;
};
/// Every verdict id add_verdicts can give, in its order.
const std::vector<std::string>& verdict_ids();
/// The rule of verdict `id`; nullopt for an unknown id.
std::optional<VerdictRule> verdict_rule(const std::string& id);
/// Verdict `id`'s measure in `report` whether the verdict fired or not (the same formula as the
/// verdict's own); nullopt when the report lacks what it needs (no GPU records, unknown id).
std::optional<double> verdict_measure(const Report& report, const std::string& id);
/// How far a measure is past its rule's threshold: value / threshold (threshold / value when the
/// verdict fires below it); >= 1 means it fires. nullopt when not computable (zero).
std::optional<double> verdict_margin(const VerdictRule& rule, double value);

/// The default fewest analysed steps for verdicts (Options::min_steps_for_verdicts).
std::int64_t min_steps_for_verdicts();

/// Human-readable text (breakdown, metrics, verdicts) and one JSON object.
std::string to_text(const Report& r);
std::string to_json(const Report& r);
/// Report::measured alone as one JSON object, the same members as to_json(Report)'s "measured"
/// (percentages 0..100, rates in bytes/s, shares 0..1, null where absent): --compare --json uses it.
std::string to_json(const Measured& m);

}  // namespace ts::prof::analysis
