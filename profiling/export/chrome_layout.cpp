// Chrome trace export: the track of every event, the nesting rule, and the launch context of runtime
// calls (chrome_internal.h).
#include <algorithm>
#include <map>
#include <set>

#include <fmt/core.h>

#include "engine/host_trace.h"
#include "profiling/export/chrome_internal.h"
#include "profiling/export/chrome_trace.h"

namespace ts::prof::exporter::detail {

namespace {

constexpr std::uint32_t kNoStream = 0xFFFFFFFFu;  // CUPTI's "no stream" (context / event syncs)
constexpr auto kStepKind = static_cast<std::uint8_t>(trace::RangeKind::step);

/// Tracks by key: (pid, kind of track, id). Kind 0: host thread / CUDA stream; 1: the syncs of a
/// stream; 2: the steps when no trainer thread is known.
using LaneKey = std::tuple<std::int64_t, int, std::int64_t>;

struct Builder {
  const EventStore& store;
  const StoreCounts& n;
  Layout out;
  std::map<LaneKey, std::size_t> index;
  std::map<std::int64_t, std::set<std::int64_t>> used_tids;  // per pid: real tids (threads, streams)

  Lane& lane(const LaneKey& key) {
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, out.lanes.size()).first;
      Lane l;
      l.pid = std::get<0>(key);
      l.tid = std::get<1>(key) == 0 ? std::get<2>(key) : -1;  // synthetic tids later
      if (std::get<1>(key) == 0) used_tids[l.pid].insert(l.tid);
      out.lanes.push_back(std::move(l));
    }
    return out.lanes[it->second];
  }
  void add(const LaneKey& key, std::int64_t start, std::int64_t end, std::size_t row, EvKind kind) {
    if (end < start) ++out.negative_durations, end = start;
    lane(key).events.push_back({start, end, static_cast<std::uint32_t>(row), kind});
  }
  std::int64_t free_tid(std::int64_t pid) {
    auto& used = used_tids[pid];
    std::int64_t t = 1;
    while (used.count(t)) ++t;
    used.insert(t);
    return t;
  }
};

std::int64_t gpu_pid(std::int32_t device) { return device < 0 ? 0 : device; }

/// Sorts a track's events and splits off what does not nest: each event goes to the first of the
/// track's levels where it fits inside the innermost open event (or where nothing is open).
std::vector<std::vector<Ev>> nest(std::vector<Ev>& events) {
  std::sort(events.begin(), events.end(), [](const Ev& a, const Ev& b) {
    if (a.start != b.start) return a.start < b.start;
    if (a.end != b.end) return a.end > b.end;
    return a.kind < b.kind;  // step > host range > runtime call when they coincide
  });
  std::vector<std::vector<std::int64_t>> open;
  std::vector<std::vector<Ev>> levels;
  for (const Ev& e : events) {
    for (std::size_t k = 0;; ++k) {
      if (k == open.size()) open.emplace_back(), levels.emplace_back();
      auto& st = open[k];
      while (!st.empty() && st.back() <= e.start) st.pop_back();
      if (st.empty() || st.back() >= e.end) {
        st.push_back(e.end);
        levels[k].push_back(e);
        break;
      }
    }
  }
  return levels;
}

void host_lanes(Builder& b, std::vector<std::uint32_t>& trainers) {
  const EventStore& s = b.store;
  std::set<std::int64_t> with_rows;
  for (std::size_t i = 0; i < b.n.steps; ++i) with_rows.insert(s.steps[i].global_step);
  b.out.steps_with_rows.assign(with_rows.begin(), with_rows.end());
  std::map<std::int64_t, std::uint32_t> step_thread;  // global step -> thread of its step range
  for (std::size_t i = 0; i < b.n.host_ranges; ++i) {
    const HostRangeRecord& r = s.host_ranges[i];
    if (r.kind == kStepKind && with_rows.count(r.step)) {
      step_thread.emplace(r.step, r.thread);
      continue;  // written as the step row's ProfilerStep#N
    }
    b.add({kHostPid, 0, r.thread}, r.start, r.end, i, EvKind::host_range);
  }
  for (std::size_t i = 0; i < b.n.steps; ++i) {
    const StepRecord& r = s.steps[i];
    const auto it = step_thread.find(r.global_step);
    LaneKey key{kHostPid, 2, 0};
    if (it != step_thread.end()) key = {kHostPid, 0, it->second};
    else if (!trainers.empty()) key = {kHostPid, 0, trainers.front()};
    b.add(key, r.start, r.end, i, EvKind::step);
  }
  for (std::size_t i = 0; i < b.n.runtime; ++i) {
    const RuntimeRecord& r = s.runtime[i];
    b.add({kHostPid, 0, r.thread}, r.start, r.end, i, EvKind::runtime);
  }
}

