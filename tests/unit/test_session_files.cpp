// A session's files after a crash, on a read-only place and under two recorders: a killed recording's
// main file holds its batches (the WAL is checkpointed as it goes), so a copy of the .tsession alone
// reads; reading a file leaves nothing beside it; an empty SQLite file's error says to copy the -wal
// too; a second recorder on a path being recorded fails naming it and touches nothing.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <sqlite3.h>

#include "profiling/session/session_file.h"

namespace ts::prof {
namespace {

namespace fs = std::filesystem;

std::string temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("ts_session_files_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

void add_steps(EventStore& s, int from, int to) {
  for (int i = from; i <= to; ++i) {
    KernelRecord k;
    k.start = 1000 * i, k.end = k.start + 400, k.stream = 7, k.correlation = static_cast<std::uint32_t>(i);
    k.name = s.strings.intern("kernel");
    k.config = s.intern_config(KernelConfig{});
    s.append(s.kernels, k);
    s.append(s.steps, StepRecord{i, 1, i, 1000 * i, 1000 * i + 900, 64, 10});
  }
}

bool beside(const std::string& path, const char* suffix) { return fs::exists(path + suffix); }

TEST(SessionFiles, AKilledRecordingCopiedWithoutItsWalStillReads) {
  const std::string dir = temp_dir("killed");
  const std::string path = dir + "/run.tsession", copy = dir + "/copy.tsession";
  EventStore store;
  {
    SessionWriter w(path, store);
    add_steps(store, 1, 20);
    ASSERT_TRUE(w.write_batch());
    add_steps(store, 21, 30);
    ASSERT_TRUE(w.write_batch());
    // As after kill -9: the writer never closes; the main file is copied alone, no -wal beside it.
    fs::copy_file(path, copy);
    ASSERT_FALSE(beside(copy, "-wal"));
    EventStore read;
    ASSERT_NO_THROW(read_session(copy, read));
    EXPECT_EQ(read.steps.size(), 30u);
    EXPECT_EQ(read.kernels.size(), 30u);
    // Reading it wrote nothing beside it (opened immutable: no -wal, no -shm).
    EXPECT_FALSE(beside(copy, "-wal"));
    EXPECT_FALSE(beside(copy, "-shm"));
  }
  // A closed file read twice: nothing beside it either.
  EventStore again;
  read_session(path, again);
  EXPECT_EQ(again.steps.size(), 30u);
  EXPECT_FALSE(beside(path, "-wal"));
  EXPECT_FALSE(beside(path, "-shm"));
  fs::remove_all(dir);
}

/// Per table (or view, `type` "view") of `file`: its columns as "name type notnull pk" (PRAGMA
/// table_info), in order.
std::map<std::string, std::vector<std::string>> table_columns(const std::string& file, const std::string& type = "table") {
  std::map<std::string, std::vector<std::string>> out;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(("file:" + file + "?immutable=1").c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
                      nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return out;
  }
  std::vector<std::string> tables;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, ("SELECT name FROM sqlite_master WHERE type='" + type + "'").c_str(), -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW) tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  sqlite3_finalize(st);
  for (const std::string& t : tables) {
    sqlite3_prepare_v2(db, ("PRAGMA table_info(" + t + ")").c_str(), -1, &st, nullptr);
    while (sqlite3_step(st) == SQLITE_ROW)
      out[t].push_back(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 1))) + " " +
                       reinterpret_cast<const char*>(sqlite3_column_text(st, 2)) + " " +
                       std::to_string(sqlite3_column_int(st, 3)) + " " + std::to_string(sqlite3_column_int(st, 5)));
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return out;
}

// The record tables are made from one column list per record type (profiling/session/session_schema.cpp).
// A file written now has every table of a session recorded by the first format. Those whose layout
// format 4 kept have the same columns in the same order (name, type, NOT NULL, key); the seven event
// tables it split into rows and group tables have new ones, but the views over them give the columns
// they gave, so a query on kernel_view, runtime_view, host_range_view or launch_to_kernel reads both.
TEST(SessionFiles, TheViewsKeepTheColumnsOfRecordedSessions) {
  const std::string dir = temp_dir("schema");
  const std::string path = dir + "/new.tsession";
  EventStore store;
  {
    SessionWriter w(path, store);
    add_steps(store, 1, 2);
    w.close();
  }
  const std::string recorded_file = std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/gpu_b128_nw4.tsession";
  const auto recorded = table_columns(recorded_file);
  const auto now = table_columns(path);
  ASSERT_GE(recorded.size(), 20u);
  const std::set<std::string> split = {"kernels", "memcpys",       "memsets",    "runtime_calls",
                                       "syncs",   "memory_events", "host_ranges"};
  for (const auto& [table, columns] : recorded) {
    ASSERT_TRUE(now.count(table)) << table;
    if (!split.count(table)) {
      EXPECT_EQ(now.at(table), columns) << table;
    }
  }
  for (const char* added : {"overview_lanes", "py_frames", "py_stacks", "py_samples", "metric_series", "metric_samples", "graph_nodes", "graph_replays", "kernel_groups", "runtime_groups",
                            "host_range_groups", "memcpy_groups", "memset_groups", "sync_groups", "memory_groups"})
    EXPECT_TRUE(now.count(added)) << added;
  const auto recorded_views = table_columns(recorded_file, "view");
  const auto now_views = table_columns(path, "view");
  ASSERT_EQ(recorded_views.size(), 4u);  // kernel_view, runtime_view, host_range_view, launch_to_kernel
  for (const auto& [view, columns] : recorded_views) {
    ASSERT_TRUE(now_views.count(view)) << view;
    EXPECT_EQ(now_views.at(view), columns) << view;
  }
  EventStore read;
  read_session(path, read);
  EXPECT_EQ(read.kernels.size(), 2u);
  EXPECT_EQ(read.steps[1].end, 2900);
  fs::remove_all(dir);
}

