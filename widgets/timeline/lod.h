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

#include "profiling/lanes.h"
#include "widgets/timeline/time_axis.h"

namespace ts::gui::timeline {

using prof::timeline::Source;

/// One event as the timeline keeps it: 16 bytes (the budget: <= 64 bytes per event for the
/// whole process); details are looked up in the store by `row`. Packing: `start` has 56 bits (+-416 days
/// of session ns); the duration is exact below 2^35 ns (34.4 s) and longer ones are kept in units
/// of 2^16 ns (65.5 us), rounded up — the store keeps the exact value, which the details pane
/// shows; `row` has 28 bits, the capacity of a store table (AppendLog: 2^28 records).
struct Event {
  static constexpr std::uint64_t kExactDur = std::uint64_t{1} << 35;
  static constexpr int kCoarseShift = 16;
  std::int64_t start : 56;
  Source source : 3;
  std::uint64_t category : 5;  // timeline::Category
  std::uint64_t dur_code : 36;
  std::uint64_t row : 28;      // row in the store table `source`

  Event() : start(0), source(Source::kernel), category(0), dur_code(0), row(0) {}
  Event(std::int64_t s, std::int64_t e, std::uint32_t r, Source src = Source::kernel, std::uint8_t cat = 0)
      : start(s), source(src), category(cat), dur_code(encode(e - s)), row(r) {}
  std::int64_t dur() const {
    return dur_code < kExactDur ? static_cast<std::int64_t>(dur_code)
                                : static_cast<std::int64_t>((dur_code - kExactDur) << kCoarseShift);
  }
  std::int64_t end() const { return start + dur(); }
  static std::uint64_t encode(std::int64_t d) {
    if (d <= 0) return 0;
    const auto u = static_cast<std::uint64_t>(d);
    if (u < kExactDur) return u;
    const std::uint64_t units = (u + (std::uint64_t{1} << kCoarseShift) - 1) >> kCoarseShift;
    return kExactDur + std::min(units, kExactDur - 1);
  }
};
static_assert(sizeof(Event) == 16);

/// Total order used everywhere (stacking, incremental merge): start, longer first, source, row.
inline bool event_before(const Event& a, const Event& b) {
  if (a.start != b.start) return a.start < b.start;
  if (a.dur_code != b.dur_code) return a.dur_code > b.dur_code;
  if (a.source != b.source) return a.source < b.source;
  return a.row < b.row;
}

struct Row {
  /// One start time and one running busy sum per kCoarse events: the first level of the searches
  /// (a row of 3M events has a 1.5 MB coarse array that stays in cache, where probing the 48 MB event
  /// array misses each time) and of busySum (at most kCoarse - 1 durations added on each side).
  static constexpr std::size_t kCoarse = 16;
  std::vector<Event> events;              // non-overlapping, sorted by event_before
  std::vector<std::int64_t> coarse;       // coarse[k] = events[k * kCoarse].start
  std::vector<std::int64_t> coarse_busy;  // coarse_busy[k] = sum of durations of events[0, k * kCoarse)
  std::int64_t total_busy = 0;            // sum of durations of every event
  void push(const Event& e) {
    if (events.size() % kCoarse == 0) coarse.push_back(e.start), coarse_busy.push_back(total_busy);
    total_busy += e.dur();
    events.push_back(e);
  }
  void truncate(std::size_t n) {
    if (n >= events.size()) return;
    events.resize(n);
    const std::size_t blocks = (n + kCoarse - 1) / kCoarse;
    coarse.resize(blocks);
    coarse_busy.resize(blocks);
    total_busy = n ? prefixBusy(n) : 0;
  }
  /// Capacity exactly the size (a loaded session's rows never grow again).
  void shrink() {
    events.shrink_to_fit();
    coarse.shrink_to_fit();
    coarse_busy.shrink_to_fit();
  }
  /// Sum of durations of events [0, i), i <= size.
  std::int64_t prefixBusy(std::size_t i) const {
    if (i >= events.size()) return total_busy;
    const std::size_t k = i / kCoarse;
    std::int64_t s = coarse_busy[k];
    for (std::size_t j = k * kCoarse; j < i; ++j) s += events[j].dur();
    return s;
  }
  /// Sum of durations of events [a, b).
  std::int64_t busySum(std::size_t a, std::size_t b) const {
    if (b <= a) return 0;
    return prefixBusy(b) - prefixBusy(a);
  }
  /// Index of the first event with end > t (ends are sorted).
  std::size_t firstEndingAfter(std::int64_t t) const {
    return static_cast<std::size_t>(std::partition_point(events.begin(), events.end(),
                                                         [t](const Event& e) { return e.end() <= t; }) -
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
    const double x0 = axis.x(ev[i].start), x1 = axis.x(ev[i].end());
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
      const double lx0 = axis.x(last.start), lx1 = axis.x(last.end());
      if (j - 1 > first && lx1 - lx0 >= min_px) {  // a wide event starts inside the block: stop before it
        i = j - 1;
        break;
      }
      i = j;
      if (i >= iend || lx1 <= pe) break;
      pe = std::max(pe + 1, std::floor(lx1) + 1);
      // The last event ran into a later pixel; the block takes in the next event only if that one
      // starts inside that pixel too (else sparse events that each cross a pixel edge chained into
      // one block over the empty pixels between them).
      if (ev[i].start >= axis.t(pe)) break;
    }
    const double bx1 = std::max(axis.x(ev[i - 1].end()), x0 + 1);
    out(LodItem{first, i, x0, bx1, row.busySum(first, i), true});
  }
}

}  // namespace ts::gui::timeline
