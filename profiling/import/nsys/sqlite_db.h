// A small read-only view of a SQLite file for the Nsight Systems importer: open (a path or bytes in
// memory), the tables of sqlite_master and their columns from PRAGMA table_info, and prepared
// statements (base/sqlite.h's Statement) whose values are read with their SQLite storage class
// checked. Qt-free. Errors are ts::InputError with one line that names the file (and the SQL's table).
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/errors.h"
#include "base/sqlite.h"

namespace ts::prof::import::nsys {

/// One column as PRAGMA table_info gives it: name and declared type (upper-cased; "" when untyped).
struct ColumnInfo {
  std::string name;
  std::string type;
  bool not_null = false;
};

/// A table of sqlite_master with its columns, looked up by name (case-insensitive, as SQLite does).
struct TableInfo {
  std::string name;
  std::vector<ColumnInfo> columns;
  /// The column called `name` (any case), or nullptr.
  const ColumnInfo* column(std::string_view name) const;
};

class Db {
 public:
  /// Opens `path` read-only (no journal written, no locks taken beyond SQLite's shared read lock).
  /// Throws InputError "NAME: not a SQLite file (...)" when SQLite refuses it.
  static Db open_file(const std::string& path);
  /// A copy of `size` bytes in memory (the fuzzer, tests); `name` stands for the file in messages.
  static Db open_bytes(const void* data, std::size_t size, const std::string& name);
  Db(Db&& o) noexcept : db_(o.db_), name_(std::move(o.name_)) { o.db_ = nullptr; }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db();

  sqlite3* handle() const { return db_; }
  const std::string& name() const { return name_; }
  /// Every table (not views, not sqlite_* internals) by exact name, with its columns. Throws
  /// InputError when sqlite_master cannot be read (a damaged or encrypted file).
  std::map<std::string, TableInfo> tables() const;

 private:
  Db(sqlite3* db, std::string name) : db_(db), name_(std::move(name)) {}
  sqlite3* db_ = nullptr;
  std::string name_;
};

/// A prepared statement over one table; step() throws InputError naming the file and `what`
/// (usually the table) when SQLite reports an error mid-scan (a damaged page).
class Stmt {
 public:
  Stmt(const Db& db, const std::string& sql, const std::string& what);
  /// Advances to the next row; false at the end.
  bool step() { return s_.step(); }
  /// SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL of column `i`.
  int type(int i) const { return s_.column_type(i); }
  std::int64_t i64(int i) const { return s_.column_int64(i); }
  double real(int i) const { return s_.column_double(i); }
  /// The column's bytes as text, made valid UTF-8 (bytes that are not become U+FFFD); "" for NULL.
  std::string text(int i) const;
  /// The statement, for binding parameters.
  sqlite::Statement& statement() { return s_; }

 private:
  sqlite::Statement s_;
};

/// `s` with every byte sequence that is not UTF-8 replaced by U+FFFD (the importer never fails on text).
std::string valid_utf8(std::string_view s);
/// "\"name\"" with inner quotes doubled: a table or column name as an SQL identifier.
std::string quote_id(std::string_view name);

}  // namespace ts::prof::import::nsys
