// TableReader (see nsys_tables.h): the CUPTI activity tables, NVTX, threads and processes, device
// properties and the session start of an Nsight Systems export.
#include "profiling/import/nsys/nsys_tables.h"

#include <algorithm>
#include <cctype>

#include "engine/host_trace.h"
#include "profiling/import/trace_import.h"

namespace ts::prof::import::nsys {

namespace {

constexpr std::int64_t kI64Max = INT64_MAX;
// NVTX_EVENTS.eventType (Nsight Systems' NvtxEventType): 34 mark, 59 push/pop range, 60 start/end range.
constexpr std::int64_t kNvtxMark = 34, kNvtxPushPop = 59, kNvtxStartEnd = 60;

/// CUDA ids (device, context, stream, correlation, event): unsigned 32-bit; Nsight writes
/// 0xFFFFFFFF for "none".
std::uint32_t u32(std::int64_t v) {
  return static_cast<std::uint32_t>(v);
}
/// A device ordinal as the records hold it (int32); 0xFFFFFFFF ("none") becomes -1.
std::int32_t device_of(std::int64_t v) {
  return v > INT32_MAX ? -1 : static_cast<std::int32_t>(v);
}

/// The columns every device activity table (kernels, copies, memsets) starts with: its times, its
/// device, context and stream, and the launch's correlation id; then `more`.
std::vector<Want> activity_columns(std::initializer_list<Want> more) {
  std::vector<Want> w{{{"start"}, true}, {{"end"}, true},      {{"deviceId"}, true},
                      {{"contextId"}},   {{"streamId"}, true}, {{"correlationId"}}};
  w.insert(w.end(), more);
  return w;
}

/// Columns 2-5 of activity_columns() into a record's device, context, stream and correlation id.
template <class Record>
void read_activity_ids(Rows& r, Record& rec) {
  rec.device = device_of(r.integer(2, 0, kMaxU32));
  rec.context = u32(r.maybe(3, 0, kMaxU32).value_or(0));
  rec.stream = u32(r.integer(4, 0, kMaxU32));
  rec.correlation = u32(r.maybe(5, 0, kMaxU32).value_or(0));
}

/// graphId and graphNodeId (columns `first` and `first` + 1; 0 when not launched from a graph).
template <class Record>
void read_graph_ids(Rows& r, int first, Record& rec) {
  rec.graph_id = u32(r.maybe(first, 0, kMaxU32).value_or(0));
  rec.graph_node = static_cast<std::uint64_t>(r.maybe(first + 1, 0, kI64Max).value_or(0));
}

}  // namespace

std::string runtime_name(const std::string& n) {
  const std::size_t v = n.rfind("_v");
  if (v == std::string::npos || v == 0 || v + 2 >= n.size()) return n;
  for (std::size_t i = v + 2; i < n.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(n[i]))) return n;
  return n.substr(0, v);
}

TableReader::TableReader(const Db& db, const Schema& schema, EventStore& store, NsysData& out,
                         const std::atomic<bool>* cancel)
    : db_(db), schema_(schema), store_(store), out_(out), cancel_(cancel) {}

const TableInfo* TableReader::table(const char* base) {
  const TableInfo* t = schema_.find(base);
  if (t) out_.rows[t->name] = 0;
  return t;
}

void TableReader::finish(const TableInfo& t, const Rows& r) {
  out_.rows[t.name] = r.row();
  out_.bad_optional += r.bad_optional();
}

void TableReader::tick(const Rows& r) {
  if ((r.row() & 4095) == 0 && cancel_ && cancel_->load(std::memory_order_relaxed))
    throw ImportCancelled("import of " + db_.name() + " cancelled");
}

void TableReader::times(Rows& r, int start, int end, std::int64_t& s, std::int64_t& e) {
  s = r.integer(start, -kMaxTime, kMaxTime);
  e = r.integer(end, -kMaxTime, kMaxTime);
  if (e < s) r.fail(end, "end " + std::to_string(e) + " ns is before start " + std::to_string(s) + " ns");
}

std::string TableReader::string_of(std::int64_t id) {
  auto it = strings_.find(id);
  if (it != strings_.end()) return it->second;
  ++out_.missing_strings;
  return "<string " + std::to_string(id) + ">";
}

StringId TableReader::name(std::int64_t id) {
  auto it = ids_.find(id);
  if (it != ids_.end()) return it->second;
  const StringId s = store_.strings.intern(string_of(id));
  ids_.emplace(id, s);
  return s;
}

std::uint32_t TableReader::thread_of(std::int64_t gtid) {
  const auto tid = static_cast<std::uint32_t>(gtid & 0xFFFFFF);
  out_.thread_process.emplace(tid, static_cast<std::uint32_t>((gtid >> 24) & 0xFFFFFF));
  return tid;
}

