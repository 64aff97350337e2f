// read_session (see session_file.h): checks identity and version, then loads every table into an
// EventStore. Strings are re-interned, so ids in the store may differ from the file's.
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>

#include "base/printable.h"
#include "base/sqlite.h"
#include "profiling/overview.h"
#include "profiling/session/session_file.h"
#include "profiling/session/session_schema.h"

namespace ts::prof {
namespace {

class Reader {
 public:
  /// `growing`: the file is followed while its writer writes it (SessionFollower), so it is never
  /// opened immutable while it can be read through its WAL, even in the instant before the writer
  /// has created its -wal.
  explicit Reader(const std::string& path, bool growing = false) : path_(path) {
    if (!std::filesystem::is_regular_file(path))
      throw SessionError(SessionError::Kind::io, "session file " + path + " does not exist or is not a file");
    if (std::filesystem::file_size(path) == 0)
      throw SessionError(SessionError::Kind::not_a_session, path + " is empty (0 bytes): not a TrainScope session");
    // Reading writes nothing: a file with no -wal beside it (closed, or copied alone) and a file this
    // process cannot write (a read-only mount) are opened immutable, so SQLite creates no -wal/-shm.
    // A -wal beside a writable file is a recording in progress (or killed): read through it.
    std::error_code ec;
    wal_ = std::filesystem::exists(path + "-wal", ec);
    const std::filesystem::path dir = std::filesystem::absolute(path, ec).parent_path();
    immutable_ = (!wal_ && !growing) || ::access(path.c_str(), W_OK) != 0 || ::access(dir.c_str(), W_OK) != 0;
    const std::string name = immutable_ ? "file:" + uri_path(path) + "?immutable=1" : path;
    if (sqlite3_open_v2(name.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) != SQLITE_OK) {
      const std::string why = db_ ? printable(sqlite3_errmsg(db_), sqlite::kMessageChars) : "out of memory";
      sqlite3_close(db_);
      throw SessionError(SessionError::Kind::io, "cannot open session file " + path + ": " + why);
    }
  }
  ~Reader() { sqlite3_close(db_); }

  /// Runs `sql`, calling row(stmt) per row. Maps SQLite failures to typed errors; reports
  /// progress every kProgressRows rows and stops when it is cancelled.
  template <class F>
  void query(const char* sql, F row) {
    sqlite::Statement st(db_, sql, [this](const std::string&, int rc) { fail(rc); });
    while (st.step()) {
      row(st.handle());
      if (++rows_ % kProgressRows == 0 && !report())
        throw SessionError(SessionError::Kind::cancelled, "opening " + path_ + " was cancelled");
    }
  }
  /// Calls the progress callback; false = cancel.
  bool report() { return !progress_.on_rows || progress_.on_rows(rows_, std::max(rows_, total_)); }
  void set_progress(const ReadProgress& p, std::int64_t total) { progress_ = p, total_ = total; }
  std::int64_t scalar(const char* sql) {
    std::int64_t v = 0;
    query(sql, [&](sqlite3_stmt* st) { v = sqlite3_column_int64(st, 0); });
    return v;
  }
  [[noreturn]] void fail(int rc) {
    const int primary = rc & 0xff;
    if (primary == SQLITE_NOTADB)
      throw SessionError(SessionError::Kind::not_a_session, path_ + " is not a TrainScope session (not a SQLite file)");
    throw SessionError(SessionError::Kind::damaged,
                       path_ + " is damaged or truncated (" + printable(sqlite3_errmsg(db_), sqlite::kMessageChars) + ")" +
                           wal_advice());
  }
  /// What to add to an error about a file whose rows may be in a -wal file that was not read.
  std::string wal_advice() const {
    // The message gives the folder once, at its start: the -wal file by its name alone.
    if (!wal_)
      return "; if it was copied from a recording that was killed, copy its -wal file (" +
             std::filesystem::path(path_).filename().string() + "-wal) beside it too";
    if (immutable_) return "; its -wal file could not be read here (read-only): copy both files to a writable folder";
    return "";
  }

