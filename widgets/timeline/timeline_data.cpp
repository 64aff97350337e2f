// TimelineData: incremental lanes over an EventStore (see timeline_data.h).
#include "widgets/timeline/timeline_data.h"

#include <algorithm>
#include <tuple>

#include "engine/host_trace.h"
#include "widgets/timeline/categories.h"

namespace ts::gui::timeline {

namespace {

using CorrIndex = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

/// Sorts the entries appended since `old_size` and merges them into the sorted prefix.
void sort_tail(CorrIndex& v, std::size_t old_size) {
  std::sort(v.begin() + static_cast<std::ptrdiff_t>(old_size), v.end());
  std::inplace_merge(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(old_size), v.end());
}

std::optional<std::uint32_t> lookup(const CorrIndex& v, std::uint32_t corr) {
  if (corr == 0) return std::nullopt;
  auto it = std::lower_bound(v.begin(), v.end(), std::make_pair(corr, std::uint32_t{0}));
  if (it == v.end() || it->first != corr) return std::nullopt;
  return it->second;
}

template <class T>
std::size_t cap_bytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

int lane_group(const Lane& l) {
  switch (l.kind) {
    case LaneKind::host_thread: return l.has_steps ? 0 : 2;
    case LaneKind::runtime: return 1;
    case LaneKind::stream: return 3;
    case LaneKind::copy_h2d: return 4;
    case LaneKind::copy_d2h: return 5;
    case LaneKind::copy_other: return 6;
    case LaneKind::memset: return 7;
    case LaneKind::sync: return 8;
  }
  return 9;
}

}  // namespace

std::size_t Lane::events() const {
  std::size_t n = 0;
  for (const Row& r : rows) n += r.events.size();
  return n;
}

void merge_into_lane(Lane& lane, std::vector<Event> batch) {
  if (batch.empty()) return;
  std::sort(batch.begin(), batch.end(), event_before);
  // Restart point B: the last depth-0 event starting before the batch. Every event ordered before B
  // ended by B's start (B found the stack empty), so nothing before B changes.
  std::vector<Event> tail;
  if (!lane.rows.empty()) {
    const Row& r0 = lane.rows[0];
    const std::size_t k = r0.firstStartingAt(batch.front().start);
    const bool restart_all = k == 0;
    const Event b = restart_all ? Event{} : r0.events[k - 1];
    for (Row& r : lane.rows) {
      const std::size_t cut =
          restart_all ? 0
                      : static_cast<std::size_t>(std::lower_bound(r.events.begin(), r.events.end(), b, event_before) -
                                                 r.events.begin());
      tail.insert(tail.end(), r.events.begin() + static_cast<std::ptrdiff_t>(cut), r.events.end());
      r.truncate(cut);
    }
  }
  if (tail.empty()) {
    tail = std::move(batch);
  } else {
    tail.insert(tail.end(), batch.begin(), batch.end());
    std::sort(tail.begin(), tail.end(), event_before);
  }
  std::vector<std::int64_t> open;  // ends of the events still open, innermost last
  for (const Event& e : tail) {
    while (!open.empty() && open.back() <= e.start) open.pop_back();
    const std::size_t depth = open.size();
    if (lane.rows.size() <= depth) lane.rows.resize(depth + 1);
    lane.rows[depth].push(e);
    open.push_back(e.end);
  }
  while (!lane.rows.empty() && lane.rows.back().events.empty()) lane.rows.pop_back();
}

void TimelineData::reset() { *this = TimelineData(); }

int TimelineData::laneIndex(const std::string& key) const {
  auto it = lane_of_key_.find(key);
  return it == lane_of_key_.end() ? -1 : it->second;
}

int TimelineData::laneFor(LaneKind kind, const std::string& key, std::uint32_t id, std::int32_t device) {
  if (auto it = lane_of_key_.find(key); it != lane_of_key_.end()) return it->second;
  Lane l;
  l.kind = kind, l.key = key, l.id = id, l.device = device;
  lanes_.push_back(std::move(l));
  const int index = static_cast<int>(lanes_.size()) - 1;
  lane_of_key_[key] = index;
  return index;
}

int TimelineData::hostLane(std::uint32_t tid) {
  if (auto it = host_lane_of_tid_.find(tid); it != host_lane_of_tid_.end()) return it->second;
  auto name = thread_name_.find(tid);
  const int lane = name != thread_name_.end()
                       ? laneFor(LaneKind::host_thread, "thread:" + name->second, tid, -1)
                       : laneFor(LaneKind::host_thread, "tid:" + std::to_string(tid), tid, -1);
  host_lane_of_tid_[tid] = lane;
  return lane;
}

void TimelineData::ingestThreads(const prof::EventStore& store, const prof::StoreCounts& c) {
  for (std::size_t i = seen_.threads; i < c.threads; ++i) {
    const prof::ThreadRecord& t = store.threads[i];
    const std::string& name = store.strings.get(t.name);
    if (name.empty() || thread_name_.count(t.tid)) continue;
    thread_name_[t.tid] = name;
    // Ranges seen before the thread's name: move them from the "tid:" lane into the named one.
    auto it = host_lane_of_tid_.find(t.tid);
    if (it == host_lane_of_tid_.end()) continue;
    Lane& old = lanes_[static_cast<std::size_t>(it->second)];
    if (old.key.rfind("tid:", 0) != 0) continue;
    std::vector<Event> moved;
    for (Row& r : old.rows) moved.insert(moved.end(), r.events.begin(), r.events.end());
    const bool steps = old.has_steps;
    old.rows.clear();
    old.has_steps = false;
    host_lane_of_tid_.erase(it);
    const int lane = hostLane(t.tid);
    lanes_[static_cast<std::size_t>(lane)].has_steps |= steps;
    merge_into_lane(lanes_[static_cast<std::size_t>(lane)], std::move(moved));
  }
}

std::uint8_t TimelineData::kernelCategory(const prof::EventStore& store, prof::StringId name) {
  if (name >= kernel_cat_.size()) kernel_cat_.resize(std::max<std::size_t>(name + 1, store.strings.size()), 255);
  if (kernel_cat_[name] == 255)
    kernel_cat_[name] = static_cast<std::uint8_t>(kernel_category(demangle(store.strings.get(name))));
  return kernel_cat_[name];
}

std::uint8_t TimelineData::runtimeCategory(const prof::EventStore& store, prof::StringId name, bool* launch) {
  if (name >= runtime_cat_.size()) runtime_cat_.resize(std::max<std::size_t>(name + 1, store.strings.size()), 255);
  if (runtime_cat_[name] == 255) {
    const std::string& s = store.strings.get(name);
    const auto c = static_cast<std::uint8_t>(runtime_category(s));
    runtime_cat_[name] = static_cast<std::uint8_t>(c | (s.find("Launch") != std::string::npos ? 0x80 : 0));
  }
  *launch = (runtime_cat_[name] & 0x80) != 0;
  return runtime_cat_[name] & 0x7f;
}

void TimelineData::add(std::vector<std::vector<Event>>& batch, int lane, const Event& e) {
  if (batch.size() < lanes_.size()) batch.resize(lanes_.size());
  batch[static_cast<std::size_t>(lane)].push_back(e);
  min_t_ = events_ ? std::min(min_t_, e.start) : e.start;
  max_t_ = events_ ? std::max(max_t_, e.end) : e.end;
  ++events_;
}

void TimelineData::ingestGpu(const prof::EventStore& store, const prof::StoreCounts& c,
                             std::vector<std::vector<Event>>& batch) {
  const std::size_t k0 = kernel_by_corr_.size(), c0 = memcpy_by_corr_.size(), s0 = memset_by_corr_.size();
  for (std::size_t i = seen_.kernels; i < c.kernels; ++i) {
    const prof::KernelRecord& k = store.kernels[i];
    const int lane = laneFor(LaneKind::stream, "stream:" + std::to_string(k.device) + ":" + std::to_string(k.stream),
                             k.stream, k.device);
    const auto row = static_cast<std::uint32_t>(i);
    add(batch, lane, {k.start, std::max(k.end, k.start), row, Source::kernel, kernelCategory(store, k.name)});
    if (k.correlation) kernel_by_corr_.emplace_back(k.correlation, row);
  }
  for (std::size_t i = seen_.memcpys; i < c.memcpys; ++i) {
    const prof::MemcpyRecord& m = store.memcpys[i];
    const Category cat = copy_category(m.copy_kind);
    const int lane = cat == Category::copy_h2d   ? laneFor(LaneKind::copy_h2d, "copy:h2d", 0, m.device)
                     : cat == Category::copy_d2h ? laneFor(LaneKind::copy_d2h, "copy:d2h", 0, m.device)
                                                 : laneFor(LaneKind::copy_other, "copy:other", 0, m.device);
    const auto row = static_cast<std::uint32_t>(i);
    add(batch, lane, {m.start, std::max(m.end, m.start), row, Source::memcpy, static_cast<std::uint8_t>(cat)});
    if (m.correlation) memcpy_by_corr_.emplace_back(m.correlation, row);
  }
  for (std::size_t i = seen_.memsets; i < c.memsets; ++i) {
    const prof::MemsetRecord& m = store.memsets[i];
    const int lane = laneFor(LaneKind::memset, "memset", 0, m.device);
    const auto row = static_cast<std::uint32_t>(i);
    add(batch, lane, {m.start, std::max(m.end, m.start), row, Source::memset, static_cast<std::uint8_t>(Category::memset)});
    if (m.correlation) memset_by_corr_.emplace_back(m.correlation, row);
  }
  for (std::size_t i = seen_.syncs; i < c.syncs; ++i) {
    const prof::SyncRecord& s = store.syncs[i];
    const int lane = laneFor(LaneKind::sync, "sync", 0, s.device);
    add(batch, lane, {s.start, std::max(s.end, s.start), static_cast<std::uint32_t>(i), Source::sync,
                      static_cast<std::uint8_t>(Category::sync)});
  }
  sort_tail(kernel_by_corr_, k0);
  sort_tail(memcpy_by_corr_, c0);
  sort_tail(memset_by_corr_, s0);
}

void TimelineData::ingestHost(const prof::EventStore& store, const prof::StoreCounts& c,
                              std::vector<std::vector<Event>>& batch) {
  const std::size_t r0 = runtime_by_corr_.size();
  for (std::size_t i = seen_.runtime; i < c.runtime; ++i) {
    const prof::RuntimeRecord& r = store.runtime[i];
    const int lane = laneFor(LaneKind::runtime, "runtime:" + std::to_string(r.thread), r.thread, -1);
    bool launch = false;
    const std::uint8_t cat = runtimeCategory(store, r.name, &launch);
    if (launch) ++lanes_[static_cast<std::size_t>(lane)].launches;
    const auto row = static_cast<std::uint32_t>(i);
    add(batch, lane, {r.start, std::max(r.end, r.start), row, Source::runtime, cat});
    if (r.correlation) runtime_by_corr_.emplace_back(r.correlation, row);
  }
  sort_tail(runtime_by_corr_, r0);
  for (std::size_t i = seen_.host_ranges; i < c.host_ranges; ++i) {
    const prof::HostRangeRecord& h = store.host_ranges[i];
    const int lane = hostLane(h.thread);
    if (h.kind == static_cast<std::uint8_t>(trace::RangeKind::step)) lanes_[static_cast<std::size_t>(lane)].has_steps = true;
    add(batch, lane, {h.start, std::max(h.end, h.start), static_cast<std::uint32_t>(i), Source::host_range,
                      static_cast<std::uint8_t>(host_range_category(h.kind))});
  }
  for (std::size_t i = seen_.steps; i < c.steps; ++i) {
    const prof::StepRecord& s = store.steps[i];
    steps_.push_back({s.global_step, s.epoch, s.step, s.start, std::max(s.end, s.start)});
  }
  if (c.steps > seen_.steps)
    std::sort(steps_.begin(), steps_.end(), [](const StepBand& a, const StepBand& b) { return a.start < b.start; });
}

void TimelineData::ingest(const prof::EventStore& store, const prof::StoreCounts& counts) {
  prof::StoreCounts c = counts;
  // Never read past what the store has published (a hub's counts come from this store).
  const prof::StoreCounts have = store.counts();
  c.kernels = std::min(c.kernels, have.kernels), c.memcpys = std::min(c.memcpys, have.memcpys);
  c.memsets = std::min(c.memsets, have.memsets), c.runtime = std::min(c.runtime, have.runtime);
  c.syncs = std::min(c.syncs, have.syncs), c.host_ranges = std::min(c.host_ranges, have.host_ranges);
  c.threads = std::min(c.threads, have.threads), c.steps = std::min(c.steps, have.steps);
  const std::size_t before = events_, steps_before = steps_.size(), threads_before = thread_name_.size();
  ingestThreads(store, c);
  std::vector<std::vector<Event>> batch;
  ingestGpu(store, c, batch);
  ingestHost(store, c, batch);
  for (std::size_t l = 0; l < batch.size(); ++l)
    if (!batch[l].empty()) merge_into_lane(lanes_[l], std::move(batch[l]));
  seen_.kernels = std::max(seen_.kernels, c.kernels), seen_.memcpys = std::max(seen_.memcpys, c.memcpys);
  seen_.memsets = std::max(seen_.memsets, c.memsets), seen_.runtime = std::max(seen_.runtime, c.runtime);
  seen_.syncs = std::max(seen_.syncs, c.syncs), seen_.host_ranges = std::max(seen_.host_ranges, c.host_ranges);
  seen_.threads = std::max(seen_.threads, c.threads), seen_.steps = std::max(seen_.steps, c.steps);
  if (events_ != before || steps_.size() != steps_before || thread_name_.size() != threads_before) ++version_;
}

std::vector<int> TimelineData::defaultOrder() const {
  std::vector<int> order;
  for (std::size_t i = 0; i < lanes_.size(); ++i)
    if (!lanes_[i].rows.empty()) order.push_back(static_cast<int>(i));
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const Lane& la = lanes_[static_cast<std::size_t>(a)];
    const Lane& lb = lanes_[static_cast<std::size_t>(b)];
    return std::make_tuple(lane_group(la), -la.launches, la.device, la.kind == LaneKind::stream ? la.id : 0u, la.key) <
           std::make_tuple(lane_group(lb), -lb.launches, lb.device, lb.kind == LaneKind::stream ? lb.id : 0u, lb.key);
  });
  return order;
}

