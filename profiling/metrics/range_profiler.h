// RangeProfiler: per-kernel hardware-counter metrics of one launch, measured with CUPTI's range
// profiler (cupti_range_profiler.h with the host config API cupti_profiler_host.h, CUDA 12.6+) in
// auto-range mode (one range per kernel) with kernel replay (CUPTI runs each kernel as many times as
// its counters need passes, saving and restoring the memory the kernel writes between passes).
//
// The host side (chip, counter availability, the counters each metric gets, the config image) is
// built once by the constructor; each profile() call enables the range profiler on the context,
// runs the caller's launch under it, decodes and evaluates the counters, and disables it again on
// every path, so the profiler is never left enabled (an enabled range profiler would stand between
// the next timed launches and the GPU). Metrics are those of range_metrics.h.
//
// Refusals are results, never exceptions or crashes: counters refused (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
// "GPU counters need root or RmProfilingAdminOnly=0"), another profiler holding the device (Nsight
// Compute, DCGM profiling, a PM sampler in this process), a chip lacking a metric (that metric absent
// with the reason, the others kept), a CUPTI without the range profiler, or a build without CUDA:
// ready() is false or the RangeResult says why.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "profiling/metrics/range_metrics.h"

struct CUctx_st;  // CUcontext is CUctx_st* (cuda.h); declared here so the header needs no CUDA

namespace ts::prof {

namespace pm {
struct PmApi;  // pm_api.h: the CUPTI entry points
}

struct RangeProfilerOptions {
  int cuda_device = 0;  // the device whose chip names the counters
  /// The context to profile (a CUcontext). Null: the calling thread's current context when the
  /// profiler is made (the CUDA runtime's primary context once the device is in use).
  CUctx_st* context = nullptr;
  /// Metric names (range_metrics.h); empty: all of them.
  std::vector<std::string> metrics;
  /// Kernels one launch may run that are measured (ranges per pass and in the counter-data image);
  /// more are dropped and counted (RangeResult::dropped_ranges).
  int max_kernels = 64;
  /// Calls of the launch function at most (a replay needing more passes than this is a failure).
  int max_launches = 64;
  /// The CUPTI entry points: linked_pm_api() (pm_sampler.h) in TrainScope's own runs. Null: nothing
  /// is measured (why() says so).
  std::shared_ptr<const pm::PmApi> api;
};

class RangeProfiler {
 public:
  /// Prepares the host side on the calling thread (its context must be current when `context` is
  /// null). Never throws for CUPTI refusals (ready(), why()).
  explicit RangeProfiler(RangeProfilerOptions options);
  ~RangeProfiler();
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;

  /// Whether profile() can measure anything; else why() says why, in one short phrase.
  bool ready() const;
  const std::string& why() const;
  /// The longer story behind why(): the step and CUPTI's error name and text ("" when ready).
  const std::string& detail() const;
  /// Metric -> the counter chosen for it on this chip.
  const std::map<std::string, std::string>& counters() const;
  /// Metrics this chip cannot measure, each with why.
  const std::map<std::string, std::string>& absent() const;

  /// Profiles the kernels `launch` starts on the context, one result per kernel. `launch` enqueues
  /// the work and returns false when enqueueing failed (e.g. a CUDA launch error); it must be
  /// idempotent and replayable: it may be called more than once (once per replay pass where CUPTI
  /// asks for the launch again) and each call must start the same kernels on the same inputs. The
  /// caller synchronises nothing: profile() returns after the kernels finished. Never throws for
  /// CUPTI errors (RangeResult::why); leaves the range profiler disabled on every path.
  range::RangeResult profile(const std::function<bool()>& launch);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ts::prof
