// Statement (see sqlite.h).
#include "base/sqlite.h"

#include "base/errors.h"

namespace ts::sqlite {

Statement::Statement(sqlite3* db, std::string_view sql, OnError on_error) : db_(db), on_error_(std::move(on_error)) {
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) != SQLITE_OK) {
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
    fail();
  }
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

void Statement::fail() const {
  const std::string message = db_ ? sqlite3_errmsg(db_) : "no database";
  if (on_error_) on_error_(message);
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

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail();
}

void Statement::run() {
  if (sqlite3_step(stmt_) != SQLITE_DONE) fail();
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
