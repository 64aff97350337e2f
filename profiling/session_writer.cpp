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
#include <utility>

#include "engine/host_trace.h"
#include "profiling/session_file.h"
#include "profiling/session_schema.h"

namespace ts::prof {
namespace {

struct Stmt {
  sqlite3_stmt* s = nullptr;
  ~Stmt() { sqlite3_finalize(s); }
};

/// A row of the file's kernel_configs: a kernel name with one of the store's interned launch
/// configurations (EventStore::kernel_configs).
using ConfigKey = std::pair<StringId, std::uint32_t>;

}  // namespace

struct SessionRecorder::Statements {
  Stmt strings, threads, config, kernel, memcpy, memset, runtime, sync, memory, overhead, range, step, loss, epoch, series,
      sample, clock, meta, dropped, py_frame, py_stack, py_sample;
  std::map<ConfigKey, std::int64_t> configs;
};

namespace {

class Binder {
 public:
  explicit Binder(sqlite3_stmt* s) : s_(s) { sqlite3_reset(s_); }
  Binder& i(std::int64_t v) {
    sqlite3_bind_int64(s_, ++n_, v);
    return *this;
  }
  Binder& d(double v) {
    sqlite3_bind_double(s_, ++n_, v);
    return *this;
  }
  Binder& t(const std::string& v) {
    sqlite3_bind_text(s_, ++n_, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Binder& blob(const std::string& v) {
    sqlite3_bind_blob(s_, ++n_, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  /// Runs the statement; throws the SQLite result code on failure.
  void run() {
    const int rc = sqlite3_step(s_);
    if (rc != SQLITE_DONE) throw rc;
  }

 private:
  sqlite3_stmt* s_;
  int n_ = 0;
};

void prepare(sqlite3* db, Stmt& st, const char* sql) {
  if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st.s, nullptr) != SQLITE_OK)
    throw SessionError(SessionError::Kind::io, std::string("session file: cannot prepare statement: ") +
                                                   sqlite3_errmsg(db));
}

}  // namespace

SessionRecorder::SessionRecorder(const std::string& path, const EventStore& store)
    : path_(path), store_(store), st_(std::make_unique<Statements>()) {
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
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=NORMAL");
    exec(("PRAGMA application_id=" + std::to_string(kSessionApplicationId)).c_str());
    exec(("PRAGMA user_version=" + std::to_string(kSessionSchemaVersion)).c_str());
    exec("BEGIN");
    exec(schema::kCreate);
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
  Statements& s = *st_;
  prepare(db_, s.strings, "INSERT INTO strings VALUES(?,?)");
  prepare(db_, s.threads, "INSERT INTO threads VALUES(?,?)");
  prepare(db_, s.config, "INSERT INTO kernel_configs VALUES(?,?,?,?,?,?,?,?,?,?,?)");
  prepare(db_, s.kernel, "INSERT INTO kernels VALUES(?,?,?,?,?,?,?,?,?,?)");
  prepare(db_, s.memcpy, "INSERT INTO memcpys VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)");
  prepare(db_, s.memset, "INSERT INTO memsets VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
  prepare(db_, s.runtime, "INSERT INTO runtime_calls VALUES(?,?,?,?,?,?,?,?)");
  prepare(db_, s.sync, "INSERT INTO syncs VALUES(?,?,?,?,?,?,?,?,?)");
  prepare(db_, s.memory, "INSERT INTO memory_events VALUES(?,?,?,?,?,?,?,?,?,?)");
  prepare(db_, s.overhead, "INSERT INTO overheads VALUES(?,?,?,?,?,?)");
  prepare(db_, s.range, "INSERT INTO host_ranges VALUES(?,?,?,?,?,?,?,?,?)");
  prepare(db_, s.step, "INSERT OR REPLACE INTO steps VALUES(?,?,?,?,?,NULL,?,?)");
  prepare(db_, s.loss, "UPDATE steps SET loss=? WHERE global_step=?");
  prepare(db_, s.epoch, "INSERT OR REPLACE INTO epochs VALUES(?,?,?,?,?,?,?,?,?)");
  prepare(db_, s.series, "INSERT OR REPLACE INTO sample_series VALUES(?,?,?)");
  prepare(db_, s.sample, "INSERT INTO samples VALUES(?,?,?)");
  prepare(db_, s.clock, "INSERT INTO clock_checks VALUES(?,?,?)");
  prepare(db_, s.meta, "INSERT OR REPLACE INTO meta VALUES(?,?)");
  prepare(db_, s.dropped, "INSERT OR REPLACE INTO dropped VALUES(?,?)");
  prepare(db_, s.py_frame, "INSERT OR REPLACE INTO py_frames VALUES(?,?,?,?)");
  prepare(db_, s.py_stack, "INSERT OR REPLACE INTO py_stacks VALUES(?,?,?)");
  prepare(db_, s.py_sample, "INSERT INTO py_samples VALUES(?,?,?)");
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
  for (const auto& [k, v] : store_.meta()) Binder(st_->meta.s).t(k).t(v).run();
}

void SessionRecorder::write_rows(const StoreCounts& c) {
  Statements& s = *st_;
  const EventStore& e = store_;
  const std::size_t nstrings = e.strings.size();  // after the counts: covers every id they use
  for (std::size_t i = strings_done_; i < nstrings; ++i) Binder(s.strings.s).i(static_cast<std::int64_t>(i)).t(e.strings.get(static_cast<StringId>(i))).run();
  for (std::size_t i = done_.threads; i < c.threads; ++i) Binder(s.threads.s).i(e.threads[i].tid).i(e.threads[i].name).run();
  for (std::size_t i = done_.kernels; i < c.kernels; ++i) {
    const KernelRecord& k = e.kernels[i];
    auto [it, fresh] = s.configs.emplace(ConfigKey{k.name, k.config}, static_cast<std::int64_t>(s.configs.size()));
    const KernelConfig& kc = e.config(k);
    if (fresh)
      Binder(s.config.s).i(it->second).i(k.name).i(kc.grid[0]).i(kc.grid[1]).i(kc.grid[2]).i(kc.block[0]).i(kc.block[1])
          .i(kc.block[2]).i(kc.registers).i(kc.static_smem).i(kc.dynamic_smem).run();
    Binder(s.kernel.s).i(k.start).i(k.end - k.start).i(k.device).i(k.rank).i(k.context).i(k.stream).i(k.correlation)
        .i(it->second).i(k.graph_id).i(static_cast<std::int64_t>(k.graph_node)).run();
  }
  for (std::size_t i = done_.memcpys; i < c.memcpys; ++i) {
    const MemcpyRecord& m = e.memcpys[i];
    Binder(s.memcpy.s).i(m.start).i(m.end - m.start).i(m.device).i(m.rank).i(m.context).i(m.stream).i(m.correlation)
        .i(m.bytes).i(m.copy_kind).i(m.src_kind).i(m.dst_kind).i(m.graph_id).i(static_cast<std::int64_t>(m.graph_node)).run();
  }
  for (std::size_t i = done_.memsets; i < c.memsets; ++i) {
    const MemsetRecord& m = e.memsets[i];
    Binder(s.memset.s).i(m.start).i(m.end - m.start).i(m.device).i(m.rank).i(m.context).i(m.stream).i(m.correlation)
        .i(m.bytes).i(m.value).i(m.memory_kind).i(m.graph_id).i(static_cast<std::int64_t>(m.graph_node)).run();
  }
  for (std::size_t i = done_.runtime; i < c.runtime; ++i) {
    const RuntimeRecord& r = e.runtime[i];
    Binder(s.runtime.s).i(r.start).i(r.end - r.start).i(e.process_rank.load()).i(r.thread).i(r.correlation).i(r.cbid).i(r.name)
        .i(r.result).run();
  }
  for (std::size_t i = done_.syncs; i < c.syncs; ++i) {
    const SyncRecord& r = e.syncs[i];
    Binder(s.sync.s).i(r.start).i(r.end - r.start).i(r.device).i(r.rank).i(r.context).i(r.stream).i(r.correlation)
        .i(r.type).i(r.event).run();
  }
  for (std::size_t i = done_.memory; i < c.memory; ++i) {
    const MemoryRecord& m = e.memory[i];
    Binder(s.memory.s).i(m.time).i(m.device).i(m.rank).i(m.context).i(m.stream).i(m.correlation).i(m.op)
        .i(m.memory_kind).i(static_cast<std::int64_t>(m.address)).i(m.bytes).run();
  }
  for (std::size_t i = done_.overheads; i < c.overheads; ++i) {
    const OverheadRecord& o = e.overheads[i];
    Binder(s.overhead.s).i(o.start).i(o.end - o.start).i(o.rank).i(o.kind).i(o.object_kind).i(o.object_id).run();
  }
  for (std::size_t i = done_.host_ranges; i < c.host_ranges; ++i) {
    const HostRangeRecord& h = e.host_ranges[i];
    Binder(s.range.s).i(h.start).i(h.end - h.start).i(h.device).i(h.rank).i(h.thread).i(h.kind).i(h.name).i(h.layer)
        .i(h.step).run();
  }
  for (std::size_t i = done_.steps; i < c.steps; ++i) {
    const StepRecord& r = e.steps[i];
    Binder(s.step.s).i(r.global_step).i(r.epoch).i(r.step).i(r.start).i(r.end).i(r.images).i(r.data_wait_ns).run();
  }
  const std::int64_t max_step = c.steps ? e.steps[c.steps - 1].global_step : 0;
  std::size_t losses = done_.losses;  // a loss waits until its step row is written
  for (; losses < c.losses && e.losses[losses].global_step <= max_step; ++losses)
    Binder(s.loss.s).d(e.losses[losses].loss).i(e.losses[losses].global_step).run();
  for (std::size_t i = done_.epochs; i < c.epochs; ++i) {
    const EpochRecord& r = e.epochs[i];
    Binder(s.epoch.s).i(r.epoch).d(r.train_loss).d(r.test_accuracy).d(r.test_loss).d(r.images_per_s).i(r.train_ns)
        .i(r.eval_ns).d(r.loss_scale).i(r.skipped_steps).run();
  }
  for (std::size_t i = done_.series; i < c.series; ++i)
    Binder(s.series.s).i(e.series[i].id).t(e.strings.get(e.series[i].name)).t(e.strings.get(e.series[i].unit)).run();
  for (std::size_t i = done_.samples; i < c.samples; ++i)
    Binder(s.sample.s).i(e.samples[i].time).i(e.samples[i].series).d(e.samples[i].value).run();
  for (std::size_t i = done_.clock; i < c.clock; ++i)
    Binder(s.clock.s).i(e.clock[i].time).i(e.clock[i].offset_ns).i(e.clock[i].drift_ns).run();
  for (std::size_t i = done_.py_frames; i < c.py_frames; ++i) {
    const PyFrameRecord& f = e.py_frames[i];
    Binder(s.py_frame.s).i(f.id).i(f.function).i(f.file).i(f.line).run();
  }
  for (std::size_t i = done_.py_stacks; i < c.py_stacks; ++i)
    Binder(s.py_stack.s).i(e.py_stacks[i].id).i(e.py_stacks[i].parent).i(e.py_stacks[i].frame).run();
  for (std::size_t i = done_.py_samples; i < c.py_samples; ++i)
    Binder(s.py_sample.s).i(e.py_samples[i].time).i(e.py_samples[i].thread).i(e.py_samples[i].stack).run();
  const DroppedCounts d = e.dropped();
  Binder(s.dropped.s).t("cupti").i(d.cupti).run();
  Binder(s.dropped.s).t("host_ranges").i(d.host_ranges).run();
  Binder(s.dropped.s).t("store_full").i(d.store_full).run();
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
