// SessionRecorder (see session_file.h): creates the schema, then appends each batch of new store rows
// in one transaction with prepared statements. Engine-free (ts_prof_core); the overview that
// SessionWriter adds at close lives in session_overview_write.cpp (ts_profiling).
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/sqlite.h"
#include "engine/host_trace.h"
#include "profiling/session/session_file.h"
#include "profiling/session/session_schema.h"

namespace ts::prof {
namespace {

/// A row of the file's kernel_configs: a kernel name with one of the store's interned launch
/// configurations (EventStore::kernel_configs).
using ConfigKey = std::pair<StringId, std::uint32_t>;

/// The value the writer writes for integer column `c` of `x`: `config` is a kernel's kernel_configs
/// row (Kind::config_id), `group` its group's id (Kind::group).
template <class R>
std::int64_t integer_value(const schema::Column<R>& c, const R& x, const EventStore& e, std::int64_t config,
                           std::int64_t group) {
  using schema::Kind;
  switch (c.kind) {
    case Kind::integer:
    case Kind::string_id: return c.get(x);
    case Kind::config_id: return config;
    case Kind::process_rank: return e.process_rank.load();
    case Kind::group: return group;
    case Kind::real:
    case Kind::string_text:
    case Kind::later: break;
  }
  return 0;
}

/// Binds `x` to `st` column by column as `t` describes it and runs the INSERT.
template <class R>
void insert(sqlite::Statement& st, const schema::Table<R>& t, const R& x, const EventStore& e, std::int64_t config,
            std::int64_t group) {
  using schema::Kind;
  for (const schema::Column<R>& c : t.columns) {
    switch (c.kind) {
      case Kind::real: st.real(c.get_real(x)); break;
      case Kind::string_text: st.text(e.strings.get(static_cast<StringId>(c.get(x)))); break;
      case Kind::later: break;  // NULL in the statement itself
      default: st.integer(integer_value(c, x, e, config, group));
    }
  }
  st.run();
}

/// A prepared statement that runs for the whole recording. A failed step throws its SQLite result
/// code, which write_batch() catches, rolls back and words (why_failed: disk full...).
sqlite::Statement persistent(sqlite3* db, const std::string& sql) {
  return sqlite::Statement(
      db, sql, [](const std::string&, int rc) { throw rc; }, SQLITE_PREPARE_PERSISTENT);
}

/// The values of a group's columns (every column of a group table but its id).
struct GroupKey {
  std::array<std::int64_t, schema::kMaxGroupColumns> v{};
  bool operator==(const GroupKey&) const = default;
};
struct GroupKeyHash {
  std::size_t operator()(const GroupKey& k) const {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the values
    for (const std::int64_t x : k.v) h = (h ^ static_cast<std::uint64_t>(x)) * 1099511628211ull;
    return static_cast<std::size_t>(h);
  }
};

/// A group table as the recording goes: each distinct combination of its columns' values gets the
/// next id (from 0) and its row the first time a record has it. A failed batch ends the recording
/// (write_batch), so ids handed out in a rolled-back batch are never used again.
template <class R>
class GroupWriter {
 public:
  GroupWriter(sqlite3* db, const schema::Table<R>& t) : st_(persistent(db, schema::insert_sql(t))), table_(t) {}
  /// The id of `x`'s group (`config`: a kernel's kernel_configs row), its row inserted when new.
  std::int64_t id(const R& x, const EventStore& e, std::int64_t config) {
    GroupKey k;
    std::size_t n = 0;
    for (const schema::Column<R>& c : table_.columns)
      if (c.kind != schema::Kind::group) k.v[n++] = integer_value(c, x, e, config, 0);
    const auto [it, fresh] = ids_.try_emplace(k, static_cast<std::int64_t>(ids_.size()));
    if (fresh) insert(st_, table_, x, e, config, it->second);
    return it->second;
  }

