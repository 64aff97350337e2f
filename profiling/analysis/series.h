// Time series for the memory graph and the utilization panel (Qt-free): the samplers' series read
// incrementally by name, GPU activity in time buckets (time-utilisation, est. SM efficiency, est.
// achieved occupancy, H2D throughput), the process's CUDA device memory from CUPTI's alloc/free
// records, and the "possible leak" rule on the allocator's allocated bytes at step ends.
// Formulas follow docs/metrics.md; all times are session ns, sizes bytes.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "profiling/analysis/analysis.h"
#include "profiling/event_store.h"

namespace ts::prof::analysis {

struct SeriesPoint {
  std::int64_t t = 0;  // session ns
  double v = 0;        // in the series' unit
};

/// The samplers' series (sample_series + samples) grouped by name, read incrementally; or, made with
/// Tables::pm_metrics, the measured GPU metrics (metric_series + metric_samples: CUPTI PM sampling).
class SeriesSet {
 public:
  enum class Tables { samplers, pm_metrics };
  explicit SeriesSet(Tables tables = Tables::samplers) : tables_(tables) {}
  struct Series {
    std::string name, unit;
    std::vector<SeriesPoint> points;  // sorted by t
  };
  /// Reads series rows [0, n_series) and the sample rows not read yet below n_samples (of the tables
  /// it was made for: StoreCounts::series/samples, or metric_series/metric_samples). A sample of a
  /// series not registered in that prefix stops the read there (the next update resumes). Returns
  /// true when points were added.
  bool update(const EventStore& store, std::size_t n_series, std::size_t n_samples);
  void clear();
  /// nullptr when the series never appeared (absent: never an empty or zero series).
  const Series* find(const std::string& name) const;
  /// Every series whose name starts with `prefix`, in registration order.
  std::vector<const Series*> with_prefix(const std::string& prefix) const;

