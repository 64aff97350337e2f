// Timing of the playground's variants (internal to ts_playground). One Bench per run: it owns the
// CUPTI collector and event store, and times each variant in a window of host time bounded by two
// device synchronisations, so the kernel records CUPTI delivers inside that window are exactly the
// variant's launches. Records are read after the collector stops (finish()).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "playground/ladder.h"

namespace ts::prof {
class EventStore;
class CuptiCollector;
class RangeProfiler;
class Samplers;
}  // namespace ts::prof

namespace ts::playground {

/// Throws ts::DeviceError with the call's text, file, line and CUDA's error string.
void cuda_check(cudaError_t e, const char* what, const char* file, int line);
#define TS_PG_CUDA(call) ::ts::playground::cuda_check((call), #call, __FILE__, __LINE__)

/// A device buffer freed on scope exit; allocation failure is a DeviceError naming the bytes.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::int64_t count);
  ~DeviceBuffer() {
    if (p_) cudaFree(p_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return p_; }
  std::int64_t count() const { return n_; }
  /// Copies the buffer (all, or the first `count`) to the host.
  std::vector<T> to_host(std::int64_t count = -1) const;

 private:
  T* p_ = nullptr;
  std::int64_t n_ = 0;
};

class Bench {
 public:
  /// `measure`: after each row's timed launches, one more launch under CUPTI's range profiler
  /// (VariantResult::measured).
  explicit Bench(bool measure = false);
  ~Bench();
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  /// Times `launch` (one launch of the variant: one or more kernels on stream 0). Runs it once more
  /// as warm-up, then n launches, n chosen so they take about kTargetNs (at least kMinLaunches, at
  /// most kMaxLaunches), with a CUDA event between launches. The row is filled in finish(), except
  /// its measured figures: when measuring, `launch` runs once more after the timed window (outside
  /// it, so its kernels and CUPTI's replays of them are not timed) under the range profiler, which
  /// may call it several times (kernel replay restores the memory each kernel writes between passes).
  void time(Ladder& ladder, std::size_t variant, const std::function<cudaError_t()>& launch);
  /// Stops CUPTI and the samplers and fills every timed row: median_ns, event_ns, launches,
  /// kernels_per_launch, time_source, throughput (from work), launch, and in the note the SM clock
  /// (median, MHz), power (mean, W) and the clock-event reasons NVML read during the row's timed
  /// launches (a clock below the card's maximum under load: the figure is that clock's, the reasons
  /// say what held it). Returns "" or
  /// why CUPTI was not used.
  std::string finish(std::int64_t* dropped);

  /// With measuring on: "" when the range profiler is ready, else why every row is not measured.
  std::string measure_status() const;

  /// The run's events (CUPTI records, clock checks): complete after finish().
  prof::EventStore& store() { return *store_; }

  static constexpr double kTargetNs = 200e6;
  static constexpr int kMinLaunches = 5, kMaxLaunches = 200;
  static constexpr int kSamplePeriodMs = 50;  // about 4 samples in a 200 ms timed window (the sampler default)

 private:
  struct Window {
    Ladder* ladder;
    std::size_t variant;
    std::int64_t t0, t1;          // session ns
    std::vector<float> event_ms;  // per launch
  };
  std::unique_ptr<prof::EventStore> store_;
  std::unique_ptr<prof::CuptiCollector> cupti_;
  std::unique_ptr<prof::Samplers> samplers_;  // NVML SM clock and power every kSamplePeriod
  std::int64_t start_ns_ = 0;
  bool measure_ = false;
  std::unique_ptr<prof::RangeProfiler> range_;  // made at the first measured row (the context exists then)
  void measure(VariantResult& v, const std::function<cudaError_t()>& launch);
  std::vector<Window> windows_;
  cudaEvent_t events_[kMaxLaunches + 1] = {};
};

}  // namespace ts::playground