void TableReader::strings() {
  const TableInfo* t = table("StringIds");
  if (!t) return;
  Rows r(db_, *t, {{{"id"}, true}, {{"value"}, true, true}});
  while (r.next()) {
    tick(r);
    strings_[r.integer(0, INT64_MIN, kI64Max)] = r.text(1);
  }
  out_.rows[t->name] = r.row();
}

void TableReader::kernels() {
  const TableInfo* t = table("CUPTI_ACTIVITY_KIND_KERNEL");
  if (!t) return;
  Rows r(db_, *t,
         activity_columns({{{"demangledName"}}, {{"shortName"}}, {{"mangledName"}}, {{"registersPerThread"}},
                           {{"gridX"}}, {{"gridY"}}, {{"gridZ"}}, {{"blockX"}}, {{"blockY"}}, {{"blockZ"}},
                           {{"staticSharedMemory"}}, {{"dynamicSharedMemory"}}, {{"graphId"}}, {{"graphNodeId"}}}));
  while (r.next()) {
    tick(r);
    KernelRecord k;
    times(r, 0, 1, k.start, k.end);
    read_activity_ids(r, k);
    std::optional<std::int64_t> n;
    for (int c : {6, 7, 8})
      if (!n) n = r.maybe(c, INT64_MIN, kI64Max);
    k.name = n ? name(*n) : store_.strings.intern("kernel");
    KernelConfig cfg;
    auto dim = [&](int c) { return static_cast<std::int32_t>(r.maybe(c, 0, INT32_MAX).value_or(0)); };
    cfg.registers = dim(9);
    for (int d = 0; d < 3; ++d) cfg.grid[d] = dim(10 + d), cfg.block[d] = dim(13 + d);
    cfg.static_smem = dim(16);
    cfg.dynamic_smem = dim(17);
    k.config = store_.intern_config(cfg);
    read_graph_ids(r, 18, k);
    if (k.graph_id != 0) ++out_.graph_kernels;
    out_.kernels.push_back(k);
  }
  finish(*t, r);
}

void TableReader::runtime() {
  const TableInfo* t = table("CUPTI_ACTIVITY_KIND_RUNTIME");
  if (!t) return;
  Rows r(db_, *t,
         {{{"start"}, true},
          {{"end"}, true},
          {{"globalTid"}},
          {{"correlationId"}},
          {{"nameId"}, true},
          {{"returnValue"}}});
  std::unordered_map<std::int64_t, StringId> names;  // nameId -> the name without its _vNNNN suffix
  while (r.next()) {
    tick(r);
    RuntimeRecord c;
    times(r, 0, 1, c.start, c.end);
    if (auto g = r.maybe(2, 0, kI64Max)) c.thread = thread_of(*g);
    c.correlation = u32(r.maybe(3, 0, kMaxU32).value_or(0));
    const std::int64_t id = r.integer(4, INT64_MIN, kI64Max);
    auto it = names.find(id);
    if (it == names.end()) it = names.emplace(id, store_.strings.intern(runtime_name(string_of(id)))).first;
    c.name = it->second;
    c.result = static_cast<std::uint16_t>(std::min<std::int64_t>(r.maybe(5, 0, kI64Max).value_or(0), 0xFFFF));
    out_.runtime.push_back(c);
  }
  finish(*t, r);
}

void TableReader::memcpys() {
  const TableInfo* t = table("CUPTI_ACTIVITY_KIND_MEMCPY");
  if (!t) return;
  Rows r(db_, *t,
         activity_columns({{{"bytes"}, true}, {{"copyKind"}, true}, {{"srcKind"}}, {{"dstKind"}}, {{"graphId"}},
                           {{"graphNodeId"}}}));
  while (r.next()) {
    tick(r);
    MemcpyRecord m;
    times(r, 0, 1, m.start, m.end);
    read_activity_ids(r, m);
    m.bytes = r.integer(6, 0, kMaxBytes);
    m.copy_kind = static_cast<std::uint8_t>(r.integer(7, 0, 255));
    m.src_kind = static_cast<std::uint8_t>(r.maybe(8, 0, 255).value_or(0));
    m.dst_kind = static_cast<std::uint8_t>(r.maybe(9, 0, 255).value_or(0));
    read_graph_ids(r, 10, m);
    out_.memcpys.push_back(m);
  }
  finish(*t, r);
}