int TimelineData::trainerLane() const {
  for (std::size_t i = 0; i < lanes_.size(); ++i)
    if (lanes_[i].has_steps && !lanes_[i].rows.empty()) return static_cast<int>(i);
  return -1;
}

int TimelineData::hostLaneForRuntimeThread(std::uint32_t tid) const {
  if (auto it = host_lane_of_tid_.find(tid); it != host_lane_of_tid_.end()) return it->second;
  return trainerLane();
}

QString TimelineData::laneTitle(int index) const {
  if (index < 0 || index >= static_cast<int>(lanes_.size())) return {};
  const Lane& l = lanes_[static_cast<std::size_t>(index)];
  switch (l.kind) {
    case LaneKind::host_thread:
      return l.key.rfind("thread:", 0) == 0 ? QString::fromStdString(l.key.substr(7)) : QString("thread %1").arg(l.id);
    case LaneKind::runtime: {
      if (auto it = host_lane_of_tid_.find(l.id); it != host_lane_of_tid_.end())
        return "CUDA API · " + laneTitle(it->second);
      // A named thread without host ranges (the profiler's sampler calls cudaMemGetInfo).
      if (auto it = thread_name_.find(l.id); it != thread_name_.end())
        return "CUDA API · " + QString::fromStdString(it->second);
      // Older sessions: CUPTI's thread ids match no host range; the most launches marks the trainer.
      bool most = l.launches > 0;
      for (const Lane& o : lanes_)
        if (o.kind == LaneKind::runtime && o.launches > l.launches) most = false;
      return most ? QString("CUDA API · trainer") : QString("CUDA API · thread %1").arg(l.id);
    }
    case LaneKind::stream:
      return l.device > 0 ? QString("GPU %1 · stream %2").arg(l.device).arg(l.id) : QString("Stream %1").arg(l.id);
    case LaneKind::copy_h2d: return "Copies H2D";
    case LaneKind::copy_d2h: return "Copies D2H";
    case LaneKind::copy_other: return "Copies D2D / other";
    case LaneKind::memset: return "Memsets";
    case LaneKind::sync: return "CUDA synchronization";
  }
  return {};
}