TEST(SessionFiles, AFileWhoseRowsAreInAMissingWalSaysToCopyIt) {
  const std::string dir = temp_dir("nowal");
  const std::string path = dir + "/empty.tsession";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);  // a 4 KB SQLite file, as a killed run left one
  sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  EventStore s;
  try {
    read_session(path, s);
    FAIL() << "read an empty database";
  } catch (const SessionError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("not a TrainScope session"), std::string::npos) << what;
    EXPECT_NE(what.find("copy its -wal file (" + fs::path(path).filename().string() + "-wal) beside it too"), std::string::npos) << what;
    EXPECT_EQ(what.find(path), what.rfind(path)) << "the path once: " << what;
  }
  fs::remove_all(dir);
}

TEST(SessionFiles, ASecondRecorderOnTheSamePathFailsAndTouchesNothing) {
  const std::string dir = temp_dir("lock");
  const std::string path = dir + "/s.tsession";
  EventStore a_store, b_store;
  auto first = std::make_unique<SessionWriter>(path, a_store);
  add_steps(a_store, 1, 5);
  ASSERT_TRUE(first->write_batch());
  try {
    SessionWriter second(path, b_store);
    FAIL() << "two recorders on one path";
  } catch (const SessionError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("session file " + path + " is being recorded by another recorder"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
  add_steps(a_store, 6, 8);
  ASSERT_TRUE(first->write_batch());  // the first one's file is still there and still written
  first->close();
  EXPECT_FALSE(beside(path, ".lock"));  // gone with the recording
  EventStore read;
  read_session(path, read);
  EXPECT_EQ(read.steps.size(), 8u);
  first.reset();
  EXPECT_NO_THROW(SessionWriter(path, b_store).close());  // free again once closed
  fs::remove_all(dir);
}

// A read-only folder (a read-only mount): the file opens immutable and reads, with no -shm to create.
// Root writes anywhere, so the case only exists for other users.
TEST(SessionFiles, AReadOnlyFolderStillReads) {
  if (geteuid() == 0) GTEST_SKIP() << "root can write a read-only folder";
  const std::string dir = temp_dir("readonly");
  const std::string path = dir + "/s.tsession";
  EventStore store;
  SessionWriter w(path, store);
  add_steps(store, 1, 12);
  ASSERT_TRUE(w.write_batch());
  const std::string ro = temp_dir("readonly_copy");
  fs::copy_file(path, ro + "/s.tsession");
  fs::copy_file(path + "-wal", ro + "/s.tsession-wal");
  chmod(ro.c_str(), 0555);
  EventStore read;
  EXPECT_NO_THROW(read_session(ro + "/s.tsession", read));
  EXPECT_EQ(read.steps.size(), 12u);
  chmod(ro.c_str(), 0755);
  w.close();
  fs::remove_all(dir);
  fs::remove_all(ro);
}

// A schema whose object name holds a line feed and an escape sequence, made malformed: SQLite's message
// quotes the name ("malformed database schema (NAME)"); the error stays one printable line. The fuzzer
// found such a file (a table renamed with a line feed in it).
TEST(SessionFiles, AMalformedSchemaWithAHostileNameIsOneLine) {
  const std::string dir = temp_dir("schema");
  const std::string path = dir + "/s.tsession";
  {
    EventStore s;
    add_steps(s, 1, 3);
    SessionWriter w(path, s);
    ASSERT_TRUE(w.write_batch());
    w.close();
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE \"x\n\x1b]0;title\x07\"(a)", nullptr, nullptr, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA writable_schema=ON; UPDATE sqlite_master SET sql='CREATE TABLE (' "
                             "WHERE name LIKE 'x%'; PRAGMA writable_schema=OFF;", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EventStore read;
  try {
    read_session(path, read);
    FAIL() << "read a malformed schema";
  } catch (const SessionError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("malformed database schema"), std::string::npos) << what;
    EXPECT_NE(what.find("x\\n"), std::string::npos) << what;  // the line feed, escaped
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_EQ(what.find('\x1b'), std::string::npos) << what;
  }
  fs::remove_all(dir);
}

}  // namespace
// Found by the session fuzzer: a NULL where the `dropped` table names its source threw std::logic_error
// out of the reader (constructing a string from a null pointer), which ended the process. Such a row is
// now a source nobody counts; the rest of the session reads.
TEST(SessionFiles, ANullDroppedSourceReadsAsNothingCounted) {
  const std::string dir = temp_dir("dropped");
  const std::string path = dir + "/s.tsession";
  {
    EventStore s;
    add_steps(s, 1, 3);
    s.dropped_cupti = 7;
    SessionWriter w(path, s);
    ASSERT_TRUE(w.write_batch());
    w.close();
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  // The file's own table keys on a NOT NULL source; a damaged or foreign file need not.
  ASSERT_EQ(sqlite3_exec(db, "DROP TABLE dropped; CREATE TABLE dropped(source TEXT, count INTEGER); "
                             "INSERT INTO dropped VALUES (NULL, 5), ('cupti', 7)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EventStore read;
  ASSERT_NO_THROW(read_session(path, read));
  EXPECT_EQ(read.steps.size(), 3u);
  EXPECT_EQ(read.dropped_cupti, 7);
  fs::remove_all(dir);
}

}  // namespace ts::prof
