// SessionWriter (see session_file.h): SessionRecorder plus the whole-session timeline overview
// (profiling/overview.h, table overview_lanes) written when the recording closes. Kept apart from
// session_writer.cpp because the overview needs the lanes' kernel categories (analysis/), which
// the engine-free core that the injection library links does not carry.
#include <sqlite3.h>

#include <string>

#include "profiling/overview.h"
#include "profiling/session_file.h"

namespace ts::prof {
namespace {

void check(sqlite3* db, int rc, int want) {
  if (rc != want) throw SessionError(SessionError::Kind::io, std::string("session overview: ") + sqlite3_errmsg(db));
}

/// Writes the overview of `store` in one transaction; throws SessionError on a failed statement.
void write_overview(sqlite3* db, const EventStore& store) {
  const SessionOverview o = build_overview(store);
  sqlite3_stmt* st = nullptr;
  check(db, sqlite3_prepare_v2(db, "INSERT INTO overview_lanes VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, nullptr),
        SQLITE_OK);
  struct Finalize {
    sqlite3_stmt* s;
    ~Finalize() { sqlite3_finalize(s); }
  } finalize{st};
  check(db, sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr), SQLITE_OK);
  for (std::size_t l = 0; l < o.lanes.size(); ++l) {
    const OverviewLane& lane = o.lanes[l];
    std::string tids;
    for (std::uint32_t t : lane.tids) {
      if (!tids.empty()) tids += ',';
      tids += std::to_string(t);
    }
    std::int64_t raw = 0;
    const std::string rows = encode_overview_rows(lane.rows, &raw);
    sqlite3_reset(st);
    int n = 0;
    auto i = [&](std::int64_t v) { sqlite3_bind_int64(st, ++n, v); };
    i(static_cast<std::int64_t>(l)), i(static_cast<int>(lane.kind));
    sqlite3_bind_text(st, ++n, lane.key.c_str(), static_cast<int>(lane.key.size()), SQLITE_TRANSIENT);
    i(lane.id), i(lane.device), i(lane.has_steps), i(lane.launches), i(lane.events);
    sqlite3_bind_text(st, ++n, tids.c_str(), static_cast<int>(tids.size()), SQLITE_TRANSIENT);
    i(o.t0), i(o.t1), i(o.bins), i(o.events), i(raw);
    sqlite3_bind_blob(st, ++n, rows.data(), static_cast<int>(rows.size()), SQLITE_TRANSIENT);
    check(db, sqlite3_step(st), SQLITE_DONE);
  }
  check(db, sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
}

}  // namespace

SessionWriter::~SessionWriter() {
  try {
    close();
  } catch (...) {
  }
}

void SessionWriter::close() { finish(&write_overview); }

}  // namespace ts::prof