 private:
  static constexpr std::int64_t kProgressRows = 4096;
  /// `path` as the path of a SQLite URI (RFC 3986 percent-encoding of what a URI would read otherwise).
  static std::string uri_path(const std::string& path) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (const char ch : path) {
      const auto c = static_cast<unsigned char>(ch);
      if (c == '?' || c == '#' || c == '%' || c < 0x21 || c >= 0x7f) out += std::string("%") + kHex[c >> 4] + kHex[c & 15];
      else out += ch;
    }
    return out;
  }
  std::string path_;
  bool wal_ = false, immutable_ = false;
  sqlite3* db_ = nullptr;
  ReadProgress progress_;
  std::int64_t rows_ = 0, total_ = 0;
};

/// A read transaction for its scope: every query inside sees one state of the file, even while a
/// writer commits batches beside it (WAL).
class Snapshot {
 public:
  explicit Snapshot(Reader& r) : r_(r) { r_.query("BEGIN", [](sqlite3_stmt*) {}); }
  ~Snapshot() {
    try {
      r_.query("COMMIT", [](sqlite3_stmt*) {});
    } catch (...) {
      // nothing was written: ending a read transaction cannot lose data
    }
  }
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

 private:
  Reader& r_;
};

std::int64_t col(sqlite3_stmt* st, int i) { return sqlite3_column_int64(st, i); }

/// Whether the file has table `name` (tables added by later format versions or while format 1 was
/// young). `name` is one of this file's literals.
bool has_table(Reader& r, const std::string& name) {
  return r.scalar(("SELECT COUNT(*) FROM sqlite_master WHERE type='table' AND name='" + name + "'").c_str()) > 0;
}

/// A group table's rows as read: each group's values in a record, by the group's id.
template <class R>
using Groups = std::unordered_map<std::int64_t, R>;
/// The record types whose tables have group tables (format 4).
using GroupMaps = std::tuple<Groups<KernelRecord>, Groups<MemcpyRecord>, Groups<MemsetRecord>, Groups<RuntimeRecord>,
                             Groups<SyncRecord>, Groups<MemoryRecord>, Groups<HostRangeRecord>>;
template <class R, class Maps>
struct HasGroups;
template <class R, class... M>
struct HasGroups<R, std::tuple<M...>> : std::bool_constant<(std::is_same_v<Groups<R>, M> || ...)> {};
template <class R>
constexpr bool kHasGroups = HasGroups<R, GroupMaps>::value;

/// What a reader has read so far: the file's string ids and launch configurations as interned in
/// the store, the groups of each event table (format 4), and per table the largest rowid read; and
/// the file's event tables as its format lays them out. read_session reads once from an empty
/// cursor; SessionFollower keeps one across polls and reads only the rows committed since.
struct ReadCursor {
  explicit ReadCursor(int version) : tables(schema::event_tables(version)) {}
  const schema::EventTables& tables;
  std::unordered_map<std::int64_t, StringId> sid;
  std::unordered_map<std::int64_t, KernelRecord> configs;
  GroupMaps groups;
  std::unordered_map<std::string, std::int64_t> last;
  std::int64_t loss_upto = INT64_MIN;  // the last step whose loss was read
  std::int64_t rows = 0;               // rows read so far
  StringId str(std::int64_t id) const {
    auto it = sid.find(id);
    return it == sid.end() ? kNoString : it->second;
  }
  template <class R>
  Groups<R>& groups_of() {
    return std::get<Groups<R>>(groups);
  }
};

/// SELECT `columns`,rowid FROM `table` WHERE rowid > (the cursor's last) ORDER BY `order`; calls
/// row(stmt) per row (rowid is column `columns`' count) and moves the cursor. `table`, `columns`
/// and `order` are this file's literals.
template <class F>
void read_new(Reader& r, ReadCursor& c, const char* table, const char* columns, F row, const char* order = "rowid") {
  std::int64_t& last = c.last.try_emplace(table, INT64_MIN).first->second;  // rowids may be 0 or negative
  const int rowid_col = static_cast<int>(std::count(columns, columns + std::strlen(columns), ',')) + 1;
  const std::string sql = std::string("SELECT ") + columns + ",rowid FROM " + table + " WHERE rowid > " +
                          std::to_string(last) + " ORDER BY " + order;
  r.query(sql.c_str(), [&](sqlite3_stmt* st) {
    row(st);
    last = std::max<std::int64_t>(last, sqlite3_column_int64(st, rowid_col));
    ++c.rows;
  });
}

/// The place of `t`'s `group` column among the columns the reader selects; -1 when it has none.
template <class R>
int group_column(const schema::Table<R>& t) {
  int i = 0;
  for (const schema::Column<R>& c : t.columns) {
    if (c.kind == schema::Kind::group) return i;
    if (c.kind != schema::Kind::later) ++i;
  }
  return -1;
}

/// read_new over a record table: each row becomes an `R`, column by column as `t` describes it (ids
/// mapped through the cursor, strings interned, values kept within range), then add(record, group)
/// (group: the row's `group` column, 0 without one). A row of an event table with a group table
/// starts from its group's values (a group the file lacks, as in a damaged file: all zero).
template <class R, class F>
void read_table(Reader& r, EventStore& s, ReadCursor& cur, const schema::Table<R>& t, F add) {
  using schema::Kind;
  const std::string columns = schema::select_columns(t);
  const int group_col = group_column(t);
  read_new(r, cur, t.name, columns.c_str(), [&](sqlite3_stmt* st) {
    R x{};
    if constexpr (kHasGroups<R>) {
      if (t.groups) {
        const Groups<R>& groups = cur.groups_of<R>();
        const auto it = groups.find(col(st, group_col));
        if (it != groups.end()) x = it->second;
      }
    }
    int i = 0;
    for (const schema::Column<R>& c : t.columns) {
      switch (c.kind) {
        case Kind::later: continue;  // not selected
        case Kind::integer: c.set(x, col(st, i)); break;
        case Kind::real: c.set_real(x, sqlite3_column_double(st, i)); break;
        case Kind::string_id: c.set(x, cur.str(col(st, i))); break;
        case Kind::string_text: {
          auto* p = sqlite3_column_text(st, i);
          c.set(x, s.strings.intern(p ? reinterpret_cast<const char*>(p) : ""));
          break;
        }
        case Kind::config_id:
          if constexpr (std::is_same_v<R, KernelRecord>) {
            const KernelRecord& k = cur.configs[col(st, i)];
            x.name = k.name, x.config = k.config;
          }
          break;
        case Kind::process_rank:
          if (s.runtime.size() == 0) s.process_rank = static_cast<std::int32_t>(col(st, i));  // one process per file
          break;
        case Kind::group: break;  // read above (an event row) or below (a group's own id)
      }
      ++i;
    }
    add(x, group_col < 0 ? 0 : col(st, group_col));
  }, t.order);
}

/// read_table appending each record to the store's `log`; a table with a group table reads the
/// groups committed since first.
template <class R>
void read_into(Reader& r, EventStore& s, ReadCursor& cur, const schema::Table<R>& t, AppendLog<R>& log) {
  if constexpr (kHasGroups<R>) {
    if (t.groups)
      read_table(r, s, cur, *t.groups, [&](const R& x, std::int64_t id) { cur.groups_of<R>()[id] = x; });
  }
  read_table(r, s, cur, t, [&](const R& x, std::int64_t) { s.append(log, x); });
}

/// The file's format version (1 .. kSessionSchemaVersion); throws SessionError otherwise.
int check_identity(Reader& r, const std::string& path) {
  const std::int64_t app = r.scalar("PRAGMA application_id");
  if (app != kSessionApplicationId)
    throw SessionError(SessionError::Kind::not_a_session,
                       path + " is not a TrainScope session (SQLite application_id " + std::to_string(app) + ")" +
                           (app == 0 ? r.wal_advice() : std::string()));
  const std::int64_t version = r.scalar("SELECT MAX(version) FROM schema_version");
  if (version > kSessionSchemaVersion)
    throw SessionError(SessionError::Kind::newer_version,
                       path + " was written by a newer TrainScope (session format " + std::to_string(version) +
                           ", this build reads up to " + std::to_string(kSessionSchemaVersion) + ")");
  if (version < 1)
    throw SessionError(SessionError::Kind::damaged, path + " has no session format version");
  return static_cast<int>(version);
}

/// The CUDA-graph nodes' capture-time launches (graph_nodes): absent in files written before they
/// came (within format 4) and in files of older formats; then no graph node maps to a launch.
void read_graph_nodes(Reader& r, EventStore& s, ReadCursor& cur) {
  if (!has_table(r, "graph_nodes")) return;
  read_into(r, s, cur, schema::graph_nodes(), s.graph_nodes);
}

/// Whole CUDA-graph replays (graph_replays): absent in files before format 5; then there are none.
void read_graph_replays(Reader& r, EventStore& s, ReadCursor& cur) {
  if (!has_table(r, "graph_replays")) return;
  read_into(r, s, cur, schema::graph_replays(), s.graph_replays);
}

/// The GPU tables, graph nodes before the kernels (a viewer sees a replayed kernel's node with it).
void read_gpu_tables(Reader& r, EventStore& s, ReadCursor& cur) {
  read_graph_nodes(r, s, cur);
  read_graph_replays(r, s, cur);
  read_table(r, s, cur, schema::kernel_configs(), [&](const schema::ConfigRow& row, std::int64_t) {
    KernelRecord k;
    k.name = row.name;
    k.config = s.intern_config(row.config);
    cur.configs[row.id] = k;
  });
  read_into(r, s, cur, cur.tables.kernels, s.kernels);
  read_into(r, s, cur, cur.tables.memcpys, s.memcpys);
  read_into(r, s, cur, cur.tables.memsets, s.memsets);
  read_into(r, s, cur, cur.tables.runtime_calls, s.runtime);
  read_into(r, s, cur, cur.tables.syncs, s.syncs);
  read_into(r, s, cur, cur.tables.memory_events, s.memory);
  read_into(r, s, cur, schema::overheads(), s.overheads);
}

/// The epochs table joined format 1 before it shipped: a file without it has no epochs.
void read_epochs(Reader& r, EventStore& s, ReadCursor& cur) {
  if (!has_table(r, "epochs")) return;
  read_into(r, s, cur, schema::epochs(), s.epochs);
}

void read_host_ranges(Reader& r, EventStore& s, ReadCursor& cur) {
  read_into(r, s, cur, cur.tables.host_ranges, s.host_ranges);
}

/// Format 2's overview (one row per lane), or null when the file has none or it does not decode.
std::shared_ptr<SessionOverview> read_overview(Reader& r, int version) {
  if (version < 2 || !has_table(r, "overview_lanes"))
    return nullptr;
  auto o = std::make_shared<SessionOverview>();
  bool bad = false;
  r.query("SELECT kind,key,id,device,has_steps,launches,events,tids,t0,t1,bins,total_events,raw_bytes,rows "
          "FROM overview_lanes ORDER BY lane",
          [&](sqlite3_stmt* st) {
            if (bad) return;
            const auto kind = col(st, 0);
            o->t0 = col(st, 8), o->t1 = col(st, 9), o->bins = static_cast<std::uint32_t>(col(st, 10)), o->events = col(st, 11);
            if (kind < 0 || kind > static_cast<int>(timeline::LaneKind::sync) || col(st, 10) <= 0 || col(st, 10) > 1 << 20)
              return void(bad = true);
            OverviewLane l;
            l.kind = static_cast<timeline::LaneKind>(kind);
            auto* key = sqlite3_column_text(st, 1);
            l.key = key ? reinterpret_cast<const char*>(key) : "";
            l.id = static_cast<std::uint32_t>(col(st, 2)), l.device = static_cast<std::int32_t>(col(st, 3));
            l.has_steps = col(st, 4) != 0, l.launches = col(st, 5), l.events = col(st, 6);
            if (auto* t = sqlite3_column_text(st, 7))
              for (const char* p = reinterpret_cast<const char*>(t); *p;) {
                char* end = nullptr;
                const unsigned long tid = std::strtoul(p, &end, 10);
                if (end == p) return void(bad = true);
                l.tids.push_back(static_cast<std::uint32_t>(tid));
                p = *end == ',' ? end + 1 : end;
              }
            try {
              l.rows = decode_overview_rows(sqlite3_column_blob(st, 13), static_cast<std::size_t>(sqlite3_column_bytes(st, 13)),
                                            col(st, 12), o->bins, o->bin_ns());
            } catch (const std::exception&) {
              bad = true;
            }
            o->lanes.push_back(std::move(l));
          });
  return bad || o->lanes.empty() ? nullptr : o;
}

void read_host_tables(Reader& r, EventStore& s, ReadCursor& cur) {
  const std::map<std::string, std::string> had = s.meta();
  r.query("SELECT key,value FROM meta", [&](sqlite3_stmt* st) {
    auto* k = sqlite3_column_text(st, 0);
    auto* v = sqlite3_column_text(st, 1);
    const std::string key = k ? reinterpret_cast<const char*>(k) : "", value = v ? reinterpret_cast<const char*>(v) : "";
    if (key == kSessionClosedKey) return;  // the writer's close marker, not the run's
    auto it = had.find(key);
    if (it == had.end() || it->second != value) s.set_meta(key, value);  // a follower sees each change once
  });
  read_into(r, s, cur, schema::threads(), s.threads);
  read_into(r, s, cur, schema::steps(), s.steps);
  // Losses apart from their steps: the writer sets a step's loss in a later batch than its row, so a
  // follower reads it when it comes (losses arrive in step order).
  r.query(("SELECT global_step,loss FROM steps WHERE global_step > " + std::to_string(cur.loss_upto) +
           " AND loss IS NOT NULL ORDER BY global_step").c_str(),
          [&](sqlite3_stmt* st) {
            cur.loss_upto = col(st, 0);
            s.append(s.losses, LossRecord{cur.loss_upto, static_cast<float>(sqlite3_column_double(st, 1))});
          });
  read_epochs(r, s, cur);
  read_into(r, s, cur, schema::sample_series(), s.series);
  read_into(r, s, cur, schema::samples(), s.samples);
  read_into(r, s, cur, schema::clock_checks(), s.clock);
  r.query("SELECT source,count FROM dropped", [&](sqlite3_stmt* st) {
    auto* text = sqlite3_column_text(st, 0);  // NULL in a damaged file: no source, nothing counted
    const std::string src = text ? reinterpret_cast<const char*>(text) : "";
    if (src == "cupti") s.dropped_cupti = col(st, 1);
    else if (src == "host_ranges") s.dropped_host_ranges = col(st, 1);
    else if (src == "store_full") s.dropped_store_full = col(st, 1);
  });
}

/// Upper bound of the rows read_session reads (largest rowid per table, O(log n) each; the group
/// tables' rows counted, they are few).
std::int64_t rows_total(Reader& r, int version) {
  std::int64_t total = 0;
  for (const char* t : {"strings", "kernels", "memcpys", "memsets", "runtime_calls", "syncs", "memory_events",
                        "overheads", "threads", "host_ranges", "steps", "samples", "clock_checks"})
    total += r.scalar((std::string("SELECT COALESCE(MAX(rowid),0) FROM ") + t).c_str());
  for (const char* t : {"graph_nodes", "graph_replays"})
    if (has_table(r, t)) total += r.scalar((std::string("SELECT COALESCE(MAX(rowid),0) FROM ") + t).c_str());
  if (version >= schema::kGroupedFormat)
    for (const char* t : {"kernel_groups", "memcpy_groups", "memset_groups", "runtime_groups", "sync_groups",
                          "memory_groups", "host_range_groups"})
      total += r.scalar((std::string("SELECT COUNT(*) FROM ") + t).c_str());
  return total;
}

/// The strings table (re-interned: ids in the store may differ from the file's).
void read_strings(Reader& r, EventStore& store, ReadCursor& cur) {
  read_new(r, cur, "strings", "id,value", [&](sqlite3_stmt* st) {
    auto* p = sqlite3_column_text(st, 1);
    cur.sid[col(st, 0)] = store.strings.intern(p ? reinterpret_cast<const char*>(p) : "");
  });
}

/// The Python insight's tables (py_frames, py_stacks, py_samples): absent in files recorded without
/// it. Ids are kept as the file has them (frames and stacks refer to each other by id, never by row).
void read_python_tables(Reader& r, EventStore& s, ReadCursor& cur) {
  if (!has_table(r, "py_samples")) return;
  read_into(r, s, cur, schema::py_frames(), s.py_frames);
  read_into(r, s, cur, schema::py_stacks(), s.py_stacks);
  read_into(r, s, cur, schema::py_samples(), s.py_samples);
}

/// The hardware-counter metrics (metric_series, metric_samples; PM sampling): absent in files written
/// before they came (within format 4) and in files of older formats.
void read_metric_tables(Reader& r, EventStore& s, ReadCursor& cur) {
  if (!has_table(r, "metric_samples")) return;
  read_into(r, s, cur, schema::metric_series(), s.metric_series);
  read_into(r, s, cur, schema::metric_samples(), s.metric_samples);
}

/// One pass over every table from `cur` on: strings first (rows name them), then meta, threads,
/// steps, epochs and samples, host ranges, GPU tables.
void read_rows(Reader& r, EventStore& store, ReadCursor& cur) {
  read_strings(r, store, cur);
  read_host_tables(r, store, cur);
  read_host_ranges(r, store, cur);
  read_python_tables(r, store, cur);
  read_metric_tables(r, store, cur);
  read_gpu_tables(r, store, cur);
}

}  // namespace