void gpu_lanes(Builder& b) {
  const EventStore& s = b.store;
  std::set<std::int64_t> pids;
  for (std::size_t i = 0; i < b.n.kernels; ++i) {
    const KernelRecord& r = s.kernels[i];
    pids.insert(gpu_pid(r.device));
    b.add({gpu_pid(r.device), 0, r.stream}, r.start, r.end, i, EvKind::kernel);
  }
  for (std::size_t i = 0; i < b.n.memcpys; ++i) {
    const MemcpyRecord& r = s.memcpys[i];
    pids.insert(gpu_pid(r.device));
    b.add({gpu_pid(r.device), 0, r.stream}, r.start, r.end, i, EvKind::memcpy);
  }
  for (std::size_t i = 0; i < b.n.memsets; ++i) {
    const MemsetRecord& r = s.memsets[i];
    pids.insert(gpu_pid(r.device));
    b.add({gpu_pid(r.device), 0, r.stream}, r.start, r.end, i, EvKind::memset);
  }
  // Syncs are host waits recorded per stream: a track of their own beside the stream's.
  const std::int64_t sync_pid = pids.empty() ? 0 : *pids.begin();
  for (std::size_t i = 0; i < b.n.syncs; ++i) {
    const SyncRecord& r = s.syncs[i];
    const std::int64_t pid = r.device >= 0 ? r.device : sync_pid;
    pids.insert(pid);
    b.add({pid, 1, r.stream == kNoStream ? -1 : static_cast<std::int64_t>(r.stream)}, r.start, r.end, i, EvKind::sync);
  }
  b.out.gpu_pids.assign(pids.begin(), pids.end());
}

/// Runtime-only threads: the one with the most launch calls is the trainer's (older sessions record
/// CUPTI's thread id, which matches no host thread).
std::int64_t runtime_trainer(const Builder& b, const std::set<std::int64_t>& host_tids) {
  std::map<std::int64_t, std::int64_t> launches;
  for (std::size_t i = 0; i < b.n.runtime; ++i) {
    const RuntimeRecord& r = b.store.runtime[i];
    if (!host_tids.count(r.thread) && b.store.strings.get(r.name).find("Launch") != std::string::npos)
      ++launches[r.thread];
  }
  std::int64_t best = -1, most = 0;
  for (const auto& [tid, count] : launches)
    if (count > most) best = tid, most = count;
  return best;
}

void name_lanes(Builder& b, const std::vector<std::uint32_t>& trainers) {
  std::map<std::uint32_t, std::string> names;
  for (std::size_t i = 0; i < b.n.threads; ++i) names[b.store.threads[i].tid] = b.store.strings.get(b.store.threads[i].name);
  std::set<std::int64_t> host_tids;
  for (const auto& [key, li] : b.index)
    if (std::get<0>(key) == kHostPid && std::get<1>(key) == 0) {
      for (const Ev& e : b.out.lanes[li].events)
        if (e.kind != EvKind::runtime) { host_tids.insert(std::get<2>(key)); break; }
    }
  for (const auto& [tid, name] : names) host_tids.insert(tid);
  const std::int64_t rt_trainer = runtime_trainer(b, host_tids);
  for (const auto& [key, li] : b.index) {
    Lane& l = b.out.lanes[li];
    const auto [pid, kind, id] = key;
    if (pid == kHostPid && kind == 0) {
      const bool trainer = std::find(trainers.begin(), trainers.end(), id) != trainers.end();
      const auto it = names.find(static_cast<std::uint32_t>(id));
      if (host_tids.count(id)) {
        l.name = it != names.end() && !it->second.empty() ? it->second : fmt::format("thread {}", id);
        l.sort = trainer ? 0 : 10;
      } else {
        l.name = fmt::format("{}CUDA runtime calls (thread id {} as CUPTI reported it)",
                             id == rt_trainer ? "trainer: " : "", id);
        l.sort = id == rt_trainer ? 1 : 11;
      }
    } else if (pid == kHostPid && kind == 2) {
      l.name = "steps";
      l.sort = 2;
      l.tid = b.free_tid(pid);
    } else if (kind == 0) {
      l.name = fmt::format("stream {}", id);
      l.sort = 2 * id;
    } else {
      l.name = id < 0 ? std::string("synchronization (no stream)") : fmt::format("stream {} synchronization", id);
      l.sort = id < 0 ? -1 : 2 * id + 1;
      l.tid = b.free_tid(pid);
    }
  }
}

}  // namespace

