// Db and Stmt (see sqlite_db.h).
#include "profiling/import/nsys/sqlite_db.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace ts::prof::import::nsys {

namespace {

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](unsigned char x, unsigned char y) {
           return std::tolower(x) == std::tolower(y);
         });
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

/// Length of the valid UTF-8 sequence at s[i], or 0 when the bytes there are not one.
std::size_t utf8_len(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  if (n == 2 && c < 0xC2) return 0;  // overlong
  if (n == 3) {
    const auto c1 = static_cast<unsigned char>(s[i + 1]);
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0)) return 0;  // overlong, surrogates
  }
  if (n == 4) {
    const auto c1 = static_cast<unsigned char>(s[i + 1]);
    if ((c == 0xF0 && c1 < 0x90) || c > 0xF4 || (c == 0xF4 && c1 >= 0x90)) return 0;
  }
  return n;
}

/// Outside files are not trusted: no schema-defined functions with side effects, no writes.
void harden(sqlite3* db) {
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 64 << 20);  // one value (a name) of at most 64 MiB
}

}  // namespace

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_len(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string quote_id(std::string_view name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

const ColumnInfo* TableInfo::column(std::string_view n) const {
  for (const auto& c : columns)
    if (iequal(c.name, n)) return &c;
  return nullptr;
}

Db Db::open_file(const std::string& path) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    const std::string why = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    throw InputError(path + ": cannot be opened as a SQLite file (" + why + ")");
  }
  harden(db);
  return Db(db, path);
}

Db Db::open_bytes(const void* data, std::size_t size, const std::string& name) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    throw InputError(name + ": SQLite could not open an in-memory database");
  }
  auto* copy = static_cast<unsigned char*>(sqlite3_malloc64(size == 0 ? 1 : size));
  if (!copy) {
    sqlite3_close(db);
    throw InputError(name + ": out of memory for " + std::to_string(size) + " bytes");
  }
  if (size) std::memcpy(copy, data, size);
  const int rc =
      sqlite3_deserialize(db, "main", copy, static_cast<sqlite3_int64>(size), static_cast<sqlite3_int64>(size),
                          SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY);
  if (rc != SQLITE_OK) {
    sqlite3_close(db);
    throw InputError(name + ": not a SQLite file (" + sqlite3_errstr(rc) + ")");
  }
  harden(db);
  return Db(db, name);
}

Db::~Db() {
  if (db_) sqlite3_close(db_);
}

std::map<std::string, TableInfo> Db::tables() const {
  std::map<std::string, TableInfo> out;
  {
    Stmt s(*this, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
           "sqlite_master");
    while (s.step()) {
      if (s.type(0) != SQLITE_TEXT) continue;
      const std::string n = s.text(0);
      out[n].name = n;
    }
  }
  for (auto& [n, t] : out) {
    // A table SQLite cannot describe (a virtual table of a module this build lacks) keeps no
    // columns: the importer does not know it, so it is ignored like any unknown table.
    try {
      Stmt s(*this, "SELECT name, type, \"notnull\" FROM pragma_table_info(?1)", "PRAGMA table_info(" + n + ")");
      s.statement().text(n);
      while (s.step()) t.columns.push_back({s.text(0), upper(s.text(1)), s.type(2) == SQLITE_INTEGER && s.i64(2) != 0});
    } catch (const InputError&) {
      t.columns.clear();
    }
  }
  return out;
}

Stmt::Stmt(const Db& db, const std::string& sql, const std::string& what)
    : s_(db.handle(), sql, [prefix = db.name() + ": " + what](const std::string& why, int) {
        throw InputError(prefix + " cannot be read (" + why + ")");
      }) {}

std::string Stmt::text(int i) const {
  return valid_utf8(s_.column_text(i));
}

}  // namespace ts::prof::import::nsys