 private:
  std::vector<Series> series_;
  std::unordered_map<std::uint32_t, std::size_t> slot_of_id_;
  std::map<std::string, std::size_t> slot_of_name_;
  std::size_t series_read_ = 0, samples_read_ = 0;
  Tables tables_ = Tables::samplers;
};

/// A thread's CPU % (100 % = one core busy) from the cpu.percent.<comm>.<tid> series. A thread whose
/// comm changed (e.g. "trainscope-run" renamed "trainer") has several series; they are merged by tid.
struct ThreadCpu {
  std::uint32_t tid = 0;
  std::string comm;  // the latest name
  std::vector<SeriesPoint> points;
};
std::map<std::uint32_t, ThreadCpu> cpu_by_thread(const SeriesSet& set);

/// Sum of the series of `parts` at each time any of them has a sample, each held at its latest value
/// (step interpolation; a series contributes 0 before its first sample). For the allocator's
/// categories, which the sampler writes in one round at one time, this is the exact total.
std::vector<SeriesPoint> sum_series(const std::vector<const std::vector<SeriesPoint>*>& parts);

/// The allocator's reserved bytes summed over its categories (the memory.reserved.* series, written in
/// one sampler round each) at each round, from the rows of `store` below `counts`; empty when absent.
/// What a simulated card's cap (--memory-limit) limits.
std::vector<SeriesPoint> reserved_total(const EventStore& store, const StoreCounts& counts);

/// GPU activity in buckets [from + i*bucket_ns, from + (i+1)*bucket_ns), i < count.
struct GpuBuckets {
  std::int64_t from = 0, bucket_ns = 0;
  bool gpu_present = false;  // any kernel, memcpy, memset or CUDA-graph replay in the rows read
  /// Union of kernels, memcpys, memsets and whole CUDA-graph replays (a hybrid recording's steps
  /// between its kernel windows; profiler.h) on any stream inside the bucket / bucket length, 0..1.
  std::vector<double> busy;
  /// Kernel-time-weighted est. SM efficiency, min(1, blocks / SMs) (PyTorch profiler's "Est. SM
  /// Efficiency"); NaN where no kernel ran in the bucket or the device is unknown.
  std::vector<double> sm_efficiency;
  /// Kernel-time-weighted est. achieved occupancy, min(1, min(blocks/SMs, active blocks per SM) x
  /// threads per block / max threads per SM) (Kineto's estimate, CUDA's occupancy calculator); NaN as above.
  std::vector<double> achieved_occupancy;
  /// Host-to-device copy bytes (memcpy copy_kind 1) landing in the bucket (each copy's bytes spread
  /// evenly over its duration) / bucket length: bytes/s averaged over the bucket.
  std::vector<double> h2d_bytes_per_s;
  std::size_t count() const { return busy.size(); }
};
/// Buckets over [from, to) (count = ceil((to - from) / bucket_ns)), from the rows below `counts`.
/// bucket_ns <= 0 or to <= from gives no buckets.
GpuBuckets bucket_gpu(const EventStore& store, const StoreCounts& counts, std::int64_t from, std::int64_t to,
                      std::int64_t bucket_ns, const DeviceProps& device);
/// A round bucket length (1, 2 or 5 x 10^k ns, at least 10 us) giving about `target` buckets over `span_ns`.
std::int64_t nice_bucket_ns(std::int64_t span_ns, int target);

/// The device memory the process holds through CUDA, from CUPTI memory records (MEMORY2): the running
/// sum of allocations minus releases of memory kind device (CUpti_ActivityMemoryKind 3), one point
/// per record. A release of an address allocated before the recording started is not subtracted
/// (it is counted in unmatched_releases); a record without an address (address 0: old PyTorch
/// profiler traces) is subtracted by its own size. What cudaMalloc handed out (the caching allocator's
/// reserved segments, cuDNN/cuBLAS workspaces), finer in time than the 20 Hz samples.
struct CuptiMemory {
  std::vector<SeriesPoint> points;
  std::int64_t allocations = 0, releases = 0, unmatched_releases = 0;
};
CuptiMemory cupti_device_memory(const EventStore& store, std::size_t n_memory);

/// The "possible leak" rule on allocated bytes at step ends (docs in series.cpp's constants).
struct LeakRule {
  /// The growth must span at least this many steps: shorter runs are dominated by warm-up (optimizer
  /// state created at the first update, cuDNN workspaces grown for new shapes, the last short batch).
  std::int64_t min_steps = 20;
  /// ... rise at least this many times (distinct sampler rounds), so one allocation that stays (an
  /// eval buffer, a bigger workspace) is not a leak ...
  int min_rises = 3;
  /// ... and grow by more than this per step on average. 4 KiB: a per-step scalar kept on the device
  /// (4 B) stays below; keeping one batch's logits (128 x 10 fp32 = 5 KiB) or any activation per step
  /// is above. TrainScope's choice.
  double min_bytes_per_step = 4096;
};
struct LeakCheck {
  bool suspected = false;
  std::int64_t first_step = 0, last_step = 0;  // global steps of the growing run
  std::int64_t steps = 0;                       // steps it spans
  int rises = 0;
  double first_bytes = 0, last_bytes = 0, bytes_per_step = 0;
};
struct StepEnd {
  std::int64_t global_step = 0, end = 0;  // session ns
};
/// Leak check: value at each step end = the latest `allocated` point at or before it (steps before
/// the first point are skipped; the first step is left out as warm-up). The trailing run of step-end
/// values that never decreases is a suspected leak when it spans >= min_steps steps, rises >=
/// min_rises times with at least one rise in its second half (still growing), and grows more than
/// min_bytes_per_step on average.
LeakCheck check_leak(const std::vector<SeriesPoint>& allocated, const std::vector<StepEnd>& step_ends,
                     const LeakRule& rule = {});

}  // namespace ts::prof::analysis
