// profiling/import/nsys: Nsight Systems SQLite exports. The schema fixtures are SQL scripts under
// tests/data/nsys (built into a database here, so the repository holds text, not binaries): the newer
// layout (META_DATA_EXPORT, NVTX_EVENTS_V2, graphId), the 2021-2022 layout (EXPORT_META_DATA, text
// that is not UTF-8) and the older one without a metadata table. Then refusals: not SQLite, a
// report, SQLite but not an export, wrong column types, missing columns, huge values, NULLs, a cut
// file. The real export of ../shared/cases/traces is checked against its README's counts.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/host_trace.h"
#include "profiling/import/nsys/nsys_import.h"
#include "profiling/import/trace_analysis.h"
#include "profiling/import/trace_import.h"
#include "profiling/lanes.h"

namespace imp = ts::prof::import;
namespace nsys = ts::prof::import::nsys;
using ts::prof::EventStore;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string fixture_sql(const std::string& name) {
  return read_text(std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/nsys/" + name);
}

/// A fresh database file holding `sql` (named NAME.sqlite in the test's temp folder).
std::string make_db(const std::string& name, const std::string& sql) {
  const std::string path = testing::TempDir() + "nsys_" + name + ".sqlite";
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
  return path;
}

std::string meta(const EventStore& s, const std::string& key) {
  const auto m = s.meta();
  auto it = m.find(key);
  return it == m.end() ? "<absent>" : it->second;
}

std::string error_of(const std::string& path, const imp::ImportOptions& o = {}) {
  try {
    imp::import_trace(path, o);
  } catch (const ts::InputError& e) {
    return e.what();
  }
  return "<imported>";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

const char kMinimalStrings[] =
    "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
    "INSERT INTO StringIds VALUES (1, 'k');";

/// A kernel table of the given column declarations and one row of values.
std::string kernel_db(const std::string& name, const std::string& columns, const std::string& values) {
  return make_db(name, std::string(kMinimalStrings) + "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (" + columns +
                           "); INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES " + values + ";");
}

}  // namespace

TEST(ImportNsys, NewerLayoutMetaDataExportVersionedNvtxGraphIds) {
  const std::string path = make_db("newer", fixture_sql("newer_meta_v2.sql"));
  const auto t = imp::import_trace(path);
  const EventStore& s = *t.store;
  EXPECT_EQ(t.summary.kind, "Nsight Systems export");
  EXPECT_TRUE(contains(t.summary.format, "schema 3.11.2 from META_DATA_EXPORT")) << t.summary.format;
  EXPECT_EQ(meta(s, "versions.nsight_systems"), "2024.5.1.113");
  const auto c = s.counts();
  ASSERT_EQ(c.kernels, 4u);
  EXPECT_EQ(c.runtime, 6u);
  EXPECT_EQ(c.memcpys, 1u);
  EXPECT_EQ(c.memsets, 1u);
  EXPECT_EQ(c.syncs, 1u);
  // Kernels sorted by start; names from StringIds (demangledName); launch configuration; graph ids.
  EXPECT_EQ(s.strings.get(s.kernels[0].name), "void gemm_kernel<float>(float*, int)");
  EXPECT_EQ(s.kernels[0].stream, 7u);
  EXPECT_EQ(s.kernels[0].start, 1'200'000);  // ns from the session start, as the export writes them
  EXPECT_EQ(s.kernels[0].correlation, 101u);
  EXPECT_EQ(s.config(s.kernels[0]).grid[0], 128);
  EXPECT_EQ(s.config(s.kernels[0]).block[0], 256);
  EXPECT_EQ(s.config(s.kernels[0]).registers, 64);
  EXPECT_EQ(s.config(s.kernels[0]).dynamic_smem, 4096);
  EXPECT_EQ(s.kernels[0].graph_id, 0u);
  EXPECT_EQ(s.kernels[2].stream, 13u);
  EXPECT_EQ(s.kernels[2].graph_id, 77u);
  EXPECT_EQ(s.kernels[2].graph_node, 5001u);
  EXPECT_EQ(meta(s, "import.cuda_graph_kernels"), "2");
  // Runtime calls: the _vNNNN suffix dropped; globalTid decoded to tid 4243 (pid 4242).
  EXPECT_EQ(s.strings.get(s.runtime[0].name), "cudaLaunchKernel");
  EXPECT_EQ(s.strings.get(s.runtime[3].name), "cudaStreamSynchronize");
  EXPECT_EQ(s.runtime[0].thread, 4243u);
  EXPECT_TRUE(contains(meta(s, "import.processes"), "python3 (pid 4242)")) << meta(s, "import.processes");
  EXPECT_EQ(s.memcpys[0].bytes, 1'048'576);
  EXPECT_EQ(s.memcpys[0].copy_kind, 2);  // DtoH
  EXPECT_EQ(s.memcpys[0].src_kind, 3);
  EXPECT_EQ(s.memcpys[0].dst_kind, 1);
  EXPECT_EQ(s.memsets[0].bytes, 4096);
  EXPECT_EQ(s.memsets[0].memory_kind, 3);
  EXPECT_EQ(s.syncs[0].type, 3u);  // stream synchronize
  EXPECT_EQ(s.syncs[0].event, 0xFFFFFFFFu);
  // NVTX_EVENTS_V2 wins over NVTX_EVENTS; ranges only (the mark and the domain are not ranges).
  ASSERT_EQ(c.host_ranges, 3u);
  std::set<std::string> names;
  for (std::size_t i = 0; i < c.host_ranges; ++i) names.insert(s.strings.get(s.host_ranges[i].name));
  EXPECT_EQ(names, (std::set<std::string>{"step 1", "step 2", "forward"}));  // "forward" through textId
  EXPECT_EQ(meta(s, "import.nvtx_marks"), "1");
  // Steps by the step rule: the two "step N" ranges; "forward" lies in step 1.
  EXPECT_EQ(t.summary.steps, 2);
  EXPECT_EQ(meta(s, "steps.rule"), "ranges matching 'step'");
  ASSERT_EQ(c.steps, 2u);
  EXPECT_EQ(s.steps[0].start, 1'000'000);
  EXPECT_EQ(s.steps[0].end, 11'000'000);
  for (std::size_t i = 0; i < c.host_ranges; ++i)
    if (s.strings.get(s.host_ranges[i].name) == "forward") {
      EXPECT_EQ(s.host_ranges[i].step, 1);
    }
  // Threads, device properties (TARGET_INFO_GPU + TARGET_INFO_CUDA_DEVICE), session start.
  ASSERT_EQ(c.threads, 1u);
  EXPECT_EQ(s.threads[0].tid, 4243u);
  EXPECT_EQ(s.strings.get(s.threads[0].name), "python3");
  EXPECT_EQ(meta(s, "device.name"), "NVIDIA H200");
  EXPECT_EQ(meta(s, "device.compute_capability"), "9.0");
  EXPECT_EQ(meta(s, "device.multiprocessors"), "132");
  EXPECT_EQ(meta(s, "device.max_threads_per_sm"), "2048");
  EXPECT_EQ(meta(s, "device.count"), "1");
  EXPECT_EQ(meta(s, "session.start_unix_ns"), "1733000000000000000");
  // The unknown table (with a TEXT "start") is ignored, not an error.
  EXPECT_FALSE(contains(meta(s, "import.tables_read"), "SOME_FUTURE_TABLE"));
  EXPECT_EQ(t.summary.warning_count(), 0) << t.summary.warnings_text();
  const auto r = imp::analyze_imported(s);
  EXPECT_TRUE(r.gpu_present);
  EXPECT_EQ(r.steps, 2);
  EXPECT_TRUE(r.gpu_utilization.has_value());
  EXPECT_TRUE(r.sm_efficiency.has_value());  // device.* from TARGET_INFO_GPU: H200, cc 9.0, 132 SMs
}

TEST(ImportNsys, OlderLayoutWithoutMetadataTable) {
  const auto t = imp::import_trace(make_db("old", fixture_sql("old_no_meta.sql")));
  const EventStore& s = *t.store;
  EXPECT_EQ(t.summary.format, "schema inferred: no metadata table (NVTX_EVENTS without textId)");
  EXPECT_TRUE(contains(meta(s, "import.schema_version"), "inferred")) << meta(s, "import.schema_version");
  const auto c = s.counts();
  ASSERT_EQ(c.kernels, 2u);
  EXPECT_EQ(s.kernels[0].stream, 7u);
  EXPECT_EQ(s.kernels[1].stream, 14u);
  EXPECT_EQ(s.kernels[0].graph_id, 0u);  // no graphId column: optional
  EXPECT_EQ(s.strings.get(s.kernels[0].name), "add_kernel");
  ASSERT_EQ(c.memcpys, 1u);
  EXPECT_EQ(s.memcpys[0].copy_kind, 1);
  EXPECT_EQ(s.memcpys[0].src_kind, 0);  // no srcKind column
  EXPECT_EQ(s.memcpys[0].bytes, 4000);
  EXPECT_EQ(c.runtime, 3u);
  EXPECT_EQ(s.runtime[2].thread, 100u);
  EXPECT_EQ(s.strings.get(s.runtime[2].name), "cudaMemcpy");
  ASSERT_EQ(c.host_ranges, 1u);
  EXPECT_EQ(s.strings.get(s.host_ranges[0].name), "main loop");
  // No step ranges: the whole trace is one step; no ThreadNames, no PROCESSES: "thread 100".
  EXPECT_EQ(t.summary.steps, 1);
  EXPECT_EQ(meta(s, "steps.rule").rfind("the whole trace", 0), 0u) << meta(s, "steps.rule");
  ASSERT_EQ(c.threads, 1u);
  EXPECT_EQ(s.strings.get(s.threads[0].name), "thread 100");
  EXPECT_EQ(meta(s, "import.device_properties"), "absent");
  EXPECT_EQ(meta(s, "session.start_unix_ns"), "<absent>");
  (void)imp::analyze_imported(s);
}

TEST(ImportNsys, ExportMetaDataLayoutTextThatIsNotUtf8AndStepRange) {
  const std::string path = make_db("meta29", fixture_sql("export_meta_2_9.sql"));
  const auto t = imp::import_trace(path);
  const EventStore& s = *t.store;
  EXPECT_TRUE(contains(t.summary.format, "schema 2.7.1 from EXPORT_META_DATA, Nsight Systems 2021.3.1.54"))
      << t.summary.format;
  ASSERT_EQ(s.counts().kernels, 3u);
  // "kernel\xFF_a": the byte that is not UTF-8 became U+FFFD; the import did not fail.
  EXPECT_EQ(s.strings.get(s.kernels[0].name), "kernel\xEF\xBF\xBD_a");
  EXPECT_EQ(s.strings.get(s.threads[0].name), "worker");
  EXPECT_EQ(t.summary.steps, 1);  // "train_step" does not match the default "step"
  imp::ImportOptions o;
  o.step_range = "train_step";
  const auto t2 = imp::import_trace(path, o);
  EXPECT_EQ(t2.summary.steps, 3);
  EXPECT_EQ(meta(*t2.store, "steps.rule"), "ranges matching 'train_step'");
  // From memory, the same.
  const std::string bytes = read_text(path);
  const auto t3 = nsys::import_export_bytes(bytes.data(), bytes.size(), "mem.sqlite", o);
  EXPECT_EQ(t3.store->counts().kernels, 3u);
  EXPECT_EQ(t3.summary.steps, 3);
}

TEST(ImportNsys, PathsAndCancel) {
  EXPECT_TRUE(imp::is_trace_path("run/report.sqlite"));
  EXPECT_TRUE(imp::is_trace_path("report1.NSYS-REP"));
  EXPECT_TRUE(imp::is_trace_path("old.qdrep"));
  EXPECT_FALSE(imp::is_trace_path("run.tsession"));
  std::atomic<bool> cancel{true};
  imp::ImportOptions o;
  o.cancel = &cancel;
  EXPECT_THROW(imp::import_trace(make_db("cancel", fixture_sql("old_no_meta.sql")), o), imp::ImportCancelled);
}

TEST(ImportNsys, RefusesWhatIsNotAnExportWithTheExportHint) {
  const std::string dir = testing::TempDir();
  std::ofstream(dir + "nsys_text.sqlite") << "hello, not SQLite\n";
  std::string e = error_of(dir + "nsys_text.sqlite");
  EXPECT_TRUE(contains(e, "not a SQLite file")) << e;
  EXPECT_TRUE(contains(e, "nsys export --type sqlite")) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  // A report (its own binary format): say how to export it.
  std::ofstream(dir + "nsys_report.nsys-rep", std::ios::binary) << std::string("\x00\x01QDSTRM-like", 12);
  e = error_of(dir + "nsys_report.nsys-rep");
  EXPECT_TRUE(contains(e, "an Nsight Systems report, not its SQLite export")) << e;
  EXPECT_TRUE(contains(e, "nsys export --type sqlite " + dir + "nsys_report.nsys-rep")) << e;
  // SQLite, but some other program's file.
  e = error_of(make_db("other", "CREATE TABLE notes (id INTEGER, body TEXT); INSERT INTO notes VALUES (1, 'x');"));
  EXPECT_TRUE(contains(e, "not an Nsight Systems export")) << e;
  EXPECT_TRUE(contains(e, "nsys export --type sqlite report.nsys-rep")) << e;
  // A TrainScope session.
  e = error_of(std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/gpu_b16_nw4.tsession");
  EXPECT_TRUE(contains(e, "not a trace: open it as a session")) << e;
  const std::string session = read_text(std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/gpu_b16_nw4.tsession");
  try {
    nsys::import_export_bytes(session.data(), session.size(), "mem.tsession");
    ADD_FAILURE() << "a session imported as an export";
  } catch (const ts::InputError& x) {
    EXPECT_EQ(std::string(x.what()).rfind("mem.tsession: a TrainScope session, not a trace", 0), 0u) << x.what();
  }
  EXPECT_EQ(error_of("/nonexistent/report.sqlite").find("/nonexistent/report.sqlite"), 0u);
  const std::string junk = "SQLite format 3";
  EXPECT_THROW(nsys::import_export_bytes(junk.data(), junk.size(), "m"), ts::InputError);
}

TEST(ImportNsys, BadTablesAndValuesNameFileTableColumnRow) {
  const std::string cols = "start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER, demangledName INTEGER";
  // A needed column declared with another type.
  std::string e =
      error_of(kernel_db("type", "start TEXT, end INTEGER, deviceId INTEGER, streamId INTEGER", "('1', 2, 0, 7)"));
  EXPECT_TRUE(contains(e, "table CUPTI_ACTIVITY_KIND_KERNEL column start is declared TEXT, not INTEGER")) << e;
  EXPECT_TRUE(contains(e, "nsys_type.sqlite")) << e;
  // A needed column missing.
  e = error_of(kernel_db("nostream", "start INTEGER, end INTEGER, deviceId INTEGER", "(1, 2, 0)"));
  EXPECT_TRUE(contains(e, "table CUPTI_ACTIVITY_KIND_KERNEL has no column streamId")) << e;
  // A NULL where a value is needed, in row 2.
  e = error_of(kernel_db("null", cols, "(1, 2, 0, 7, 1), (NULL, 5, 0, 7, 1)"));
  EXPECT_TRUE(contains(e, "table CUPTI_ACTIVITY_KIND_KERNEL, column start, row 2: NULL")) << e;
  // Text stored in an INTEGER column (SQLite keeps what it cannot convert).
  e = error_of(kernel_db("text", cols, "(1, 'soon', 0, 7, 1)"));
  EXPECT_TRUE(contains(e, "column end, row 1: text where an integer is needed")) << e;
  // Huge values: a time beyond 2^62 ns, a stream id beyond 32 bits, an end before the start.
  e = error_of(kernel_db("huge", cols, "(9223372036854775807, 9223372036854775807, 0, 7, 1)"));
  EXPECT_TRUE(contains(e, "column start, row 1: 9223372036854775807 is out of range")) << e;
  e = error_of(kernel_db("stream", cols, "(1, 2, 0, 1099511627776, 1)"));
  EXPECT_TRUE(contains(e, "column streamId, row 1: 1099511627776 is out of range")) << e;
  e = error_of(kernel_db("backwards", cols, "(10, 5, 0, 7, 1)"));
  EXPECT_TRUE(contains(e, "column end, row 1: end 5 ns is before start 10 ns")) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

TEST(ImportNsys, ToleratesMissingTablesAndBadOptionalValues) {
  // No StringIds: names are "<string N>", counted; an optional value of the wrong type is absent.
  const auto t = imp::import_trace(make_db(
      "nostrings",
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER, "
      "demangledName INTEGER, graphId INTEGER); INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 7, 5, 'x');"));
  ASSERT_EQ(t.store->counts().kernels, 1u);
  EXPECT_EQ(t.store->strings.get(t.store->kernels[0].name), "<string 5>");
  EXPECT_EQ(t.store->kernels[0].graph_id, 0u);
  EXPECT_TRUE(contains(t.summary.warnings_text(), "1 string ids missing from StringIds")) << t.summary.warnings_text();
  EXPECT_TRUE(contains(t.summary.warnings_text(), "1 optional values of the wrong type")) << t.summary.warnings_text();
  // A ThreadNames row of no thread (globalTid NULL, as the schema allows), and a table whose name
  // only starts like a known one: neither is an error, neither is read as the known table.
  const auto n = imp::import_trace(make_db(
      "nullthread",
      "CREATE TABLE StringIds (id INTEGER, value TEXT); INSERT INTO StringIds VALUES (1, 'w');"
      "CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, globalTid INTEGER); INSERT INTO ThreadNames VALUES (1, NULL);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL_EXTRA (start TEXT); INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL_EXTRA "
      "VALUES ('x');"));
  EXPECT_EQ(n.store->counts().kernels, 0u);
  EXPECT_EQ(n.summary.warning_count(), 0) << n.summary.warnings_text();
  // A metadata table and nothing else: an export without events imports empty.
  const auto e = imp::import_trace(make_db("empty", "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);"));
  EXPECT_EQ(e.store->counts().events(), 0u);
  EXPECT_EQ(e.summary.format, "schema inferred: META_DATA_EXPORT names no EXPORT_SCHEMA_VERSION");
  (void)imp::analyze_imported(*e.store);
}

TEST(ImportNsys, CutFileIsAnErrorNotACrash) {
  const std::string bytes = read_text(make_db("cut", fixture_sql("newer_meta_v2.sql")));
  ASSERT_GT(bytes.size(), 8192u);
  for (std::size_t n : {std::size_t{100}, std::size_t{4096}, bytes.size() / 2, bytes.size() - 1}) {
    try {
      const auto t = nsys::import_export_bytes(bytes.data(), n, "cut.sqlite");
      (void)imp::analyze_imported(*t.store);
    } catch (const ts::InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("cut.sqlite: ", 0), 0u) << e.what();
    }
  }
}

TEST(ImportNsysReal, ConcurrentStreamsExportCounts) {
  const std::string path =
      std::string(TRAINSCOPE_SHARED_DIR) + "/cases/traces/nsys_2022.1_windows_gtx1060_concurrent_streams.sqlite";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "absent: " << path;
  const auto t = imp::import_trace(path);
  const EventStore& s = *t.store;
  const auto c = s.counts();
  EXPECT_EQ(c.kernels, 12u);
  std::set<std::string> stream_lanes;
  for (std::size_t i = 0; i < c.kernels; ++i) stream_lanes.insert(ts::prof::timeline::lane_of(s.kernels[i]).key);
  EXPECT_EQ(stream_lanes.size(), 10u);
  EXPECT_EQ(c.runtime, 184u);
  EXPECT_EQ(c.memcpys, 30u);
  EXPECT_EQ(c.memsets, 17u);
  EXPECT_EQ(c.syncs, 16u);
  EXPECT_EQ(c.host_ranges, 76u);  // NVTX_EVENTS: 76 push/pop ranges, 1 domain (not a range)
  std::int64_t h2d = 0, d2h = 0;
  for (std::size_t i = 0; i < c.memcpys; ++i) {
    EXPECT_GT(s.memcpys[i].bytes, 0);
    h2d += s.memcpys[i].copy_kind == 1, d2h += s.memcpys[i].copy_kind == 2;
  }
  EXPECT_EQ(h2d, 15);
  EXPECT_EQ(d2h, 15);
  EXPECT_TRUE(contains(t.summary.format, "schema 2.9.1 from EXPORT_META_DATA, Nsight Systems 2022.1.1.61"));
  EXPECT_EQ(meta(s, "device.name"), "GeForce GTX 1060 with Max-Q Design");  // not the iGPU rows
  EXPECT_EQ(meta(s, "device.compute_capability"), "6.1");
  EXPECT_EQ(meta(s, "device.multiprocessors"), "10");
  EXPECT_EQ(meta(s, "session.start_unix_ns"), "1653929684707566100");
  EXPECT_TRUE(contains(meta(s, "import.processes"), "ParallelKernelsTest.exe")) << meta(s, "import.processes");
  // The two tables another tool added (EXTRAP_*) and the others the importer does not read: ignored.
  EXPECT_FALSE(contains(meta(s, "import.tables_read"), "EXTRAP"));
  EXPECT_EQ(t.summary.warning_count(), 0) << t.summary.warnings_text();
  const auto r = imp::analyze_imported(s);
  EXPECT_TRUE(r.gpu_present);
  EXPECT_EQ(r.device_name, "GeForce GTX 1060 with Max-Q Design");
  ASSERT_TRUE(r.gpu_utilization.has_value());
  EXPECT_GT(*r.gpu_utilization, 0.0);
  // SM efficiency and occupancy: absent, the analysis's device tables start at compute capability
  // 7.0 and this GPU is 6.1 (the H200 fixture above gets them).
  EXPECT_GT(r.wall_ns, 0);
}
