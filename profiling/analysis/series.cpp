// Series, GPU buckets, CUPTI memory curve and the leak rule for the panels. Definitions: series.h,
// docs/metrics.md.
#include "profiling/analysis/series.h"
#include "profiling/block_threads.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace ts::prof::analysis {

bool SeriesSet::update(const EventStore& store, std::size_t n_series, std::size_t n_samples) {
  const bool pm = tables_ == Tables::pm_metrics;
  const auto& series_log = pm ? store.metric_series : store.series;
  const auto& samples_log = pm ? store.metric_samples : store.samples;
  n_series = std::min(n_series, series_log.size());
  n_samples = std::min(n_samples, samples_log.size());
  for (; series_read_ < n_series; ++series_read_) {
    const SeriesRecord& r = series_log[series_read_];
    const std::string name = store.strings.get(r.name);
    auto it = slot_of_name_.find(name);
    if (it == slot_of_name_.end()) {
      it = slot_of_name_.emplace(name, series_.size()).first;
      series_.push_back({name, store.strings.get(r.unit), {}});
    }
    slot_of_id_[r.id] = it->second;
  }
  const std::size_t before = samples_read_;
  for (; samples_read_ < n_samples; ++samples_read_) {
    const SampleRecord& s = samples_log[samples_read_];
    auto it = slot_of_id_.find(s.series);
    if (it == slot_of_id_.end()) break;  // registered after the prefix we read: resume next time
    auto& pts = series_[it->second].points;
    const SeriesPoint p{s.time, s.value};
    if (pts.empty() || pts.back().t <= p.t) pts.push_back(p);
    else pts.insert(std::upper_bound(pts.begin(), pts.end(), p.t, [](std::int64_t t, const SeriesPoint& q) { return t < q.t; }), p);
  }
  return samples_read_ > before;
}

void SeriesSet::clear() { *this = SeriesSet{tables_}; }

const SeriesSet::Series* SeriesSet::find(const std::string& name) const {
  auto it = slot_of_name_.find(name);
  return it == slot_of_name_.end() ? nullptr : &series_[it->second];
}

std::vector<const SeriesSet::Series*> SeriesSet::with_prefix(const std::string& prefix) const {
  std::vector<const Series*> out;
  for (const auto& s : series_)
    if (s.name.rfind(prefix, 0) == 0) out.push_back(&s);
  return out;
}

std::map<std::uint32_t, ThreadCpu> cpu_by_thread(const SeriesSet& set) {
  static const std::string prefix = "cpu.percent.";
  std::map<std::uint32_t, ThreadCpu> out;
  for (const auto* s : set.with_prefix(prefix)) {
    const std::size_t dot = s->name.rfind('.');
    if (dot == std::string::npos || dot + 1 >= s->name.size() || dot < prefix.size()) continue;
    char* end = nullptr;
    const unsigned long tid = std::strtoul(s->name.c_str() + dot + 1, &end, 10);
    if (!end || *end != '\0') continue;  // not <comm>.<tid>
    ThreadCpu& t = out[static_cast<std::uint32_t>(tid)];
    t.tid = static_cast<std::uint32_t>(tid);
    const bool newer = t.points.empty() || (!s->points.empty() && s->points.back().t >= t.points.back().t);
    if (newer) t.comm = s->name.substr(prefix.size(), dot - prefix.size());
    t.points.insert(t.points.end(), s->points.begin(), s->points.end());
    std::stable_sort(t.points.begin(), t.points.end(), [](const SeriesPoint& a, const SeriesPoint& b) { return a.t < b.t; });
  }
  return out;
}

std::vector<SeriesPoint> sum_series(const std::vector<const std::vector<SeriesPoint>*>& parts) {
  std::vector<std::int64_t> times;
  for (const auto* p : parts)
    if (p)
      for (const auto& q : *p) times.push_back(q.t);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  std::vector<SeriesPoint> out;
  out.reserve(times.size());
  std::vector<std::size_t> cursor(parts.size(), 0);
  for (std::int64_t t : times) {
    double sum = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (!parts[i]) continue;
      const auto& p = *parts[i];
      while (cursor[i] < p.size() && p[cursor[i]].t <= t) ++cursor[i];
      if (cursor[i] > 0) sum += p[cursor[i] - 1].v;
    }
    out.push_back({t, sum});
  }
  return out;
}