std::vector<EventRef> TimelineData::eventsAt(int lane, std::int64_t t) const {
  std::vector<EventRef> out;
  if (lane < 0 || lane >= static_cast<int>(lanes_.size())) return out;
  const Lane& l = lanes_[static_cast<std::size_t>(lane)];
  for (int r = static_cast<int>(l.rows.size()) - 1; r >= 0; --r) {
    const Row& row = l.rows[static_cast<std::size_t>(r)];
    const std::size_t i = row.firstEndingAfter(t);
    if (i < row.events.size() && row.events[i].start <= t) out.push_back({lane, r, i});
  }
  return out;
}

EventRef TimelineData::find(const prof::EventStore& store, Source source, std::uint32_t row) const {
  std::string key;
  std::int64_t start = 0;
  switch (source) {
    case Source::kernel: {
      const auto& k = store.kernels[row];
      key = "stream:" + std::to_string(k.device) + ":" + std::to_string(k.stream), start = k.start;
      break;
    }
    case Source::memcpy: {
      const auto& m = store.memcpys[row];
      const Category c = copy_category(m.copy_kind);
      key = c == Category::copy_h2d ? "copy:h2d" : c == Category::copy_d2h ? "copy:d2h" : "copy:other", start = m.start;
      break;
    }
    case Source::memset: key = "memset", start = store.memsets[row].start; break;
    case Source::sync: key = "sync", start = store.syncs[row].start; break;
    case Source::runtime:
      key = "runtime:" + std::to_string(store.runtime[row].thread), start = store.runtime[row].start;
      break;
    case Source::host_range: {
      const auto& h = store.host_ranges[row];
      auto it = host_lane_of_tid_.find(h.thread);
      if (it == host_lane_of_tid_.end()) return {};
      key = lanes_[static_cast<std::size_t>(it->second)].key, start = h.start;
      break;
    }
  }
  const int lane = laneIndex(key);
  if (lane < 0) return {};
  const Lane& l = lanes_[static_cast<std::size_t>(lane)];
  for (std::size_t r = 0; r < l.rows.size(); ++r) {
    const auto& ev = l.rows[r].events;
    for (std::size_t i = l.rows[r].firstStartingAt(start); i < ev.size() && ev[i].start == start; ++i)
      if (ev[i].source == source && ev[i].row == row) return {lane, static_cast<int>(r), i};
  }
  return {};
}