void check_session(const std::string& path) {
  Reader r(path);
  check_identity(r, path);
}


void read_session(const std::string& path, EventStore& store, const ReadProgress& progress) {
  Reader r(path);
  const int version = check_identity(r, path);
  Snapshot snap(r);  // a file still being written is read as one committed state
  if (progress.on_rows) r.set_progress(progress, rows_total(r, version));
  ReadCursor cur(version);
  read_strings(r, store, cur);
  read_host_tables(r, store, cur);  // meta, threads, steps, epochs and samples first
  std::shared_ptr<SessionOverview> overview = read_overview(r, version);
  if (overview) store.set_overview(overview);  // before any event: a viewer paints the overview now
  read_host_ranges(r, store, cur);
  read_python_tables(r, store, cur);
  read_metric_tables(r, store, cur);
  read_gpu_tables(r, store, cur);
  if (!r.report()) throw SessionError(SessionError::Kind::cancelled, "opening " + path + " was cancelled");
  // Migration of format 1 (and of a file whose recording never closed): the overview from the events.
  if (!overview) store.set_overview(std::make_shared<SessionOverview>(build_overview(store)));
}

namespace {
/// The writer closed the file: its close marker (SessionRecorder::finish: the injection library's
/// files, which have no overview), the library's "closed: ..." status, or the overview SessionWriter
/// writes last (files from before the marker).
bool closed_by_writer(Reader& r) {
  static const std::string closed = std::string("SELECT COUNT(*) FROM meta WHERE key='") + kSessionClosedKey +
                                    "' OR (key='inject.status' AND value LIKE 'closed%')";
  if (r.scalar(closed.c_str()) > 0) return true;
  return has_table(r, "overview_lanes") && r.scalar("SELECT COUNT(*) FROM overview_lanes") > 0;
}
}  // namespace