 private:
  sqlite::Statement st_;
  const schema::Table<R>& table_;
  std::unordered_map<GroupKey, std::int64_t, GroupKeyHash> ids_;
};

/// The writer of a record table whose rows are written as the store holds them.
class RowWriter {
 public:
  virtual ~RowWriter() = default;
  /// Inserts the store's rows past `done` up to `now` (the batch's counts).
  virtual void write(const EventStore& e, const StoreCounts& done, const StoreCounts& now) = 0;
};

/// Table `t`'s INSERT (and its group table's, if it has one) for the rows of the store's `log`,
/// counted by StoreCounts' `count`.
template <class R>
class TableWriter final : public RowWriter {
 public:
  TableWriter(sqlite3* db, const schema::Table<R>& t, AppendLog<R> EventStore::*log, std::size_t StoreCounts::*count)
      : st_(persistent(db, schema::insert_sql(t))), table_(t), log_(log), count_(count) {
    if (t.groups) groups_ = std::make_unique<GroupWriter<R>>(db, *t.groups);
  }
  void write(const EventStore& e, const StoreCounts& done, const StoreCounts& now) override {
    const AppendLog<R>& rows = e.*log_;
    for (std::size_t i = done.*count_; i < now.*count_; ++i) write_row(rows[i], e, 0);
  }
  /// One row (`config`: a kernel's kernel_configs row).
  void write_row(const R& x, const EventStore& e, std::int64_t config) {
    insert(st_, table_, x, e, config, groups_ ? groups_->id(x, e, config) : 0);
  }

 private:
  sqlite::Statement st_;
  const schema::Table<R>& table_;
  AppendLog<R> EventStore::*log_;
  std::size_t StoreCounts::*count_;
  std::unique_ptr<GroupWriter<R>> groups_;
};

template <class R>
std::unique_ptr<RowWriter> table_writer(sqlite3* db, const schema::Table<R>& t, AppendLog<R> EventStore::*log,
                                        std::size_t StoreCounts::*count) {
  return std::make_unique<TableWriter<R>>(db, t, log, count);
}

}  // namespace

struct SessionRecorder::Statements {
  /// Every INSERT of a batch, prepared once for the recording (persistent): one writer per record
  /// table as the store holds it (session_schema.h), then the tables written otherwise.
  explicit Statements(sqlite3* db)
      : kernels(db, events().kernels, &EventStore::kernels, &StoreCounts::kernels),
        strings(persistent(db, "INSERT INTO strings VALUES(?,?)")),
        config(persistent(db, schema::insert_sql(schema::kernel_configs()))),
        loss(persistent(db, "UPDATE steps SET loss=? WHERE global_step=?")),
        meta(persistent(db, "INSERT OR REPLACE INTO meta VALUES(?,?)")),
        dropped(persistent(db, "INSERT OR REPLACE INTO dropped VALUES(?,?)")) {
    using E = EventStore;
    using C = StoreCounts;
    tables.push_back(table_writer(db, schema::threads(), &E::threads, &C::threads));
    const schema::EventTables& t = events();
    tables.push_back(table_writer(db, t.memcpys, &E::memcpys, &C::memcpys));
    tables.push_back(table_writer(db, t.memsets, &E::memsets, &C::memsets));
    tables.push_back(table_writer(db, t.runtime_calls, &E::runtime, &C::runtime));
    tables.push_back(table_writer(db, t.syncs, &E::syncs, &C::syncs));
    tables.push_back(table_writer(db, t.memory_events, &E::memory, &C::memory));
    tables.push_back(table_writer(db, schema::overheads(), &E::overheads, &C::overheads));
    tables.push_back(table_writer(db, t.host_ranges, &E::host_ranges, &C::host_ranges));
    tables.push_back(table_writer(db, schema::steps(), &E::steps, &C::steps));
    tables.push_back(table_writer(db, schema::epochs(), &E::epochs, &C::epochs));
    tables.push_back(table_writer(db, schema::sample_series(), &E::series, &C::series));
    tables.push_back(table_writer(db, schema::samples(), &E::samples, &C::samples));
    tables.push_back(table_writer(db, schema::clock_checks(), &E::clock, &C::clock));
    tables.push_back(table_writer(db, schema::py_frames(), &E::py_frames, &C::py_frames));
    tables.push_back(table_writer(db, schema::py_stacks(), &E::py_stacks, &C::py_stacks));
    tables.push_back(table_writer(db, schema::py_samples(), &E::py_samples, &C::py_samples));
    tables.push_back(table_writer(db, schema::metric_series(), &E::metric_series, &C::metric_series));
    tables.push_back(table_writer(db, schema::metric_samples(), &E::metric_samples, &C::metric_samples));
    tables.push_back(table_writer(db, schema::graph_nodes(), &E::graph_nodes, &C::graph_nodes));
    tables.push_back(table_writer(db, schema::graph_replays(), &E::graph_replays, &C::graph_replays));
  }
  static const schema::EventTables& events() { return schema::event_tables(kSessionSchemaVersion); }
  std::vector<std::unique_ptr<RowWriter>> tables;
  /// The kernels with their launch configurations (a kernel_configs row the first time one is
  /// seen), the strings, a step's loss (set once read back), the metadata and the dropped counts.
  TableWriter<KernelRecord> kernels;
  sqlite::Statement strings, config, loss, meta, dropped;
  std::map<ConfigKey, std::int64_t> configs;
};

SessionRecorder::SessionRecorder(const std::string& path, const EventStore& store)
    : path_(path), store_(store) {
  // The lock first: a second recorder must not remove the first one's file. A folder where the lock
  // cannot be created cannot hold the session either (that error follows from SQLite).
  lock_fd_ = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ >= 0 && ::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
    throw SessionError(SessionError::Kind::io, "session file " + path +
                                                   " is being recorded by another recorder (its .lock is held): stop "
                                                   "that recording or choose another path");
  }
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix, ec);
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    unlock();
    throw SessionError(SessionError::Kind::io, "cannot create session file " + path + ": " + why);
  }
  try {
    exec(("PRAGMA page_size=" + std::to_string(kSessionPageSize)).c_str());  // before WAL: fixed from then on
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=NORMAL");
    exec(("PRAGMA application_id=" + std::to_string(kSessionApplicationId)).c_str());
    exec(("PRAGMA user_version=" + std::to_string(kSessionSchemaVersion)).c_str());
    exec("BEGIN");
    exec(schema::create_sql(kSessionSchemaVersion).c_str());
    exec(("INSERT INTO schema_version VALUES(" + std::to_string(kSessionSchemaVersion) + ")").c_str());
    for (int k = 0; k < static_cast<int>(trace::RangeKind::count); ++k)
      exec(("INSERT INTO range_kinds VALUES(" + std::to_string(k) + ",'" +
            trace::range_kind_name(static_cast<trace::RangeKind>(k)) + "')").c_str());
    exec("COMMIT");
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    unlock();
    throw;
  }
  try {
    st_ = std::make_unique<Statements>(db_);
  } catch (int) {
    const std::string why = sqlite3_errmsg(db_);
    sqlite3_close(db_);
    db_ = nullptr;
    unlock();
    throw SessionError(SessionError::Kind::io, "session file " + path_ + ": cannot prepare statement: " + why);
  }
}

