// The session file's record tables, one column list per record type (see session_schema.h), and the
// schema the writer creates from them. Column names, types and order are the file format
// (docs/session-format.md): a change here is a change of format.
#include "profiling/session/session_schema.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <iterator>

namespace ts::prof::schema {
namespace {

template <class T>
struct Member;
template <class R, class F>
struct Member<F R::*> {
  using record = R;
  using field = F;
};
template <auto M>
using RecordOf = typename Member<decltype(M)>::record;
template <auto M>
using FieldOf = typename Member<decltype(M)>::field;

/// An integer field; the reader keeps a file's value within [Lo, Hi] (the field's own range where
/// a damaged file's value could overflow what the analysis computes from it).
template <auto M, std::int64_t Lo = INT64_MIN, std::int64_t Hi = INT64_MAX>
constexpr Column<RecordOf<M>> integer(const char* name, const char* decl = "INTEGER") {
  using R = RecordOf<M>;
  return {name, decl, Kind::integer, [](const R& r) { return static_cast<std::int64_t>(r.*M); },
          [](R& r, std::int64_t v) { r.*M = static_cast<FieldOf<M>>(std::clamp(v, Lo, Hi)); }};
}
/// A time (ns since session start), read within +-kMaxTimeNs.
template <auto M>
constexpr Column<RecordOf<M>> time_ns(const char* name) {
  return integer<M, -kMaxTimeNs, kMaxTimeNs>(name);
}
/// An id the reader keeps within uint32 (the Python insight's frame and stack ids, thread ids).
template <auto M>
constexpr Column<RecordOf<M>> id32(const char* name, const char* decl = "INTEGER") {
  return integer<M, 0, UINT32_MAX>(name, decl);
}
/// An interval's duration: written as end - start, read as end = start + [0, kMaxTimeNs] (the start
/// column comes first).
template <auto Start, auto End>
constexpr Column<RecordOf<Start>> duration(const char* name) {
  using R = RecordOf<Start>;
  return {name, "INTEGER", Kind::integer, [](const R& r) { return r.*End - r.*Start; },
          [](R& r, std::int64_t v) { r.*End = r.*Start + std::clamp<std::int64_t>(v, 0, kMaxTimeNs); }};
}
/// A StringId: written as the store's id, read through the file's.
template <auto M>
constexpr Column<RecordOf<M>> string_id(const char* name) {
  using R = RecordOf<M>;
  return {name, "INTEGER", Kind::string_id, [](const R& r) { return static_cast<std::int64_t>(r.*M); },
          [](R& r, std::int64_t v) { r.*M = static_cast<StringId>(v); }};
}
/// A StringId written as its text (NOT NULL).
template <auto M>
constexpr Column<RecordOf<M>> string_text(const char* name) {
  Column<RecordOf<M>> c = string_id<M>(name);
  c.decl = "TEXT NOT NULL";
  c.kind = Kind::string_text;
  return c;
}
/// A floating-point field.
template <auto M>
constexpr Column<RecordOf<M>> real(const char* name) {
  using R = RecordOf<M>;
  return {name, "REAL", Kind::real, nullptr, nullptr, [](const R& r) { return static_cast<double>(r.*M); },
          [](R& r, double v) { r.*M = static_cast<FieldOf<M>>(v); }};
}
/// A launch configuration's field (KernelConfig member M, element I of an array member), read within
/// CUDA's limits [0, Hi]: the largest grid is 2^31 - 1 blocks in x; a block at most 1024 threads and
/// 255 registers a thread; shared memory below 1 MiB. So the analysis's products of grid and block
/// dimensions cannot overflow.
template <auto M, int I, std::int64_t Hi>
constexpr Column<ConfigRow> launch(const char* name) {
  return {name, "INTEGER", Kind::integer,
          [](const ConfigRow& r) -> std::int64_t {
            if constexpr (I < 0) return r.config.*M;
            else return (r.config.*M)[I];
          },
          [](ConfigRow& r, std::int64_t v) {
            const auto x = static_cast<std::int32_t>(std::clamp<std::int64_t>(v, 0, Hi));
            if constexpr (I < 0) r.config.*M = x;
            else (r.config.*M)[I] = x;
          }};
}

/// A group table's key (its INTEGER PRIMARY KEY) and an event table's reference to its group.
template <class R>
constexpr Column<R> group_key() {
  return {"id", "INTEGER PRIMARY KEY", Kind::group};
}
template <class R>
constexpr Column<R> group_ref() {
  return {"group_id", "INTEGER", Kind::group};
}

/// Columns `a` then `b`.
template <class R, std::size_t N, std::size_t M>
constexpr std::array<Column<R>, N + M> join(const std::array<Column<R>, N>& a, const Column<R> (&b)[M]) {
  std::array<Column<R>, N + M> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = a[i];
  for (std::size_t i = 0; i < M; ++i) out[N + i] = b[i];
  return out;
}

// Formats 1 to 3: every column of an event in its own row.

/// A device activity's columns (kernels, memcpys, memsets, syncs): start, dur, device, rank,
/// context, stream and correlation, then the record's own `rest`.
template <class R, std::size_t N>
constexpr std::array<Column<R>, 7 + N> device_activity(const Column<R> (&rest)[N]) {
  return join(std::array<Column<R>, 7>{time_ns<&R::start>("start"), duration<&R::start, &R::end>("dur"),
                                       integer<&R::device>("device"), integer<&R::rank>("rank"),
                                       integer<&R::context>("context"), integer<&R::stream>("stream"),
                                       integer<&R::correlation>("correlation")},
              rest);
}

using KR = KernelRecord;
constexpr auto kFlatKernelColumns = device_activity<KR>(
    {{"config_id", "INTEGER", Kind::config_id}, integer<&KR::graph_id>("graph_id"), integer<&KR::graph_node>("graph_node")});

using CR = ConfigRow;
using KC = KernelConfig;
constexpr Column<CR> kConfigColumns[] = {
    integer<&CR::id>("id", "INTEGER PRIMARY KEY"), string_id<&CR::name>("name_id"),
    launch<&KC::grid, 0, INT32_MAX>("grid_x"), launch<&KC::grid, 1, INT32_MAX>("grid_y"),
    launch<&KC::grid, 2, INT32_MAX>("grid_z"), launch<&KC::block, 0, 1024>("block_x"),
    launch<&KC::block, 1, 1024>("block_y"), launch<&KC::block, 2, 1024>("block_z"),
    launch<&KC::registers, -1, 255>("registers"), launch<&KC::static_smem, -1, 1 << 20>("static_smem"),
    launch<&KC::dynamic_smem, -1, 1 << 20>("dynamic_smem")};

using MC = MemcpyRecord;
constexpr auto kFlatMemcpyColumns = device_activity<MC>(
    {integer<&MC::bytes>("bytes"), integer<&MC::copy_kind>("copy_kind"), integer<&MC::src_kind>("src_kind"),
     integer<&MC::dst_kind>("dst_kind"), integer<&MC::graph_id>("graph_id"), integer<&MC::graph_node>("graph_node")});

using MS = MemsetRecord;
constexpr auto kFlatMemsetColumns = device_activity<MS>(
    {integer<&MS::bytes>("bytes"), integer<&MS::value>("value"), integer<&MS::memory_kind>("memory_kind"),
     integer<&MS::graph_id>("graph_id"), integer<&MS::graph_node>("graph_node")});

using RR = RuntimeRecord;
constexpr Column<RR> kFlatRuntimeColumns[] = {
    time_ns<&RR::start>("start"), duration<&RR::start, &RR::end>("dur"), {"rank", "INTEGER", Kind::process_rank},
    integer<&RR::thread>("tid"), integer<&RR::correlation>("correlation"), integer<&RR::cbid>("cbid"),
    string_id<&RR::name>("name_id"), integer<&RR::result, 0, UINT16_MAX>("result")};

using SR = SyncRecord;
constexpr auto kFlatSyncColumns = device_activity<SR>({integer<&SR::type>("type"), integer<&SR::event>("event")});

using MR = MemoryRecord;
constexpr Column<MR> kFlatMemoryColumns[] = {
    time_ns<&MR::time>("time"), integer<&MR::device>("device"), integer<&MR::rank>("rank"),
    integer<&MR::context>("context"), integer<&MR::stream>("stream"), integer<&MR::correlation>("correlation"),
    integer<&MR::op>("op"), integer<&MR::memory_kind>("memory_kind"), integer<&MR::address>("address"),
    integer<&MR::bytes>("bytes")};

using HR = HostRangeRecord;
constexpr Column<HR> kFlatHostRangeColumns[] = {
    time_ns<&HR::start>("start"), duration<&HR::start, &HR::end>("dur"), integer<&HR::device>("device"),
    integer<&HR::rank>("rank"), integer<&HR::thread>("tid"), integer<&HR::kind>("kind"),
    string_id<&HR::name>("name_id"), string_id<&HR::layer>("layer_id"), integer<&HR::step>("step")};

using OR = OverheadRecord;
constexpr Column<OR> kOverheadColumns[] = {
    time_ns<&OR::start>("start"), duration<&OR::start, &OR::end>("dur"), integer<&OR::rank>("rank"),
    integer<&OR::kind>("kind"), integer<&OR::object_kind>("object_kind"), integer<&OR::object_id>("object_id")};

// Format 4: an event's row holds what changes from event to event and its group's id; the group
// table holds each distinct combination of the rest once.

/// A device activity's group columns: id, device, rank, context and stream, then `rest`.
template <class R, std::size_t N>
constexpr std::array<Column<R>, 5 + N> device_group(const Column<R> (&rest)[N]) {
  return join(std::array<Column<R>, 5>{group_key<R>(), integer<&R::device>("device"), integer<&R::rank>("rank"),
                                       integer<&R::context>("context"), integer<&R::stream>("stream")},
              rest);
}
/// An interval event's row: start, dur, group_id, then `rest`.
template <class R, std::size_t N>
constexpr std::array<Column<R>, 3 + N> interval_row(const Column<R> (&rest)[N]) {
  return join(std::array<Column<R>, 3>{time_ns<&R::start>("start"), duration<&R::start, &R::end>("dur"),
                                       group_ref<R>()},
              rest);
}

constexpr auto kKernelGroupColumns = device_group<KR>(
    {{"config_id", "INTEGER", Kind::config_id}, integer<&KR::graph_id>("graph_id"), integer<&KR::graph_node>("graph_node")});
constexpr auto kKernelColumns = interval_row<KR>({integer<&KR::correlation>("correlation")});

constexpr auto kMemcpyGroupColumns = device_group<MC>(
    {integer<&MC::copy_kind>("copy_kind"), integer<&MC::src_kind>("src_kind"), integer<&MC::dst_kind>("dst_kind"),
     integer<&MC::graph_id>("graph_id"), integer<&MC::graph_node>("graph_node")});
constexpr auto kMemcpyColumns = interval_row<MC>({integer<&MC::correlation>("correlation"), integer<&MC::bytes>("bytes")});

constexpr auto kMemsetGroupColumns = device_group<MS>(
    {integer<&MS::value>("value"), integer<&MS::memory_kind>("memory_kind"), integer<&MS::graph_id>("graph_id"),
     integer<&MS::graph_node>("graph_node")});
constexpr auto kMemsetColumns = interval_row<MS>({integer<&MS::correlation>("correlation"), integer<&MS::bytes>("bytes")});

// A CUDA event's id stays in the row: a program may synchronise on a new event every step.
constexpr auto kSyncGroupColumns = device_group<SR>({integer<&SR::type>("type")});
constexpr auto kSyncColumns = interval_row<SR>({integer<&SR::correlation>("correlation"), integer<&SR::event>("event")});

constexpr auto kMemoryGroupColumns = device_group<MR>({integer<&MR::op>("op"), integer<&MR::memory_kind>("memory_kind")});
constexpr Column<MR> kMemoryColumns[] = {time_ns<&MR::time>("time"), group_ref<MR>(),
                                         integer<&MR::correlation>("correlation"), integer<&MR::address>("address"),
                                         integer<&MR::bytes>("bytes")};

// The thread, API and result of a runtime call repeat; the store's process rank is kept here too.
constexpr Column<RR> kRuntimeGroupColumns[] = {
    group_key<RR>(), {"rank", "INTEGER", Kind::process_rank}, integer<&RR::thread>("tid"),
    integer<&RR::cbid>("cbid"), string_id<&RR::name>("name_id"), integer<&RR::result, 0, UINT16_MAX>("result")};
constexpr auto kRuntimeColumns = interval_row<RR>({integer<&RR::correlation>("correlation")});

// A host range's name stays in the row: NVTX names may differ every step ("step 17").
constexpr Column<HR> kHostRangeGroupColumns[] = {
    group_key<HR>(), integer<&HR::device>("device"), integer<&HR::rank>("rank"), integer<&HR::thread>("tid"),
    integer<&HR::kind>("kind"), string_id<&HR::layer>("layer_id")};
constexpr auto kHostRangeColumns = interval_row<HR>({string_id<&HR::name>("name_id"), integer<&HR::step>("step")});

/// Whether each group table's columns, its id aside, fit the writer's key of kMaxGroupColumns values.
template <class... L>
constexpr bool fit_group_key(const L&... columns) {
  return ((std::size(columns) <= kMaxGroupColumns + 1) && ...);
}
static_assert(fit_group_key(kKernelGroupColumns, kMemcpyGroupColumns, kMemsetGroupColumns, kSyncGroupColumns,
                            kMemoryGroupColumns, kRuntimeGroupColumns, kHostRangeGroupColumns));

using ST = StepRecord;
constexpr Column<ST> kStepColumns[] = {
    integer<&ST::global_step>("global_step", "INTEGER PRIMARY KEY"), integer<&ST::epoch>("epoch"),
    integer<&ST::step>("step"), time_ns<&ST::start>("start"),
    // a step's end as written; read no earlier than its start
    {"\"end\"", "INTEGER", Kind::integer, [](const ST& r) { return r.end; },
     [](ST& r, std::int64_t v) { r.end = std::max(r.start, std::clamp(v, -kMaxTimeNs, kMaxTimeNs)); }},
    {"loss", "REAL", Kind::later}, integer<&ST::images>("images"),
    integer<&ST::data_wait_ns, 0, kMaxTimeNs>("data_wait_ns")};

using ER = EpochRecord;
constexpr Column<ER> kEpochColumns[] = {
    integer<&ER::epoch>("epoch", "INTEGER PRIMARY KEY"), real<&ER::train_loss>("train_loss"),
    real<&ER::test_accuracy>("test_accuracy"), real<&ER::test_loss>("test_loss"),
    real<&ER::images_per_s>("images_per_s"), integer<&ER::train_ns>("train_ns"), integer<&ER::eval_ns>("eval_ns"),
    real<&ER::loss_scale>("loss_scale"), integer<&ER::skipped_steps>("skipped_steps")};

using SE = SeriesRecord;
constexpr Column<SE> kSeriesColumns[] = {integer<&SE::id>("id", "INTEGER PRIMARY KEY"),
                                         string_text<&SE::name>("name"), string_text<&SE::unit>("unit")};

using SA = SampleRecord;
constexpr Column<SA> kSampleColumns[] = {time_ns<&SA::time>("time"), integer<&SA::series>("series_id"),
                                         real<&SA::value>("value")};

using CK = ClockRecord;
constexpr Column<CK> kClockColumns[] = {time_ns<&CK::time>("time"), time_ns<&CK::offset_ns>("offset_ns"),
                                        time_ns<&CK::drift_ns>("drift_ns")};

using TR = ThreadRecord;
constexpr Column<TR> kThreadColumns[] = {integer<&TR::tid>("tid"), string_id<&TR::name>("name_id")};

using PF = PyFrameRecord;
constexpr Column<PF> kPyFrameColumns[] = {id32<&PF::id>("id", "INTEGER PRIMARY KEY"),
                                          string_id<&PF::function>("function_id"), string_id<&PF::file>("file_id"),
                                          integer<&PF::line, 0, INT32_MAX>("line")};

using PS = PyStackRecord;
constexpr Column<PS> kPyStackColumns[] = {id32<&PS::id>("id", "INTEGER PRIMARY KEY"), id32<&PS::parent>("parent"),
                                          id32<&PS::frame>("frame_id")};

using PY = PySampleRecord;
constexpr Column<PY> kPySampleColumns[] = {time_ns<&PY::time>("time"), id32<&PY::thread>("tid"),
                                           id32<&PY::stack>("stack_id")};

// A CUDA-graph node's id is CUPTI's (uint64, written as its int64 bits, as kernel_groups.graph_node).
using GN = GraphNodeRecord;
constexpr Column<GN> kGraphNodeColumns[] = {integer<&GN::node>("node_id"), id32<&GN::correlation>("correlation")};

// A whole CUDA-graph replay (format 5): one row per replayed graph between per-kernel windows, a few
// per step, so every column stays in its row (no group table).
using GR = GraphReplayRecord;
constexpr auto kGraphReplayColumns = device_activity<GR>({integer<&GR::graph_id>("graph_id")});

const Table<TR> kThreads{"threads", kThreadColumns};
const Table<CR> kConfigs{"kernel_configs", kConfigColumns};
const Table<OR> kOverheads{"overheads", kOverheadColumns};
const Table<ST> kSteps{"steps", kStepColumns, true, "global_step"};
const Table<ER> kEpochs{"epochs", kEpochColumns, true, "epoch"};
const Table<SE> kSeries{"sample_series", kSeriesColumns, true, "id"};
const Table<SA> kSamples{"samples", kSampleColumns};
const Table<CK> kClock{"clock_checks", kClockColumns};
const Table<PF> kPyFrames{"py_frames", kPyFrameColumns, true};
const Table<PS> kPyStacks{"py_stacks", kPyStackColumns, true};
const Table<PY> kPySamples{"py_samples", kPySampleColumns};
const Table<SE> kMetricSeries{"metric_series", kSeriesColumns, true, "id"};
const Table<SA> kMetricSamples{"metric_samples", kSampleColumns};
const Table<GN> kGraphNodes{"graph_nodes", kGraphNodeColumns};
const Table<GR> kGraphReplays{"graph_replays", kGraphReplayColumns};

const Table<KR> kKernelGroups{"kernel_groups", kKernelGroupColumns};
const Table<MC> kMemcpyGroups{"memcpy_groups", kMemcpyGroupColumns};
const Table<MS> kMemsetGroups{"memset_groups", kMemsetGroupColumns};
const Table<RR> kRuntimeGroups{"runtime_groups", kRuntimeGroupColumns};
const Table<SR> kSyncGroups{"sync_groups", kSyncGroupColumns};
const Table<MR> kMemoryGroups{"memory_groups", kMemoryGroupColumns};
const Table<HR> kHostRangeGroups{"host_range_groups", kHostRangeGroupColumns};
const Table<KR> kKernels{"kernels", kKernelColumns, false, "rowid", &kKernelGroups};
const Table<MC> kMemcpys{"memcpys", kMemcpyColumns, false, "rowid", &kMemcpyGroups};
const Table<MS> kMemsets{"memsets", kMemsetColumns, false, "rowid", &kMemsetGroups};
const Table<RR> kRuntime{"runtime_calls", kRuntimeColumns, false, "rowid", &kRuntimeGroups};
const Table<SR> kSyncs{"syncs", kSyncColumns, false, "rowid", &kSyncGroups};
const Table<MR> kMemory{"memory_events", kMemoryColumns, false, "rowid", &kMemoryGroups};
const Table<HR> kHostRanges{"host_ranges", kHostRangeColumns, false, "rowid", &kHostRangeGroups};
const EventTables kGrouped{kKernels, kMemcpys, kMemsets, kRuntime, kSyncs, kMemory, kHostRanges};

const Table<KR> kFlatKernels{"kernels", kFlatKernelColumns};
const Table<MC> kFlatMemcpys{"memcpys", kFlatMemcpyColumns};
const Table<MS> kFlatMemsets{"memsets", kFlatMemsetColumns};
const Table<RR> kFlatRuntime{"runtime_calls", kFlatRuntimeColumns};
const Table<SR> kFlatSyncs{"syncs", kFlatSyncColumns};
const Table<MR> kFlatMemory{"memory_events", kFlatMemoryColumns};
const Table<HR> kFlatHostRanges{"host_ranges", kFlatHostRangeColumns};
const EventTables kFlat{kFlatKernels, kFlatMemcpys, kFlatMemsets, kFlatRuntime, kFlatSyncs, kFlatMemory, kFlatHostRanges};

/// The views: what the sqlite3 shell user reads (names, ends and groups joined in). Their columns are
/// the same in every format; these two read the same SQL in both layouts.
constexpr const char* kCommonViews = R"SQL(CREATE VIEW py_sample_view AS SELECT p.time, p.tid, fn.value AS function, fl.value AS file, f.line, p.stack_id
  FROM py_samples p JOIN py_stacks s ON s.id = p.stack_id JOIN py_frames f ON f.id = s.frame_id
  LEFT JOIN strings fn ON fn.id = f.function_id LEFT JOIN strings fl ON fl.id = f.file_id;
CREATE VIEW launch_to_kernel AS SELECT r.name AS launch, r.start AS launch_start, k.name AS kernel,
  k.start AS kernel_start, k.start - r.start AS launch_latency, k.correlation
  FROM runtime_view r JOIN kernel_view k ON k.correlation = r.correlation;
)SQL";

/// Format 4's views: each event table joined with its group table. memcpy_view, memset_view,
/// sync_view and memory_event_view give those tables' rows with the columns formats 1 to 3 had.
constexpr const char* kViews = R"SQL(CREATE VIEW kernel_view AS SELECT k.start, k.start + k.dur AS "end", k.dur,
  s.value AS name, g.device, g.rank, g.stream, k.correlation, c.grid_x, c.grid_y, c.grid_z, c.block_x,
  c.block_y, c.block_z, c.registers, c.static_smem, c.dynamic_smem, g.graph_id, g.graph_node
  FROM kernels k JOIN kernel_groups g ON g.id = k.group_id JOIN kernel_configs c ON c.id = g.config_id
  LEFT JOIN strings s ON s.id = c.name_id;
CREATE VIEW runtime_view AS SELECT r.start, r.start + r.dur AS "end", r.dur, s.value AS name, g.tid,
  r.correlation, g.result FROM runtime_calls r JOIN runtime_groups g ON g.id = r.group_id
  LEFT JOIN strings s ON s.id = g.name_id;
CREATE VIEW host_range_view AS SELECT h.start, h.start + h.dur AS "end", h.dur, k.name AS kind,
  n.value AS name, l.value AS layer, g.tid, t.value AS thread, h.step, g.device, g.rank
  FROM host_ranges h JOIN host_range_groups g ON g.id = h.group_id JOIN range_kinds k ON k.id = g.kind
  LEFT JOIN strings n ON n.id = h.name_id LEFT JOIN strings l ON l.id = g.layer_id
  LEFT JOIN (SELECT tid, MAX(name_id) AS name_id FROM threads GROUP BY tid) th ON th.tid = g.tid
  LEFT JOIN strings t ON t.id = th.name_id;
CREATE VIEW memcpy_view AS SELECT m.start, m.start + m.dur AS "end", m.dur, g.device, g.rank, g.context,
  g.stream, m.correlation, m.bytes, g.copy_kind, g.src_kind, g.dst_kind, g.graph_id, g.graph_node
  FROM memcpys m JOIN memcpy_groups g ON g.id = m.group_id;
CREATE VIEW memset_view AS SELECT m.start, m.start + m.dur AS "end", m.dur, g.device, g.rank, g.context,
  g.stream, m.correlation, m.bytes, g.value, g.memory_kind, g.graph_id, g.graph_node
  FROM memsets m JOIN memset_groups g ON g.id = m.group_id;
CREATE VIEW sync_view AS SELECT y.start, y.start + y.dur AS "end", y.dur, g.device, g.rank, g.context,
  g.stream, y.correlation, g.type, y.event FROM syncs y JOIN sync_groups g ON g.id = y.group_id;
CREATE VIEW memory_event_view AS SELECT m.time, g.device, g.rank, g.context, g.stream, m.correlation,
  g.op, g.memory_kind, m.address, m.bytes FROM memory_events m JOIN memory_groups g ON g.id = m.group_id;
)SQL";

