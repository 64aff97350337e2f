// analyze(): step windows, the priority sweep (step-time breakdown), GPU idle gaps and their causes.
// One pass per table into flat vectors reserved up front, one sort each; no per-event allocation.
// Definitions: docs/metrics.md.
#include <algorithm>
#include <map>
#include <optional>
#include <cstdlib>
#include <cstring>

#include "engine/host_trace.h"
#include "profiling/analysis/analysis.h"
#include "profiling/analysis/communication.h"
#include "profiling/analysis/internal.h"
#include "profiling/schedule.h"

namespace ts::prof::analysis {

const char* category_name(Category c) {
  static const char* const names[] = {"kernel", "memcpy", "memset", "communication", "runtime", "data_loader_wait",
                                      "sync_wait", "cpu_exec", "other"};
  const int i = static_cast<int>(c);
  return i >= 0 && i < kCategoryCount ? names[i] : "?";
}

std::int64_t Breakdown::total() const {
  std::int64_t t = 0;
  for (auto v : ns) t += v;
  return t;
}
void Breakdown::add(const Breakdown& o) {
  for (int i = 0; i < kCategoryCount; ++i) ns[i] += o.ns[i];
}
void IdleBreakdown::add(const IdleBreakdown& o) {
  host_wait += o.host_wait, kernel_wait += o.kernel_wait, other += o.other;
}

namespace detail {

namespace {

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

/// Host range kinds that are CPU execution of the step (not waiting).
bool is_cpu_exec(std::uint8_t kind) {
  using K = trace::RangeKind;
  const auto k = static_cast<K>(kind);
  return k == K::forward || k == K::backward || k == K::loss || k == K::optimizer || k == K::h2d_copy ||
         k == K::other;
}

/// A host range on a CPU thread of an imported trace: not a GPU-side annotation (device >= 0) and
/// not a synthetic lane (a non-numeric tid such as "PyTorch Profiler", or an async lane), which the
/// importer numbers from 0xF0000000 up (profiling/import/trace_builder.cpp).
bool is_cpu_thread(const HostRangeRecord& r) { return r.device < 0 && r.thread < 0xF0000000u; }

/// Sessions recorded before CUPTI was told to report Linux tids (and imported traces whose runtime
/// calls use another thread numbering) have runtime calls on a thread id no host range uses. Then
/// the trainer's runtime thread is the one that made the most kernel launch calls (the trainer
/// launches every kernel of a step).
void trainer_runtime_thread(const EventStore& store, Timeline& tl) {
  std::vector<bool> is_launch(store.strings.size());
  for (std::size_t id = 0; id < is_launch.size(); ++id)
    is_launch[id] = contains(store.strings.get(static_cast<StringId>(id)), "Launch");
  const std::size_t n = store.runtime.size();
  std::map<std::uint32_t, std::int64_t> launches;
  for (std::size_t i = 0; i < n; ++i) {
    const RuntimeRecord& r = store.runtime[i];
    if (tl.is_trainer(r.thread)) return;  // ids agree
    if (r.name < is_launch.size() && is_launch[r.name]) ++launches[r.thread];
  }
  std::uint32_t best = 0;
  std::int64_t most = 0;
  for (const auto& [tid, count] : launches)
    if (count > most) best = tid, most = count;
  if (most > 0) tl.trainer_tids.push_back(best);
}

/// The runtime calls: every call as a Launch (by correlation, sorted), the launch calls' durations, and
/// the trainer's calls as runtime time, its blocking ones as syncs.
void add_runtime_calls(const EventStore& store, Timeline& tl, std::int64_t span_lo) {
  // Runtime calls: names classified once per string id.
  const std::size_t n_strings = store.strings.size();
  std::vector<std::uint8_t> api_class(n_strings, 0);  // 1 launch, 2 sync, 0 other
  for (std::size_t id = 0; id < n_strings; ++id) {
    const std::string& s = store.strings.get(static_cast<StringId>(id));
    if (contains(s, "Launch")) api_class[id] = 1;
    else if (contains(s, "Synchronize") ||
             ((s.rfind("cudaMemcpy", 0) == 0 || s.rfind("hipMemcpy", 0) == 0) && !contains(s, "Async")))
      api_class[id] = 2;  // HIP (ROCm) names its calls like CUDA: hipDeviceSynchronize, hipMemcpy
  }
  // Copies from/to pageable host memory: their runtime call blocks the host ("for transfers from
  // pageable host memory to device memory, a stream sync is performed before the copy is
  // initiated" — CUDA Runtime API, "API synchronization behavior"), so the call counts as a sync.
  std::vector<std::uint32_t> pageable;
  const std::size_t n_cp = store.memcpys.size();
  for (std::size_t i = 0; i < n_cp; ++i)
    if (is_pageable_copy(store.memcpys[i])) pageable.push_back(store.memcpys[i].correlation);
  std::sort(pageable.begin(), pageable.end());
  const std::size_t n_rt = store.runtime.size();
  tl.launches.reserve(n_rt);
  for (std::size_t i = 0; i < n_rt; ++i) {
    const RuntimeRecord& r = store.runtime[i];
    if (r.end < span_lo) continue;
    const int step = tl.step_at(r.start);
    tl.launches.push_back({r.correlation, r.start, r.end - r.start, step, r.thread});
    std::uint8_t cls = r.name < api_class.size() ? api_class[r.name] : 0;
    if (cls == 0 && r.correlation != 0 && std::binary_search(pageable.begin(), pageable.end(), r.correlation)) cls = 2;
    if (cls == 1) tl.launch_durations.push_back(r.end - r.start);
    if (tl.is_trainer(r.thread)) {
      tl.host.push_back({r.start, r.end, Category::runtime, -1});
      if (cls == 2) tl.syncs.push_back({r.start, r.end});
    }
  }
  std::sort(tl.launches.begin(), tl.launches.end(),
            [](const Launch& a, const Launch& b) { return a.correlation < b.correlation; });
}

/// The host ranges: the trainer's data waits, syncs and CPU execution, and the communication ranges of
/// any thread (communication.h).
void add_host_ranges(const EventStore& store, Timeline& tl, std::int64_t span_lo) {
  // Host ranges of the trainer thread; for an imported trace also the CPU execution of its other
  // CPU threads (an autograd thread, gloo's worker threads: cpu_op / user_annotation /
  // python_function ranges), as the PyTorch profiler's overall view counts every thread's operators.
  // TrainScope's own sessions keep the trainer thread only (their loader workers are not the step).
  const bool every_cpu_thread = store.meta().count("import.format") > 0;
  const std::size_t n_strings = store.strings.size(), n_ranges = store.host_ranges.size();
  std::vector<std::uint8_t> comm_class(n_strings, 0);  // 1 blocking collective, 2 async, 0 none; per name id
  for (std::size_t id = 0; id < n_strings; ++id)
    if (const std::string& n = store.strings.get(static_cast<StringId>(id)); is_communication_range(n))
      comm_class[id] = is_async_communication_range(n) ? 2 : 1;
  for (std::size_t i = 0; i < n_ranges; ++i) {
    const auto& r = store.host_ranges[i];
    if (r.end < span_lo) continue;
    // Collectives on the host (gloo's all-reduce, DDP's buckets: communication.h), on any thread as a
    // job counts them; a blocking one on the trainer is where it waits for the other ranks.
    if (const std::uint8_t comm = r.name < n_strings ? comm_class[r.name] : 0) {
      tl.host.push_back({r.start, r.end, Category::communication, -1});
      tl.communication.push_back({r.start, r.end});
      if (comm == 1 && tl.is_trainer(r.thread)) tl.collectives.push_back({r.start, r.end});
    }
    if (!tl.is_trainer(r.thread)) {
      if (every_cpu_thread && is_cpu_exec(r.kind) && is_cpu_thread(r)) tl.host.push_back({r.start, r.end, Category::cpu_exec, -1});
      continue;
    }
    using K = trace::RangeKind;
    if (r.kind == static_cast<std::uint8_t>(K::data_wait)) {
      tl.host.push_back({r.start, r.end, Category::data_wait, -1});
      tl.blocked.push_back({r.start, r.end});
    } else if (r.kind == static_cast<std::uint8_t>(K::sync)) {
      tl.host.push_back({r.start, r.end, Category::sync_wait, -1});
      tl.syncs.push_back({r.start, r.end});
    } else if (is_cpu_exec(r.kind)) {
      tl.host.push_back({r.start, r.end, Category::cpu_exec, -1});
    }
  }
}

}  // namespace

/// End of the newest GPU record (kernel, copy or memset) in the store; INT64_MIN when none.
std::int64_t gpu_horizon(const EventStore& store) {
  std::int64_t h = INT64_MIN;
  auto last = [&h](const auto& log) {  // rows arrive about in end order: look at the last few
    const std::size_t n = log.size();
    for (std::size_t i = n > 64 ? n - 64 : 0; i < n; ++i) h = std::max(h, log[i].end);
  };
  last(store.kernels), last(store.memcpys), last(store.memsets);
  return h;
}

Timeline build_timeline(const EventStore& store, std::int64_t last_steps, std::int64_t warmup_steps,
                        std::int64_t* skipped, bool live, std::int64_t* pending, std::int64_t* untraced) {
  Timeline tl;
  if (untraced) *untraced = 0;
  std::size_t n_steps = store.steps.size();
  const auto meta = store.meta();  // a copy under the store's lock: read once
  if (pending) *pending = 0;
  if (live) {
    const auto ga = meta.find("gpu_activity");
    if (ga != meta.end() && ga->second == "collected (CUPTI)") {
      const std::int64_t horizon = gpu_horizon(store);
      std::size_t keep = n_steps;
      while (keep > 0 && store.steps[keep - 1].end > horizon) --keep;
      if (pending) *pending = static_cast<std::int64_t>(n_steps - keep);
      n_steps = keep;
    }
  }
  const std::size_t warmup = std::min<std::size_t>(static_cast<std::size_t>(std::max<std::int64_t>(warmup_steps, 0)),
                                                   n_steps > 1 ? n_steps - 1 : 0);
  if (skipped) *skipped = static_cast<std::int64_t>(warmup);
  // A scheduled recording traced its active steps alone (profiler.h): the others have a step row but
  // no host ranges and no GPU records, so they are left out rather than analysed as an idle GPU. So is
  // the first active step of a window when windows hold more than one (analysed_step).
  const std::optional<ProfileSchedule> schedule = schedule_from_meta(meta);
  std::vector<std::size_t> kept;
  kept.reserve(n_steps - warmup);
  for (std::size_t i = warmup; i < n_steps; ++i)
    if (!schedule || analysed_step(*schedule, store.steps[i].global_step)) kept.push_back(i);
  if (untraced) *untraced = static_cast<std::int64_t>(n_steps - warmup - kept.size());
  std::size_t first = 0;
  if (last_steps > 0 && static_cast<std::size_t>(last_steps) < kept.size()) first = kept.size() - static_cast<std::size_t>(last_steps);
  tl.steps.reserve(kept.size() - first);
  for (std::size_t k = first; k < kept.size(); ++k) {
    const StepRecord& s = store.steps[kept[k]];
    tl.steps.push_back({s.global_step, s.start, s.end, s.start, s.end});
  }
  if (tl.steps.empty()) return tl;
  // Trainer threads: those that ran step ranges (all threads when no step range was kept).
  const std::size_t n_ranges = store.host_ranges.size();
  for (std::size_t i = 0; i < n_ranges; ++i) {
    const auto& r = store.host_ranges[i];
    if (r.kind == static_cast<std::uint8_t>(trace::RangeKind::step) &&
        std::find(tl.trainer_tids.begin(), tl.trainer_tids.end(), r.thread) == tl.trainer_tids.end())
      tl.trainer_tids.push_back(r.thread);
  }
  // Steps without step ranges (a Python program's optimizer.step calls): the thread that made them.
  if (tl.trainer_tids.empty()) {
    if (auto it = meta.find("steps.thread"); it != meta.end() && std::atoll(it->second.c_str()) > 0)
      tl.trainer_tids.push_back(static_cast<std::uint32_t>(std::atoll(it->second.c_str())));
  }
  trainer_runtime_thread(store, tl);
  const std::int64_t span_lo = tl.steps.front().host_start;
  add_runtime_calls(store, tl, span_lo);
  add_host_ranges(store, tl, span_lo);
  add_gpu_ops(store, tl, span_lo);
  make_windows(tl);
  for (const auto& s : tl.syncs) tl.blocked.push_back(s);
  merge(tl.syncs);
  merge(tl.blocked);
  merge(tl.collectives);
  merge(tl.communication);
  return tl;
}

namespace {

/// Collective ops on the host (is_collective_op), by thread then start: a kernel launched inside
/// one is communication whatever its name.
struct CollectiveRanges {
  struct R { std::uint32_t thread; std::int64_t start, end; };
  std::vector<R> v;
  explicit CollectiveRanges(const EventStore& store) {
    const std::size_t n_strings = store.strings.size(), n = store.host_ranges.size();
    std::vector<std::int8_t> coll(n_strings, -1);
    for (std::size_t i = 0; i < n; ++i) {
      const HostRangeRecord& h = store.host_ranges[i];
      if (h.name >= n_strings) continue;
      if (coll[h.name] < 0) coll[h.name] = is_collective_op(store.strings.get(h.name));
      if (coll[h.name]) v.push_back({h.thread, h.start, h.end});
    }
    std::sort(v.begin(), v.end(), [](const R& a, const R& b) { return a.thread != b.thread ? a.thread < b.thread : a.start < b.start; });
  }
  bool contains(std::uint32_t thread, std::int64_t t) const {
    auto it = std::upper_bound(v.begin(), v.end(), R{thread, t, 0},
                               [](const R& a, const R& b) { return a.thread != b.thread ? a.thread < b.thread : a.start < b.start; });
    for (int back = 0; back < 4 && it != v.begin(); ++back) {  // nested ops: look at the few before
      --it;
      if (it->thread != thread) break;
      if (t <= it->end) return true;
    }
    return false;
  }
};

}  // namespace

void add_gpu_ops(const EventStore& store, Timeline& tl, std::int64_t span_lo) {
  const CollectiveRanges collectives(store);
  std::vector<std::int8_t> comm_name(store.strings.size(), -1);
  auto add = [&](std::int64_t start, std::int64_t end, std::uint32_t corr, Category c, std::uint32_t index) {
    if (end < span_lo) return;
    const Launch* l = tl.launch_of(corr);
    tl.gpu.push_back({start, end, l ? l->start : INT64_MIN, c, l ? l->step : -1, index});
    if (l && l->step >= 0) {
      auto& s = tl.steps[static_cast<std::size_t>(l->step)];
      s.end = std::max(s.end, end);
    }
  };
  const std::size_t nk = store.kernels.size(), nc = store.memcpys.size(), ns = store.memsets.size();
  tl.gpu.reserve(nk + nc + ns);
  for (std::size_t i = 0; i < nk; ++i) {
    const auto& k = store.kernels[i];
    bool comm = false;
    if (k.name < comm_name.size()) {
      if (comm_name[k.name] < 0) comm_name[k.name] = is_communication_kernel(store.strings.get(k.name));
      comm = comm_name[k.name] > 0;
    }
    if (!comm && !collectives.v.empty())
      if (const Launch* l = tl.launch_of(k.correlation)) comm = collectives.contains(l->thread, l->start);
    add(k.start, k.end, k.correlation, comm ? Category::communication : Category::kernel, static_cast<std::uint32_t>(i));
  }
  for (std::size_t i = 0; i < nc; ++i) {
    const auto& m = store.memcpys[i];
    add(m.start, m.end, m.correlation, Category::memcpy, static_cast<std::uint32_t>(i));
  }
  for (std::size_t i = 0; i < ns; ++i) {
    const auto& m = store.memsets[i];
    add(m.start, m.end, m.correlation, Category::memset, static_cast<std::uint32_t>(i));
  }
  std::sort(tl.gpu.begin(), tl.gpu.end(), [](const GpuOp& a, const GpuOp& b) { return a.start < b.start; });
}

/// Windows: [host start, max(host end, end of the step's GPU work)], disjoint in step order.
void make_windows(Timeline& tl) {
  std::int64_t prev_end = INT64_MIN;
  for (auto& s : tl.steps) {
    s.start = std::max(s.host_start, prev_end);
    s.end = std::max(s.end, s.start);
    prev_end = s.end;
  }
}

int Timeline::step_at(std::int64_t t) const {
  auto it = std::upper_bound(steps.begin(), steps.end(), t,
                             [](std::int64_t v, const StepWindow& s) { return v < s.host_start; });
  if (it == steps.begin()) return -1;
  --it;
  return t <= it->host_end ? static_cast<int>(it - steps.begin()) : -1;
}

const Launch* Timeline::launch_of(std::uint32_t corr) const {
  if (corr == 0) return nullptr;
  auto it = std::lower_bound(launches.begin(), launches.end(), corr,
                             [](const Launch& l, std::uint32_t c) { return l.correlation < c; });
  return it != launches.end() && it->correlation == corr ? &*it : nullptr;
}

bool Timeline::is_trainer(std::uint32_t tid) const {
  return trainer_tids.empty() || std::find(trainer_tids.begin(), trainer_tids.end(), tid) != trainer_tids.end();
}

/// Calls fn(window index, a, b) for each piece of [a, b) inside a window; `w` is a cursor that only
/// moves forward (callers pass increasing a).
template <class Fn>
void for_each_piece(const std::vector<StepWindow>& win, std::size_t& w, std::int64_t a, std::int64_t b, Fn&& fn) {
  while (w < win.size() && win[w].end <= a) ++w;
  for (std::size_t i = w; i < win.size() && win[i].start < b; ++i) {
    const std::int64_t lo = std::max(a, win[i].start), hi = std::min(b, win[i].end);
    if (hi > lo) fn(i, lo, hi);
  }
}

struct Edge {
  std::int64_t t;
  std::int32_t delta;
  Category c;
  bool gpu;  // a GPU op's (a host collective is communication too, but not GPU busy)
};

bool edge_before(const Edge& a, const Edge& b) { return a.t < b.t; }

/// Sorts `v` by time. The edges come in a few runs already in order (the host's records, its ranges,
/// the GPU's ops by start; their ends nearly so): up to kMaxRuns runs are merged in place, more are
/// sorted. The sweep's cost was this sort (42 % of analysing 1M events as one std::sort).
void sort_by_time(std::vector<Edge>& v) {
  constexpr std::size_t kMaxRuns = 8;
  std::vector<std::size_t> cuts{0};
  for (auto it = v.begin(); it != v.end();) {
    it = std::is_sorted_until(it, v.end(), edge_before);
    cuts.push_back(static_cast<std::size_t>(it - v.begin()));
    if (cuts.size() > kMaxRuns + 1) {
      std::sort(v.begin(), v.end(), edge_before);
      return;
    }
  }
  for (std::size_t i = 2; i < cuts.size(); ++i)
    std::inplace_merge(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(cuts[i - 1]),
                       v.begin() + static_cast<std::ptrdiff_t>(cuts[i]), edge_before);
}

/// The priority sweep: each instant of a window goes to the highest-priority category active then.
void sweep(const Timeline& tl, std::vector<StepMetrics>& out) {
  std::vector<Edge> starts, ends, edges;
  starts.reserve(tl.host.size() + tl.gpu.size()), ends.reserve(tl.host.size() + tl.gpu.size());
  const std::int64_t lo = tl.steps.front().start, hi = tl.steps.back().end;
  auto push = [&](std::int64_t a, std::int64_t b, Category c, bool gpu) {
    a = std::max(a, lo), b = std::min(b, hi);
    if (b > a) starts.push_back({a, +1, c, gpu}), ends.push_back({b, -1, c, gpu});
  };
  for (const auto& h : tl.host) push(h.start, h.end, h.c, false);
  for (const auto& g : tl.gpu) {
    if (g.step >= 0) {  // GPU work belongs to the step that launched it
      const auto& w = tl.steps[static_cast<std::size_t>(g.step)];
      push(std::max(g.start, w.start), std::min(g.end, w.end), g.c, true);
    } else {
      push(g.start, g.end, g.c, true);
    }
  }
  sort_by_time(starts), sort_by_time(ends);
  edges.resize(starts.size() + ends.size());
  std::merge(starts.begin(), starts.end(), ends.begin(), ends.end(), edges.begin(), edge_before);
  int active[kCategoryCount] = {};
  int active_gpu = 0;
  std::size_t cursor = 0;
  std::int64_t prev = lo;
  for (std::size_t i = 0; i < edges.size();) {
    const std::int64_t t = edges[i].t;
    if (t > prev) {
      int top = kCategoryCount - 1;  // other
      for (int c = 0; c < kCategoryCount - 1; ++c)
        if (active[c] > 0) { top = c; break; }
      const bool gpu = active_gpu > 0;
      const bool wait = active[static_cast<int>(Category::data_wait)] > 0;
      for_each_piece(tl.steps, cursor, prev, t, [&](std::size_t w, std::int64_t a, std::int64_t b) {
        auto& m = out[w];
        if (top != kCategoryCount - 1) m.breakdown.ns[top] += b - a;
        if (gpu) m.gpu_busy_ns += b - a;
        if (wait) m.data_wait_ns += b - a;
      });
    }
    for (; i < edges.size() && edges[i].t == t; ++i) {
      active[static_cast<int>(edges[i].c)] += edges[i].delta;
      if (edges[i].gpu) active_gpu += edges[i].delta;
    }
    prev = t;
  }
  // Host sync (raw): the merged sync spans, i.e. `sync` ranges and the trainer's blocking runtime calls
  // (*Synchronize*, blocking or pageable copies): the same syncs idle_gaps() blames GPU idle on, so
  // gpu_idle_sync and host_sync never contradict each other. Not reduced by priority: a blocking
  // runtime call stays `runtime` in the breakdown.
  std::size_t sync_cursor = 0;
  for (const Span& s : tl.syncs)
    for_each_piece(tl.steps, sync_cursor, s.start, s.end,
                   [&](std::size_t w, std::int64_t a, std::int64_t b) { out[w].sync_ns += b - a; });
  for (auto& m : out) {  // what no interval covered
    const std::int64_t covered = m.breakdown.total();
    m.breakdown.ns[static_cast<int>(Category::other)] = m.wall() - covered;
  }
}

/// Length of [a, b) covered by the merged list v; k is a forward-only cursor.
std::int64_t covered(const std::vector<Span>& v, std::size_t& k, std::int64_t a, std::int64_t b) {
  while (k < v.size() && v[k].end <= a) ++k;
  std::int64_t sum = 0;
  for (std::size_t i = k; i < v.size() && v[i].start < b; ++i)
    sum += std::max<std::int64_t>(0, std::min(b, v[i].end) - std::max(a, v[i].start));
  return sum;
}

/// What the host syncs of a step cost the GPU (docs/metrics.md, "Sync-caused idle"): the idle inside
/// each sync, and after a sync returns, the idle that follows it in its gap (until the next sync
/// starts), paid from the step's pool of sync time not already counted as idle inside a sync.
/// Removing the step's syncs gives the host back their duration and no more, so the GPU idle they
/// cause is bounded by it: what the host does after a short sync (loading the next batch) is not the
/// sync's, while a long wait for busy GPU work (loss.item()) pays for the drained queue that the
/// step's later round trips leave behind. The pool belongs to the step window a sync ends in.
struct SyncCost {
  const std::vector<Span>& syncs;
  const std::vector<StepWindow>& steps;
  std::vector<std::int64_t> inside;  // each sync's idle counted so far (a sync can span gaps)
  std::size_t ks = 0;                // forward-only cursor over the merged, sorted syncs
  std::int64_t pool = 0, pool_window_end = INT64_MIN;