SessionRecorder::~SessionRecorder() {
  try {
    close();
  } catch (...) {
  }
  unlock();
}

void SessionRecorder::unlock() {
  if (lock_fd_ < 0) return;
  std::error_code ec;
  std::filesystem::remove(path_ + ".lock", ec);  // unlinked while still held: a waiting recorder sees a new file
  ::close(lock_fd_);
  lock_fd_ = -1;
}

void SessionRecorder::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string why = err ? err : "unknown error";
    sqlite3_free(err);
    throw SessionError(SessionError::Kind::io, "session file " + path_ + ": " + why);
  }
}

void SessionRecorder::write_meta() {
  if (store_.meta_version() == meta_version_done_) return;
  meta_version_done_ = store_.meta_version();
  for (const auto& [k, v] : store_.meta()) st_->meta.text(k).text(v).run();
}

void SessionRecorder::write_rows(const StoreCounts& c) {
  Statements& s = *st_;
  const EventStore& e = store_;
  const std::size_t nstrings = e.strings.size();  // after the counts: covers every id they use
  for (std::size_t i = strings_done_; i < nstrings; ++i) s.strings.integer(static_cast<std::int64_t>(i)).text(e.strings.get(static_cast<StringId>(i))).run();
  for (const auto& table : s.tables) table->write(e, done_, c);  // steps before their losses
  for (std::size_t i = done_.kernels; i < c.kernels; ++i) {
    const KernelRecord& k = e.kernels[i];
    auto [it, fresh] = s.configs.emplace(ConfigKey{k.name, k.config}, static_cast<std::int64_t>(s.configs.size()));
    if (fresh) insert(s.config, schema::kernel_configs(), schema::ConfigRow{it->second, k.name, e.config(k)}, e, 0, 0);
    s.kernels.write_row(k, e, it->second);
  }
  const std::int64_t max_step = c.steps ? e.steps[c.steps - 1].global_step : 0;
  std::size_t losses = done_.losses;  // a loss waits until its step row is written
  for (; losses < c.losses && e.losses[losses].global_step <= max_step; ++losses)
    s.loss.real(e.losses[losses].loss).integer(e.losses[losses].global_step).run();
  const DroppedCounts d = e.dropped();
  s.dropped.text("cupti").integer(d.cupti).run();
  s.dropped.text("host_ranges").integer(d.host_ranges).run();
  s.dropped.text("store_full").integer(d.store_full).run();
  write_meta();
  strings_done_ = nstrings;
  StoreCounts next = c;
  next.losses = losses;
  done_ = next;
}

