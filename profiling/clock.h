// One clock for a session: int64 ns since session start. Host times come from steady_clock
// (trace::now_ns); GPU times from CUPTI's timestamp (cuptiGetTimestamp, the clock of activity
// records). The two are aligned once at start by measuring offset = cupti - host between two host
// reads (the pair with the shortest bracket wins, bracket/2 is the error bound); later checks measure
// the offset again and report the drift (offset now - offset at start), which is stored, not applied.
#pragma once
#include <cstdint>
#include <functional>

namespace ts::prof {

/// A measured offset: other_clock - host_clock at host time `host_ns`, +- error_ns.
struct ClockOffset {
  std::int64_t host_ns = 0;
  std::int64_t offset_ns = 0;
  std::int64_t error_ns = 0;
};

/// Measures other() - host() `rounds` times as host0, other, host1 and keeps the tightest bracket:
/// offset = other - (host0 + host1) / 2, error = (host1 - host0) / 2. `host` and `other` return ns.
ClockOffset measure_offset(const std::function<std::int64_t()>& host, const std::function<std::int64_t()>& other,
                           int rounds = 16);

class SessionClock {
 public:
  /// `start_host_ns`: steady_clock ns at session start; `gpu_offset_ns`: cupti - steady at start.
  explicit SessionClock(std::int64_t start_host_ns = 0, std::int64_t gpu_offset_ns = 0)
      : start_(start_host_ns), gpu_offset_(gpu_offset_ns) {}
  std::int64_t start_host_ns() const { return start_; }
  std::int64_t gpu_offset_ns() const { return gpu_offset_; }
  void set_gpu_offset(std::int64_t offset) { gpu_offset_ = offset; }
  /// steady_clock ns -> session ns.
  std::int64_t from_host(std::int64_t host_ns) const { return host_ns - start_; }
  /// CUPTI timestamp (ns) -> session ns.
  std::int64_t from_gpu(std::uint64_t gpu_ns) const {
    return static_cast<std::int64_t>(gpu_ns) - gpu_offset_ - start_;
  }

 private:
  std::int64_t start_ = 0, gpu_offset_ = 0;
};

}  // namespace ts::prof