/// Formats 1 to 3's views over the flat event tables.
constexpr const char* kFlatViews = R"SQL(CREATE VIEW kernel_view AS SELECT k.start, k.start + k.dur AS "end", k.dur, s.value AS name, k.device,
  k.rank, k.stream, k.correlation, c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z,
  c.registers, c.static_smem, c.dynamic_smem, k.graph_id, k.graph_node
  FROM kernels k JOIN kernel_configs c ON c.id = k.config_id LEFT JOIN strings s ON s.id = c.name_id;
CREATE VIEW runtime_view AS SELECT r.start, r.start + r.dur AS "end", r.dur, s.value AS name, r.tid,
  r.correlation, r.result FROM runtime_calls r LEFT JOIN strings s ON s.id = r.name_id;
CREATE VIEW host_range_view AS SELECT h.start, h.start + h.dur AS "end", h.dur, k.name AS kind,
  n.value AS name, l.value AS layer, h.tid, t.value AS thread, h.step, h.device, h.rank
  FROM host_ranges h JOIN range_kinds k ON k.id = h.kind LEFT JOIN strings n ON n.id = h.name_id
  LEFT JOIN strings l ON l.id = h.layer_id
  LEFT JOIN (SELECT tid, MAX(name_id) AS name_id FROM threads GROUP BY tid) th ON th.tid = h.tid
  LEFT JOIN strings t ON t.id = th.name_id;
)SQL";

}  // namespace

