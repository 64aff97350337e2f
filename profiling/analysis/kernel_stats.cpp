// kernel_groups(): one pass over the kernel table into per-name accumulators indexed by string id
// (no hashing of names), occupancy evaluated once per launch configuration. Definitions and
// sources: kernel_stats.h.
#include "profiling/analysis/kernel_stats.h"
#include "profiling/block_threads.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "profiling/analysis/analysis.h"

namespace ts::prof::analysis {

namespace {

struct Acc {
  std::int64_t calls = 0, total = 0, min = INT64_MAX, max = 0;
  double occ = 0, occ_weight = 0;
};

/// The session-ns windows [start, end] of the steps inside [first, last] (StepRecord), by start.
std::vector<std::pair<std::int64_t, std::int64_t>> step_windows(const EventStore& store, std::size_t n_steps,
                                                                std::int64_t first, std::int64_t last) {
  std::vector<std::pair<std::int64_t, std::int64_t>> w;
  for (std::size_t i = 0; i < n_steps; ++i) {
    const StepRecord& s = store.steps[i];
    if ((first < 0 || s.global_step >= first) && (last < 0 || s.global_step <= last)) w.emplace_back(s.start, s.end);
  }
  std::sort(w.begin(), w.end());
  return w;
}

bool in_windows(const std::vector<std::pair<std::int64_t, std::int64_t>>& w, std::int64_t t) {
  auto it = std::upper_bound(w.begin(), w.end(), t, [](std::int64_t v, const auto& p) { return v < p.first; });
  return it != w.begin() && t <= std::prev(it)->second;
}

/// Runtime call start by correlation id, sorted by correlation (0 ids left out).
std::vector<std::pair<std::uint32_t, std::int64_t>> launch_starts(const EventStore& store, std::size_t n) {
  std::vector<std::pair<std::uint32_t, std::int64_t>> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    if (store.runtime[i].correlation != 0) v.emplace_back(store.runtime[i].correlation, store.runtime[i].start);
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

std::vector<KernelGroup> kernel_groups(const EventStore& store, const KernelStatsOptions& o) {
  const StoreCounts now = store.counts();
  const std::size_t nk = o.limit ? std::min(o.limit->kernels, now.kernels) : now.kernels;
  const bool step_filter = o.first_step >= 0 || o.last_step >= 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> windows;
  std::vector<std::pair<std::uint32_t, std::int64_t>> launches;
  if (step_filter) {
    windows = step_windows(store, o.limit ? std::min(o.limit->steps, now.steps) : now.steps, o.first_step, o.last_step);
    launches = launch_starts(store, o.limit ? std::min(o.limit->runtime, now.runtime) : now.runtime);
  }
  const DeviceProps dev = device_props(store.meta());
  std::map<std::tuple<int, int, std::int64_t, std::int64_t>, std::optional<double>> occ_cache;
  std::vector<Acc> acc;  // by name id
  for (std::size_t i = 0; i < nk; ++i) {
    const KernelRecord& k = store.kernels[i];
    const KernelConfig& kc = store.config(k);
    if (k.start < o.from_ns || k.start >= o.to_ns) continue;
    if (step_filter) {
      auto it = std::lower_bound(launches.begin(), launches.end(), std::make_pair(k.correlation, INT64_MIN));
      if (it == launches.end() || it->first != k.correlation) {
        // No runtime call of its own (a driver-API launch, e.g. cuBLAS's CUTLASS kernels): the call
        // with the next lower correlation id, made just before it (see kernel_stats.h).
        if (k.correlation == 0 || it == launches.begin() || std::prev(it)->second > k.start) continue;
        --it;
      }
      if (!in_windows(windows, it->second)) continue;
    }
    if (k.name >= acc.size()) acc.resize(static_cast<std::size_t>(k.name) + 1);
    Acc& a = acc[k.name];
    const std::int64_t dur = std::max<std::int64_t>(0, k.end - k.start);
    ++a.calls, a.total += dur, a.min = std::min(a.min, dur), a.max = std::max(a.max, dur);
    if (!dev.known) continue;
    const int threads = block_threads(kc);
    const auto key = std::make_tuple(threads, kc.registers, std::int64_t{kc.static_smem}, std::int64_t{kc.dynamic_smem});
    auto c = occ_cache.find(key);
    if (c == occ_cache.end())
      c = occ_cache.emplace(key, theoretical_occupancy(dev, threads, kc.registers, kc.static_smem, kc.dynamic_smem)).first;
    if (c->second) a.occ += *c->second * static_cast<double>(dur), a.occ_weight += static_cast<double>(dur);
  }
  std::vector<KernelGroup> out;
  std::int64_t all = 0;
  for (std::size_t id = 0; id < acc.size(); ++id) {
    const Acc& a = acc[id];
    if (a.calls == 0) continue;
    KernelGroup g;
    g.name_id = static_cast<StringId>(id);
    g.name = store.strings.get(g.name_id);
    g.calls = a.calls, g.total_ns = a.total, g.min_ns = a.min, g.max_ns = a.max;
    g.mean_ns = static_cast<double>(a.total) / static_cast<double>(a.calls);
    if (a.occ_weight > 0) g.mean_occupancy = a.occ / a.occ_weight;
    g.tensor_cores = is_tensor_core_kernel(g.name);
    all += a.total;
    out.push_back(std::move(g));
  }
  for (auto& g : out) g.share_of_gpu_time = all > 0 ? static_cast<double>(g.total_ns) / static_cast<double>(all) : 0.0;
  std::sort(out.begin(), out.end(), [](const KernelGroup& a, const KernelGroup& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  return out;
}

std::int64_t total_kernel_ns(const std::vector<KernelGroup>& groups) {
  std::int64_t t = 0;
  for (const auto& g : groups) t += g.total_ns;
  return t;
}

}  // namespace ts::prof::analysis
