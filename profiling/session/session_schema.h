// The session file's schema (internal to profiling/; documented in docs/session-format.md).
// Event tables keep compact integer columns: times are ns since session start, durations instead of
// ends (a view adds "end"), names are ids into `strings`, a kernel's launch configuration (name, grid,
// block, registers, shared memory) is stored once per distinct configuration in `kernel_configs`.
// No indexes: they would double the bytes per event; the views and queries scan.
// Format 2 added `overview_lanes` (profiling/overview.h), written when the recording closes; format 1
// files have none, and read_session builds it from their events (the in-memory migration).
// Format 3 added the playground tables, which the playground creates, writes and reads itself
// (playground/session.cpp): a training session has none, nor has a file before format 3.
// The py_* tables (Python insight of a recorded Python program: interned frames, stacks as a tree,
// the stepping thread's stack samples) came within format 3: older readers ignore them and a file
// without them has no Python samples.
// metric_series and metric_samples (hardware-counter metrics from CUPTI PM sampling) came within
// format 4, the same way: older readers ignore them and a file without them has no measured metrics.
// graph_nodes (each CUDA-graph node's capture-time launch: GraphNodeRecord) came within format 4 the
// same way: older readers ignore it, and a file without it maps no graph node (its replayed kernels
// keep only their cudaGraphLaunch's correlation id).
// Format 5 (kGraphReplayFormat) added graph_replays: whole CUDA-graph replays (GraphReplayRecord),
// recorded between the per-kernel windows of a hybrid recording (profiler.h); a file before 5 has none.
// Format 4 (kGroupedFormat) keeps in an event's row only what changes from event to event (times,
// correlation id, bytes, address, a host range's name and step); the columns that repeat (device,
// rank, context, stream, thread, API, launch configuration, copy kind, ...) are stored once per
// distinct combination in the table's group table (kernel_groups, runtime_groups, ...), which the
// row names by `group_id`: a runtime call went from ~31 to ~19 bytes. Formats 1 to 3 (`flat`) keep
// every column in the row; the reader reads both (event_tables(version)).
//
// Each record type's table is described once, as a list of columns (session_schema.cpp): its name
// and declared type in the file, and how the writer gets the value from a record and the reader
// puts it back. The CREATE TABLE, the writer's INSERT and the reader's SELECT are all made from
// that list, so they cannot disagree on a column's name, type or place. A group table is such a list
// over the same record type: the writer takes a group's values from the record, the reader puts them
// into every record of the group.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "profiling/records.h"

