// Comparing two or more sessions: what differs in the configuration and hardware, what
// that did to throughput, accuracy, the step-time breakdown and the verdicts, and which kernels
// appeared, disappeared, got faster or slower. Qt-free; the runner's --compare prints it (text or
// JSON, compare_report.cpp) and the GUI's compare view reads the same structs.
//
// Session 0 is the baseline: kernel diffs are "session i against session 0". Fields and units of the
// JSON object: docs/compare.md.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "profiling/analysis/analysis.h"
#include "profiling/compare/kernel_diff.h"
#include "profiling/event_store.h"

namespace ts::prof::compare {

/// One configuration knob or hardware/version field that is not the same in every session.
/// key: a run.config field ("batch_size", "num_workers", "augment", ...), "model_spec", or a meta key
/// ("device.name", "versions.cudnn", "host.cpu_model"). values[i]: session i's value as text (JSON
/// scalars as written: 128, true, "adam" without quotes; objects/arrays as compact JSON), nullopt
/// when session i does not record it.
struct ConfigDifference {
  std::string key;
  std::vector<std::optional<std::string>> values;
  /// [i]: the field means nothing for session i's device (gpu_only_field on a CPU run, or a CPU-only
  /// one on a CUDA run): its value is nullopt and the views say "n/a (CPU run)" / "n/a (GPU run)", not
  /// the 0 a CPU session records for a GPU's memory or compute capability. Same size as values.
  std::vector<bool> not_applicable;
};

/// Whether `key` (a run.config field or a meta key, as ConfigDifference::key) describes the CUDA device
/// or a knob only a CUDA run uses: device.compute_capability, device.multiprocessors,
/// device.total_memory_bytes, device.ordinal, versions.cuda_* / cudnn / cublas / cupti, cuda_device,
/// cuda_graphs, memory_limit_bytes, allow_tf32, pin_memory (trainscope-run records page-locking off
/// on the CPU: nothing to pin for). A CPU session records 0 or the knob's default for these.
bool gpu_only_field(const std::string& key);
/// Whether `key` is a knob only the CPU backend uses (cpu_threads).
bool cpu_only_field(const std::string& key);
/// "cpu", "cuda" or "" (unknown: a trace): meta device.kind, else run.config's device.
std::string session_device(const std::map<std::string, std::string>& meta);
/// What the views write for a value that does not apply: "n/a (CPU run)" / "n/a (GPU run)".
std::string not_applicable_text(const std::map<std::string, std::string>& meta);

/// The fields compared: every run.config field, the model spec (by content), device.*, versions.*
/// and host.* meta keys. The training loop's knobs (batch_size, num_workers, pin_memory, amp,
/// augment, sync_every_step) are listed whenever a session does not record them (nullopt:
/// "unknown"), even if no session does: unknown is never "the same". Otherwise returns only the
/// fields whose values are not all equal, run.config fields first
/// (in the first session's order), then meta keys in key order. A run.config that is not a JSON
/// object counts as absent (never throws). Equality is judged on the recorded values; a field that
/// differs then shows not_applicable for the sessions whose device does not use it.
std::vector<ConfigDifference> config_diff(const std::vector<std::map<std::string, std::string>>& metas);

/// Images per second of training time: the one throughput every view shows (Compare's table, chart and
/// headline, a lesson's key numbers and promises, the runner's summary). The trainer's own figure: the
/// images of every epoch over their training time (epochs table: train_ns and images_per_s, evaluation
/// excluded; the warm-up step is in it, as it is in the time a run takes). Host step times are not a
/// throughput: without a sync per step the host runs ahead of the GPU, and with gradient accumulation a
/// step row is a micro-batch (out_of_memory's recording: 856k img/s from host steps against 23.7k from
/// training time). A session without epoch rows (an imported trace) takes its steps table instead: all
/// steps' images over the time from the first step's start to the last one's end.
struct TrainingThroughput {
  std::optional<double> img_per_s;  // absent without images or time
  std::int64_t images = 0;          // images trained
  std::int64_t train_ns = 0;        // training time
  bool from_epochs = false;         // the epochs table (else the steps table)
};
TrainingThroughput training_throughput(const EventStore& store);

/// Raw data-loader wait per analysed step, ns: the trainer thread's data-wait ranges inside the analysed
/// step windows (analysis::Report::data_wait_ns, what input_bound judges), before the breakdown gives an
/// instant shared with GPU work to the kernel. Absent without analysed steps. Compare's Throughput table
/// and a lesson's data_wait_ms both read it here.
std::optional<double> data_wait_ns_per_step(const analysis::Report& report);

/// Step figures from the steps table.
/// A step's time = end - start of its host step row (waiting for data through the train step and any
/// loss read; eval and time between epochs are outside every step).
struct Throughput {
  std::int64_t steps = 0;             // steps used (after the warm-up steps left out)
  std::int64_t warmup_steps_skipped = 0;
  std::int64_t images = 0;            // sum over the steps used
  std::int64_t step_ns = 0;           // sum of their durations
  std::optional<double> median_img_per_s;  // median over steps of each step's img/s (JSON only)
  std::optional<double> mean_img_per_s;    // images / step_ns (JSON only: host time is no throughput)
  std::optional<double> median_step_ns;
  /// step_ns / steps: the host step time every view shows (Compare, a lesson's step_ms).
  std::optional<double> mean_step_ns;
  std::int64_t slowest_step_ns = 0;   // the longest step used
  /// The wall time of the warm-up steps left out (the first: the convolution algorithm search, the
  /// first allocations, a CUDA-graph capture), ns. The step figures leave it out; `training` counts it.
  std::int64_t first_steps_ns = 0;
  TrainingThroughput training;        // training_throughput(store): the img/s every view shows
};
/// A step is an outlier when it takes more than this many times the run's median step, and the
/// left-out first steps are heavy when they take more than this many times it. 5x: in the shipped
/// H200 recordings the slowest analysed step of most runs is 1.0-4.7x the median (an epoch's first
/// step after evaluation); a plan built inside the run was 1,560x (mixed_precision before the AMP
/// fix), and dataloader_workers, sync_points and out_of_memory's accumulate run each have one step
/// of 6.6-32x, which the lessons name.
constexpr double kOutlierTimesMedian = 5.0;
/// Whether the left-out first steps (`first_steps_ms`, ms) outweigh kOutlierTimesMedian x the median
/// step (`median_step_ms`, ms); false without a median. The one rule behind every view's ⚠ on
/// images/s (Compare's window and text, a lesson's) and the JSON's first_steps_outlier.
bool first_steps_heavy(double first_steps_ms, double median_step_ms);
/// first_steps_heavy() of `t`'s first_steps_ns and median_step_ns.
bool first_steps_heavy(const Throughput& t);
/// "the first step took 202.4 ms (21x the median 9.57 ms: the run's one-time setup ...): in images/s
/// (training time), not in the step figures" when first_steps_heavy(); "" otherwise. The one wording
/// of every view's ⚠ on images/s: Compare's and a lesson's.
std::string describe_first_steps(double first_steps_ms, double median_step_ms);
/// describe_first_steps() of `t`'s first_steps_ns and median_step_ns.
std::string describe_first_steps(const Throughput& t);
/// One unit for a row of byte rates, from its largest value (bytes/s): TB/s with 2 decimals from
/// 1e12, GB/s with 1 from 1e9, else MB/s with none; so sessions' cells read side by side.
struct RateUnit {
  double per = 1e6;
  const char* name = "MB/s";
  int decimals = 0;
};
RateUnit rate_unit(double largest_bytes_per_s);

/// Leaves out the first `warmup_steps` rows (capped so one step remains), as analysis::Options does.
Throughput throughput(const EventStore& store, std::int64_t warmup_steps);

/// The last finished epoch (epochs table); absent when the session has no epoch rows.
struct Accuracy {
  std::int32_t epochs = 0;  // rows in the epochs table
  std::optional<std::int32_t> last_epoch;
  std::optional<double> test_accuracy;  // 0..1
  std::optional<double> test_loss, train_loss;
  std::optional<double> epoch_img_per_s;  // the trainer's figure for that epoch (eval excluded)
};
Accuracy accuracy(const EventStore& store);

/// The offset (ns) to add to session B's times so that B's step `global_step` starts when A's does:
/// A.start(k) - B.start(k), from the steps table. nullopt when either session lacks that step.
/// The GUI's aligned timelines draw B at t + offset.
std::optional<std::int64_t> step_alignment_offset(const EventStore& a, const EventStore& b,
                                                  std::int64_t global_step);

/// One session's side of the comparison.
struct SessionSummary {
  std::string label;  // what the user passed (a path)
  std::map<std::string, std::string> meta;
  Throughput throughput;
  Accuracy accuracy;
  analysis::Report report;  // analysed with the same options for every session (no per-step rows)
  std::int64_t recorded_steps = 0;  // rows in the steps table
};

struct Options {
  /// Leading steps left out of the throughput and the analysis (the runner's default, as --analyze).
  std::int64_t warmup_steps = analysis::kDefaultWarmupSteps;
  KernelDiffOptions kernels;
};

struct Comparison {
  std::vector<SessionSummary> sessions;     // session 0 is the baseline
  std::vector<ConfigDifference> config;     // only what differs
  /// [i - 1]: session i against session 0. Kernels launched during the steps after the warm-up
  /// (kernel_groups' step filter; evaluation and set-up kernels are left out); totals per step divide
  /// by those steps. A session without steps diffs all its kernels.
  std::vector<KernelDiff> kernel_diffs;
  /// The first step after the warm-up that every session recorded, and the offsets (ns, per session;
  /// 0 for the baseline) that align it; step 0 / empty when there is none.
  std::int64_t aligned_step = 0;
  std::vector<std::int64_t> alignment_offsets_ns;
  /// Ranks of one distributed job side by side (two or more sessions with distinct ranks >= 0,
  /// analysis::Report::rank): the straggler as profiling/job names it — the rank whose own work per
  /// step (step period minus the time waiting for the other ranks) is >= 1.10x the other ranks'
  /// median — and that ratio; its own work in slowest_own_work_ns. -1 when the sessions are no ranks
  /// of one job or no rank holds the others back. In synchronous data parallelism every rank keeps
  /// the straggler's pace, so step times alone cannot tell it (docs/metrics.md, "Jobs").
  int slowest_rank_session = -1;
  std::int64_t slowest_own_work_ns = 0;
  double slowest_over_fastest = 0;
  Options options;
};

/// Compares `stores` (2 or more; labels[i] names stores[i]). Throws std::invalid_argument when fewer
/// than two stores or a label count mismatch (a programming error; the runner checks its input).
Comparison compare(const std::vector<const EventStore*>& stores, const std::vector<std::string>& labels,
                   const Options& options = {});

/// Human-readable tables (fmt) and one JSON object (fields: docs/compare.md).
/// `max_kernel_rows`: rows of each kernel diff shown in the text (largest |Δ total per step| first;
/// 0 = all).
std::string to_text(const Comparison& c, std::size_t max_kernel_rows = 15);
std::string to_json(const Comparison& c);

}  // namespace ts::prof::compare
