// One sub-row of a timeline lane and its level-of-detail walk. A row holds events that never
// overlap, sorted by start, so their ends are sorted too (TimelineData's stacking guarantees it);
// with the running sum of durations beside them, the walk below merges every run of events
// narrower than a pixel into one density block in O(log n) per pixel, so drawing a row costs
// O(width · log n) whatever the number of events, and no event is dropped: every event of the
// visible range lands in exactly one item, and the items' busy ns add up to the events' durations.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "widgets/timeline/time_axis.h"

namespace ts::gui::timeline {

/// Which store table an event's row index refers to.
enum class Source : std::uint8_t { kernel, memcpy, memset, runtime, host_range, sync };

/// One event as the timeline keeps it: 24 bytes; details are looked up in the store by `row`.
struct Event {
  std::int64_t start = 0, end = 0;  // session ns
  std::uint32_t row = 0;            // row in the store table `source`
  Source source = Source::kernel;
  std::uint8_t category = 0;        // timeline::Category
  std::int64_t dur() const { return end - start; }
};
static_assert(sizeof(Event) == 24);

/// Total order used everywhere (stacking, incremental merge): start, longer first, source, row.
inline bool event_before(const Event& a, const Event& b) {
  if (a.start != b.start) return a.start < b.start;
  if (a.end != b.end) return a.end > b.end;
  if (a.source != b.source) return a.source < b.source;
  return a.row < b.row;
}

struct Row {
  /// One start time per kCoarse events: the first level of the searches (a row of 3M events has a
  /// 1.5 MB coarse array that stays in cache, where probing the 72 MB event array misses each time).
  static constexpr std::size_t kCoarse = 16;
  std::vector<Event> events;         // non-overlapping, sorted by event_before
  std::vector<std::int64_t> busy;    // busy[i] = sum of durations of events[0..i]
  std::vector<std::int64_t> coarse;  // coarse[k] = events[k * kCoarse].start
  void push(const Event& e) {
    if (events.size() % kCoarse == 0) coarse.push_back(e.start);
    busy.push_back((busy.empty() ? 0 : busy.back()) + e.dur());
    events.push_back(e);
  }
  void truncate(std::size_t n) {
    events.resize(n);
    busy.resize(n);
    coarse.resize((n + kCoarse - 1) / kCoarse);
  }
  /// Sum of durations of events [a, b).
  std::int64_t busySum(std::size_t a, std::size_t b) const {
    if (b <= a) return 0;
    return busy[b - 1] - (a ? busy[a - 1] : 0);
  }
  /// Index of the first event with end > t (ends are sorted).
  std::size_t firstEndingAfter(std::int64_t t) const {
    return static_cast<std::size_t>(std::partition_point(events.begin(), events.end(),
                                                         [t](const Event& e) { return e.end <= t; }) -
                                    events.begin());
  }
  /// Index (>= from) of the first event with start >= t. Gallops over the coarse starts from
  /// `from` (the answer is usually near while walking left to right), then searches the
  /// kCoarse events of one block.
  std::size_t nextStartingAt(std::int64_t t, std::size_t from) const {
    const std::size_t n = events.size();
    if (from >= n || events[from].start >= t) return from;
    // coarse[k] for k > from / kCoarse: find the first block whose first start >= t.
    std::size_t lo = from / kCoarse, step = 1;  // coarse[lo] <= events[from].start < t
    const std::size_t nc = coarse.size();
    while (lo + step < nc && coarse[lo + step] < t) lo += step, step *= 2;
    const std::size_t hi_block = std::min(nc, lo + step);
    const auto cb = coarse.begin();
    const std::size_t k = static_cast<std::size_t>(
        std::partition_point(cb + static_cast<std::ptrdiff_t>(lo), cb + static_cast<std::ptrdiff_t>(hi_block),
                             [t](std::int64_t s) { return s < t; }) - cb);
    // Block k starts at or after t (or k == nc); the answer is in [max(from, (k-1)·kCoarse), k·kCoarse].
    const std::size_t a = std::max(from, (k - 1) * kCoarse), b = std::min(n, k * kCoarse);
    return static_cast<std::size_t>(std::partition_point(events.begin() + static_cast<std::ptrdiff_t>(a),
                                                         events.begin() + static_cast<std::ptrdiff_t>(b),
                                                         [t](const Event& e) { return e.start < t; }) -
                                    events.begin());
  }
  /// Index of the first event with start >= t.
  std::size_t firstStartingAt(std::int64_t t, std::size_t from = 0) const {
    return static_cast<std::size_t>(std::partition_point(events.begin() + static_cast<std::ptrdiff_t>(from),
                                                         events.end(), [t](const Event& e) { return e.start < t; }) -
                                    events.begin());
  }
};

/// One drawable item: events [first, last) of the row, drawn from x0 to x1 (px). `merged`: a
/// density block of events narrower than min_px; otherwise one event drawn as a box.
struct LodItem {
  std::size_t first = 0, last = 0;
  double x0 = 0, x1 = 0;
  std::int64_t busy_ns = 0;
  bool merged = false;
};

/// Calls out(const LodItem&) for the events of `row` that overlap [t0, t1), left to right.
/// Events at least `min_px` wide are boxes; runs of narrower ones merge into blocks that end at a
/// pixel boundary (or where a wide event starts). Cost: O((width / min_px + blocks) · log n).
template <class Emit>
void lod_walk(const Row& row, const TimeAxis& axis, std::int64_t t0, std::int64_t t1, double min_px, Emit&& out) {
  const auto& ev = row.events;
  std::size_t i = row.firstEndingAfter(t0);
  const std::size_t iend = row.firstStartingAt(t1, i);
  while (i < iend) {
    const double x0 = axis.x(ev[i].start), x1 = axis.x(ev[i].end);
    if (x1 - x0 >= min_px) {
      out(LodItem{i, i + 1, x0, x1, ev[i].dur(), false});
      ++i;
      continue;
    }
    const std::size_t first = i;
    double pe = std::floor(x0) + 1;  // the block runs to this pixel boundary (so far)
    for (;;) {
      std::size_t j = row.nextStartingAt(axis.t(pe), i);
      j = std::clamp(j, i + 1, iend);
      const Event& last = ev[j - 1];
      const double lx0 = axis.x(last.start), lx1 = axis.x(last.end);
      if (j - 1 > first && lx1 - lx0 >= min_px) {  // a wide event starts inside the block: stop before it
        i = j - 1;
        break;
      }
      i = j;
      if (i >= iend || lx1 <= pe) break;
      pe = std::max(pe + 1, std::floor(lx1) + 1);
    }
    const double bx1 = std::max(axis.x(ev[i - 1].end), x0 + 1);
    out(LodItem{first, i, x0, bx1, row.busySum(first, i), true});
  }
}

}  // namespace ts::gui::timeline
