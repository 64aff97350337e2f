// Playground sessions (see session.h): SessionWriter for the events, then the playground tables in
// one transaction; reading goes straight to those tables (the events load through open_session).
#include "playground/session.h"

#include <sqlite3.h>

#include <memory>

#include "profiling/event_store.h"
#include "profiling/session_file.h"

namespace ts::playground {
namespace {

using prof::SessionError;

/// The playground's own tables (docs/session-format.md), created in a session file when a
/// playground run is added to it; a training session has none. Session format 3.
constexpr const char* kCreateTables = R"SQL(
CREATE TABLE IF NOT EXISTS playground_ladders(ladder INTEGER PRIMARY KEY, family TEXT NOT NULL, title TEXT, unit TEXT,
  size INTEGER, size_what TEXT, warning TEXT);
CREATE TABLE IF NOT EXISTS playground_limits(ladder INTEGER, position INTEGER, what TEXT, value REAL, measured INTEGER,
  source TEXT);
CREATE TABLE IF NOT EXISTS playground_rows(ladder INTEGER, row INTEGER, name TEXT, what_changed TEXT, own INTEGER,
  checked INTEGER, check_passed INTEGER, max_error REAL, tolerance REAL, check_what TEXT, median_ns REAL,
  event_ns REAL, launches INTEGER, kernels_per_launch INTEGER, time_source TEXT, work REAL, throughput REAL,
  share_of_best REAL, share_of_limit REAL, row_limit REAL, row_limit_what TEXT, launch TEXT, note TEXT);
)SQL";

struct Db {
  sqlite3* db = nullptr;
  std::string path;
  ~Db() {
    if (db) sqlite3_close(db);
  }
  [[noreturn]] void fail(SessionError::Kind kind, const std::string& what) const {
    throw SessionError(kind, "session file " + path + ": " + what + ": " + (db ? sqlite3_errmsg(db) : "cannot open"));
  }
  void exec(const char* sql) const {
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK)
      fail(SessionError::Kind::io, "writing the playground");
  }
};

