// build_overview and the overview's file encoding (see overview.h).
#include "profiling/overview.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>
#include <unordered_map>

#include "engine/host_trace.h"
#include "profiling/event_store.h"

namespace ts::prof {

using timeline::Category;
using timeline::LaneKind;

std::int64_t SessionOverview::bin_ns() const {
  if (bins == 0 || t1 <= t0) return 1;
  const std::int64_t span = t1 - t0;
  return std::max<std::int64_t>(1, (span + bins - 1) / bins);
}

namespace {

/// A timeline event as build_overview sorts it (the timeline's order: start, longer first, row).
struct Item {
  std::int64_t start, end;
  std::uint32_t row;
  std::uint8_t category;
};

/// Lanes under construction, by key, in order of first appearance.
class LaneSet {
 public:
  std::vector<OverviewLane> lanes;
  std::vector<std::vector<Item>> items;
  std::size_t lane(const timeline::LaneId& id) {
    auto [it, added] = index_.try_emplace(id.key, lanes.size());
    if (added) {
      OverviewLane l;
      l.kind = id.kind, l.key = id.key, l.id = id.id, l.device = id.device;
      lanes.push_back(std::move(l));
      items.emplace_back();
    }
    return it->second;
  }
  void add(std::size_t lane, std::int64_t start, std::int64_t end, std::size_t row, Category c) {
    items[lane].push_back({start, std::max(end, start), static_cast<std::uint32_t>(row), static_cast<std::uint8_t>(c)});
    ++lanes[lane].events;
  }

 private:
  std::unordered_map<std::string, std::size_t> index_;
};

void add_gpu(const EventStore& s, LaneSet& ls, timeline::NameCategories& names) {
  for (std::size_t i = 0, n = s.kernels.size(); i < n; ++i) {
    const KernelRecord& k = s.kernels[i];
    ls.add(ls.lane(timeline::lane_of(k)), k.start, k.end, i, names.kernel(s.strings, k.name));
  }
  for (std::size_t i = 0, n = s.graph_replays.size(); i < n; ++i) {
    const GraphReplayRecord& g = s.graph_replays[i];
    ls.add(ls.lane(timeline::lane_of(g)), g.start, g.end, i, Category::graph_replay);
  }
  for (std::size_t i = 0, n = s.memcpys.size(); i < n; ++i) {
    const MemcpyRecord& m = s.memcpys[i];
    ls.add(ls.lane(timeline::lane_of(m)), m.start, m.end, i, timeline::copy_category(m.copy_kind));
  }
  for (std::size_t i = 0, n = s.memsets.size(); i < n; ++i) {
    const MemsetRecord& m = s.memsets[i];
    ls.add(ls.lane(timeline::lane_of(m)), m.start, m.end, i, Category::memset);
  }
  for (std::size_t i = 0, n = s.syncs.size(); i < n; ++i) {
    const SyncRecord& y = s.syncs[i];
    ls.add(ls.lane(timeline::lane_of(y)), y.start, y.end, i, Category::sync);
  }
}

void add_host(const EventStore& s, LaneSet& ls, timeline::NameCategories& names) {
  std::map<std::uint32_t, std::string> thread_name;  // the first non-empty name of each tid wins
  for (std::size_t i = 0, n = s.threads.size(); i < n; ++i) {
    const std::string& name = s.strings.get(s.threads[i].name);
    if (!name.empty()) thread_name.try_emplace(s.threads[i].tid, name);
  }
  for (std::size_t i = 0, n = s.runtime.size(); i < n; ++i) {
    const RuntimeRecord& r = s.runtime[i];
    const std::size_t l = ls.lane(timeline::lane_of(r));
    bool launch = false;
    const Category c = names.runtime(s.strings, r.name, &launch);
    if (launch) ++ls.lanes[l].launches;
    ls.add(l, r.start, r.end, i, c);
  }
  std::map<std::uint32_t, std::size_t> lane_of_tid;
  for (std::size_t i = 0, n = s.host_ranges.size(); i < n; ++i) {
    const HostRangeRecord& h = s.host_ranges[i];
    auto it = lane_of_tid.find(h.thread);
    if (it == lane_of_tid.end()) {
      auto name = thread_name.find(h.thread);
      const std::string key = timeline::host_lane_key(h.thread, name == thread_name.end() ? std::string() : name->second);
      it = lane_of_tid.emplace(h.thread, ls.lane({LaneKind::host_thread, key, h.thread, -1})).first;
      ls.lanes[it->second].tids.push_back(h.thread);
    }
    if (h.kind == static_cast<std::uint8_t>(trace::RangeKind::step)) ls.lanes[it->second].has_steps = true;
    ls.add(it->second, h.start, h.end, i, timeline::host_range_category(h.kind));
  }
}

/// Stacks a lane's items into rows (one row below every item still open when it starts, as the
/// timeline does) and bins each row.
void bin_lane(std::vector<Item>& items, OverviewLane& lane, const SessionOverview& o) {
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    if (a.start != b.start) return a.start < b.start;
    if (a.end != b.end) return a.end > b.end;
    return a.row < b.row;
  });
  const std::int64_t w = o.bin_ns();
  struct Dense {
    std::vector<std::int64_t> busy;
    std::vector<std::uint8_t> cat;
  };
  std::vector<Dense> rows;
  std::vector<std::int64_t> open;
  for (const Item& e : items) {
    while (!open.empty() && open.back() <= e.start) open.pop_back();
    const std::size_t depth = open.size();
    open.push_back(e.end);
    if (rows.size() <= depth) rows.resize(depth + 1, Dense{std::vector<std::int64_t>(o.bins, -1), std::vector<std::uint8_t>(o.bins, 0)});
    Dense& d = rows[depth];
    const auto b0 = static_cast<std::uint32_t>(std::clamp<std::int64_t>((e.start - o.t0) / w, 0, o.bins - 1));
    const auto b1 = static_cast<std::uint32_t>(std::clamp<std::int64_t>((std::max(e.end - 1, e.start) - o.t0) / w, 0, o.bins - 1));
    for (std::uint32_t b = b0; b <= b1; ++b) {
      const std::int64_t lo = std::max(e.start, o.bin_start(b)), hi = std::min(e.end, o.bin_start(b) + w);
      if (d.busy[b] < 0) d.busy[b] = 0, d.cat[b] = e.category;
      d.busy[b] = std::min(w, d.busy[b] + std::max<std::int64_t>(0, hi - lo));
    }
  }
  lane.rows.resize(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::uint32_t b = 0; b < o.bins; ++b)
      if (rows[r].busy[b] >= 0) {
        lane.rows[r].bin.push_back(b);
        lane.rows[r].busy_ns.push_back(rows[r].busy[b]);
        lane.rows[r].category.push_back(rows[r].cat[b]);
      }
}

