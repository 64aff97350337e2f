// The injection library's samplers, every 100 ms on a thread of their own (the samples and series
// tables have this one writer): CPU % of every thread of the process (/proc/self/task/<tid>/stat,
// 100 % = one core; series cpu.percent.<comm>.<tid>, as profiling/samplers.h names them) and, once
// the device is known, NVML's GPU utilisation and device memory (gpu.utilization,
// device.memory.used/free) with libnvidia-ml loaded at run time; where NVML is absent those series
// do not exist (meta samplers.nvml says why). No CUDA call: nothing here needs a context.
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <thread>
#include <unordered_map>

#include "profiling/clock.h"
#include "profiling/event_store.h"

namespace ts::prof::inject {

class Sampler {
 public:
  Sampler(EventStore& store, SessionClock clock);
  ~Sampler();
  /// The CUDA ordinal whose NVML series to sample (any thread; the first call wins).
  void set_device(int ordinal);
  /// One round at steady ns `now` (the thread calls it; tests call it without a thread).
  void sample_once(std::int64_t now_host_ns);
  /// Starts the thread (every `period_ms`); stop() ends it after a last round; idempotent.
  void start(int period_ms = 100);
  void stop();

 private:
  struct Nvml;
  void put(const std::string& name, const char* unit, std::int64_t t, double v);
  void sample_nvml(std::int64_t t);
  EventStore& store_;
  SessionClock clock_;
  std::map<std::string, std::uint32_t> series_;
  std::unordered_map<std::uint32_t, std::pair<std::int64_t, std::int64_t>> cpu_last_;  // tid -> (cpu ns, host ns)
  std::unique_ptr<Nvml> nvml_;
  std::atomic<int> device_{-1};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace ts::prof::inject
