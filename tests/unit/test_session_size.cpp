// The session file's size: bytes per stored row (file bytes / rows of every table, group tables and
// the few-row ones included) of a recorded GPU session rewritten in the current format, written at
// once and in batches as a recording writes it, and of a longer run made from it: at most 24
// (formats 1 to 3: ~34). Each prints its tables' bytes per row (SQLite's dbstat, where this SQLite
// has it).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "profiling/session/session_file.h"

namespace ts::prof {
namespace {

namespace fs = std::filesystem;

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("ts_session_size_" + std::to_string(getpid()) + "_" + name)).string();
}

/// Rows and bytes (SQLite's dbstat; -1 where this SQLite lacks it) of one table of a file.
struct TableSize {
  std::string name;
  std::int64_t rows = 0, bytes = -1;
};

std::vector<TableSize> table_sizes(const std::string& path) {
  std::vector<TableSize> out;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(("file:" + path + "?immutable=1").c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
                      nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return out;
  }
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name", -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW) out.push_back({reinterpret_cast<const char*>(sqlite3_column_text(st, 0))});
  sqlite3_finalize(st);
  for (TableSize& t : out) {
    if (sqlite3_prepare_v2(db, ("SELECT COUNT(*) FROM \"" + t.name + "\"").c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      t.rows = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(db, "SELECT SUM(pgsize) FROM dbstat WHERE name = ?", -1, &st, nullptr) == SQLITE_OK) {
      sqlite3_bind_text(st, 1, t.name.c_str(), -1, SQLITE_TRANSIENT);
      if (sqlite3_step(st) == SQLITE_ROW) t.bytes = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return out;
}

/// File bytes / rows of every table; prints each table's bytes per row on the way.
double bytes_per_row(const std::string& path) {
  std::int64_t rows = 0;
  for (const TableSize& t : table_sizes(path)) {
    rows += t.rows;
    if (t.rows > 0 && t.bytes > 0)
      std::printf("  %-20s %8lld rows %9lld B %6.1f B/row\n", t.name.c_str(), static_cast<long long>(t.rows),
                  static_cast<long long>(t.bytes), static_cast<double>(t.bytes) / static_cast<double>(t.rows));
  }
  const auto bytes = static_cast<double>(fs::file_size(path));
  std::printf("  %s: %.0f B, %lld rows, %.2f B/row\n", path.c_str(), bytes, static_cast<long long>(rows),
              bytes / static_cast<double>(rows));
  return rows ? bytes / static_cast<double>(rows) : 0;
}

std::string b128_session() { return std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/gpu_b128_nw4.tsession"; }

// The acceptance figure: a short GPU run (80 steps of batch 128, 23,000 rows, 0.6 s), whose file still
// carries every table's first page, the strings (demangled kernel names), the overview and the schema.
TEST(SessionSize, TheB128SessionRewrittenTakesAtMost24BytesARow) {
  std::printf("as committed (format 1):\n");
  bytes_per_row(b128_session());
  EventStore s;
  read_session(b128_session(), s);
  const std::string out = temp_path("b128.tsession");
  SessionWriter(out, s).close();
  std::printf("rewritten:\n");
  EXPECT_LE(bytes_per_row(out), 24.0);
  fs::remove(out);
}

/// Appends rows [from, to) of `a`'s `log` to `out`'s.
template <class R>
void append_rows(const AppendLog<R>& a, AppendLog<R>& out, EventStore& store, std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < std::min(to, a.size()); ++i) store.append(out, a[i]);
}

// As a recording writes it: the same session in 60 batches (a 250 ms batch of this 80-step run
// would be ~20 ms of GPU work), group rows and event rows interleaved batch by batch, the WAL
// checkpointed after each. The file stays as small as the one written at once.
TEST(SessionSize, WrittenInBatchesAsARecordingTakesAtMost24BytesARow) {
  EventStore a, out;
  read_session(b128_session(), a);
  for (std::size_t i = 0; i < a.strings.size(); ++i) out.strings.intern(a.strings.get(static_cast<StringId>(i)));
  for (std::size_t i = 0; i < a.kernel_configs.size(); ++i) out.intern_config(a.kernel_configs[i]);
  for (const auto& [k, v] : a.meta()) out.set_meta(k, v);
  out.process_rank = a.process_rank.load();
  const std::string path = temp_path("batches.tsession");
  {
    SessionWriter w(path, out);
    constexpr std::size_t kBatches = 60;
    auto part = [&](const auto& log, std::size_t b) { return (log.size() * b + kBatches - 1) / kBatches; };
    for (std::size_t b = 0; b < kBatches; ++b) {
      auto copy = [&](const auto& from, auto& to) { append_rows(from, to, out, part(from, b), part(from, b + 1)); };
      copy(a.threads, out.threads), copy(a.series, out.series), copy(a.samples, out.samples), copy(a.clock, out.clock);
      copy(a.steps, out.steps), copy(a.losses, out.losses), copy(a.epochs, out.epochs);
      copy(a.host_ranges, out.host_ranges), copy(a.runtime, out.runtime), copy(a.kernels, out.kernels);
      copy(a.memcpys, out.memcpys), copy(a.memsets, out.memsets), copy(a.syncs, out.syncs);
      copy(a.memory, out.memory), copy(a.overheads, out.overheads);
      ASSERT_TRUE(w.write_batch());
    }
    w.close();
  }
  EXPECT_LE(bytes_per_row(path), 24.0);
  EventStore back;
  read_session(path, back);
  EXPECT_EQ(back.runtime.size(), a.runtime.size());
  EXPECT_EQ(back.kernels.size(), a.kernels.size());
  fs::remove(path);
}

/// Appends `from`'s rows to `to` with `move` applied to each.
template <class R, class F>
void append_moved(const AppendLog<R>& from, AppendLog<R>& to, EventStore& store, F move) {
  for (std::size_t i = 0; i < from.size(); ++i) {
    R r = from[i];
    move(r);
    store.append(to, r);
  }
}

/// `copies` runs of `a` back to back as one long run: copy k starts at 5 s + k x 12 s, its
/// correlation ids moved on by k x 120,000 and its steps by k x `a`'s steps, so the last events start
/// near 1e11 ns with correlation ids near 1e6, and every row pays for values of that size (a time
/// past 2^31 ns takes 6 bytes, a correlation id past 2^23 or a rowid past 2^21 a fourth byte).
/// Strings and launch configurations keep `a`'s ids (interned in `a`'s order).
void long_run(const EventStore& a, EventStore& out, int copies) {
  for (std::size_t i = 0; i < a.strings.size(); ++i) out.strings.intern(a.strings.get(static_cast<StringId>(i)));
  for (std::size_t i = 0; i < a.kernel_configs.size(); ++i) out.intern_config(a.kernel_configs[i]);
  append_moved(a.threads, out.threads, out, [](ThreadRecord&) {});
  append_moved(a.series, out.series, out, [](SeriesRecord&) {});
  for (const auto& [k, v] : a.meta()) out.set_meta(k, v);
  const std::int64_t steps = static_cast<std::int64_t>(a.steps.size());
  for (int k = 0; k < copies; ++k) {
    const std::int64_t dt = 5'000'000'000 + k * 12'000'000'000LL;
    const auto dc = static_cast<std::uint32_t>(k * 120'000);
    auto interval = [&](auto& r) {
      r.start += dt, r.end += dt;
      if constexpr (requires { r.correlation; })
        if (r.correlation) r.correlation += dc;
    };
    append_moved(a.kernels, out.kernels, out, interval);
    append_moved(a.memcpys, out.memcpys, out, interval);
    append_moved(a.memsets, out.memsets, out, interval);
    append_moved(a.runtime, out.runtime, out, interval);
    append_moved(a.syncs, out.syncs, out, interval);
    append_moved(a.overheads, out.overheads, out, interval);
    append_moved(a.host_ranges, out.host_ranges, out, [&](HostRangeRecord& r) {
      interval(r);
      if (r.step >= 0) r.step += k * steps;
    });
    append_moved(a.memory, out.memory, out, [&](MemoryRecord& r) { r.time += dt, r.correlation += r.correlation ? dc : 0; });
    append_moved(a.samples, out.samples, out, [&](SampleRecord& r) { r.time += dt; });
    append_moved(a.steps, out.steps, out, [&](StepRecord& r) { r.start += dt, r.end += dt, r.global_step += k * steps; });
  }
}

// Bytes per row where the fixed pages no longer count (~180,000 rows: each table's first pages, the
// schema and the strings are under 1 % of the file), with the values of a long run.
TEST(SessionSize, ALongRunTakesAtMost24BytesARow) {
  EventStore a, big;
  read_session(b128_session(), a);
  long_run(a, big, 8);
  ASSERT_GT(big.runtime.size(), 100'000u);
  ASSERT_GT(big.kernels[big.kernels.size() - 1].start, 85'000'000'000);
  const std::string out = temp_path("long.tsession");
  SessionWriter(out, big).close();
  EXPECT_LE(bytes_per_row(out), 24.0);
  EventStore back;
  read_session(out, back);
  EXPECT_EQ(back.runtime.size(), big.runtime.size());
  EXPECT_TRUE(back.runtime[back.runtime.size() - 1] == big.runtime[big.runtime.size() - 1]);
  fs::remove(out);
}

}  // namespace
}  // namespace ts::prof
