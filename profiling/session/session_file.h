// The session file (*.tsession): SQLite, written by SessionWriter in batches and read back by
// open_session (the one reader the GUI and the tools use). Layout: docs/session-format.md.
// Identity: PRAGMA application_id = kSessionApplicationId, PRAGMA user_version and the
// schema_version table = kSessionSchemaVersion. Journal: WAL with synchronous=NORMAL, so every
// committed batch survives a killed process (kill -9 loses at most the batch in progress, <= 500 ms).
// A closed file is switched back to the rollback journal, so reading it leaves no -wal/-shm files.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/errors.h"
#include "profiling/event_store.h"

struct sqlite3;

namespace ts::prof {

constexpr std::int32_t kSessionApplicationId = 0x54534553;  // "TSES"
/// Format versions: 1 (the first), 2 (adds the whole-session timeline overview, `overview_lanes`),
/// 3 (adds `playground_ladders`, `playground_limits`, `playground_rows`: a playground run,
/// playground/session.h, which creates them; none in a training session), 4 (an event's row keeps
/// what changes from event to event, the rest is stored once per distinct combination in a group
/// table: session_schema.h), 5 (adds `graph_replays`: whole CUDA-graph replays recorded between the
/// per-kernel windows of a hybrid recording). read_session reads every version up to this one; older
/// files are migrated in memory (a file before 3 holds no playground run; before 4, flat event
/// tables; before 5, no graph replays).
constexpr int kSessionSchemaVersion = 5;
/// SQLite page size of the files the writer creates (bytes; SQLite's default is 4096). Every table
/// takes at least one page and a session has ~35, most of a few rows (meta, steps, group tables...):
/// at 4096 they are ~140 KB, a fifth of a short GPU session; at 1024 the large event tables cost ~2 %
/// more (page headers and the B-tree's inner pages). Files of other page sizes read the same.
constexpr int kSessionPageSize = 1024;
/// The meta key SessionRecorder writes last when it closes a file (a follower ends on it); the
/// reader never copies it into a store, so a copy of a file is not born closed.
inline constexpr const char* kSessionClosedKey = "session.closed";

/// A session file that cannot be opened or written: not a session, a newer schema, damaged, or an
/// I/O failure. what() is one line for the user.
class SessionError : public InputError {
 public:
  enum class Kind { not_a_session, newer_version, damaged, io, cancelled };
  SessionError(Kind kind, const std::string& message) : InputError(message), kind(kind) {}
  Kind kind;
};

/// Writes an EventStore into a new session file, incrementally, without the timeline overview: the
/// engine-free core (ts_prof_core) that the injection library links (a file without an overview is
/// a valid session: read_session builds it from the events). Not thread-safe: one thread calls
/// write_batch() (the profiler's writer thread, every <= 500 ms) and close().
class SessionRecorder {
 public:
  /// Creates `path` (replacing an existing file and its -wal/-shm). While it records, `path`.lock is
  /// held (flock): a second recorder on the same path, in this process or another, throws
  /// SessionError(io) "session file PATH is being recorded by another recorder ..." and touches
  /// nothing. Throws SessionError(io) when the file cannot be created.
  SessionRecorder(const std::string& path, const EventStore& store);
  virtual ~SessionRecorder();
  SessionRecorder(const SessionRecorder&) = delete;
  SessionRecorder& operator=(const SessionRecorder&) = delete;

  /// Writes every row added to the store since the previous call (and changed metadata) in one
  /// transaction, then checkpoints the WAL into the main file (passive: it never waits), so a killed
  /// recording's main file holds every batch but the last few even without its -wal. Returns false,
  /// and stops recording for good, when the write failed (disk full, I/O error): the transaction is
  /// rolled back, so the file holds every earlier batch; error() says why.
  bool write_batch();
  /// The next batch first deletes every row of the file's steps table, in its transaction: steps
  /// that were provisional (the injection library's one-second windows, replaced once the
  /// program's own step ranges appear) leave the file as the real ones arrive.
  void drop_steps_in_next_batch() { drop_steps_ = true; }
  /// A final batch, then a WAL checkpoint so the file stands alone; idempotent.
  void close() { finish(nullptr); }
  /// "" or one line naming the file: "session file F: disk full: recording stopped; ...".
  const std::string& error() const { return error_; }
  /// Rows written so far that count as events (StoreCounts::events()).
  std::int64_t events_written() const { return events_written_; }
  /// Step rows in the file now (what a summary says was recorded: after a failed write, fewer than
  /// the run took).
  std::int64_t steps_written() const { return static_cast<std::int64_t>(done_.steps); }
  const std::string& path() const { return path_; }

