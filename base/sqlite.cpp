// Statement (see sqlite.h).
#include "base/sqlite.h"

#include "base/errors.h"
#include "base/printable.h"

namespace ts::sqlite {

Statement::Statement(sqlite3* db, std::string_view sql, OnError on_error, unsigned prepare_flags)
    : db_(db), on_error_(std::move(on_error)) {
  if (sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), prepare_flags, &stmt_, nullptr) != SQLITE_OK) {
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
    fail();
  }
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

void Statement::fail() const {
  fail(db_ ? sqlite3_extended_errcode(db_) : SQLITE_MISUSE, db_ ? sqlite3_errmsg(db_) : "no database");
}

void Statement::fail(int rc, const std::string& raw) const {
  // SQLite's messages quote names from the file ("malformed database schema (NAME)"): a hostile file's
  // names may hold line feeds and escape sequences, so they are escaped into one printable line.
  const std::string message = printable(raw, kMessageChars);
  if (on_error_) on_error_(message, rc);
  throw Error("SQLite: " + message);
}

Statement& Statement::text(std::string_view v) {
  sqlite3_bind_text(stmt_, ++next_, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::real(double v) {
  sqlite3_bind_double(stmt_, ++next_, v);
  return *this;
}

Statement& Statement::integer(std::int64_t v) {
  sqlite3_bind_int64(stmt_, ++next_, v);
  return *this;
}

Statement& Statement::blob(std::string_view bytes) {
  sqlite3_bind_blob(stmt_, ++next_, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail();
}

void Statement::run() {
  if (sqlite3_step(stmt_) != SQLITE_DONE) {
    const int rc = sqlite3_extended_errcode(db_);
    const std::string message = sqlite3_errmsg(db_);
    reset();
    fail(rc, message);
  }
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  next_ = 0;
}

std::string Statement::column_text(int i) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, i));
  const int n = sqlite3_column_bytes(stmt_, i);
  if (!p || n <= 0) return "";
  return std::string(p, static_cast<std::size_t>(n));
}

}  // namespace ts::sqlite