struct Stmt {
  sqlite3_stmt* s = nullptr;
  int col = 0;
  Stmt(const Db& d, const char* sql) {
    if (sqlite3_prepare_v2(d.db, sql, -1, &s, nullptr) != SQLITE_OK)
      d.fail(SessionError::Kind::damaged, "playground tables");
  }
  ~Stmt() { sqlite3_finalize(s); }
  Stmt& text(const std::string& v) {
    sqlite3_bind_text(s, ++col, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& real(double v) {
    sqlite3_bind_double(s, ++col, v);
    return *this;
  }
  Stmt& integer(std::int64_t v) {
    sqlite3_bind_int64(s, ++col, v);
    return *this;
  }
  void step(const Db& d) {
    if (sqlite3_step(s) != SQLITE_DONE) d.fail(SessionError::Kind::io, "writing the playground");
    sqlite3_reset(s);
    col = 0;
  }
  std::string get_text(int i) const {
    const auto* p = sqlite3_column_text(s, i);
    return p ? reinterpret_cast<const char*>(p) : "";
  }
};

void insert_limit(Stmt& st, const Db& d, int ladder, int position, const Limit& l) {
  st.integer(ladder).integer(position).text(l.what).real(l.value).integer(l.measured).text(l.source).step(d);
}

void insert_row(Stmt& st, const Db& d, int ladder, int row, const VariantResult& v) {
  st.integer(ladder).integer(row).text(v.name).text(v.what_changed).integer(v.own).integer(v.checked);
  st.integer(v.check_passed).real(v.max_error).real(v.tolerance).text(v.check_what).real(v.median_ns);
  st.real(v.event_ns).integer(v.launches).integer(v.kernels_per_launch).text(v.time_source).real(v.work);
  st.real(v.throughput).real(v.share_of_best).real(v.share_of_limit).real(v.limit).text(v.limit_what);
  st.text(v.launch).text(v.note).step(d);
}

}  // namespace

void write_playground_session(const std::string& path, prof::EventStore& store, const StoredRun& run) {
  store.set_meta("run.kind", "playground");
  store.set_meta("playground.device", run.device);
  store.set_meta("playground.timing", run.timing);
  {
    prof::SessionWriter w(path, store);
    w.close();
    if (!w.error().empty()) throw SessionError(SessionError::Kind::io, w.error());
  }
  Db d;
  d.path = path;
  if (sqlite3_open_v2(path.c_str(), &d.db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK)
    d.fail(SessionError::Kind::io, "opening to add the playground");
  d.exec("BEGIN");
  d.exec(kCreateTables);
  Stmt ladders(d, "INSERT INTO playground_ladders VALUES(?,?,?,?,?,?,?)");
  Stmt limits(d, "INSERT INTO playground_limits VALUES(?,?,?,?,?,?)");
  Stmt rows(d, "INSERT INTO playground_rows VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  for (std::size_t i = 0; i < run.ladders.size(); ++i) {
    const Ladder& l = run.ladders[i];
    const int li = static_cast<int>(i);
    ladders.integer(li).text(l.family).text(l.title).text(l.unit == Unit::gbps ? "GB/s" : "TFLOP/s");
    ladders.integer(l.size).text(l.size_what).text(l.warning).step(d);
    insert_limit(limits, d, li, 0, l.limit);
    for (std::size_t j = 0; j < l.other_limits.size(); ++j)
      insert_limit(limits, d, li, static_cast<int>(j + 1), l.other_limits[j]);
    for (std::size_t j = 0; j < l.variants.size(); ++j) insert_row(rows, d, li, static_cast<int>(j), l.variants[j]);
  }
  d.exec("COMMIT");
}

namespace {

bool has_table(const Db& d, const char* name) {
  Stmt st(d, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?");
  st.text(name);
  return sqlite3_step(st.s) == SQLITE_ROW && sqlite3_column_int(st.s, 0) > 0;
}

std::string meta(const Db& d, const char* key) {
  Stmt st(d, "SELECT value FROM meta WHERE key = ?");
  st.text(key);
  return sqlite3_step(st.s) == SQLITE_ROW ? st.get_text(0) : "";
}

VariantResult read_row(const Stmt& st) {
  VariantResult v;
  auto* s = st.s;
  v.name = st.get_text(2), v.what_changed = st.get_text(3);
  v.own = sqlite3_column_int(s, 4), v.checked = sqlite3_column_int(s, 5), v.check_passed = sqlite3_column_int(s, 6);
  v.max_error = sqlite3_column_double(s, 7), v.tolerance = sqlite3_column_double(s, 8), v.check_what = st.get_text(9);
  v.median_ns = sqlite3_column_double(s, 10), v.event_ns = sqlite3_column_double(s, 11);
  v.launches = sqlite3_column_int(s, 12), v.kernels_per_launch = sqlite3_column_int(s, 13);
  v.time_source = st.get_text(14), v.work = sqlite3_column_double(s, 15), v.throughput = sqlite3_column_double(s, 16);
  v.share_of_best = sqlite3_column_double(s, 17), v.share_of_limit = sqlite3_column_double(s, 18);
  v.limit = sqlite3_column_double(s, 19), v.limit_what = st.get_text(20);
  v.launch = st.get_text(21), v.note = st.get_text(22);
  return v;
}

}  // namespace

StoredRun read_playground_session(const std::string& path) {
  prof::check_session(path);  // typed errors: not a session, newer format, damaged
  Db d;
  d.path = path;
  if (sqlite3_open_v2(path.c_str(), &d.db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
    d.fail(SessionError::Kind::io, "opening");
  StoredRun run;
  if (!has_table(d, "playground_ladders")) return run;  // before format 3: no playground run
  run.device = meta(d, "playground.device");
  run.timing = meta(d, "playground.timing");
  Stmt ls(d, "SELECT ladder, family, title, unit, size, size_what, warning FROM playground_ladders ORDER BY ladder");
  while (sqlite3_step(ls.s) == SQLITE_ROW) {
    Ladder l;
    l.family = ls.get_text(1), l.title = ls.get_text(2);
    l.unit = ls.get_text(3) == "GB/s" ? Unit::gbps : Unit::tflops;
    l.size = sqlite3_column_int64(ls.s, 4), l.size_what = ls.get_text(5), l.warning = ls.get_text(6);
    run.ladders.push_back(std::move(l));
  }
  Stmt lim(d,
           "SELECT ladder, position, what, value, measured, source FROM playground_limits ORDER BY ladder, position");
  while (sqlite3_step(lim.s) == SQLITE_ROW) {
    const auto li = static_cast<std::size_t>(sqlite3_column_int(lim.s, 0));
    if (li >= run.ladders.size()) continue;
    Limit l{lim.get_text(2), sqlite3_column_double(lim.s, 3), sqlite3_column_int(lim.s, 4) != 0, lim.get_text(5)};
    if (sqlite3_column_int(lim.s, 1) == 0)
      run.ladders[li].limit = l;
    else
      run.ladders[li].other_limits.push_back(l);
  }
  Stmt rows(d, "SELECT * FROM playground_rows ORDER BY ladder, row");
  while (sqlite3_step(rows.s) == SQLITE_ROW) {
    const auto li = static_cast<std::size_t>(sqlite3_column_int(rows.s, 0));
    if (li < run.ladders.size()) run.ladders[li].variants.push_back(read_row(rows));
  }
  return run;
}

}  // namespace ts::playground