void TableReader::memsets() {
  const TableInfo* t = table("CUPTI_ACTIVITY_KIND_MEMSET");
  if (!t) return;
  Rows r(db_, *t,
         activity_columns({{{"bytes"}, true}, {{"value"}}, {{"memKind"}}, {{"graphId"}}, {{"graphNodeId"}}}));
  while (r.next()) {
    tick(r);
    MemsetRecord m;
    times(r, 0, 1, m.start, m.end);
    read_activity_ids(r, m);
    m.bytes = r.integer(6, 0, kMaxBytes);
    m.value = u32(r.maybe(7, 0, kMaxU32).value_or(0));
    m.memory_kind = static_cast<std::uint16_t>(r.maybe(8, 0, 0xFFFF).value_or(0));
    read_graph_ids(r, 9, m);
    out_.memsets.push_back(m);
  }
  finish(*t, r);
}

void TableReader::syncs() {
  const TableInfo* t = table("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
  if (!t) return;
  Rows r(db_, *t,
         {{{"start"}, true},
          {{"end"}, true},
          {{"deviceId"}},
          {{"contextId"}},
          {{"streamId"}},
          {{"correlationId"}},
          {{"syncType"}, true},
          {{"eventId"}}});
  while (r.next()) {
    tick(r);
    SyncRecord s;
    times(r, 0, 1, s.start, s.end);
    s.device = device_of(r.maybe(2, 0, kMaxU32).value_or(0));
    s.context = u32(r.maybe(3, 0, kMaxU32).value_or(0));
    s.stream = u32(r.maybe(4, 0, kMaxU32).value_or(kMaxU32));
    s.correlation = u32(r.maybe(5, 0, kMaxU32).value_or(0));
    s.type = u32(r.integer(6, 0, kMaxU32));
    s.event = u32(r.maybe(7, 0, kMaxU32).value_or(kMaxU32));
    out_.syncs.push_back(s);
  }
  finish(*t, r);
}

void TableReader::nvtx() {
  const TableInfo* t = table("NVTX_EVENTS");
  if (!t) return;
  Rows r(db_, *t, {{{"start"}, true}, {{"end"}}, {{"eventType"}, true}, {{"text"}}, {{"textId"}}, {{"globalTid"}}});
  while (r.next()) {
    tick(r);
    const std::int64_t type = r.integer(2, INT64_MIN, kI64Max);
    if (type == kNvtxMark) {
      ++out_.nvtx_marks;
      continue;
    }
    if (type != kNvtxPushPop && type != kNvtxStartEnd) {
      ++out_.nvtx_other;  // domains, categories, thread names: not ranges
      continue;
    }
    if (r.is_null(1)) {
      ++out_.nvtx_unclosed;
      continue;
    }
    HostRangeRecord h;
    times(r, 0, 1, h.start, h.end);
    h.device = -1;
    h.kind = static_cast<std::uint8_t>(trace::RangeKind::other);
    if (auto g = r.maybe(5, 0, kI64Max)) h.thread = thread_of(*g);
    if (!r.is_null(3))
      h.name = store_.strings.intern(r.text(3));
    else if (auto id = r.maybe(4, INT64_MIN, kI64Max))
      h.name = name(*id);
    out_.host.push_back(h);
  }
  finish(*t, r);
}

void TableReader::threads() {
  if (const TableInfo* t = table("ThreadNames")) {
    Rows r(db_, *t, {{{"nameId"}, true}, {{"globalTid"}}});
    while (r.next()) {
      tick(r);
      const std::int64_t id = r.integer(0, INT64_MIN, kI64Max);
      // globalTid may be NULL (the schema allows it): a name of no thread.
      if (auto g = r.maybe(1, 0, kI64Max)) out_.thread_names[static_cast<std::uint32_t>(*g & 0xFFFFFF)] = string_of(id);
    }
    finish(*t, r);
  }
  if (const TableInfo* t = table("PROCESSES")) {
    Rows r(db_, *t, {{{"pid"}}, {{"globalPid"}}, {{"name"}, false, true}});
    while (r.next()) {
      tick(r);
      std::optional<std::int64_t> pid = r.maybe(0, 0, kMaxU32);
      if (!pid)
        if (auto g = r.maybe(1, 0, kI64Max)) pid = (*g >> 24) & 0xFFFFFF;
      if (pid) out_.process_names[static_cast<std::uint32_t>(*pid)] = r.text(2);
    }
    finish(*t, r);
  }
}

void TableReader::session_start() {
  const TableInfo* t = table("TARGET_INFO_SESSION_START_TIME");
  if (!t) return;
  Rows r(db_, *t, {{{"utcEpochNs"}}, {{"utcTime"}, false, true}});
  if (r.next()) {
    if (auto ns = r.maybe(0, 0, kI64Max)) out_.meta["session.start_unix_ns"] = std::to_string(*ns);
    if (!r.is_null(1)) out_.meta["import.session_start_utc"] = r.text(1);
  }
  out_.rows[t->name] = r.row();
}

}  // namespace ts::prof::import::nsys
