// SessionWriter (see session_file.h): SessionRecorder plus the whole-session timeline overview
// (profiling/overview.h, table overview_lanes) written when the recording closes. Kept apart from
// session_writer.cpp because the overview needs the lanes' kernel categories (analysis/), which
// the engine-free core that the injection library links does not carry.
#include <sqlite3.h>

#include <string>

#include "base/sqlite.h"
#include "profiling/overview.h"
#include "profiling/session/session_file.h"

namespace ts::prof {
namespace {

void check(sqlite3* db, int rc, int want) {
  if (rc != want) throw SessionError(SessionError::Kind::io, std::string("session overview: ") + sqlite3_errmsg(db));
}

/// Writes the overview of `store` in one transaction; throws SessionError on a failed statement.
void write_overview(sqlite3* db, const EventStore& store) {
  const SessionOverview o = build_overview(store);
  sqlite::Statement st(db, "INSERT INTO overview_lanes VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                       [](const std::string& why, int) { throw SessionError(SessionError::Kind::io, "session overview: " + why); });
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
    st.integer(static_cast<std::int64_t>(l)).integer(static_cast<int>(lane.kind)).text(lane.key);
    st.integer(lane.id).integer(lane.device).integer(lane.has_steps).integer(lane.launches).integer(lane.events);
    st.text(tids).integer(o.t0).integer(o.t1).integer(o.bins).integer(o.events).integer(raw).blob(rows);
    st.run();
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
