// trainscope-run with an Nsight Systems export, run as a user would: --analyze prints a
// breakdown and GPU metrics, --import writes a session that opens again, a report (.nsys-rep) exits
// 2 with the one-line export hint. The export is the newer-layout fixture (tests/data/nsys) built
// into a .sqlite file with the sqlite3 library.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "profiling/event_source.h"
#include "runner_test_util.h"

namespace fs = std::filesystem;

namespace {

std::string build_fixture(const fs::path& dir) {
  std::ifstream in(std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/nsys/newer_meta_v2.sql");
  std::stringstream sql;
  sql << in.rdbuf();
  const std::string path = (dir / "report.sqlite").string();
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, sql.str().c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  return path;
}

}  // namespace

TEST(RunnerNsys, AnalyzePrintsBreakdownAndGpuMetrics) {
  const fs::path dir = ts::test::fresh_temp_dir("ts_runner_nsys");
  const std::string path = build_fixture(dir);
  const auto r = ts::test::run_runner_split("--analyze " + path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("analysed 2 steps"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("steps: ranges matching 'step'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("step-time breakdown"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("device activity on NVIDIA (NVIDIA H200)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPU busy"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("estimated SM efficiency absent"), std::string::npos) << r.out;
}

TEST(RunnerNsys, ImportWritesASessionThatOpens) {
  const fs::path dir = ts::test::fresh_temp_dir("ts_runner_nsys_import");
  const std::string path = build_fixture(dir);
  const auto r = ts::test::run_runner_split("--import " + path, dir.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("(Nsight Systems export, schema 3.11.2 from META_DATA_EXPORT"), std::string::npos) << r.out;
  const fs::path session = dir / "report.tsession";  // the default name: .sqlite dropped
  ASSERT_TRUE(fs::exists(session)) << r.out;
  const auto src = ts::prof::open_session(session.string());
  EXPECT_EQ(src->store().counts().kernels, 4u);
  EXPECT_EQ(src->store().counts().host_ranges, 3u);
}

TEST(RunnerNsys, ReportFileExitsTwoWithTheExportHint) {
  const fs::path dir = ts::test::fresh_temp_dir("ts_runner_nsys_rep");
  const std::string rep = (dir / "profile.nsys-rep").string();
  std::ofstream(rep) << "not an export";
  const auto r = ts::test::run_runner_split("--analyze " + rep);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nsys export --type sqlite " + rep), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // one line
}