const EventTables& event_tables(int version) { return version >= kGroupedFormat ? kGrouped : kFlat; }
const Table<ThreadRecord>& threads() { return kThreads; }
const Table<ConfigRow>& kernel_configs() { return kConfigs; }
const Table<OverheadRecord>& overheads() { return kOverheads; }
const Table<StepRecord>& steps() { return kSteps; }
const Table<EpochRecord>& epochs() { return kEpochs; }
const Table<SeriesRecord>& sample_series() { return kSeries; }
const Table<SampleRecord>& samples() { return kSamples; }
const Table<ClockRecord>& clock_checks() { return kClock; }
const Table<PyFrameRecord>& py_frames() { return kPyFrames; }
const Table<PyStackRecord>& py_stacks() { return kPyStacks; }
const Table<PySampleRecord>& py_samples() { return kPySamples; }
const Table<SeriesRecord>& metric_series() { return kMetricSeries; }
const Table<SampleRecord>& metric_samples() { return kMetricSamples; }
const Table<GraphNodeRecord>& graph_nodes() { return kGraphNodes; }
const Table<GraphReplayRecord>& graph_replays() { return kGraphReplays; }

std::string create_sql(int version) {
  std::string sql =
      "CREATE TABLE schema_version(version INTEGER NOT NULL);\n"
      "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;\n"
      "CREATE TABLE strings(id INTEGER PRIMARY KEY, value TEXT NOT NULL);\n";
  auto add = [&sql](const std::string& statement) { sql += statement + ";\n"; };
  auto add_events = [&add](const auto& t) {  // a group table before the table that names its rows
    if (t.groups) add(create_table(*t.groups));
    add(create_table(t));
  };
  const EventTables& e = event_tables(version);
  add(create_table(kThreads));
  add("CREATE TABLE range_kinds(id INTEGER PRIMARY KEY, name TEXT NOT NULL)");
  add(create_table(kConfigs));
  add_events(e.kernels);
  add_events(e.memcpys);
  add_events(e.memsets);
  add_events(e.runtime_calls);
  add_events(e.syncs);
  add_events(e.memory_events);
  add(create_table(kOverheads));
  add_events(e.host_ranges);
  add(create_table(kSteps));
  add(create_table(kEpochs));
  add(create_table(kSeries));
  add(create_table(kSamples));
  add(create_table(kClock));
  add("CREATE TABLE dropped(source TEXT PRIMARY KEY, count INTEGER) WITHOUT ROWID");
  add("CREATE TABLE overview_lanes(lane INTEGER PRIMARY KEY, kind INTEGER, key TEXT NOT NULL, id INTEGER, "
      "device INTEGER, has_steps INTEGER, launches INTEGER, events INTEGER, tids TEXT, t0 INTEGER, t1 INTEGER, "
      "bins INTEGER, total_events INTEGER, raw_bytes INTEGER, rows BLOB)");
  add(create_table(kPyFrames));
  add(create_table(kPyStacks));
  add(create_table(kPySamples));
  add(create_table(kMetricSeries));
  add(create_table(kMetricSamples));
  if (version >= kGroupedFormat) add(create_table(kGraphNodes));
  if (version >= kGraphReplayFormat) {
    add(create_table(kGraphReplays));
    add("CREATE VIEW graph_replay_view AS SELECT start, start + dur AS \"end\", dur, device, rank, context, stream, "
        "correlation, graph_id FROM graph_replays");
  }
  return sql + (version >= kGroupedFormat ? kViews : kFlatViews) + kCommonViews;
}

}  // namespace ts::prof::schema