template <class T>
void put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

template <class T>
T get(const std::string& in, std::size_t& at) {
  if (at + sizeof(T) > in.size()) throw std::runtime_error("overview rows end early at byte " + std::to_string(at));
  T v;
  std::memcpy(&v, in.data() + at, sizeof(T));
  at += sizeof(T);
  return v;
}

}  // namespace

SessionOverview build_overview(const EventStore& store, std::uint32_t bins) {
  LaneSet ls;
  timeline::NameCategories names;
  add_gpu(store, ls, names);
  add_host(store, ls, names);
  SessionOverview o;
  o.bins = std::max<std::uint32_t>(1, bins);
  bool any = false;
  for (const auto& lane_items : ls.items)
    for (const Item& e : lane_items) {
      o.t0 = any ? std::min(o.t0, e.start) : e.start;
      o.t1 = any ? std::max(o.t1, e.end) : e.end;
      any = true;
    }
  for (std::size_t l = 0; l < ls.lanes.size(); ++l) {
    bin_lane(ls.items[l], ls.lanes[l], o);
    o.events += ls.lanes[l].events;
    std::vector<Item>().swap(ls.items[l]);  // free as we go
  }
  o.lanes = std::move(ls.lanes);
  return o;
}

std::string encode_overview_rows(const std::vector<OverviewRow>& rows, std::int64_t* raw_bytes) {
  std::string raw;
  put<std::uint32_t>(raw, static_cast<std::uint32_t>(rows.size()));
  for (const OverviewRow& r : rows) {
    put<std::uint32_t>(raw, static_cast<std::uint32_t>(r.bin.size()));
    for (std::size_t i = 0; i < r.bin.size(); ++i) {
      put<std::uint32_t>(raw, r.bin[i]);
      put<std::uint8_t>(raw, r.category[i]);
      put<std::int64_t>(raw, r.busy_ns[i]);
    }
  }
  *raw_bytes = static_cast<std::int64_t>(raw.size());
  uLongf n = compressBound(static_cast<uLong>(raw.size()));
  std::string out(n, '\0');
  if (compress2(reinterpret_cast<Bytef*>(out.data()), &n, reinterpret_cast<const Bytef*>(raw.data()),
                static_cast<uLong>(raw.size()), 6) != Z_OK)
    throw std::runtime_error("zlib could not compress the overview");
  out.resize(n);
  return out;
}

std::vector<OverviewRow> decode_overview_rows(const void* blob, std::size_t size, std::int64_t raw_bytes,
                                              std::uint32_t bins, std::int64_t bin_ns) {
  // Each row holds at most `bins` bins of 13 bytes: a larger raw size is damage, not data.
  if (raw_bytes < 4 || raw_bytes > 4 + 1024 * (4 + 13 * static_cast<std::int64_t>(bins)))
    throw std::runtime_error("overview rows: implausible size " + std::to_string(raw_bytes));
  std::string raw(static_cast<std::size_t>(raw_bytes), '\0');
  uLongf n = static_cast<uLongf>(raw_bytes);
  if (uncompress(reinterpret_cast<Bytef*>(raw.data()), &n, static_cast<const Bytef*>(blob), static_cast<uLong>(size)) != Z_OK ||
      n != static_cast<uLongf>(raw_bytes))
    throw std::runtime_error("overview rows: bad zlib data");
  std::size_t at = 0;
  const auto nrows = get<std::uint32_t>(raw, at);
  if (nrows > 1024) throw std::runtime_error("overview rows: " + std::to_string(nrows) + " rows");
  std::vector<OverviewRow> rows(nrows);
  for (OverviewRow& r : rows) {
    const auto count = get<std::uint32_t>(raw, at);
    if (count > bins) throw std::runtime_error("overview row: " + std::to_string(count) + " bins of " + std::to_string(bins));
    for (std::uint32_t i = 0; i < count; ++i) {
      const auto b = get<std::uint32_t>(raw, at);
      const auto c = get<std::uint8_t>(raw, at);
      const auto busy = get<std::int64_t>(raw, at);
      if (b >= bins || (!r.bin.empty() && b <= r.bin.back()))
        throw std::runtime_error("overview row: bin " + std::to_string(b) + " out of order at byte " + std::to_string(at));
      if (busy < 0 || busy > bin_ns || c >= timeline::kCategoryCount)
        throw std::runtime_error("overview row: bad busy time or category at byte " + std::to_string(at));
      r.bin.push_back(b), r.category.push_back(c), r.busy_ns.push_back(busy);
    }
  }
  if (at != raw.size()) throw std::runtime_error("overview rows: " + std::to_string(raw.size() - at) + " bytes left over");
  return rows;
}

}  // namespace ts::prof
