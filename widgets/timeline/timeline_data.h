// TimelineData: the timeline's compact per-lane view of an EventStore, built incrementally. Each
// ingest() reads only the rows appended since the last one (up to the hub's counts), never copies
// the store: an event keeps its times, its table row and its colour category (24 bytes, lod.h);
// names, launch configurations and the rest are looked up in the store by row when needed.
//
// Lanes: one per host thread (named threads share a lane: the loader's workers are recreated each
// epoch with new tids but the same names), one per thread of CUDA runtime calls, one per CUDA stream
// (kernels), one each for copies H2D / D2H / other, memsets and CUPTI synchronisation records.
// Inside a lane, events are stacked into rows: an event goes one row below every event of the lane
// that is still open when it starts (nesting depth for host ranges: step > forward/backward > …),
// so a row never holds overlapping events and lod_walk() can merge it per pixel. Stacking depends
// only on the set of events (a total order, event_before), so growing a store in pieces gives the
// same lanes as reading it at once; a new batch re-stacks only from the last top-level event that
// starts before it.
#pragma once
#include <QString>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "profiling/event_store.h"
#include "widgets/timeline/lod.h"

namespace ts::gui::timeline {

enum class LaneKind : std::uint8_t { host_thread, runtime, stream, copy_h2d, copy_d2h, copy_other, memset, sync };

struct Lane {
  LaneKind kind = LaneKind::host_thread;
  std::string key;         // unique: "thread:trainer", "tid:564", "runtime:2980405248", "stream:0:13", "copy:h2d", ...
  std::uint32_t id = 0;    // tid (host_thread by tid, runtime) or stream id
  std::int32_t device = 0;
  std::vector<Row> rows;   // rows[0] = outermost (depth 0)
  std::int64_t launches = 0;  // runtime lanes: kernel launch calls
  bool has_steps = false;     // host lane that ran step ranges (the trainer)
  std::size_t events() const;
};

struct EventRef {
  int lane = -1, row = -1;
  std::size_t index = 0;
  bool valid() const { return lane >= 0 && row >= 0; }
  bool operator==(const EventRef&) const = default;
};

/// A step of the steps table (drawn as bands with its index).
struct StepBand {
  std::int64_t global_step = 0, epoch = 0, step = 0;
  std::int64_t start = 0, end = 0;
};

class TimelineData {
 public:
  /// Drops everything (a new store).
  void reset();
  /// Reads rows [seen(), counts) of each table of `store` (counts: the hub's counts of this tick).
  void ingest(const prof::EventStore& store, const prof::StoreCounts& counts);
  const prof::StoreCounts& seen() const { return seen_; }
  /// Increments on each ingest that added something.
  std::uint64_t version() const { return version_; }

  const std::vector<Lane>& lanes() const { return lanes_; }
  int laneIndex(const std::string& key) const;
  /// Default order: trainer thread, runtime threads (most launches first), other host threads,
  /// streams, copies H2D, D2H, other, memsets, syncs; lanes without events left out.
  std::vector<int> defaultOrder() const;
  /// "trainer", "loader-0", "CUDA API · trainer" (runtime calls; "trainer" also when the thread
  /// made the most kernel launches but matches no host thread), "Stream 13", "Copies H2D", ...
  QString laneTitle(int lane) const;
  const Event& event(const EventRef& r) const { return lanes_[r.lane].rows[r.row].events[r.index]; }

  /// The trainer's host lane (step ranges), -1 when none.
  int trainerLane() const;
  /// The host lane whose ranges a runtime call of thread `tid` nests in: that thread's lane, else
  /// the trainer's (older sessions' runtime calls carry a CUPTI thread id no host range uses).
  int hostLaneForRuntimeThread(std::uint32_t tid) const;
  /// Whether a host thread lane holds ranges of thread `tid`.
  bool hasHostThread(std::uint32_t tid) const { return host_lane_of_tid_.count(tid) > 0; }
  /// Events of `lane` that contain time t, innermost first.
  std::vector<EventRef> eventsAt(int lane, std::int64_t t) const;
  /// The event of (source, row): its lane from the record, then its start. Invalid if not ingested.
  EventRef find(const prof::EventStore& store, Source source, std::uint32_t row) const;
  /// Runtime call (its runtime table row) with correlation id `corr`.
  std::optional<std::uint32_t> runtimeOf(std::uint32_t corr) const;
  /// GPU op (kernel, memcpy or memset) launched with correlation id `corr`.
  std::optional<std::pair<Source, std::uint32_t>> gpuOpOf(std::uint32_t corr) const;

  const std::vector<StepBand>& steps() const { return steps_; }
  /// Index into steps() of the step whose [start, end] contains t, -1 if none.
  int stepAt(std::int64_t t) const;

  /// Earliest start and latest end of every ingested event (0, 0 when empty).
  std::int64_t minTime() const { return events_ ? min_t_ : 0; }
  std::int64_t maxTime() const { return events_ ? max_t_ : 0; }
  std::size_t eventCount() const { return events_; }
  /// Heap bytes of these structures (vector capacities, indices, maps; not the store).
  std::size_t bytes() const;
  /// Colour category of a kernel name / runtime API name string id (cached per id).
  std::uint8_t kernelCategory(const prof::EventStore& store, prof::StringId name);

 private:
  int laneFor(LaneKind kind, const std::string& key, std::uint32_t id, std::int32_t device);
  int hostLane(std::uint32_t tid);
  void ingestThreads(const prof::EventStore& store, const prof::StoreCounts& c);
  void ingestGpu(const prof::EventStore& store, const prof::StoreCounts& c, std::vector<std::vector<Event>>& batch);
  void ingestHost(const prof::EventStore& store, const prof::StoreCounts& c, std::vector<std::vector<Event>>& batch);
  void add(std::vector<std::vector<Event>>& batch, int lane, const Event& e);
  std::uint8_t runtimeCategory(const prof::EventStore& store, prof::StringId name, bool* launch);

  std::vector<Lane> lanes_;
  std::unordered_map<std::string, int> lane_of_key_;
  std::unordered_map<std::uint32_t, int> host_lane_of_tid_;
  std::unordered_map<std::uint32_t, std::string> thread_name_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> runtime_by_corr_;  // (correlation, row), sorted
  std::vector<std::pair<std::uint32_t, std::uint32_t>> kernel_by_corr_, memcpy_by_corr_, memset_by_corr_;
  std::vector<std::uint8_t> kernel_cat_, runtime_cat_;  // per string id; 255 = not yet classified
  std::vector<StepBand> steps_;
  prof::StoreCounts seen_{};
  std::uint64_t version_ = 0;
  std::size_t events_ = 0;
  std::int64_t min_t_ = 0, max_t_ = 0;
};

/// Adds `batch` to `lane` and re-stacks from the last depth-0 event starting before the batch.
void merge_into_lane(Lane& lane, std::vector<Event> batch);

}  // namespace ts::gui::timeline