 protected:
  /// close() with `before_checkpoint(db)` run after the final batch when no write failed (its
  /// exceptions are swallowed: the file stays valid without what it wanted to add).
  void finish(void (*before_checkpoint)(sqlite3* db, const EventStore& store));
  const EventStore& store() const { return store_; }

 private:
  struct Statements;
  void exec(const char* sql);
  void write_rows(const StoreCounts& c);
  void write_meta();
  std::string why_failed(int rc) const;
  std::string path_;
  const EventStore& store_;
  sqlite3* db_ = nullptr;
  std::unique_ptr<Statements> st_;
  StoreCounts done_{};
  std::size_t strings_done_ = 0;
  std::uint64_t meta_version_done_ = ~0ull;
  std::int64_t events_written_ = 0;
  std::string error_;
  bool failed_ = false, closed_ = false, drop_steps_ = false;
  int lock_fd_ = -1;  // flock on path_ + ".lock" while recording
  void unlock();
};

/// SessionRecorder that also writes the whole-session timeline overview (profiling/overview.h)
/// when it closes: what TrainScope's own runs, imports and playground runs use (ts_profiling).
class SessionWriter : public SessionRecorder {
 public:
  using SessionRecorder::SessionRecorder;
  ~SessionWriter() override;
  /// A final batch, the overview, then a WAL checkpoint so the file stands alone; idempotent.
  void close();
};

/// Progress of read_session: `on_rows(rows_read, rows_total)` every few thousand rows (rows of every
/// table; the total is an upper bound from the tables' largest rowids). Returning false cancels the
/// read (SessionError kind cancelled; the store keeps the rows read so far).
struct ReadProgress {
  std::function<bool(std::int64_t rows_read, std::int64_t rows_total)> on_rows;
};

/// Reads a session file into `store` (which should be empty). The store may be read by other
/// threads while it fills (EventStore's one-writer contract), so a viewer can show a large session
/// progressively: metadata, threads, steps, epochs and samples come first, then the timeline
/// overview (EventStore::overview(): format 2; before any event), then host ranges, then the GPU
/// tables. Format 1 files (and files whose recording was killed before it closed) have no overview:
/// it is built from the events once they are read (the in-memory migration); a damaged overview is
/// rebuilt the same way (the file's events are the truth; the overview only summarises them). Throws SessionError: not_a_session (not SQLite, or another application's
/// database), newer_version (written by a newer TrainScope), damaged (truncated or malformed),
/// cancelled (ReadProgress said stop).
void read_session(const std::string& path, EventStore& store, const ReadProgress& progress = {});

/// Checks that `path` is a session this build reads (exists, SQLite, TrainScope's application id, a
/// known format version) without loading it; throws SessionError like read_session.
void check_session(const std::string& path);

/// Whether a writer still has `path` open: the file is in WAL mode (a -wal file beside it) and has
/// no overview yet (SessionWriter::close writes the overview last, then leaves WAL mode). A file
/// whose writer was killed looks the same; a follower tells them apart by whether it still grows.
bool session_being_written(const std::string& path);

/// Reads a session while its writer is still writing it (WAL: the writer never waits for this
/// reader, the reader sees each committed batch whole). poll() appends to `store` every row
/// committed since the previous poll, in the tables' order; the caller's thread that polls is then
/// the store's only writer. When the writer closes the file, poll() reads the rest and the
/// overview, and finished() turns true. Throws SessionError like read_session (constructor, poll).
class SessionFollower {
 public:
  SessionFollower(const std::string& path, EventStore& store);
  ~SessionFollower();
  SessionFollower(const SessionFollower&) = delete;
  SessionFollower& operator=(const SessionFollower&) = delete;
  /// Rows added to the store by this poll (0 when nothing new was committed).
  std::int64_t poll();
  bool finished() const { return finished_; }
  const std::string& path() const { return path_; }

 private:
  struct State;
  std::string path_;
  EventStore& store_;
  std::unique_ptr<State> state_;
  bool finished_ = false;
};

/// Size in bytes of the session file plus its -wal file (0 when absent).
std::int64_t session_file_bytes(const std::string& path);

}  // namespace ts::prof
