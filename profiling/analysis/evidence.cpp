// verdict_evidence(): the intervals behind each verdict, from analyze()'s flattened timeline.
#include "profiling/analysis/evidence.h"

#include <algorithm>
#include <climits>

#include "profiling/analysis/internal.h"
#include "profiling/analysis/series.h"

namespace ts::prof::analysis {

namespace {

using detail::Span;

/// Appends the parts of [a, b) inside the step windows.
void add_in_windows(const detail::Timeline& tl, std::int64_t a, std::int64_t b, std::vector<EvidenceSpan>& out) {
  auto it = std::upper_bound(tl.steps.begin(), tl.steps.end(), a,
                             [](std::int64_t t, const detail::StepWindow& w) { return t < w.end; });
  for (; it != tl.steps.end() && it->start < b; ++it) {
    const std::int64_t lo = std::max(a, it->start), hi = std::min(b, it->end);
    if (hi > lo) out.push_back({lo, hi});
  }
}

/// [a, b) minus the merged spans `cut`, appended to out.
void subtract(std::int64_t a, std::int64_t b, const std::vector<Span>& cut, std::vector<EvidenceSpan>& out) {
  auto it = std::upper_bound(cut.begin(), cut.end(), a, [](std::int64_t t, const Span& s) { return t < s.end; });
  for (; it != cut.end() && it->start < b && a < b; ++it) {
    if (it->start > a) out.push_back({a, it->start});
    a = std::max(a, it->end);
  }
  if (b > a) out.push_back({a, b});
}

/// GPU idle gaps inside the windows; host_wait_only keeps the gaps whose next op was launched after the
/// gap began (or none followed), minus the trainer's data waits and syncs (idle_gaps() in timeline.cpp).
std::vector<EvidenceSpan> idle_gaps(const detail::Timeline& tl, bool host_wait_only) {
  std::vector<EvidenceSpan> gaps, out;
  const std::int64_t lo = tl.steps.front().start, hi = tl.steps.back().end;
  auto gap = [&](std::int64_t a, std::int64_t b, std::int64_t next_launch) {
    if (b <= a) return;
    const bool host = next_launch == INT64_MAX || next_launch >= a;
    if (host_wait_only && !host) return;
    add_in_windows(tl, a, b, gaps);
  };
  detail::for_each_gpu_gap(tl, lo, hi, gap);
  if (!host_wait_only) return gaps;
  for (const auto& s : gaps) subtract(s.start, s.end, tl.blocked, out);
  return out;
}

/// [t, next round) of the peak point of `points` (sorted by time); none when empty.
std::vector<EvidenceSpan> peak_span(const std::vector<SeriesPoint>& points) {
  if (points.empty()) return {};
  std::size_t peak = 0;
  for (std::size_t i = 1; i < points.size(); ++i)
    if (points[i].v > points[peak].v) peak = i;
  const std::int64_t t = points[peak].t;
  return {{t, peak + 1 < points.size() ? points[peak + 1].t : t + 1}};
}

std::vector<EvidenceSpan> memory_peak(const EventStore& store) {
  // A simulated card (--memory-limit): what the cap limits, the allocator's reserved total.
  if (run_config(store.meta()).memory_limit_bytes > 0) return peak_span(reserved_total(store, store.counts()));
  std::uint32_t id = 0;
  bool found = false;
  for (std::size_t i = 0; i < store.series.size(); ++i)
    if (store.strings.get(store.series[i].name) == "device.memory.used") id = store.series[i].id, found = true;
  if (!found) return {};
  std::int64_t peak_t = 0, next_t = INT64_MAX;
  double peak = -1;
  const std::size_t n = store.samples.size();
  for (std::size_t i = 0; i < n; ++i) {
    const SampleRecord& s = store.samples[i];
    if (s.series != id) continue;
    if (s.value > peak) peak = s.value, peak_t = s.time, next_t = INT64_MAX;
    else if (s.time > peak_t && s.time < next_t) next_t = s.time;
  }
  if (peak < 0) return {};
  return {{peak_t, next_t == INT64_MAX ? peak_t + 1 : next_t}};
}

std::vector<EvidenceSpan> for_id(const EventStore& store, const detail::Timeline& tl, const std::string& id) {
  std::vector<EvidenceSpan> out;
  if (id == "input_bound" || id == "sync_bound") {
    const Category want = id == "input_bound" ? Category::data_wait : Category::sync_wait;
    for (const auto& h : tl.host)
      if (h.c == want) add_in_windows(tl, h.start, h.end, out);
    if (id == "sync_bound")
      for (const auto& s : tl.syncs) add_in_windows(tl, s.start, s.end, out);
  } else if (id == "launch_bound" || id == "low_utilization" || id == "host_bound") {
    out = idle_gaps(tl, id == "launch_bound");
  } else if (id == "pageable_memcpy") {
    for (const auto& g : tl.gpu)
      if (g.c == Category::memcpy && detail::is_pageable_copy(store.memcpys[g.index])) add_in_windows(tl, g.start, g.end, out);
  } else if (id == "memory_pressure") {
    out = memory_peak(store);
  } else if (id == "amp_eligible") {
    for (const auto& g : tl.gpu)
      if (g.c == Category::kernel && is_matmul_kernel(store.strings.get(store.kernels[g.index].name)))
        add_in_windows(tl, g.start, g.end, out);
  }
  detail::merge(out);
  return out;
}

}  // namespace

std::map<std::string, std::vector<EvidenceSpan>> verdict_evidence(const EventStore& store,
                                                                  const std::vector<std::string>& ids,
                                                                  const Options& options) {
  std::map<std::string, std::vector<EvidenceSpan>> out;
  if (ids.empty()) return out;
  const detail::Timeline tl = detail::build_timeline(store, options.last_steps, options.warmup_steps, nullptr, options.live);
  for (const auto& id : ids) {
    if (tl.steps.empty() && id != "memory_pressure") out[id] = {};
    else out[id] = for_id(store, tl, id);
  }
  return out;
}

}  // namespace ts::prof::analysis
