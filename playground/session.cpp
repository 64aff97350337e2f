// Playground sessions (see session.h): SessionWriter for the events, then the playground tables in
// one transaction; reading goes straight to those tables (the events load through open_session).
#include "playground/session.h"

#include <sqlite3.h>

#include <limits>
#include <memory>
#include <optional>

#include "base/sqlite.h"
#include "profiling/event_store.h"
#include "profiling/session/session_file.h"

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
CREATE TABLE IF NOT EXISTS playground_measured(ladder INTEGER, row INTEGER, why TEXT, occupancy_pct REAL, sm_pct REAL,
  dram_pct REAL, dram_gbps REAL, duration_ns REAL, kernels INTEGER, absent TEXT);
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

/// A statement on the playground's tables: a failure is the session's typed error of `kind`.
/// Writing fails as io ("writing the playground"), reading as damaged ("playground tables").
sqlite::Statement statement(const Db& d, const char* sql, SessionError::Kind kind) {
  const char* what = kind == SessionError::Kind::io ? "writing the playground" : "playground tables";
  return sqlite::Statement(d.db, sql, [&d, kind, what](const std::string&, int) { d.fail(kind, what); });
}
sqlite::Statement writing(const Db& d, const char* sql) { return statement(d, sql, SessionError::Kind::io); }
sqlite::Statement reading(const Db& d, const char* sql) { return statement(d, sql, SessionError::Kind::damaged); }

void insert_limit(sqlite::Statement& st, int ladder, int position, const Limit& l) {
  st.integer(ladder).integer(position).text(l.what).real(l.value).integer(l.measured).text(l.source).run();
}

void insert_row(sqlite::Statement& st, int ladder, int row, const VariantResult& v) {
  st.integer(ladder).integer(row).text(v.name).text(v.what_changed).integer(v.own).integer(v.checked);
  st.integer(v.check_passed).real(v.max_error).real(v.tolerance).text(v.check_what).real(v.median_ns);
  st.real(v.event_ns).integer(v.launches).integer(v.kernels_per_launch).text(v.time_source).real(v.work);
  st.real(v.throughput).real(v.share_of_best).real(v.share_of_limit).real(v.limit).text(v.limit_what);
  st.text(v.launch).text(v.note).run();
}

/// A measured figure: SQLite stores a NaN bound as a REAL as NULL, which reads back as not measured.
double or_nan(const std::optional<double>& v) { return v ? *v : std::numeric_limits<double>::quiet_NaN(); }

