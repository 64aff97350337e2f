// Samplers: one thread reading, every `period` (default 50 ms = 20 Hz, the 10-20 Hz),
//  - allocator bytes per category (allocated and reserved), from a callback (Network::memory_stats),
//  - device memory free/total (cudaMemGetInfo, CUDA builds on a GPU run),
//  - CPU % of every thread of this process, from /proc/self/task/<tid>/stat (utime + stime deltas
//    over wall time; 100 % = one core busy), named by /proc/self/task/<tid>/comm,
//  - NVML (GPU utilisation %, SM and memory clocks MHz, power W, temperature C), with libnvidia-ml
//    loaded at run time (base/nvml.h, the loader the environment doctor uses too). Where it is absent
//    those series do not exist: never zeros.
//  - GPU health from NVML where it gives them: gpu.clock_event_reasons (the NVML bitmask,
//    base/nvml.h names the bits), gpu.sm_clock_max (MHz), gpu.pcie_tx / gpu.pcie_rx (bytes/s, every 4th
//    round: each read measures ~20 ms), and every 10th round gpu.ecc_corrected / gpu.ecc_uncorrected
//    (volatile counts), gpu.other_processes (compute processes other than this one) and
//    gpu.other_processes_memory (their bytes).
// Each series is registered once (sample_series: name, unit) and written as (time, series, value).
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/nvml.h"
#include "engine/memory.h"
#include "profiling/clock.h"
#include "profiling/event_store.h"

namespace ts::prof {

struct SamplerOptions {
  std::chrono::milliseconds period{50};       // <= 0: no thread (tests call sample_once)
  std::function<MemoryStats()> memory_stats;  // empty: no allocator series
  int cuda_device = -1;                        // >= 0: cudaMemGetInfo and NVML for this ordinal
  bool cpu_threads = true;                     // false: no per-thread CPU % series (the playground)
  /// Tests: an NVML whose entry points are fakes, used for `nvml_device` instead of loading NVML
  /// (cuda_device is then only for cudaMemGetInfo).
  std::shared_ptr<nvml::Library> nvml;
  nvml::Device nvml_device = nullptr;
};

class Samplers {
 public:
  Samplers(EventStore& store, SessionClock clock, SamplerOptions options);
  ~Samplers();
  /// One round of samples now. Called by the thread; call it yourself only with period <= 0 (no
  /// thread is started then: each table has one writer).
  void sample_once();
  /// Replaces the allocator callback (the network exists only after the profiler started).
  void set_memory_stats(std::function<MemoryStats()> fn);
  /// Stops the thread after a last round; idempotent.
  void stop();
  /// Why NVML series are missing ("" when NVML is sampled).
  std::string nvml_status() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ts::prof