std::vector<std::uint32_t> trainer_threads(const EventStore& store, const StoreCounts& n) {
  std::map<std::uint32_t, std::int64_t> count;
  for (std::size_t i = 0; i < n.host_ranges; ++i)
    if (store.host_ranges[i].kind == kStepKind) ++count[store.host_ranges[i].thread];
  std::vector<std::pair<std::int64_t, std::uint32_t>> v;
  for (const auto& [tid, c] : count) v.emplace_back(-c, tid);
  std::sort(v.begin(), v.end());
  std::vector<std::uint32_t> out;
  for (const auto& [c, tid] : v) out.push_back(tid);
  return out;
}

Layout layout(const EventStore& store, const StoreCounts& n) {
  Builder b{store, n, {}, {}, {}};
  std::vector<std::uint32_t> trainers = trainer_threads(store, n);
  host_lanes(b, trainers);
  gpu_lanes(b);
  name_lanes(b, trainers);
  // Nesting: overflow levels become tracks of their own, named after their thread or stream.
  const std::size_t base = b.out.lanes.size();
  for (std::size_t li = 0; li < base; ++li) {
    auto levels = nest(b.out.lanes[li].events);
    if (levels.empty()) continue;
    b.out.lanes[li].events = std::move(levels[0]);
    for (std::size_t k = 1; k < levels.size(); ++k) {
      Lane extra;
      extra.pid = b.out.lanes[li].pid;
      extra.tid = b.free_tid(extra.pid);
      extra.name = b.out.lanes[li].name + (k == 1 ? " (overlapping)" : fmt::format(" (overlapping {})", k));
      extra.sort = b.out.lanes[li].sort;
      extra.events = std::move(levels[k]);
      b.out.overflow_events += static_cast<std::int64_t>(extra.events.size());
      b.out.lanes.push_back(std::move(extra));
    }
  }
  b.out.runtime_tid.assign(n.runtime, -1);
  b.out.kernel_tid.assign(n.kernels, -1);
  b.out.memcpy_tid.assign(n.memcpys, -1);
  b.out.memset_tid.assign(n.memsets, -1);
  for (const Lane& l : b.out.lanes)
    for (const Ev& e : l.events) {
      if (e.kind == EvKind::runtime) b.out.runtime_tid[e.index] = l.tid;
      else if (e.kind == EvKind::kernel) b.out.kernel_tid[e.index] = l.tid;
      else if (e.kind == EvKind::memcpy) b.out.memcpy_tid[e.index] = l.tid;
      else if (e.kind == EvKind::memset) b.out.memset_tid[e.index] = l.tid;
    }
  return std::move(b.out);
}

LaunchContext::LaunchContext(const EventStore& store, const StoreCounts& n) {
  const auto trainers = trainer_threads(store, n);
  if (!trainers.empty()) trainer_ = trainers.front(), have_trainer_ = true;
  for (std::size_t i = 0; i < n.host_ranges; ++i) {
    const HostRangeRecord& r = store.host_ranges[i];
    if (r.layer != kNoString) layered_[r.thread].push_back({r.start, r.end, r.layer});
  }
  for (auto& [tid, v] : layered_)
    std::sort(v.begin(), v.end(), [](const Range& a, const Range& b) { return a.start < b.start; });
  std::vector<std::size_t> order(n.steps);
  for (std::size_t i = 0; i < n.steps; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return store.steps[a].start < store.steps[b].start; });
  for (const std::size_t i : order) {
    steps_.emplace_back(store.steps[i].start, store.steps[i].end);
    step_ids_.push_back(store.steps[i].global_step);
  }
}

StringId LaunchContext::layer_at(std::uint32_t tid, std::int64_t t) const {
  auto it = layered_.find(tid);
  if (it == layered_.end() && have_trainer_) it = layered_.find(trainer_);
  if (it == layered_.end()) return kNoString;
  const auto& v = it->second;
  auto ub = std::upper_bound(v.begin(), v.end(), t, [](std::int64_t x, const Range& r) { return x < r.start; });
  // The latest-starting range that still holds t is the innermost; look back a bounded distance.
  for (int k = 0; k < 64 && ub != v.begin(); ++k) {
    --ub;
    if (ub->end >= t) return ub->layer;
  }
  return kNoString;
}

std::int64_t LaunchContext::step_at(std::int64_t t) const {
  auto ub = std::upper_bound(steps_.begin(), steps_.end(), t,
                             [](std::int64_t x, const std::pair<std::int64_t, std::int64_t>& s) { return x < s.first; });
  if (ub == steps_.begin()) return -1;
  --ub;
  return t <= ub->second ? step_ids_[static_cast<std::size_t>(ub - steps_.begin())] : -1;
}

}  // namespace ts::prof::exporter::detail
