// TimelineData: incremental lanes over an EventStore (see timeline_data.h).
#include "widgets/timeline/timeline_data.h"

#include <QFontMetrics>
#include <QRegularExpression>
#include <algorithm>
#include <tuple>

#include "engine/host_trace.h"
#include "widgets/timeline/categories.h"

namespace ts::gui::timeline {

namespace {

template <class T>
std::size_t cap_bytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

/// The lanes' default grouping: the trainer, the runtime threads that launched kernels, the GPU's
/// lanes, then the other host threads (loader workers) and runtime threads that launched nothing.
/// The host that launches sits right above the GPU that runs it, so a short view (a tab open at
/// 1280x720) still shows launches and kernels together; the workers follow.
int lane_group(const Lane& l) {
  switch (l.kind) {
    case LaneKind::host_thread: return l.has_steps ? 0 : 9;
    case LaneKind::runtime: return l.launches > 0 ? 1 : 10;
    case LaneKind::stream: return 3;
    case LaneKind::copy_h2d: return 4;
    case LaneKind::copy_d2h: return 5;
    case LaneKind::copy_other: return 6;
    case LaneKind::memset: return 7;
    case LaneKind::sync: return 8;
  }
  return 11;
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
  // Depths first (ends of the events still open, innermost last), so each row grows once.
  std::vector<std::int64_t> open;
  std::vector<std::uint32_t> depth(tail.size());
  std::vector<std::size_t> count;
  for (std::size_t i = 0; i < tail.size(); ++i) {
    const Event& e = tail[i];
    while (!open.empty() && open.back() <= e.start) open.pop_back();
    depth[i] = static_cast<std::uint32_t>(open.size());
    if (count.size() <= depth[i]) count.resize(depth[i] + 1u, 0);
    ++count[depth[i]];
    open.push_back(e.end());
  }
  if (lane.rows.size() < count.size()) lane.rows.resize(count.size());
  for (std::size_t d = 0; d < count.size(); ++d) {
    Row& r = lane.rows[d];
    const std::size_t need = r.events.size() + count[d];
    if (need > r.events.capacity()) {
      const std::size_t cap = r.events.empty() ? need : std::max(need, r.events.size() + r.events.size() / 2);
      r.events.reserve(cap);
      r.coarse.reserve(cap / Row::kCoarse + 1);
      r.coarse_busy.reserve(cap / Row::kCoarse + 1);
    }
  }
  for (std::size_t i = 0; i < tail.size(); ++i) lane.rows[depth[i]].push(tail[i]);
  while (!lane.rows.empty() && lane.rows.back().events.empty()) lane.rows.pop_back();
}

void TimelineData::reset() { *this = TimelineData(); }

int TimelineData::laneIndex(const std::string& key) const {
  auto it = lane_of_key_.find(key);
  return it == lane_of_key_.end() ? -1 : it->second;
}

int TimelineData::laneFor(const prof::timeline::LaneId& l) { return laneFor(l.kind, l.key, l.id, l.device); }

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
  const int lane = laneFor(LaneKind::host_thread,
                           prof::timeline::host_lane_key(tid, name != thread_name_.end() ? name->second : std::string()), tid, -1);
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

void TimelineData::add(std::vector<std::vector<Event>>& batch, int lane, const Event& e) {
  if (batch.size() < lanes_.size()) batch.resize(lanes_.size());
  batch[static_cast<std::size_t>(lane)].push_back(e);
  min_t_ = events_ ? std::min(min_t_, e.start) : e.start;
  max_t_ = events_ ? std::max(max_t_, e.end()) : e.end();
  ++events_;
}

void TimelineData::ingestGpu(const prof::EventStore& store, const prof::StoreCounts& c,
                             std::vector<std::vector<Event>>& batch) {
  for (std::size_t i = seen_.kernels; i < c.kernels; ++i) {
    const prof::KernelRecord& k = store.kernels[i];
    const int lane = laneFor(prof::timeline::lane_of(k));
    const auto row = static_cast<std::uint32_t>(i);
    add(batch, lane, {k.start, std::max(k.end, k.start), row, Source::kernel,
                      static_cast<std::uint8_t>(names_.kernel(store.strings, k.name))});
    kernel_corr_.add(k.correlation);
  }
  // Whole CUDA-graph replays (a hybrid recording's steps between its kernel windows) in their stream's lane.
  for (std::size_t i = seen_.graph_replays; i < c.graph_replays; ++i) {
    const prof::GraphReplayRecord& g = store.graph_replays[i];
    add(batch, laneFor(prof::timeline::lane_of(g)), {g.start, std::max(g.end, g.start), static_cast<std::uint32_t>(i),
                                                     Source::graph_replay, static_cast<std::uint8_t>(Category::graph_replay)});
  }
  for (std::size_t i = seen_.memcpys; i < c.memcpys; ++i) {
    const prof::MemcpyRecord& m = store.memcpys[i];
    const Category cat = copy_category(m.copy_kind);
    const int lane = laneFor(prof::timeline::lane_of(m));
    const auto row = static_cast<std::uint32_t>(i);
    add(batch, lane, {m.start, std::max(m.end, m.start), row, Source::memcpy, static_cast<std::uint8_t>(cat)});
    memcpy_corr_.add(m.correlation);
  }
  for (std::size_t i = seen_.memsets; i < c.memsets; ++i) {
    const prof::MemsetRecord& m = store.memsets[i];
    const int lane = laneFor(prof::timeline::lane_of(m));
    const auto row = static_cast<std::uint32_t>(i);
    add(batch, lane, {m.start, std::max(m.end, m.start), row, Source::memset, static_cast<std::uint8_t>(Category::memset)});
    memset_corr_.add(m.correlation);
  }
  for (std::size_t i = seen_.syncs; i < c.syncs; ++i) {
    const prof::SyncRecord& s = store.syncs[i];
    const int lane = laneFor(prof::timeline::lane_of(s));
    add(batch, lane, {s.start, std::max(s.end, s.start), static_cast<std::uint32_t>(i), Source::sync,
                      static_cast<std::uint8_t>(Category::sync)});
  }
}

void TimelineData::ingestHost(const prof::EventStore& store, const prof::StoreCounts& c,
                              std::vector<std::vector<Event>>& batch) {
  for (std::size_t i = seen_.runtime; i < c.runtime; ++i) {
    const prof::RuntimeRecord& r = store.runtime[i];
    const int lane = laneFor(prof::timeline::lane_of(r));
    bool launch = false;
    const auto cat = static_cast<std::uint8_t>(names_.runtime(store.strings, r.name, &launch));
    if (launch) ++lanes_[static_cast<std::size_t>(lane)].launches;
    const auto row = static_cast<std::uint32_t>(i);
    add(batch, lane, {r.start, std::max(r.end, r.start), row, Source::runtime, cat});
    runtime_corr_.add(r.correlation);
  }
  for (std::size_t i = seen_.host_ranges; i < c.host_ranges; ++i) {
    const prof::HostRangeRecord& h = store.host_ranges[i];
    const int lane = hostLane(h.thread);
    if (h.kind == static_cast<std::uint8_t>(trace::RangeKind::step)) lanes_[static_cast<std::size_t>(lane)].has_steps = true;
    add(batch, lane, {h.start, std::max(h.end, h.start), static_cast<std::uint32_t>(i), Source::host_range,
                      static_cast<std::uint8_t>(host_range_category(h.kind))});
  }
}

void TimelineData::ingest(const prof::EventStore& store, const prof::StoreCounts& counts) {
  if (overview_) return;
  prof::StoreCounts c = counts;
  // Never read past what the store has published (a hub's counts come from this store).
  const prof::StoreCounts have = store.counts();
  c.kernels = std::min(c.kernels, have.kernels), c.memcpys = std::min(c.memcpys, have.memcpys);
  c.memsets = std::min(c.memsets, have.memsets), c.runtime = std::min(c.runtime, have.runtime);
  c.syncs = std::min(c.syncs, have.syncs), c.host_ranges = std::min(c.host_ranges, have.host_ranges);
  c.graph_replays = std::min(c.graph_replays, have.graph_replays);
  c.threads = std::min(c.threads, have.threads), c.steps = std::min(c.steps, have.steps);
  const std::size_t before = events_, steps_before = steps_.size(), threads_before = thread_name_.size();
  ingestThreads(store, c);
  std::vector<std::vector<Event>> batch;
  ingestGpu(store, c, batch);
  ingestHost(store, c, batch);
  ingestSteps(store, c.steps);
  for (std::size_t l = 0; l < batch.size(); ++l)
    if (!batch[l].empty()) merge_into_lane(lanes_[l], std::move(batch[l]));
  seen_.kernels = std::max(seen_.kernels, c.kernels), seen_.memcpys = std::max(seen_.memcpys, c.memcpys);
  seen_.memsets = std::max(seen_.memsets, c.memsets), seen_.runtime = std::max(seen_.runtime, c.runtime);
  seen_.syncs = std::max(seen_.syncs, c.syncs), seen_.host_ranges = std::max(seen_.host_ranges, c.host_ranges);
  seen_.graph_replays = std::max(seen_.graph_replays, c.graph_replays);
  seen_.threads = std::max(seen_.threads, c.threads), seen_.steps = std::max(seen_.steps, c.steps);
  if (events_ != before || steps_.size() != steps_before || thread_name_.size() != threads_before) ++version_;
}

void TimelineData::ingestSteps(const prof::EventStore& store, std::size_t count) {
  for (std::size_t i = seen_.steps; i < count; ++i) {
    const prof::StepRecord& s = store.steps[i];
    steps_.push_back({s.global_step, s.epoch, s.step, s.start, std::max(s.end, s.start)});
  }
  if (count > seen_.steps)
    std::sort(steps_.begin(), steps_.end(), [](const StepBand& a, const StepBand& b) { return a.start < b.start; });
  seen_.steps = std::max(seen_.steps, count);
}

void TimelineData::setOverview(const prof::EventStore& store, const prof::SessionOverview& o) {
  reset();
  prof::StoreCounts c{};
  c.threads = store.threads.size();
  ingestThreads(store, c);
  seen_.threads = c.threads;
  ingestSteps(store, store.steps.size());
  for (const prof::OverviewLane& ol : o.lanes) {
    const int index = laneFor(ol.kind, ol.key, ol.id, ol.device);
    Lane& lane = lanes_[static_cast<std::size_t>(index)];
    lane.has_steps = ol.has_steps, lane.launches = ol.launches;
    for (std::uint32_t tid : ol.tids) host_lane_of_tid_[tid] = index;
    const Source source = prof::timeline::lane_source(ol.kind);
    lane.rows.resize(ol.rows.size());
    for (std::size_t r = 0; r < ol.rows.size(); ++r) {
      const prof::OverviewRow& bins = ol.rows[r];
      lane.rows[r].events.reserve(bins.bin.size());
      for (std::size_t i = 0; i < bins.bin.size(); ++i) {
        const std::int64_t t = o.bin_start(bins.bin[i]);
        lane.rows[r].push(Event(t, t + bins.busy_ns[i], 0, source, bins.category[i]));
      }
    }
  }
  events_ = static_cast<std::size_t>(std::max<std::int64_t>(o.events, 0));
  min_t_ = o.t0, max_t_ = std::max(o.t0, o.t1);
  overview_ = true;
  overview_bin_ns_ = o.bin_ns();
  ++version_;
}

void TimelineData::compact() {
  for (Lane& l : lanes_)
    for (Row& r : l.rows) r.shrink();
  steps_.shrink_to_fit();
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
    case LaneKind::host_thread: {
      if (l.key.rfind("thread:", 0) == 0) return QString::fromStdString(l.key.substr(7));
      // A lane keyed by its id before the thread had a name (a file's overview written then): the
      // session's threads table names it.
      if (auto it = thread_name_.find(l.id); it != thread_name_.end()) return QString::fromStdString(it->second);
      return QString("thread %1").arg(l.id);
    }
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
  if (overview_) return {};
  std::string key;
  std::int64_t start = 0;
  switch (source) {
    case Source::kernel: key = prof::timeline::lane_of(store.kernels[row]).key, start = store.kernels[row].start; break;
    case Source::memcpy: key = prof::timeline::lane_of(store.memcpys[row]).key, start = store.memcpys[row].start; break;
    case Source::memset: key = prof::timeline::lane_of(store.memsets[row]).key, start = store.memsets[row].start; break;
    case Source::sync: key = prof::timeline::lane_of(store.syncs[row]).key, start = store.syncs[row].start; break;
    case Source::runtime: key = prof::timeline::lane_of(store.runtime[row]).key, start = store.runtime[row].start; break;
    case Source::graph_replay:
      key = prof::timeline::lane_of(store.graph_replays[row]).key, start = store.graph_replays[row].start;
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

std::optional<std::uint32_t> TimelineData::runtimeOf(const prof::EventStore& store, std::uint32_t corr) const {
  return runtime_corr_.find(corr, [&](std::size_t r) { return store.runtime[r].correlation; });
}

std::optional<std::pair<Source, std::uint32_t>> TimelineData::gpuOpOf(const prof::EventStore& store, std::uint32_t corr) const {
  if (auto r = kernel_corr_.find(corr, [&](std::size_t i) { return store.kernels[i].correlation; }))
    return std::make_pair(Source::kernel, *r);
  if (auto r = memcpy_corr_.find(corr, [&](std::size_t i) { return store.memcpys[i].correlation; }))
    return std::make_pair(Source::memcpy, *r);
  if (auto r = memset_corr_.find(corr, [&](std::size_t i) { return store.memsets[i].correlation; }))
    return std::make_pair(Source::memset, *r);
  return std::nullopt;
}

int TimelineData::stepAt(std::int64_t t) const {
  auto it = std::upper_bound(steps_.begin(), steps_.end(), t, [](std::int64_t v, const StepBand& s) { return v < s.start; });
  if (it == steps_.begin()) return -1;
  --it;
  return t <= it->end ? static_cast<int>(it - steps_.begin()) : -1;
}

std::size_t TimelineData::bytes() const {
  std::size_t b = cap_bytes(lanes_) + cap_bytes(steps_);
  for (const Lane& l : lanes_) {
    b += cap_bytes(l.rows) + l.key.capacity();
    for (const Row& r : l.rows) b += cap_bytes(r.events) + cap_bytes(r.coarse_busy) + cap_bytes(r.coarse);
  }
  b += runtime_corr_.bytes() + kernel_corr_.bytes() + memcpy_corr_.bytes() + memset_corr_.bytes();
  // Hash maps: nodes (key + value + next pointer + hash) and buckets, approximately.
  b += lane_of_key_.size() * (sizeof(std::string) + 32) + lane_of_key_.bucket_count() * sizeof(void*);
  b += (host_lane_of_tid_.size() + thread_name_.size()) * 64;
  return b;
}

QString fit_lane_title(const QString& title, const QFontMetrics& fm, int width_px) {
  if (fm.horizontalAdvance(title) <= width_px) return title;
  const QString sep = QStringLiteral(" · "), ellipsis = QStringLiteral("…");
  const qsizetype at = title.indexOf(sep);
  const QString kind = at > 0 ? title.left(at + sep.size()) : QString();  // with its " · "
  const QString who = at > 0 ? title.mid(at + sep.size()) : title;
  const int room = width_px - fm.horizontalAdvance(kind);
  // A thread id, and what a trace adds after it (Kineto names its threads "thread 5555 (python)").
  static const QRegularExpression thread_id(QStringLiteral("^thread (\\d+)( \\(.*\\))?$"));
  if (const QRegularExpressionMatch m = thread_id.match(who); m.hasMatch()) {
    // The id's last digits, as many as fit, from the whole id down to three, each with the suffix where
    // it fits beside them (an elided middle kept only "python)" and two threads read the same); "thread"
    // stays where it is the only kind the title has (a host thread's lane).
    const QString id = m.captured(1), suffix = m.captured(2), word = kind.isEmpty() ? QStringLiteral("thread ") : QString();
    for (qsizetype keep = id.size(); keep >= std::min<qsizetype>(3, id.size()); --keep)
      for (const QString& tail : {suffix, QString()}) {
        const QString s = word + ellipsis + id.right(keep) + tail;
        if (fm.horizontalAdvance(s) <= room) return kind + s;
      }
  } else if (!kind.isEmpty()) {
    const QString s = fm.elidedText(who, Qt::ElideMiddle, room);
    if (s.size() > 2) return kind + s;  // a letter on each side of the "…" at the least
  }
  return fm.elidedText(title, Qt::ElideRight, width_px);
}

}  // namespace ts::gui::timeline
