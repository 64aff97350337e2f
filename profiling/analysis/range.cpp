// range_breakdown(): one priority sweep over the intervals clipped to the range (see range.h).
#include "profiling/analysis/range.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "engine/host_trace.h"
#include "profiling/analysis/communication.h"

namespace ts::prof::analysis {

namespace {

struct Edge {
  std::int64_t t;
  int delta;
  Category c;
};

/// Host threads that ran step ranges, and the runtime thread(s) of the trainer.
void trainer_threads(const EventStore& store, const StoreCounts& n, std::vector<std::uint32_t>& host,
                     std::vector<std::uint32_t>& runtime) {
  for (std::size_t i = 0; i < n.host_ranges; ++i) {
    const auto& r = store.host_ranges[i];
    if (r.kind == static_cast<std::uint8_t>(trace::RangeKind::step) &&
        std::find(host.begin(), host.end(), r.thread) == host.end())
      host.push_back(r.thread);
  }
  std::map<std::uint32_t, std::int64_t> launches;
  std::vector<std::int8_t> is_launch(store.strings.size(), -1);
  for (std::size_t i = 0; i < n.runtime; ++i) {
    const RuntimeRecord& r = store.runtime[i];
    if (std::find(host.begin(), host.end(), r.thread) != host.end()) {
      runtime = host;  // thread ids agree
      return;
    }
    if (r.name >= is_launch.size()) continue;
    if (is_launch[r.name] < 0) is_launch[r.name] = store.strings.get(r.name).find("Launch") != std::string::npos;
    if (is_launch[r.name]) ++launches[r.thread];
  }
  std::uint32_t best = 0;
  std::int64_t most = 0;
  for (const auto& [tid, count] : launches)
    if (count > most) best = tid, most = count;
  if (most > 0) runtime.push_back(best);
}

bool is_cpu_exec(std::uint8_t kind) {
  using K = trace::RangeKind;
  const auto k = static_cast<K>(kind);
  return k == K::forward || k == K::backward || k == K::loss || k == K::optimizer || k == K::h2d_copy || k == K::other;
}

}  // namespace

Breakdown range_breakdown(const EventStore& store, const StoreCounts& counts, std::int64_t start, std::int64_t end) {
  Breakdown out;
  if (end <= start) return out;
  const StoreCounts have = store.counts();
  StoreCounts n = counts;
  n.kernels = std::min(n.kernels, have.kernels), n.memcpys = std::min(n.memcpys, have.memcpys);
  n.memsets = std::min(n.memsets, have.memsets), n.runtime = std::min(n.runtime, have.runtime);
  n.host_ranges = std::min(n.host_ranges, have.host_ranges);
  std::vector<std::uint32_t> host, runtime;
  trainer_threads(store, n, host, runtime);
  auto trainer = [](const std::vector<std::uint32_t>& v, std::uint32_t tid) {
    return v.empty() || std::find(v.begin(), v.end(), tid) != v.end();
  };
  std::vector<Edge> edges;
  auto push = [&](std::int64_t a, std::int64_t b, Category c) {
    a = std::max(a, start), b = std::min(b, end);
    if (b > a) edges.push_back({a, +1, c}), edges.push_back({b, -1, c});
  };
  std::vector<std::int8_t> comm_kernel(store.strings.size(), -1), comm_range(store.strings.size(), -1);  // per name id
  const auto classified = [&](std::vector<std::int8_t>& cache, StringId name, bool (*is)(std::string_view)) {
    if (name >= cache.size()) return false;
    if (cache[name] < 0) cache[name] = is(store.strings.get(name));
    return cache[name] > 0;
  };
  for (std::size_t i = 0; i < n.kernels; ++i) {
    const KernelRecord& k = store.kernels[i];
    push(k.start, k.end, classified(comm_kernel, k.name, is_communication_kernel) ? Category::communication : Category::kernel);
  }
  for (std::size_t i = 0; i < n.memcpys; ++i) push(store.memcpys[i].start, store.memcpys[i].end, Category::memcpy);
  for (std::size_t i = 0; i < n.memsets; ++i) push(store.memsets[i].start, store.memsets[i].end, Category::memset);
  for (std::size_t i = 0; i < n.runtime; ++i) {
    const RuntimeRecord& r = store.runtime[i];
    if (trainer(runtime, r.thread)) push(r.start, r.end, Category::runtime);
  }
  for (std::size_t i = 0; i < n.host_ranges; ++i) {
    const HostRangeRecord& r = store.host_ranges[i];
    if (classified(comm_range, r.name, is_communication_range)) push(r.start, r.end, Category::communication);
    if (!trainer(host, r.thread)) continue;
    if (r.kind == static_cast<std::uint8_t>(trace::RangeKind::data_wait)) push(r.start, r.end, Category::data_wait);
    else if (r.kind == static_cast<std::uint8_t>(trace::RangeKind::sync)) push(r.start, r.end, Category::sync_wait);
    else if (is_cpu_exec(r.kind)) push(r.start, r.end, Category::cpu_exec);
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t < b.t; });
  int active[kCategoryCount] = {};
  std::int64_t prev = start, covered = 0;
  for (std::size_t i = 0; i < edges.size();) {
    const std::int64_t t = edges[i].t;
    if (t > prev) {
      for (int c = 0; c < kCategoryCount - 1; ++c)
        if (active[c] > 0) {
          out.ns[c] += t - prev, covered += t - prev;
          break;
        }
    }
    for (; i < edges.size() && edges[i].t == t; ++i) active[static_cast<int>(edges[i].c)] += edges[i].delta;
    prev = t;
  }
  out.ns[static_cast<int>(Category::other)] = (end - start) - covered;
  return out;
}

}  // namespace ts::prof::analysis
