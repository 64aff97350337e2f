// One SQLite prepared statement (RAII) for every reader and writer of a SQLite file: parameters
// bound in order, rows stepped, columns read, and every failure turned into the caller's own typed
// error — an import's InputError, a session's SessionError — by the handler it gives, with SQLite's
// own message and result code. Qt-free; libsqlite3 directly. Used by the session writer and reader
// (profiling/session/: session_writer.cpp, session_reader.cpp, session_overview_write.cpp), the
// Nsight Systems reader (profiling/import/nsys/sqlite_db.h) and the playground's session tables
// (playground/session.cpp).
#pragma once
#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace ts::sqlite {

/// How much of an SQLite message an error quotes (escaped by printable(): a message can quote a name
/// from a hostile file, line feeds included); its longest own texts are under 100 characters.
inline constexpr std::size_t kMessageChars = 240;

/// Called with sqlite3_errmsg() and the extended result code when a statement cannot be prepared or
/// a step fails. It throws the caller's typed error; should it return, Statement throws ts::Error.
using OnError = std::function<void(const std::string& sqlite_message, int result_code)>;

class Statement {
 public:
  /// Prepares `sql` on `db` (not owned; it outlives the statement). `prepare_flags`: sqlite3_prepare_v3's
  /// (SQLITE_PREPARE_PERSISTENT for a statement run for the whole life of a connection).
  Statement(sqlite3* db, std::string_view sql, OnError on_error, unsigned prepare_flags = 0);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  /// Bind the next parameter: ?1, ?2, ... in the order of the calls (run() and reset() start again at ?1).
  Statement& text(std::string_view v);
  Statement& real(double v);
  Statement& integer(std::int64_t v);
  Statement& blob(std::string_view bytes);

  /// The next row: true at a row, false at the end; a failure goes to the handler.
  bool step();
  /// Runs a statement that returns no rows (INSERT) to its end, then resets it for the next bindings
  /// (also when it fails, before the handler is called).
  void run();
  /// Back to before the first row, the bindings kept; the next bind is ?1 again.
  void reset();

  /// Column `i` of the current row: SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL.
  int column_type(int i) const { return sqlite3_column_type(stmt_, i); }
  std::int64_t column_int64(int i) const { return sqlite3_column_int64(stmt_, i); }
  double column_double(int i) const { return sqlite3_column_double(stmt_, i); }
  /// The column's bytes as text, as stored (not checked for UTF-8); "" for NULL.
  std::string column_text(int i) const;
  /// The raw statement, for what this class does not wrap.
  sqlite3_stmt* handle() const { return stmt_; }

 private:
  [[noreturn]] void fail(int rc, const std::string& message) const;
  [[noreturn]] void fail() const;
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  OnError on_error_;
  int next_ = 0;  // the last parameter bound
};

}  // namespace ts::sqlite