void insert_measured(sqlite::Statement& st, int ladder, int row, const Measured& m) {
  st.integer(ladder).integer(row).text(m.why).real(or_nan(m.occupancy_pct)).real(or_nan(m.sm_pct));
  st.real(or_nan(m.dram_pct)).real(or_nan(m.dram_gbps)).real(or_nan(m.duration_ns)).integer(m.kernels);
  st.text(m.absent).run();
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
  sqlite::Statement ladders = writing(d, "INSERT INTO playground_ladders VALUES(?,?,?,?,?,?,?)");
  sqlite::Statement limits = writing(d, "INSERT INTO playground_limits VALUES(?,?,?,?,?,?)");
  sqlite::Statement rows =
      writing(d, "INSERT INTO playground_rows VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  sqlite::Statement measured = writing(d, "INSERT INTO playground_measured VALUES(?,?,?,?,?,?,?,?,?,?)");
  for (std::size_t i = 0; i < run.ladders.size(); ++i) {
    const Ladder& l = run.ladders[i];
    const int li = static_cast<int>(i);
    ladders.integer(li).text(l.family).text(l.title).text(l.unit == Unit::gbps ? "GB/s" : "TFLOP/s");
    ladders.integer(l.size).text(l.size_what).text(l.warning).run();
    insert_limit(limits, li, 0, l.limit);
    for (std::size_t j = 0; j < l.other_limits.size(); ++j)
      insert_limit(limits, li, static_cast<int>(j + 1), l.other_limits[j]);
    for (std::size_t j = 0; j < l.variants.size(); ++j) {
      insert_row(rows, li, static_cast<int>(j), l.variants[j]);
      if (l.variants[j].measured) insert_measured(measured, li, static_cast<int>(j), *l.variants[j].measured);
    }
  }
  d.exec("COMMIT");
}

namespace {

bool has_table(const Db& d, const char* name) {
  sqlite::Statement st = reading(d, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?");
  st.text(name);
  return st.step() && st.column_int64(0) > 0;
}

std::string meta(const Db& d, const char* key) {
  sqlite::Statement st = reading(d, "SELECT value FROM meta WHERE key = ?");
  st.text(key);
  return st.step() ? st.column_text(0) : "";
}

int int_at(const sqlite::Statement& st, int i) { return static_cast<int>(st.column_int64(i)); }

VariantResult read_row(const sqlite::Statement& st) {
  VariantResult v;
  v.name = st.column_text(2), v.what_changed = st.column_text(3);
  v.own = int_at(st, 4), v.checked = int_at(st, 5), v.check_passed = int_at(st, 6);
  v.max_error = st.column_double(7), v.tolerance = st.column_double(8), v.check_what = st.column_text(9);
  v.median_ns = st.column_double(10), v.event_ns = st.column_double(11);
  v.launches = int_at(st, 12), v.kernels_per_launch = int_at(st, 13);
  v.time_source = st.column_text(14), v.work = st.column_double(15), v.throughput = st.column_double(16);
  v.share_of_best = st.column_double(17), v.share_of_limit = st.column_double(18);
  v.limit = st.column_double(19), v.limit_what = st.column_text(20);
  v.launch = st.column_text(21), v.note = st.column_text(22);
  return v;
}

std::optional<double> optional_at(const sqlite::Statement& st, int i) {
  if (st.column_type(i) == SQLITE_NULL) return std::nullopt;
  return st.column_double(i);
}

/// The playground_measured rows (a table only runs with --measure wrote) onto their variants.
void read_measured(const Db& d, StoredRun& run) {
  if (!has_table(d, "playground_measured")) return;
  sqlite::Statement st = reading(d, "SELECT ladder, row, why, occupancy_pct, sm_pct, dram_pct, dram_gbps, "
                                    "duration_ns, kernels, absent FROM playground_measured");
  while (st.step()) {
    const auto li = static_cast<std::size_t>(int_at(st, 0)), ri = static_cast<std::size_t>(int_at(st, 1));
    if (li >= run.ladders.size() || ri >= run.ladders[li].variants.size()) continue;
    Measured m;
    m.why = st.column_text(2);
    m.occupancy_pct = optional_at(st, 3), m.sm_pct = optional_at(st, 4), m.dram_pct = optional_at(st, 5);
    m.dram_gbps = optional_at(st, 6), m.duration_ns = optional_at(st, 7);
    m.kernels = int_at(st, 8), m.absent = st.column_text(9);
    run.ladders[li].variants[ri].measured = std::move(m);
  }
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
  sqlite::Statement ls =
      reading(d, "SELECT ladder, family, title, unit, size, size_what, warning FROM playground_ladders ORDER BY ladder");
  while (ls.step()) {
    Ladder l;
    l.family = ls.column_text(1), l.title = ls.column_text(2);
    l.unit = ls.column_text(3) == "GB/s" ? Unit::gbps : Unit::tflops;
    l.size = ls.column_int64(4), l.size_what = ls.column_text(5), l.warning = ls.column_text(6);
    run.ladders.push_back(std::move(l));
  }
  sqlite::Statement lim = reading(
      d, "SELECT ladder, position, what, value, measured, source FROM playground_limits ORDER BY ladder, position");
  while (lim.step()) {
    const auto li = static_cast<std::size_t>(int_at(lim, 0));
    if (li >= run.ladders.size()) continue;
    Limit l{lim.column_text(2), lim.column_double(3), lim.column_int64(4) != 0, lim.column_text(5)};
    if (int_at(lim, 1) == 0)
      run.ladders[li].limit = l;
    else
      run.ladders[li].other_limits.push_back(l);
  }
  sqlite::Statement rows = reading(d, "SELECT * FROM playground_rows ORDER BY ladder, row");
  while (rows.step()) {
    const auto li = static_cast<std::size_t>(int_at(rows, 0));
    if (li < run.ladders.size()) run.ladders[li].variants.push_back(read_row(rows));
  }
  read_measured(d, run);
  return run;
}

}  // namespace ts::playground
