// Session format 2 and its timeline overview: the overview summarises every timeline event
// (busy time per row conserved, every event counted once), it is written at close and read before the
// events, format 1 files are migrated in memory (the overview built from their events), a damaged
// overview falls back to that, and the blob codec refuses malformed input with a message. Also the
// compact records (kernel configs interned) and the memory curve's release rules.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <numeric>

#include "profiling/analysis/series.h"
#include "profiling/event_source.h"
#include "profiling/overview.h"
#include "profiling/session/session_file.h"

using namespace ts::prof;

namespace {

std::string data_path(const char* name) { return std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/" + name; }

std::string temp_session(const char* name) {
  return (std::filesystem::temp_directory_path() / (std::string(name) + "_" + std::to_string(::getpid()) + ".tsession")).string();
}

std::int64_t sql_int(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  std::int64_t v = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

void sql_exec(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

std::int64_t timeline_events(const EventStore& s) {
  return static_cast<std::int64_t>(s.kernels.size() + s.memcpys.size() + s.memsets.size() + s.syncs.size() +
                                   s.runtime.size() + s.host_ranges.size());
}

}  // namespace

TEST(Overview, SummarisesEveryEventOfARealSession) {
  auto src = open_session(data_path("gpu_b128_nw4.tsession"));
  const EventStore& s = src->store();
  const SessionOverview o = build_overview(s);
  EXPECT_EQ(o.bins, kOverviewBins);
  EXPECT_EQ(o.events, timeline_events(s));
  std::int64_t lane_events = 0;
  std::map<std::string, int> kinds;
  for (const OverviewLane& l : o.lanes) {
    lane_events += l.events;
    ++kinds[l.key.substr(0, l.key.find(':'))];
    for (const OverviewRow& r : l.rows) {
      ASSERT_EQ(r.bin.size(), r.busy_ns.size());
      for (std::size_t i = 0; i < r.bin.size(); ++i) {
        EXPECT_LT(r.bin[i], o.bins);
        if (i) {
          EXPECT_LT(r.bin[i - 1], r.bin[i]);
        }
        EXPECT_GE(r.busy_ns[i], 0);
        EXPECT_LE(r.busy_ns[i], o.bin_ns());
      }
    }
  }
  EXPECT_EQ(lane_events, o.events);
  EXPECT_GE(kinds["stream"], 1);
  EXPECT_GE(kinds["runtime"], 1);
  EXPECT_GE(kinds["thread"], 2);  // trainer + loader workers
  // Depth 0 of a stream lane: its kernels do not overlap, so the busy time of the row's bins is the
  // kernels' total duration exactly (nothing double-counted, nothing lost at bin edges).
  for (const OverviewLane& l : o.lanes) {
    if (l.kind != timeline::LaneKind::stream) continue;
    std::int64_t kernels_ns = 0;
    for (std::size_t i = 0; i < s.kernels.size(); ++i)
      if (timeline::stream_lane_key(s.kernels[i].device, s.kernels[i].stream) == l.key) kernels_ns += s.kernels[i].end - s.kernels[i].start;
    std::int64_t bins_ns = 0;
    for (const OverviewRow& r : l.rows) bins_ns += std::accumulate(r.busy_ns.begin(), r.busy_ns.end(), std::int64_t{0});
    EXPECT_EQ(bins_ns, kernels_ns) << l.key;
  }
  // The trainer's lane ran the steps; its rows nest step > forward/backward > ...
  bool trainer = false;
  for (const OverviewLane& l : o.lanes)
    if (l.has_steps) {
      trainer = true;
      EXPECT_GE(l.rows.size(), 2u);
      EXPECT_FALSE(l.tids.empty());
    }
  EXPECT_TRUE(trainer);
}

TEST(Overview, FormatOneIsMigratedInMemory) {
  const std::string v1 = data_path("gpu_b16_nw4.tsession");
  ASSERT_EQ(sql_int(v1, "SELECT MAX(version) FROM schema_version"), 1);
  EventStore s;
  bool overview_before_events = false;
  ReadProgress p;
  p.on_rows = [&](std::int64_t, std::int64_t) {
    if (s.overview() && s.kernels.size() == 0) overview_before_events = true;
    return true;
  };
  read_session(v1, s, p);
  EXPECT_FALSE(overview_before_events);  // format 1 has none to read first
  ASSERT_TRUE(s.overview());
  EXPECT_EQ(*s.overview(), build_overview(s));  // built from the events after the load
}

TEST(Overview, FormatTwoStoresItAndReadsItBeforeTheEvents) {
  auto src = open_session(data_path("gpu_b128_nw0_augment.tsession"));
  const std::string path = temp_session("overview_v2");
  {
    SessionWriter w(path, src->store());
    w.close();
  }
  EXPECT_EQ(sql_int(path, "SELECT MAX(version) FROM schema_version"), kSessionSchemaVersion);
  {  // a closed file is not in WAL mode: reading it leaves nothing beside it
    EventStore probe;
    read_session(path, probe);
    EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
    EXPECT_FALSE(std::filesystem::exists(path + "-shm"));
  }
  EXPECT_EQ(sql_int(path, "PRAGMA user_version"), kSessionSchemaVersion);
  const std::int64_t lanes = sql_int(path, "SELECT COUNT(*) FROM overview_lanes");
  EXPECT_GE(lanes, 5);
  EventStore s;
  bool event_without_overview = false;
  ReadProgress p;
  p.on_rows = [&](std::int64_t, std::int64_t) {
    if (s.kernels.size() + s.runtime.size() + s.host_ranges.size() > 0 && !s.overview()) event_without_overview = true;
    return true;
  };
  read_session(path, s, p);
  EXPECT_FALSE(event_without_overview);  // set before the first event table is read
  ASSERT_TRUE(s.overview());
  EXPECT_EQ(static_cast<std::int64_t>(s.overview()->lanes.size()), lanes);
  EXPECT_EQ(*s.overview(), build_overview(s));  // what was written is what the events give
  EXPECT_EQ(*s.overview(), build_overview(src->store()));
  // It comes from the file, not from the events: a changed field comes back as written.
  sql_exec(path, "UPDATE overview_lanes SET total_events = 12345");
  EventStore again;
  read_session(path, again);
  ASSERT_TRUE(again.overview());
  EXPECT_EQ(again.overview()->events, 12345);
  std::remove(path.c_str());
}

TEST(Overview, ADamagedOverviewIsRebuiltFromTheEvents) {
  auto src = open_session(data_path("gpu_b128_nw4.tsession"));
  const std::string path = temp_session("overview_damaged");
  {
    SessionWriter w(path, src->store());
    w.close();
  }
  sql_exec(path, "UPDATE overview_lanes SET rows = x'0102030405' WHERE lane = 0");
  EventStore s;
  bool early = false;
  ReadProgress p;
  p.on_rows = [&](std::int64_t, std::int64_t) {
    early |= s.overview() != nullptr && s.kernels.size() == 0;
    return true;
  };
  read_session(path, s, p);
  EXPECT_FALSE(early);  // the damaged one was not used
  ASSERT_TRUE(s.overview());
  EXPECT_EQ(*s.overview(), build_overview(s));
  std::remove(path.c_str());
}

TEST(Overview, CodecRoundTripsAndRefusesMalformedRows) {
  std::vector<OverviewRow> rows(2);
  rows[0].bin = {0, 5, 2047}, rows[0].busy_ns = {10, 0, 1000}, rows[0].category = {0, 7, 17};
  rows[1].bin = {3}, rows[1].busy_ns = {999}, rows[1].category = {16};
  std::int64_t raw = 0;
  const std::string blob = encode_overview_rows(rows, &raw);
  EXPECT_EQ(raw, 4 + (4 + 3 * 13) + (4 + 13));
  EXPECT_EQ(decode_overview_rows(blob.data(), blob.size(), raw, 2048, 1000), rows);
  auto fails = [&](const std::string& b, std::int64_t r, std::uint32_t bins, std::int64_t w, const char* what) {
    try {
      decode_overview_rows(b.data(), b.size(), r, bins, w);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  fails(blob.substr(0, blob.size() / 2), raw, 2048, 1000, "zlib");            // truncated
  fails(blob, raw + 1, 2048, 1000, "zlib");                                   // wrong raw size
  fails(blob, 1 << 30, 2048, 1000, "implausible");                            // absurd size
  fails(blob, raw, 2047, 1000, "bin 2047");                                   // a bin beyond the bin count
  fails(blob, raw, 2048, 500, "busy");                                        // busy 1000 > bin width 500
  std::vector<OverviewRow> unordered(1);
  unordered[0].bin = {4, 4}, unordered[0].busy_ns = {1, 1}, unordered[0].category = {0, 0};
  const std::string b2 = encode_overview_rows(unordered, &raw);
  fails(b2, raw, 2048, 1000, "out of order");
}

TEST(Overview, EmptyStoreHasNoLanes) {
  EventStore s;
  const SessionOverview o = build_overview(s);
  EXPECT_TRUE(o.lanes.empty());
  EXPECT_EQ(o.events, 0);
  EXPECT_EQ(o.bin_ns(), 1);
}

TEST(EventStore, InternsKernelConfigsOnceAndKeepsRecordsSmall) {
  static_assert(sizeof(KernelRecord) == 56 && sizeof(RuntimeRecord) == 32);
  EventStore s;
  KernelConfig a, b;
  a.grid[0] = 264, a.block[0] = 256, a.registers = 40;
  b = a, b.dynamic_smem = 16;
  const std::uint32_t ia = s.intern_config(a), ib = s.intern_config(b);
  EXPECT_NE(ia, 0u);  // row 0 is the all-zero configuration
  EXPECT_NE(ia, ib);
  EXPECT_EQ(s.intern_config(a), ia);
  EXPECT_EQ(s.kernel_configs.size(), 3u);
  KernelRecord k;
  k.config = ib;
  EXPECT_EQ(s.config(k), b);
  k.config = 999;  // unknown row: the all-zero configuration, never out of bounds
  EXPECT_EQ(s.config(k), KernelConfig{});
}

TEST(CuptiMemoryCurve, FreesByAddressOrByTheirOwnSizeWithoutOne) {
  EventStore s;
  auto rec = [&](std::int64_t t, std::uint8_t op, std::uint64_t addr, std::int64_t bytes) {
    MemoryRecord m;
    m.time = t, m.op = op, m.address = addr, m.bytes = bytes, m.memory_kind = 3;
    s.memory.push(m);
  };
  rec(1, 1, 0xA0, 100);  // CUPTI: by address
  rec(2, 2, 0xA0, 0);
  rec(3, 2, 0xB0, 50);   // allocated before the recording: not subtracted, counted
  rec(4, 1, 0, 300);     // old PyTorch [memory] events: no address
  rec(5, 1, 0, 200);
  rec(6, 2, 0, 300);
  rec(7, 2, 0, 200);
  const auto c = analysis::cupti_device_memory(s, s.memory.size());
  std::vector<double> v;
  for (const auto& p : c.points) v.push_back(p.v);
  EXPECT_EQ(v, (std::vector<double>{100, 0, 300, 500, 200, 0}));
  EXPECT_EQ(c.allocations, 3);
  EXPECT_EQ(c.releases, 4);
  EXPECT_EQ(c.unmatched_releases, 1);
}
