// GPU health over a run (see health.h).
#include "profiling/analysis/health.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "base/nvml.h"

namespace ts::prof::analysis {

namespace {

/// The latest point of `s` at or before `t` (the samplers write one round at one time).
const SeriesPoint* at(const SeriesSet::Series* s, std::int64_t t) {
  if (!s || s->points.empty()) return nullptr;
  auto it = std::upper_bound(s->points.begin(), s->points.end(), t,
                             [](std::int64_t x, const SeriesPoint& p) { return x < p.t; });
  return it == s->points.begin() ? nullptr : &*std::prev(it);
}

std::optional<double> rise(const SeriesSet::Series* s) {
  if (!s || s->points.empty()) return std::nullopt;
  return s->points.back().v - s->points.front().v;
}

void judge_reasons(const SeriesSet& set, GpuHealth& h) {
  const auto* reasons = set.find("gpu.clock_event_reasons");
  const auto* clock = set.find("gpu.sm_clock");
  if (const auto* mx = set.find("gpu.sm_clock_max"); mx && !mx->points.empty())
    h.sm_clock_max_mhz = mx->points.back().v;
  if (!reasons) return;
  std::map<std::uint64_t, std::int64_t> per_bit;
  double clock_sum = 0;
  std::int64_t clock_n = 0;
  for (const auto& p : reasons->points) {
    if (!(p.v >= 0) || p.v > 1.8e19 || std::floor(p.v) != p.v) continue;
    ++h.reason_samples;
    const auto bits = static_cast<std::uint64_t>(p.v) & nvml::kThrottleMask;
    if (!bits) continue;
    ++h.throttled_samples;
    h.reasons |= bits;
    for (int b = 0; b < 64; ++b)
      if (bits & (std::uint64_t{1} << b)) ++per_bit[std::uint64_t{1} << b];
    if (const SeriesPoint* c = at(clock, p.t)) clock_sum += c->v, ++clock_n;
  }
  if (clock_n) h.sm_clock_throttled_mhz = clock_sum / static_cast<double>(clock_n);
  std::uint64_t best = 0;
  std::int64_t best_n = 0;
  for (const auto& [bit, n] : per_bit)
    if (n > best_n) best = bit, best_n = n;
  if (best) h.main_reason = nvml::reason_names(best).front();
}

}  // namespace

std::optional<GpuHealth> gpu_health(const SeriesSet& set) {
  const auto* procs = set.find("gpu.other_processes");
  if (!set.find("gpu.clock_event_reasons") && !procs) return std::nullopt;
  GpuHealth h;
  judge_reasons(set, h);
  if (procs) {
    const auto* mem = set.find("gpu.other_processes_memory");
    for (const auto& p : procs->points) {
      ++h.process_samples;
      if (p.v > 0) ++h.shared_samples;
      h.max_other_processes = std::max(h.max_other_processes, p.v);
    }
    if (mem)
      for (const auto& p : mem->points) h.max_other_bytes = std::max(h.max_other_bytes, p.v);
  }
  h.ecc_corrected_rise = rise(set.find("gpu.ecc_corrected"));
  h.ecc_uncorrected_rise = rise(set.find("gpu.ecc_uncorrected"));
  return h;
}

std::optional<GpuHealth> gpu_health(const EventStore& store) {
  SeriesSet set;
  set.update(store, store.series.size(), store.samples.size());
  return gpu_health(set);
}

}  // namespace ts::prof::analysis
