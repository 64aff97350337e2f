// libFuzzer target for the session reader (profiling/session/session_reader.cpp): a .tsession comes from
// someone else's machine. Two kinds of input:
//  - bytes that start with SQLite's header ("SQLite format 3\0") are the file itself (a damaged or
//    foreign SQLite file, another application's database);
//  - anything else is SQL run on a fresh, valid, empty session (schema, application_id, version):
//    of the current format (event rows and their group tables), or of format N's flat event tables
//    when the SQL starts with "-- format N" (N 1 to 3), so the fuzzer writes wrong schemas, wrong
//    types, NULLs, huge counts and values, groups that are missing, dropped or extra tables in both
//    layouts (ATTACH, load_extension and long-running statements are refused).
// read_session must end in a store or a one-line SessionError, never a crash or a sanitizer report;
// the analysis (analyze_session) then runs on whatever was read.
#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "profiling/event_store.h"
#include "fuzz_util.h"
#include "profiling/import/trace_analysis.h"
#include "profiling/session/session_file.h"
#include "profiling/session/session_schema.h"

namespace {

constexpr char kSqliteHeader[] = "SQLite format 3";  // and its terminating NUL: 16 bytes

int deny_attach(void*, int action, const char*, const char*, const char*, const char*) {
  return action == SQLITE_ATTACH || action == SQLITE_DETACH ? SQLITE_DENY : SQLITE_OK;
}

int stop_long_statements(void* steps) {
  return ++*static_cast<int*>(steps) > 2000;  // x 1000 VM instructions: a few ms
}

/// The format of the session `sql` runs on: N for SQL that starts with "-- format N" (1 to 3), else
/// the current one.
int format_of(const std::string& sql) {
  constexpr char kTag[] = "-- format ";
  const std::size_t n = sizeof kTag - 1;
  if (sql.size() > n && sql.compare(0, n, kTag) == 0 && sql[n] >= '1' && sql[n] <= '3') return sql[n] - '0';
  return ts::prof::kSessionSchemaVersion;
}

/// A valid empty session (format_of(sql)) at `path`, then `sql` run on it; errors in `sql` are ignored.
void make_session(const std::string& path, const std::string& sql) {
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) std::abort();
  const int format = format_of(sql);
  const std::string setup = std::string("PRAGMA page_size=512; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;") +
                            ts::prof::schema::create_sql(format) + "PRAGMA application_id=" +
                            std::to_string(ts::prof::kSessionApplicationId) + "; PRAGMA user_version=" +
                            std::to_string(format) + "; INSERT INTO schema_version VALUES(" + std::to_string(format) +
                            ");";
  if (sqlite3_exec(db, setup.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) std::abort();
  sqlite3_set_authorizer(db, deny_attach, nullptr);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
  int steps = 0;
  sqlite3_progress_handler(db, 1000, stop_long_statements, &steps);
  sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(db);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = ts::fuzz::scratch_path("session.tsession");
  if (size >= sizeof kSqliteHeader && std::memcmp(data, kSqliteHeader, sizeof kSqliteHeader) == 0) {
    std::remove((path + "-journal").c_str());
    ts::fuzz::write_file(path, data, size);
  } else {
    make_session(path, std::string(reinterpret_cast<const char*>(data), size));
  }
  try {
    ts::prof::EventStore store;
    ts::prof::read_session(path, store);
    (void)ts::prof::import::analyze_session(store);
  } catch (const ts::InputError& e) {  // SessionError derives from it
    ts::fuzz::require_one_line(e.what());
  }
  return 0;
}