  SyncCost(const std::vector<Span>& s, const std::vector<StepWindow>& w) : syncs(s), steps(w), inside(s.size(), 0) {}

  /// The end of the step window holding t (t itself past the last window).
  std::int64_t window_end(std::int64_t t) const {
    auto it = std::upper_bound(steps.begin(), steps.end(), t,
                               [](std::int64_t x, const StepWindow& w) { return x < w.end; });
    return it == steps.end() ? t : it->end;
  }

  /// The sync-caused parts of the GPU idle gap [a, b), in time order.
  std::vector<Span> gap(std::int64_t a, std::int64_t b) {
    std::vector<Span> out;
    while (ks < syncs.size() && syncs[ks].end < a) ++ks;
    for (std::size_t j = ks; j < syncs.size() && syncs[j].start < b; ++j) {
      const Span& s = syncs[j];
      const std::int64_t lo = std::max(a, s.start), hi = std::min(b, s.end);
      if (hi > lo) out.push_back({lo, hi}), inside[j] += hi - lo;
      if (s.end < a || s.end >= b) continue;
      if (s.end >= pool_window_end) pool = 0, pool_window_end = window_end(s.end);
      pool += std::max<std::int64_t>(0, (s.end - s.start) - inside[j]);
      const std::int64_t after_end = j + 1 < syncs.size() ? std::min(b, std::max(s.end, syncs[j + 1].start)) : b;
      const std::int64_t credit = std::min(after_end - s.end, pool);
      if (credit > 0) out.push_back({s.end, s.end + credit}), pool -= credit;
    }
    return out;
  }
};

/// GPU idle gaps inside the windows: cause (host wait / kernel wait / other), sync-caused idle, and
/// host-wait idle while the trainer was launching.
void idle_gaps(const Timeline& tl, std::int64_t launch_cost, std::vector<StepMetrics>& out) {
  const std::int64_t lo = tl.steps.front().start, hi = tl.steps.back().end;
  std::size_t cursor = 0, kb = 0;
  SyncCost sync_cost(tl.syncs, tl.steps);
  auto gap = [&](std::int64_t a, std::int64_t b, std::int64_t next_launch) {
    if (b <= a) return;
    enum { host, kernel, other } cause;
    if (next_launch == INT64_MAX || next_launch >= a) cause = host;  // nothing was queued: the CPU was late
    else if (b - a < launch_cost) cause = kernel;  // queued behind a dependent kernel: launch latency
    else cause = other;                            // queued, yet waited longer (events, other streams)
    // A sync causes idle only where the GPU ran out of work: a gap whose next op was queued before
    // it began is the GPU waiting on itself or another dependency, whatever the host did meanwhile.
    const std::vector<Span> by_sync = queued_before(a, next_launch) ? std::vector<Span>{} : sync_cost.gap(a, b);
    for_each_piece(tl.steps, cursor, a, b, [&](std::size_t w, std::int64_t pa, std::int64_t pb) {
      auto& m = out[w];
      const std::int64_t len = pb - pa;
      if (cause == host) {
        m.idle.host_wait += len;
        m.idle_host_launching_ns += len - covered(tl.blocked, kb, pa, pb);
      } else if (cause == kernel) {
        m.idle.kernel_wait += len;
      } else {
        m.idle.other += len;
      }
      for (const Span& c : by_sync) m.idle_sync_ns += std::max<std::int64_t>(0, std::min(pb, c.end) - std::max(pa, c.start));
    });
  };
  for_each_gpu_gap(tl, lo, hi, gap);
}

}  // namespace detail
}  // namespace ts::prof::analysis