std::string SessionRecorder::why_failed(int rc) const {
  // One line naming the file; a full disk or a file size limit (EFBIG) reads as such, not as "disk I/O error".
  const int err = sqlite3_system_errno(db_), ext = sqlite3_extended_errcode(db_);
  const std::string why = (rc & 0xff) == SQLITE_FULL || err == ENOSPC || err == EDQUOT ? "disk full"
                          : err == EFBIG ? "file size limit reached"
                          : ext == SQLITE_IOERR_WRITE ? "write failed (disk full or file size limit)"
                                                      : sqlite3_errstr(rc);
  return "session file " + path_ + ": " + why + ": recording stopped; the file keeps every batch written before";
}

bool SessionRecorder::write_batch() {
  if (failed_ || closed_) return !failed_;
  // Counts first: rows published after this instant wait for the next batch.
  const StoreCounts c = store_.counts();
  const StoreCounts before = done_;
  const std::size_t strings_before = strings_done_;
  try {
    exec("BEGIN");
    if (drop_steps_) exec("DELETE FROM steps");
    write_rows(c);
    exec("COMMIT");
    // Into the main file now, not at 1000 pages: a killed run's file copied without its -wal is whole
    // but for the batches a reader held back. Passive: never waits for a follower.
    sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    drop_steps_ = false;
    events_written_ = static_cast<std::int64_t>(done_.events());
    return true;
  } catch (int rc) {
    error_ = why_failed(rc);
  } catch (const SessionError&) {
    error_ = why_failed(sqlite3_extended_errcode(db_));
  }
  sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  done_ = before;
  strings_done_ = strings_before;
  failed_ = true;
  return false;
}

void SessionRecorder::finish(void (*before_checkpoint)(sqlite3* db, const EventStore& store)) {
  if (closed_ || !db_) return;
  write_batch();
  if (!failed_ && before_checkpoint) {
    // What a subclass adds (the overview) only summarises what is in the file: a file that lacks it
    // (a failed write, a killed run) gets one built by the reader, so a failure here only costs that.
    try {
      before_checkpoint(db_, store_);
    } catch (...) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
  }
  closed_ = true;
  st_.reset();
  // The close marker a follower waits for (SessionFollower: every row is in the file), after
  // everything else and never into a store (kSessionClosedKey).
  if (!failed_)
    sqlite3_exec(db_, (std::string("INSERT OR REPLACE INTO meta VALUES('") + kSessionClosedKey + "','1')").c_str(),
                 nullptr, nullptr, nullptr);
  sqlite3_exec(db_, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
  // A finished file leaves WAL mode: readers of a WAL file create -wal and -shm files beside it
  // that a read-only connection cannot remove (every --analyze left two). A killed run never gets
  // here and stays in WAL mode, its batches in the -wal file.
  sqlite3_exec(db_, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr);
  sqlite3_close(db_);
  db_ = nullptr;
  unlock();
}

std::int64_t session_file_bytes(const std::string& path) {
  std::error_code ec;
  std::int64_t total = 0;
  for (const char* suffix : {"", "-wal"}) {
    const auto n = std::filesystem::file_size(path + suffix, ec);
    if (!ec) total += static_cast<std::int64_t>(n);
  }
  return total;
}

}  // namespace ts::prof