namespace ts::prof::schema {

/// Session times and durations as read, range-checked as the trace importers check theirs: within
/// +-2^61 ns (73 years) and durations within 2^61, so an end, and every difference of two ends the
/// analysis and the overview take, stays in int64 (a damaged or hand-edited file with
/// dur = INT64_MAX reads as a long event, never as an overflow).
inline constexpr std::int64_t kMaxTimeNs = std::int64_t{1} << 61;

/// How a column's value goes between a record and the file.
enum class Kind : std::uint8_t {
  integer,       // get/set: the value as it is (set keeps what a damaged file holds within range)
  real,          // get_real/set_real: a floating-point value
  string_id,     // a StringId written as it is (the file's strings table holds the store's ids),
                 // read through the file's ids (the store re-interns every string)
  string_text,   // a StringId written as its text, read interned (sample_series' name and unit)
  config_id,     // a kernel's launch configuration: the writer's kernel_configs row (kernels only)
  process_rank,  // the store's EventStore::process_rank: written in every row, read from the first
  later,         // written NULL and set by a later statement (a step's loss); not read with its row
  group,         // a group id: in an event table the row's group (Table::groups), in a group table
                 // the group's own id (its INTEGER PRIMARY KEY), numbered by the writer from 0
};

/// One column of a record table. `name` as SQL writes it ("\"end\"" for end); `decl` its declared
/// type and constraint ("INTEGER", "INTEGER PRIMARY KEY", "REAL", "TEXT NOT NULL").
template <class R>
struct Column {
  const char* name;
  const char* decl;
  Kind kind = Kind::integer;
  std::int64_t (*get)(const R&) = nullptr;  // integer, string_id, string_text
  void (*set)(R&, std::int64_t) = nullptr;
  double (*get_real)(const R&) = nullptr;   // real
  void (*set_real)(R&, double) = nullptr;
};

/// A record type's table: its columns in the file's order, whether a row replaces the one with the
/// same key (INSERT OR REPLACE: steps, epochs, series, Python frames and stacks), the order the
/// reader reads its rows in, and for an event table with a `group` column, its group table.
template <class R>
struct Table {
  const char* name;
  std::span<const Column<R>> columns;
  bool replace = false;
  const char* order = "rowid";
  const Table<R>* groups = nullptr;
};

/// The first format with group tables.
inline constexpr int kGroupedFormat = 4;
/// The first format with the graph_replays table.
inline constexpr int kGraphReplayFormat = 5;
/// The most columns a group table has besides its id (the writer keys a group on a fixed array).
inline constexpr std::size_t kMaxGroupColumns = 12;

/// A row of kernel_configs: a kernel name with one launch configuration, as the file's row `id`.
struct ConfigRow {
  std::int64_t id = 0;
  StringId name = kNoString;
  KernelConfig config;
};

/// The event tables whose layout format 4 changed, as format `version` lays them out: from 4 on
/// each with its group table (`groups`), before that flat.
struct EventTables {
  const Table<KernelRecord>& kernels;
  const Table<MemcpyRecord>& memcpys;
  const Table<MemsetRecord>& memsets;
  const Table<RuntimeRecord>& runtime_calls;
  const Table<SyncRecord>& syncs;
  const Table<MemoryRecord>& memory_events;
  const Table<HostRangeRecord>& host_ranges;
};
const EventTables& event_tables(int version);

const Table<ThreadRecord>& threads();
const Table<ConfigRow>& kernel_configs();
const Table<OverheadRecord>& overheads();
const Table<StepRecord>& steps();
const Table<EpochRecord>& epochs();
const Table<SeriesRecord>& sample_series();
const Table<SampleRecord>& samples();
const Table<ClockRecord>& clock_checks();
const Table<PyFrameRecord>& py_frames();
const Table<PyStackRecord>& py_stacks();
const Table<PySampleRecord>& py_samples();
/// Hardware-counter metrics (PM sampling): the same columns as sample_series and samples.
const Table<SeriesRecord>& metric_series();
const Table<SampleRecord>& metric_samples();
/// CUDA-graph nodes and the correlation id of the launch that created them (within format 4).
const Table<GraphNodeRecord>& graph_nodes();
/// Whole CUDA-graph replays (format 5 on).
const Table<GraphReplayRecord>& graph_replays();

/// "CREATE TABLE name(col decl, ...)".
template <class R>
std::string create_table(const Table<R>& t) {
  std::string sql = std::string("CREATE TABLE ") + t.name + "(";
  for (std::size_t i = 0; i < t.columns.size(); ++i)
    sql += std::string(i ? ", " : "") + t.columns[i].name + " " + t.columns[i].decl;
  return sql + ")";
}

/// "INSERT [OR REPLACE] INTO name VALUES(?,...)": one parameter per column, bound in order; NULL
/// for a `later` column.
template <class R>
std::string insert_sql(const Table<R>& t) {
  std::string sql = std::string(t.replace ? "INSERT OR REPLACE INTO " : "INSERT INTO ") + t.name + " VALUES(";
  for (std::size_t i = 0; i < t.columns.size(); ++i)
    sql += std::string(i ? "," : "") + (t.columns[i].kind == Kind::later ? "NULL" : "?");
  return sql + ")";
}

/// The columns the reader selects, in order: every column but the `later` ones.
template <class R>
std::string select_columns(const Table<R>& t) {
  std::string out;
  for (const Column<R>& c : t.columns)
    if (c.kind != Kind::later) out += std::string(out.empty() ? "" : ",") + c.name;
  return out;
}

/// The whole schema of format `version` (kGroupedFormat or later: the one the writer creates; 1 to
/// 3: the flat event tables, as files of those formats have them, for tests and the fuzzer): every
/// table (the record tables from their columns) and view, one statement per line.
std::string create_sql(int version);

}  // namespace ts::prof::schema
