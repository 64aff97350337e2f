// TimelineData: the timeline's compact per-lane view of an EventStore, built incrementally. Each
// ingest() reads only the rows appended since the last one (up to the hub's counts), never copies
// the store: an event keeps its times, its table row and its colour category (16 bytes, lod.h);
// names, launch configurations and the rest are looked up in the store by row when needed, and the
// launch <-> GPU op links by correlation id through a block index (CorrBlocks, 0.125 bytes per row).
// Before the events of an opened session are read, setOverview() shows the file's whole-session
// overview (profiling/overview.h) in the same lanes.
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
#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "profiling/event_store.h"
#include "profiling/lanes.h"
#include "profiling/overview.h"

class QFontMetrics;
#include "widgets/timeline/lod.h"

namespace ts::gui::timeline {

using prof::timeline::LaneKind;

/// Rows of one store table by correlation id without an entry per row: the smallest and largest
/// correlation id of each block of kBlock rows. CUPTI delivers records nearly in correlation order
/// (ids are handed out at API entry, records written at exit), so a lookup scans the few blocks
/// whose range holds the id: O(rows / kBlock) comparisons plus kBlock rows per candidate block.
class CorrBlocks {
 public:
  static constexpr std::size_t kBlock = 64;
  /// The next row's correlation id (0: none).
  void add(std::uint32_t corr) {
    if (rows_ % kBlock == 0) lo_.push_back(UINT32_MAX), hi_.push_back(0);
    if (corr) lo_.back() = std::min(lo_.back(), corr), hi_.back() = std::max(hi_.back(), corr);
    ++rows_;
  }
  /// The first row whose corr_of(row) == corr.
  template <class CorrOf>
  std::optional<std::uint32_t> find(std::uint32_t corr, CorrOf&& corr_of) const {
    if (corr == 0) return std::nullopt;
    for (std::size_t b = 0; b < lo_.size(); ++b) {
      if (corr < lo_[b] || corr > hi_[b]) continue;
      for (std::size_t r = b * kBlock, end = std::min(rows_, r + kBlock); r < end; ++r)
        if (corr_of(r) == corr) return static_cast<std::uint32_t>(r);
    }
    return std::nullopt;
  }
  std::size_t bytes() const { return (lo_.capacity() + hi_.capacity()) * sizeof(std::uint32_t); }

 private:
  std::vector<std::uint32_t> lo_, hi_;
  std::size_t rows_ = 0;
};

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
  /// Not in overview mode (reset() first).
  void ingest(const prof::EventStore& store, const prof::StoreCounts& counts);
  /// Overview mode: the lanes of `o` (same keys, kinds and rows as ingest() would build), each row's
  /// non-empty bins as events (start = the bin's start, duration = its busy ns, no store row, the
  /// bin's category), the steps and thread names `store` has so far. For an opened session while
  /// its events load; reset() leaves the mode.
  void setOverview(const prof::EventStore& store, const prof::SessionOverview& o);
  bool isOverview() const { return overview_; }
  /// Overview mode: the width of a bin, ns.
  std::int64_t overviewBinNs() const { return overview_bin_ns_; }
  /// Releases spare capacity (a loaded session's rows do not grow again).
  void compact();
  const prof::StoreCounts& seen() const { return seen_; }
  /// Increments on each ingest that added something.
  std::uint64_t version() const { return version_; }

  const std::vector<Lane>& lanes() const { return lanes_; }
  int laneIndex(const std::string& key) const;
  /// Default order: trainer thread, runtime threads that launched kernels (most launches first),
  /// streams, copies H2D, D2H, other, memsets, syncs, then the other host threads and the runtime
  /// threads without launches; lanes without events left out.
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
  /// Runtime call (its runtime table row) with correlation id `corr`, among the ingested rows.
  std::optional<std::uint32_t> runtimeOf(const prof::EventStore& store, std::uint32_t corr) const;
  /// GPU op (kernel, memcpy or memset) launched with correlation id `corr`, among the ingested rows.
  std::optional<std::pair<Source, std::uint32_t>> gpuOpOf(const prof::EventStore& store, std::uint32_t corr) const;

  const std::vector<StepBand>& steps() const { return steps_; }
  /// Index into steps() of the step whose [start, end] contains t, -1 if none.
  int stepAt(std::int64_t t) const;

  /// Earliest start and latest end of every ingested event (0, 0 when empty).
  std::int64_t minTime() const { return events_ ? min_t_ : 0; }
  std::int64_t maxTime() const { return events_ ? max_t_ : 0; }
  std::size_t eventCount() const { return events_; }
  /// Heap bytes of these structures (vector capacities, indices, maps; not the store).
  std::size_t bytes() const;

 private:
  int laneFor(LaneKind kind, const std::string& key, std::uint32_t id, std::int32_t device);
  int laneFor(const prof::timeline::LaneId& lane);
  int hostLane(std::uint32_t tid);
  void ingestThreads(const prof::EventStore& store, const prof::StoreCounts& c);
  void ingestGpu(const prof::EventStore& store, const prof::StoreCounts& c, std::vector<std::vector<Event>>& batch);
  void ingestHost(const prof::EventStore& store, const prof::StoreCounts& c, std::vector<std::vector<Event>>& batch);
  void add(std::vector<std::vector<Event>>& batch, int lane, const Event& e);
  void ingestSteps(const prof::EventStore& store, std::size_t count);

  std::vector<Lane> lanes_;
  std::unordered_map<std::string, int> lane_of_key_;
  std::unordered_map<std::uint32_t, int> host_lane_of_tid_;
  std::unordered_map<std::uint32_t, std::string> thread_name_;
  CorrBlocks runtime_corr_, kernel_corr_, memcpy_corr_, memset_corr_;
  prof::timeline::NameCategories names_;
  std::vector<StepBand> steps_;
  prof::StoreCounts seen_{};
  std::uint64_t version_ = 0;
  std::size_t events_ = 0;
  std::int64_t min_t_ = 0, max_t_ = 0;
  bool overview_ = false;
  std::int64_t overview_bin_ns_ = 1;
};

/// Adds `batch` to `lane` and re-stacks from the last depth-0 event starting before the batch. Rows
/// grow by at least half their size when they must grow (live runs add a little each tick).
void merge_into_lane(Lane& lane, std::vector<Event> batch);

/// Lane title `title` (TimelineData::laneTitle) as it fits `width_px` in `fm`: whole where it fits.
/// Else the lane's kind before " · " ("CUDA API", "GPU 1") stays whole and what follows gives way:
/// a thread id keeps its last digits, which tell threads apart ("CUDA API · …192147", then
/// "CUDA API · …2147"), a name keeps its start and end ("CUDA API · load…r-12"). A title without a
/// kind, or a kind that leaves no room, is cut at its end. Classroom mode's font cut
/// "CUDA API · thread 192147" to "CUDA API · threa…", which no longer told the threads apart.
QString fit_lane_title(const QString& title, const QFontMetrics& fm, int width_px);

}  // namespace ts::gui::timeline