// One pass over the samples (analyze() calls it on every rolling window): the latest value of each
// category held, the sum taken per sampler round (rows of one time; the sampler writes in time order).
std::vector<SeriesPoint> reserved_total(const EventStore& store, const StoreCounts& counts) {
  static const std::string kPrefix = "memory.reserved.";
  std::unordered_map<std::uint32_t, std::size_t> slot;  // series id -> index into latest
  const std::size_t n_series = std::min(counts.series, store.series.size());
  for (std::size_t i = 0; i < n_series; ++i)
    if (store.strings.get(store.series[i].name).rfind(kPrefix, 0) == 0) slot.emplace(store.series[i].id, slot.size());
  std::vector<SeriesPoint> out;
  if (slot.empty()) return out;
  std::vector<double> latest(slot.size(), 0.0);
  const std::size_t n = std::min(counts.samples, store.samples.size());
  for (std::size_t i = 0; i < n; ++i) {
    const SampleRecord& s = store.samples[i];
    const auto it = slot.find(s.series);
    if (it == slot.end()) continue;
    latest[it->second] = s.value;
    double sum = 0;
    for (double v : latest) sum += v;
    if (!out.empty() && out.back().t == s.time) out.back().v = sum;
    else out.push_back({s.time, sum});
  }
  return out;
}