bool session_being_written(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path + "-wal", ec)) return false;
  try {
    Reader r(path);
    check_identity(r, path);
    return !closed_by_writer(r);
  } catch (const SessionError&) {
    return false;
  }
}

struct SessionFollower::State {
  explicit State(const std::string& p) : reader(p, true), version(check_identity(reader, p)), cursor(version) {}
  Reader reader;
  int version;
  ReadCursor cursor;
};

SessionFollower::SessionFollower(const std::string& path, EventStore& store)
    : path_(path), store_(store), state_(std::make_unique<State>(path)) {}

SessionFollower::~SessionFollower() = default;

std::int64_t SessionFollower::poll() {
  if (finished_) return 0;
  State& s = *state_;
  const std::int64_t before = s.cursor.rows;
  // The overview is the writer's last act (SessionWriter::close): seen before this pass's rows, every
  // row is then in the file and this pass reads the rest.
  Snapshot snap(s.reader);  // one read transaction: every query of this poll sees the same batches
  const bool closing = closed_by_writer(s.reader);
  read_rows(s.reader, store_, s.cursor);
  if (closing) {
    std::shared_ptr<SessionOverview> overview = read_overview(s.reader, s.version);
    store_.set_overview(overview ? overview : std::make_shared<SessionOverview>(build_overview(store_)));
    finished_ = true;
  }
  return s.cursor.rows - before;
}

}  // namespace ts::prof
