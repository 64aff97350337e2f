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

#include "base/sqlite.h"
#include "engine/host_trace.h"
#include "profiling/session_file.h"
#include "profiling/session_schema.h"

namespace ts::prof {
namespace {

/// A row of the file's kernel_configs: a kernel name with one of the store's interned launch
/// configurations (EventStore::kernel_configs).
using ConfigKey = std::pair<StringId, std::uint32_t>;

}  // namespace

struct SessionRecorder::Statements {
  /// Every INSERT of a batch, prepared once for the recording (persistent). A failed step throws its
  /// SQLite result code, which write_batch() catches, rolls back and words (why_failed: disk full...).
  explicit Statements(sqlite3* db)
      : strings(make(db, "INSERT INTO strings VALUES(?,?)")),
        threads(make(db, "INSERT INTO threads VALUES(?,?)")),
        config(make(db, "INSERT INTO kernel_configs VALUES(?,?,?,?,?,?,?,?,?,?,?)")),
        kernel(make(db, "INSERT INTO kernels VALUES(?,?,?,?,?,?,?,?,?,?)")),
        memcpy(make(db, "INSERT INTO memcpys VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)")),
        memset(make(db, "INSERT INTO memsets VALUES(?,?,?,?,?,?,?,?,?,?,?,?)")),
        runtime(make(db, "INSERT INTO runtime_calls VALUES(?,?,?,?,?,?,?,?)")),
        sync(make(db, "INSERT INTO syncs VALUES(?,?,?,?,?,?,?,?,?)")),
        memory(make(db, "INSERT INTO memory_events VALUES(?,?,?,?,?,?,?,?,?,?)")),
        overhead(make(db, "INSERT INTO overheads VALUES(?,?,?,?,?,?)")),
        range(make(db, "INSERT INTO host_ranges VALUES(?,?,?,?,?,?,?,?,?)")),
        step(make(db, "INSERT OR REPLACE INTO steps VALUES(?,?,?,?,?,NULL,?,?)")),
        loss(make(db, "UPDATE steps SET loss=? WHERE global_step=?")),
        epoch(make(db, "INSERT OR REPLACE INTO epochs VALUES(?,?,?,?,?,?,?,?,?)")),
        series(make(db, "INSERT OR REPLACE INTO sample_series VALUES(?,?,?)")),
        sample(make(db, "INSERT INTO samples VALUES(?,?,?)")),
        clock(make(db, "INSERT INTO clock_checks VALUES(?,?,?)")),
        meta(make(db, "INSERT OR REPLACE INTO meta VALUES(?,?)")),
        dropped(make(db, "INSERT OR REPLACE INTO dropped VALUES(?,?)")),
        py_frame(make(db, "INSERT OR REPLACE INTO py_frames VALUES(?,?,?,?)")),
        py_stack(make(db, "INSERT OR REPLACE INTO py_stacks VALUES(?,?,?)")),
        py_sample(make(db, "INSERT INTO py_samples VALUES(?,?,?)")) {}
  static sqlite::Statement make(sqlite3* db, const char* sql) {
    return sqlite::Statement(
        db, sql,
        [](const std::string&, int rc) { throw rc; },
        SQLITE_PREPARE_PERSISTENT);
  }
  sqlite::Statement strings, threads, config, kernel, memcpy, memset, runtime, sync, memory, overhead, range, step,
      loss, epoch, series, sample, clock, meta, dropped, py_frame, py_stack, py_sample;
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
  for (std::size_t i = done_.threads; i < c.threads; ++i) s.threads.integer(e.threads[i].tid).integer(e.threads[i].name).run();
  for (std::size_t i = done_.kernels; i < c.kernels; ++i) {
    const KernelRecord& k = e.kernels[i];
    auto [it, fresh] = s.configs.emplace(ConfigKey{k.name, k.config}, static_cast<std::int64_t>(s.configs.size()));
    const KernelConfig& kc = e.config(k);
    if (fresh)
      s.config.integer(it->second).integer(k.name).integer(kc.grid[0]).integer(kc.grid[1]).integer(kc.grid[2]).integer(kc.block[0]).integer(kc.block[1])
          .integer(kc.block[2]).integer(kc.registers).integer(kc.static_smem).integer(kc.dynamic_smem).run();
    s.kernel.integer(k.start).integer(k.end - k.start).integer(k.device).integer(k.rank).integer(k.context).integer(k.stream).integer(k.correlation)
        .integer(it->second).integer(k.graph_id).integer(static_cast<std::int64_t>(k.graph_node)).run();
  }
  for (std::size_t i = done_.memcpys; i < c.memcpys; ++i) {
    const MemcpyRecord& m = e.memcpys[i];
    s.memcpy.integer(m.start).integer(m.end - m.start).integer(m.device).integer(m.rank).integer(m.context).integer(m.stream).integer(m.correlation)
        .integer(m.bytes).integer(m.copy_kind).integer(m.src_kind).integer(m.dst_kind).integer(m.graph_id).integer(static_cast<std::int64_t>(m.graph_node)).run();
  }
  for (std::size_t i = done_.memsets; i < c.memsets; ++i) {
    const MemsetRecord& m = e.memsets[i];
    s.memset.integer(m.start).integer(m.end - m.start).integer(m.device).integer(m.rank).integer(m.context).integer(m.stream).integer(m.correlation)
        .integer(m.bytes).integer(m.value).integer(m.memory_kind).integer(m.graph_id).integer(static_cast<std::int64_t>(m.graph_node)).run();
  }
  for (std::size_t i = done_.runtime; i < c.runtime; ++i) {
    const RuntimeRecord& r = e.runtime[i];
    s.runtime.integer(r.start).integer(r.end - r.start).integer(e.process_rank.load()).integer(r.thread).integer(r.correlation).integer(r.cbid).integer(r.name)
        .integer(r.result).run();
  }
  for (std::size_t i = done_.syncs; i < c.syncs; ++i) {
    const SyncRecord& r = e.syncs[i];
    s.sync.integer(r.start).integer(r.end - r.start).integer(r.device).integer(r.rank).integer(r.context).integer(r.stream).integer(r.correlation)
        .integer(r.type).integer(r.event).run();
  }
  for (std::size_t i = done_.memory; i < c.memory; ++i) {
    const MemoryRecord& m = e.memory[i];
    s.memory.integer(m.time).integer(m.device).integer(m.rank).integer(m.context).integer(m.stream).integer(m.correlation).integer(m.op)
        .integer(m.memory_kind).integer(static_cast<std::int64_t>(m.address)).integer(m.bytes).run();
  }
  for (std::size_t i = done_.overheads; i < c.overheads; ++i) {
    const OverheadRecord& o = e.overheads[i];
    s.overhead.integer(o.start).integer(o.end - o.start).integer(o.rank).integer(o.kind).integer(o.object_kind).integer(o.object_id).run();
  }
  for (std::size_t i = done_.host_ranges; i < c.host_ranges; ++i) {
    const HostRangeRecord& h = e.host_ranges[i];
    s.range.integer(h.start).integer(h.end - h.start).integer(h.device).integer(h.rank).integer(h.thread).integer(h.kind).integer(h.name).integer(h.layer)
        .integer(h.step).run();
  }
  for (std::size_t i = done_.steps; i < c.steps; ++i) {
    const StepRecord& r = e.steps[i];
    s.step.integer(r.global_step).integer(r.epoch).integer(r.step).integer(r.start).integer(r.end).integer(r.images).integer(r.data_wait_ns).run();
  }
  const std::int64_t max_step = c.steps ? e.steps[c.steps - 1].global_step : 0;
  std::size_t losses = done_.losses;  // a loss waits until its step row is written
  for (; losses < c.losses && e.losses[losses].global_step <= max_step; ++losses)
    s.loss.real(e.losses[losses].loss).integer(e.losses[losses].global_step).run();
  for (std::size_t i = done_.epochs; i < c.epochs; ++i) {
    const EpochRecord& r = e.epochs[i];
    s.epoch.integer(r.epoch).real(r.train_loss).real(r.test_accuracy).real(r.test_loss).real(r.images_per_s).integer(r.train_ns)
        .integer(r.eval_ns).real(r.loss_scale).integer(r.skipped_steps).run();
  }
  for (std::size_t i = done_.series; i < c.series; ++i)
    s.series.integer(e.series[i].id).text(e.strings.get(e.series[i].name)).text(e.strings.get(e.series[i].unit)).run();
  for (std::size_t i = done_.samples; i < c.samples; ++i)
    s.sample.integer(e.samples[i].time).integer(e.samples[i].series).real(e.samples[i].value).run();
  for (std::size_t i = done_.clock; i < c.clock; ++i)
    s.clock.integer(e.clock[i].time).integer(e.clock[i].offset_ns).integer(e.clock[i].drift_ns).run();
  for (std::size_t i = done_.py_frames; i < c.py_frames; ++i) {
    const PyFrameRecord& f = e.py_frames[i];
    s.py_frame.integer(f.id).integer(f.function).integer(f.file).integer(f.line).run();
  }
  for (std::size_t i = done_.py_stacks; i < c.py_stacks; ++i)
    s.py_stack.integer(e.py_stacks[i].id).integer(e.py_stacks[i].parent).integer(e.py_stacks[i].frame).run();
  for (std::size_t i = done_.py_samples; i < c.py_samples; ++i)
    s.py_sample.integer(e.py_samples[i].time).integer(e.py_samples[i].thread).integer(e.py_samples[i].stack).run();
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
