// HostCollector: the profiler's trace::Sink (engine/host_trace.h). Each thread that closes a range
// gets its own preallocated single-producer ring on first use (registration takes a mutex once per
// thread); a range end is then a few stores and one release store, with no lock and no allocation.
// Range and layer names are interned through a per-thread cache (pointer + string compare), so the
// interning mutex is taken once per distinct name per thread. pump() (the profiler's pump thread)
// moves ranges from every ring into the EventStore and records thread names. A thread's name is
// recorded once (readers keep a tid's first name), so it waits until the thread has named itself
// (trace::name_this_thread may come after its first range: trainscope-run's main thread becomes
// "trainer" only when training starts); a thread that never does is named by the OS name it ends up
// with, at the last pump (flush). A full ring drops the
// range and counts it (EventStore::dropped_host_ranges). Steps and losses go straight into the store
// from the trainer thread (their only writer).
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/host_trace.h"
#include "profiling/clock.h"
#include "profiling/event_store.h"

namespace ts::prof {

class HostCollector final : public trace::Sink {
 public:
  /// `device`/`rank` are written on every range; `clock` maps steady ns to session ns.
  HostCollector(EventStore& store, SessionClock clock, int device, int rank);
  ~HostCollector() override;

  void on_range(const trace::RangeEvent& e) override;
  void on_step(const trace::StepEvent& e) override;
  void on_losses(std::int64_t first_global_step, const float* losses, std::int64_t count) override;

  /// Moves finished ranges into the store and records the names of threads that named themselves.
  /// One thread at a time (the pump).
  void pump();
  /// The last pump, once no thread adds ranges: also names the threads that never named themselves
  /// (by their OS name, as last read by a pump or now).
  void flush();
  /// Ranges kept so far, per all threads.
  std::int64_t ranges() const { return ranges_.load(); }

  struct Ring;

 private:
  Ring& ring();
  void pump_rings(bool last);
  EventStore& store_;
  SessionClock clock_;
  int device_, rank_;
  const std::uint64_t generation_;
  std::mutex rings_mutex_;
  std::vector<std::shared_ptr<Ring>> rings_;
  std::atomic<std::int64_t> ranges_{0};
};

}  // namespace ts::prof
