// Sessions of older formats: every committed one (tests/data, the lesson recordings, the playground's
// recording, the session fuzzer's seeds that are sessions) is read, written in the current format and
// read back, and the two stores hold the same records, strings, launch configurations, metadata,
// lost-record counts and process rank, and give the same analysis. So the current writer loses
// nothing an older file held, and the reader reads both layouts alike.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "lessons/session_pack.h"
#include "profiling/analysis/analysis.h"
#include "profiling/import/trace_analysis.h"
#include "profiling/overview.h"
#include "profiling/session/session_file.h"

namespace ts::prof {
namespace {

namespace fs = std::filesystem;

/// The committed session files: *.tsession, *.tsession.zst and *.tsession.gz under tests/data and
/// resources, and the fuzzer's *.sqlite seeds (those that are sessions: the others do not open).
std::vector<std::string> committed_sessions() {
  std::vector<std::string> out;
  const fs::path root = TRAINSCOPE_SOURCE_DIR;
  for (const char* dir : {"tests/data", "resources"})
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      const std::string p = e.path().string();
      const bool session = p.ends_with(".tsession") || p.ends_with(".tsession.zst") || p.ends_with(".tsession.gz");
      const bool seed = p.find("/fuzz/session/") != std::string::npos && p.ends_with(".sqlite");
      if (e.is_regular_file() && (session || seed)) out.push_back(p);
    }
  std::sort(out.begin(), out.end());
  return out;
}

/// `a` and `b` row by row; the first difference named.
template <class R, class Same>
void expect_rows(const AppendLog<R>& a, const AppendLog<R>& b, const char* table, Same same) {
  ASSERT_EQ(a.size(), b.size()) << table;
  std::size_t differ = 0, first = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same(a[i], b[i]) && differ++ == 0) first = i;
  EXPECT_EQ(differ, 0u) << table << ": " << differ << " rows differ, the first at row " << first;
}
template <class R>
void expect_rows(const AppendLog<R>& a, const AppendLog<R>& b, const char* table) {
  expect_rows(a, b, table, [](const R& x, const R& y) { return x == y; });
}

/// Every record of `a` and `b`. String ids are compared as they are once both string tables are
/// equal; a kernel's launch configuration by its values (its row in kernel_configs is the reader's).
void expect_same_store(const EventStore& a, const EventStore& b) {
  ASSERT_EQ(a.strings.size(), b.strings.size());
  for (std::size_t i = 0; i < a.strings.size(); ++i)
    ASSERT_EQ(a.strings.get(static_cast<StringId>(i)), b.strings.get(static_cast<StringId>(i))) << "string " << i;
  expect_rows(a.kernels, b.kernels, "kernels", [&](KernelRecord x, KernelRecord y) {
    const bool config = a.config(x) == b.config(y);
    x.config = y.config = 0;
    return config && x == y;
  });
  expect_rows(a.memcpys, b.memcpys, "memcpys");
  expect_rows(a.memsets, b.memsets, "memsets");
  expect_rows(a.runtime, b.runtime, "runtime_calls");
  expect_rows(a.syncs, b.syncs, "syncs");
  expect_rows(a.memory, b.memory, "memory_events");
  expect_rows(a.overheads, b.overheads, "overheads");
  expect_rows(a.host_ranges, b.host_ranges, "host_ranges");
  expect_rows(a.threads, b.threads, "threads");
  expect_rows(a.steps, b.steps, "steps");
  expect_rows(a.losses, b.losses, "losses");
  expect_rows(a.epochs, b.epochs, "epochs");
  expect_rows(a.series, b.series, "sample_series");
  expect_rows(a.samples, b.samples, "samples");
  expect_rows(a.clock, b.clock, "clock_checks");
  expect_rows(a.py_frames, b.py_frames, "py_frames");
  expect_rows(a.py_stacks, b.py_stacks, "py_stacks");
  expect_rows(a.py_samples, b.py_samples, "py_samples");
  expect_rows(a.metric_series, b.metric_series, "metric_series");
  expect_rows(a.metric_samples, b.metric_samples, "metric_samples");
  expect_rows(a.graph_nodes, b.graph_nodes, "graph_nodes");
  EXPECT_EQ(a.meta(), b.meta());
  EXPECT_EQ(a.dropped().cupti, b.dropped().cupti);
  EXPECT_EQ(a.dropped().host_ranges, b.dropped().host_ranges);
  EXPECT_EQ(a.dropped().store_full, b.dropped().store_full);
  EXPECT_EQ(a.process_rank.load(), b.process_rank.load());
}

TEST(SessionFormats, EveryCommittedSessionRewrittenReadsTheSame) {
  const std::vector<std::string> files = committed_sessions();
  ASSERT_GE(files.size(), 24u);  // 3 in tests/data, 17 recordings in resources, the fuzzer's 4 seeds
  const std::string out = (fs::temp_directory_path() / ("ts_formats_" + std::to_string(getpid()) + ".tsession")).string();
  int rewritten = 0;
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    const lessons::PlainSession plain(file);
    EventStore old;
    try {
      read_session(plain.path(), old);
    } catch (const SessionError& e) {
      ASSERT_TRUE(file.ends_with(".sqlite")) << e.what();  // a fuzzer seed that is not a session
      continue;
    }
    SessionWriter(out, old).close();
    EventStore now;
    read_session(out, now);
    expect_same_store(old, now);
    ASSERT_NE(now.overview(), nullptr);
    EXPECT_TRUE(*now.overview() == build_overview(old));
    EXPECT_EQ(analysis::to_json(import::analyze_session(old)), analysis::to_json(import::analyze_session(now)));
    ++rewritten;
  }
  EXPECT_GE(rewritten, 21);  // formats 1 (tests/data), 2 and 3 (resources, small_v2.sqlite)
  fs::remove(out);
}

}  // namespace
}  // namespace ts::prof