std::int64_t nice_bucket_ns(std::int64_t span_ns, int target) {
  const double raw = std::max(1.0, static_cast<double>(span_ns) / std::max(target, 1));
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * p;
  for (double m : {1.0, 2.0, 5.0})
    if (m * p >= raw) { step = m * p; break; }
  return std::max<std::int64_t>(10'000, static_cast<std::int64_t>(step));
}

namespace {

/// Calls fn(bucket, overlap_ns) for each bucket [a, b) overlaps.
template <class Fn>
void for_each_bucket(const GpuBuckets& g, std::int64_t a, std::int64_t b, Fn&& fn) {
  const std::int64_t to = g.from + static_cast<std::int64_t>(g.count()) * g.bucket_ns;
  a = std::max(a, g.from), b = std::min(b, to);
  if (b <= a) return;
  for (std::int64_t i = (a - g.from) / g.bucket_ns; i < static_cast<std::int64_t>(g.count()); ++i) {
    const std::int64_t lo = g.from + i * g.bucket_ns, hi = lo + g.bucket_ns;
    if (lo >= b) break;
    const std::int64_t ov = std::min(b, hi) - std::max(a, lo);
    if (ov > 0) fn(static_cast<std::size_t>(i), ov);
  }
}

struct Span {
  std::int64_t a, b;
};

/// Kernel-weighted SM efficiency and achieved occupancy per bucket (docs/metrics.md's formulas).
void kernel_buckets(const EventStore& store, std::size_t nk, const DeviceProps& dev, GpuBuckets& g) {
  if (!dev.known || dev.sms <= 0 || dev.max_threads_per_sm <= 0) return;
  const std::size_t n = g.count();
  std::vector<double> w(n, 0), sm(n, 0), occ_w(n, 0), occ(n, 0);
  struct Occ { bool ok = false; int active = 0; };
  std::unordered_map<std::uint64_t, Occ> cache;
  const std::int64_t to = g.from + static_cast<std::int64_t>(n) * g.bucket_ns;
  for (std::size_t i = 0; i < nk; ++i) {
    const KernelRecord& k = store.kernels[i];
    const KernelConfig& kc = store.config(k);
    if (k.end <= g.from || k.start >= to || k.end <= k.start) continue;
    const double blocks_per_sm = static_cast<double>(kc.grid[0]) * kc.grid[1] * kc.grid[2] / dev.sms;
    const int threads = block_threads(kc);
    const std::uint64_t key = (static_cast<std::uint64_t>(threads) << 48) ^ (static_cast<std::uint64_t>(kc.registers) << 40) ^
                              (static_cast<std::uint64_t>(kc.static_smem) << 20) ^ static_cast<std::uint64_t>(kc.dynamic_smem);
    auto it = cache.find(key);
    if (it == cache.end()) {
      Occ o;
      o.ok = theoretical_occupancy(dev, threads, kc.registers, kc.static_smem, kc.dynamic_smem, &o.active).has_value();
      it = cache.emplace(key, o).first;
    }
    const double eff = std::min(1.0, blocks_per_sm);
    const double ach = std::min(1.0, std::min(blocks_per_sm, static_cast<double>(it->second.active)) * threads /
                                         dev.max_threads_per_sm);
    const bool has_occ = it->second.ok;
    for_each_bucket(g, k.start, k.end, [&](std::size_t b, std::int64_t ov) {
      w[b] += ov, sm[b] += eff * ov;
      if (has_occ) occ_w[b] += ov, occ[b] += ach * ov;
    });
  }
  for (std::size_t b = 0; b < n; ++b) {
    if (w[b] > 0) g.sm_efficiency[b] = sm[b] / w[b];
    if (occ_w[b] > 0) g.achieved_occupancy[b] = occ[b] / occ_w[b];
  }
}

}  // namespace

GpuBuckets bucket_gpu(const EventStore& store, const StoreCounts& counts, std::int64_t from, std::int64_t to,
                      std::int64_t bucket_ns, const DeviceProps& device) {
  GpuBuckets g;
  g.from = from, g.bucket_ns = bucket_ns;
  const std::size_t nk = std::min(counts.kernels, store.kernels.size());
  const std::size_t nc = std::min(counts.memcpys, store.memcpys.size());
  const std::size_t ns = std::min(counts.memsets, store.memsets.size());
  const std::size_t ng = std::min(counts.graph_replays, store.graph_replays.size());
  g.gpu_present = nk + nc + ns + ng > 0;
  if (bucket_ns <= 0 || to <= from) return g;
  const std::size_t n = static_cast<std::size_t>((to - from + bucket_ns - 1) / bucket_ns);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  g.busy.assign(n, 0), g.sm_efficiency.assign(n, nan), g.achieved_occupancy.assign(n, nan), g.h2d_bytes_per_s.assign(n, 0);
  const std::int64_t end = from + static_cast<std::int64_t>(n) * bucket_ns;
  // Busy: the union of every GPU op, then spread over the buckets.
  std::vector<Span> ops;
  auto add = [&](std::int64_t a, std::int64_t b) {
    if (b > from && a < end && b > a) ops.push_back({a, b});
  };
  for (std::size_t i = 0; i < nk; ++i) add(store.kernels[i].start, store.kernels[i].end);
  for (std::size_t i = 0; i < nc; ++i) add(store.memcpys[i].start, store.memcpys[i].end);
  for (std::size_t i = 0; i < ns; ++i) add(store.memsets[i].start, store.memsets[i].end);
  // Whole CUDA-graph replays: a hybrid recording's steps between its kernel windows (none inside them).
  for (std::size_t i = 0; i < ng; ++i) add(store.graph_replays[i].start, store.graph_replays[i].end);
  std::sort(ops.begin(), ops.end(), [](const Span& x, const Span& y) { return x.a < y.a; });
  std::int64_t ca = 0, cb = INT64_MIN;
  auto flush = [&] {
    if (cb > ca) for_each_bucket(g, ca, cb, [&](std::size_t b, std::int64_t ov) { g.busy[b] += static_cast<double>(ov); });
  };
  for (const Span& s : ops) {
    if (s.a > cb) flush(), ca = s.a, cb = s.b;
    else cb = std::max(cb, s.b);
  }
  flush();
  for (double& b : g.busy) b /= static_cast<double>(bucket_ns);
  kernel_buckets(store, nk, device, g);
  // H2D throughput: each copy's bytes spread evenly over its duration.
  for (std::size_t i = 0; i < nc; ++i) {
    const MemcpyRecord& m = store.memcpys[i];
    if (m.copy_kind != 1 || m.bytes <= 0) continue;
    if (m.end <= m.start) {
      if (m.start >= from && m.start < end) g.h2d_bytes_per_s[static_cast<std::size_t>((m.start - from) / bucket_ns)] += static_cast<double>(m.bytes);
      continue;
    }
    const double per_ns = static_cast<double>(m.bytes) / static_cast<double>(m.end - m.start);
    for_each_bucket(g, m.start, m.end, [&](std::size_t b, std::int64_t ov) { g.h2d_bytes_per_s[b] += per_ns * ov; });
  }
  for (double& v : g.h2d_bytes_per_s) v *= 1e9 / static_cast<double>(bucket_ns);
  return g;
}

CuptiMemory cupti_device_memory(const EventStore& store, std::size_t n_memory) {
  constexpr std::uint16_t kDevice = 3;  // CUPTI_ACTIVITY_MEMORY_KIND_DEVICE
  n_memory = std::min(n_memory, store.memory.size());
  std::vector<MemoryRecord> recs;
  for (std::size_t i = 0; i < n_memory; ++i)
    if (store.memory[i].memory_kind == kDevice && (store.memory[i].op == 1 || store.memory[i].op == 2))
      recs.push_back(store.memory[i]);
  std::stable_sort(recs.begin(), recs.end(), [](const MemoryRecord& a, const MemoryRecord& b) { return a.time < b.time; });
  CuptiMemory out;
  std::unordered_map<std::uint64_t, std::int64_t> live;  // address -> bytes
  double total = 0;
  for (const auto& r : recs) {
    if (r.op == 1) {
      ++out.allocations;
      if (r.address) live[r.address] = r.bytes;
      total += static_cast<double>(r.bytes);
    } else {
      ++out.releases;
      // By address; a record without one (address 0: the PyTorch profiler's old [memory] events,
      // Bytes < 0) by its own size: every free after the first went unmatched there and the curve
      // climbed past the card's capacity.
      auto it = r.address ? live.find(r.address) : live.end();
      const bool known = it != live.end();
      const std::int64_t freed = known ? it->second : r.address == 0 && r.bytes > 0 ? r.bytes : -1;
      if (known) live.erase(it);
      if (freed < 0) {
        ++out.unmatched_releases;
        continue;
      }
      total -= static_cast<double>(freed);
    }
    out.points.push_back({r.time, total});
  }
  return out;
}

LeakCheck check_leak(const std::vector<SeriesPoint>& allocated, const std::vector<StepEnd>& step_ends,
                     const LeakRule& rule) {
  LeakCheck c;
  struct V { std::int64_t step; double v; };
  std::vector<V> vals;
  std::size_t k = 0;
  for (std::size_t i = 1; i < step_ends.size(); ++i) {  // the first step is warm-up
    while (k < allocated.size() && allocated[k].t <= step_ends[i].end) ++k;
    if (k == 0) continue;
    vals.push_back({step_ends[i].global_step, allocated[k - 1].v});
  }
  if (vals.size() < 2) return c;
  std::size_t lo = vals.size() - 1;
  while (lo > 0 && vals[lo - 1].v <= vals[lo].v) --lo;  // the trailing non-decreasing run
  const std::size_t hi = vals.size() - 1;
  int rises = 0, late_rises = 0;
  const std::size_t mid = lo + (hi - lo) / 2;
  for (std::size_t i = lo + 1; i <= hi; ++i)
    if (vals[i].v > vals[i - 1].v) ++rises, late_rises += i > mid;
  c.first_step = vals[lo].step, c.last_step = vals[hi].step;
  c.steps = c.last_step - c.first_step;
  c.rises = rises;
  c.first_bytes = vals[lo].v, c.last_bytes = vals[hi].v;
  c.bytes_per_step = c.steps > 0 ? (c.last_bytes - c.first_bytes) / static_cast<double>(c.steps) : 0;
  c.suspected = c.steps >= rule.min_steps && rises >= rule.min_rises && late_rises > 0 &&
                c.bytes_per_step > rule.min_bytes_per_step;
  return c;
}

}  // namespace ts::prof::analysis
