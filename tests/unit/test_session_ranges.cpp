// A session whose integers were edited to their limits (dur = INT64_MAX, launch dimensions near
// INT32_MAX, negative durations) reads, analyses, exports and builds its overview without signed
// overflow (the sanitizer build runs this) and with its events still there: the reader range-checks
// times, durations and launch dimensions as the importers do.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

#include "profiling/analysis/analysis.h"
#include "profiling/block_threads.h"
#include "profiling/export/chrome_trace.h"
#include "profiling/overview.h"
#include "profiling/session/session_file.h"

using namespace ts::prof;
namespace fs = std::filesystem;

namespace {
void sql(const std::string& path, const char* statement) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, statement, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}
}  // namespace

TEST(SessionRanges, IntegersAtTheirLimitsReadWithoutOverflow) {
  const fs::path dir = fs::temp_directory_path() / ("ts-ranges-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "edited.tsession").string();
  {
    EventStore s;
    s.set_meta("device.kind", "cuda");
    s.set_meta("device.compute_capability", "9.0");
    s.set_meta("device.multiprocessors", "132");
    for (int i = 0; i < 12; ++i) {
      StepRecord st;
      st.global_step = i + 1, st.start = i * 1000, st.end = i * 1000 + 900;
      s.append(s.steps, st);
      KernelRecord k;
      k.start = i * 1000 + 10, k.end = i * 1000 + 500, k.correlation = static_cast<std::uint32_t>(i + 1);
      k.name = s.strings.intern("void k()");
      KernelConfig c;
      c.grid[0] = c.grid[1] = c.grid[2] = 2, c.block[0] = c.block[1] = c.block[2] = 8;
      k.config = s.intern_config(c);
      s.append(s.kernels, k);
      HostRangeRecord h;
      h.start = i * 1000, h.end = i * 1000 + 900, h.thread = 1, h.kind = 0, h.step = i + 1;
      s.append(s.host_ranges, h);
    }
    SessionRecorder(path, s).close();
  }
  sql(path, "UPDATE kernels SET dur = 9223372036854775807 WHERE rowid = 1;"
            "UPDATE kernels SET start = -9223372036854775807 WHERE rowid = 2;"
            "UPDATE host_ranges SET dur = -5 WHERE rowid = 3;"
            "UPDATE kernel_configs SET grid_x = 2147483647, grid_y = 2147483647, grid_z = 2147483647,"
            " block_x = 2147483647, block_y = 2147483647, block_z = 2147483647, registers = 2147483647,"
            " static_smem = 2147483647, dynamic_smem = -1;");
  EventStore s;
  read_session(path, s);
  ASSERT_EQ(s.kernels.size(), 12u);
  for (std::size_t i = 0; i < s.kernels.size(); ++i) EXPECT_GE(s.kernels[i].end, s.kernels[i].start);
  EXPECT_GE(s.host_ranges[2].end, s.host_ranges[2].start);
  const KernelConfig& c = s.config(s.kernels[0]);
  EXPECT_LE(c.block[0], 1024);
  EXPECT_EQ(c.dynamic_smem, 0);
  const analysis::Report r = analysis::analyze(s);
  EXPECT_EQ(r.steps, 12);
  EXPECT_FALSE(analysis::to_text(r).empty());
  EXPECT_GT(build_overview(s).events, 0);
  const fs::path out = dir / "edited.json";
  exporter::export_chrome_trace(s, out.string());
  EXPECT_GT(fs::file_size(out), 100u);
  fs::remove_all(dir);
}

// An imported trace's block dimensions are clamped to int32 each: their product saturates.
TEST(SessionRanges, ThreadsPerBlockSaturates) {
  KernelConfig c;
  c.block[0] = c.block[1] = c.block[2] = 2147483647;
  EXPECT_EQ(block_threads(c), 1 << 30);
  c.block[0] = 32, c.block[1] = 4, c.block[2] = 2;
  EXPECT_EQ(block_threads(c), 256);
  c.block[2] = -1;
  EXPECT_EQ(block_threads(c), 0);
}
