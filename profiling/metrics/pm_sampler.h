// PmSampler: measured GPU metrics by CUPTI PM sampling (cupti_pmsampling.h with the host config API
// cupti_profiler_host.h, CUDA 12.6+). For one device it builds a config of the metrics of
// pm_metrics.h that needs one pass (dropping the least wanted until it does, and saying so), samples
// them at a fixed time interval (1 kHz by default) into a hardware buffer on the GPU, and decodes that
// buffer on its own thread (lower priority, profiling/background_thread.h) every 50 ms into the
// session's metric series, on the session clock.
//
// Samples lost are counted, never silently missing: after a hardware-buffer overflow CUPTI returns
// CUPTI_ERROR_OUT_OF_MEMORY with overflow set until sampling restarts; the sampler stops and starts
// it, and where that is not enough stops sampling (or, with reenable_after_overflow, enables it
// again) and counts the gap (pm_metrics.h, DecodeCounts). Disabling PM sampling may finalize all of
// CUPTI (XLA's PM sampler says so), so stop() disables it last: stop the activity collection first.
//
// Refusals are not errors: counters refused (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES without
// NVreg_RestrictProfilingToAdminUsers=0 or root), held by another profiler (Nsight Compute, DCGM
// profiling), an unsupported GPU (PM sampling needs Turing or later; the time-interval trigger GA10x or
// later, not GA100) or a build without CUDA: active() is false, why() says so, the session meta
// `pm_sampling` carries it and the run records everything else.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "profiling/event_store.h"

namespace ts::prof {

namespace pm {
struct PmApi;  // pm_api.h: the CUPTI entry points
}

struct PmSamplerOptions {
  int cuda_device = 0;
  /// Sampling interval (ns): 1 ms = 1 kHz, the rate asked for a whole training run. CUPTI publishes no
  /// minimum; NVIDIA's guide says to raise the rate until decoding reports overflow.
  std::int64_t interval_ns = 1'000'000;
  /// The GPU-side buffer raw samples wait in until decoded. A sample takes ~4-7 KB with 1-4 metrics
  /// (measured by a public PM sampling probe on an H100, CUDA 13.3), so 256 MiB holds ~30 s at 1 kHz:
  /// room for a decode thread that is starved for seconds on a busy host.
  std::size_t hardware_buffer_bytes = std::size_t{256} << 20;
  std::chrono::milliseconds decode_period{50};
  /// After a second overflow in a row, enable the sampler again (a new PM sampling object). Off by
  /// default: disabling the old object may finalize CUPTI and end the activity records.
  bool reenable_after_overflow = false;
  /// Metric names (pm_metrics.h); empty: all of them.
  std::vector<std::string> metrics;
  /// The CUPTI entry points: linked_pm_api() in TrainScope's own runs, pm::load_api() in the
  /// injection library. Null: nothing is sampled (why() says so).
  std::shared_ptr<const pm::PmApi> api;
  /// Names the decode thread (trace::name_this_thread in TrainScope's runs); empty: pthread's name only.
  std::function<void(const char*)> name_thread;
};

class PmSampler {
 public:
  /// Sets up and starts sampling on `store`'s session whose clock starts at `start_host_ns`
  /// (trace::now_ns). Never throws for CUPTI refusals (active(), why()).
  PmSampler(EventStore& store, std::int64_t start_host_ns, PmSamplerOptions options);
  ~PmSampler();
  PmSampler(const PmSampler&) = delete;
  PmSampler& operator=(const PmSampler&) = delete;

  bool active() const;
  /// Why nothing is sampled ("" when active).
  const std::string& why() const;
  /// The metrics being sampled (pm_metrics.h names).
  std::vector<std::string> metrics() const;
  /// Stops sampling, decodes what is left, disables PM sampling, writes the meta (pm_metrics.h
  /// write_meta); idempotent. Call it after the process's CUPTI activity collection has stopped.
  void stop();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// The linked CUPTI's entry points, with the CUDA runtime making the device's context (CUDA builds
/// of TrainScope's libraries; null in a build without CUDA).
std::shared_ptr<const pm::PmApi> linked_pm_api();

/// Whether this process may read the GPU's performance counters: enables PM sampling on
/// `cuda_device` and builds a one-metric config (the counter query the doctor reports). "" when
/// allowed, else why (CUPTI's error and what it means). Creates the device's primary context.
std::string probe_counter_access(int cuda_device);

/// The measured copy ceiling of `cuda_device` (bytes/s): a device-to-device cudaMemcpy of 256 MiB,
/// best of 5 after one warm-up, timed with CUDA events, counting each byte read and written (2 x
/// 256 MiB per copy) as DRAM traffic. The bandwidth a plain copy reaches is what a memory-bound kernel
/// can hope for (docs/metrics.md, "Measured metrics"). nullopt with `why` when it cannot be measured.
std::optional<double> measure_copy_ceiling(int cuda_device, std::string* why = nullptr);

}  // namespace ts::prof