std::optional<std::uint32_t> TimelineData::runtimeOf(std::uint32_t corr) const { return lookup(runtime_by_corr_, corr); }

std::optional<std::pair<Source, std::uint32_t>> TimelineData::gpuOpOf(std::uint32_t corr) const {
  if (auto r = lookup(kernel_by_corr_, corr)) return std::make_pair(Source::kernel, *r);
  if (auto r = lookup(memcpy_by_corr_, corr)) return std::make_pair(Source::memcpy, *r);
  if (auto r = lookup(memset_by_corr_, corr)) return std::make_pair(Source::memset, *r);
  return std::nullopt;
}

int TimelineData::stepAt(std::int64_t t) const {
  auto it = std::upper_bound(steps_.begin(), steps_.end(), t, [](std::int64_t v, const StepBand& s) { return v < s.start; });
  if (it == steps_.begin()) return -1;
  --it;
  return t <= it->end ? static_cast<int>(it - steps_.begin()) : -1;
}

std::size_t TimelineData::bytes() const {
  std::size_t b = cap_bytes(lanes_) + cap_bytes(steps_) + cap_bytes(kernel_cat_) + cap_bytes(runtime_cat_);
  for (const Lane& l : lanes_) {
    b += cap_bytes(l.rows) + l.key.capacity();
    for (const Row& r : l.rows) b += cap_bytes(r.events) + cap_bytes(r.busy) + cap_bytes(r.coarse);
  }
  b += cap_bytes(runtime_by_corr_) + cap_bytes(kernel_by_corr_) + cap_bytes(memcpy_by_corr_) + cap_bytes(memset_by_corr_);
  // Hash maps: nodes (key + value + next pointer + hash) and buckets, approximately.
  b += lane_of_key_.size() * (sizeof(std::string) + 32) + lane_of_key_.bucket_count() * sizeof(void*);
  b += (host_lane_of_tid_.size() + thread_name_.size()) * 64;
  return b;
}

}  // namespace ts::gui::timeline
