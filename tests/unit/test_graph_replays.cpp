// Whole CUDA-graph replays (GraphReplayRecord) without a GPU: the schedule that places a hybrid
// recording's windows (skip_first, skip_first_wait, the default), which replays the store keeps, the
// parser's conversion of a synthetic GRAPH_TRACE record, the session table's round trip, older
// sessions without it, and the analysis and utilization buckets that count replays for the steps
// without kernel records.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "base/errors.h"
#include "engine/host_trace.h"
#include "profiling/analysis/analysis.h"
#include "profiling/analysis/series.h"
#include "profiling/schedule.h"
#include "profiling/session/session_file.h"
#include "profiling/session/session_schema.h"
#if defined(TRAINSCOPE_HAVE_CUDA)
#include "profiling/cupti/cupti_parse.h"
#endif

namespace ts::prof {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ts_replays_" + std::to_string(getpid()) + "_" + name)).string();
}

TEST(GraphReplaySchedule, SkipFirstAndSkipFirstWaitFollowPyTorch) {
  // skip_first=2: steps 1-2 not recorded, then cycles of wait=1, active=2 from step 3.
  const ProfileSchedule s = parse_profile_schedule("wait=1,active=2,skip_first=2");
  std::string states;
  for (int step = 1; step <= 8; ++step) states += static_cast<char>('0' + s.state(step));
  EXPECT_EQ(states, "00022022");
  // skip_first_wait=1: the first cycle starts where its wait ends.
  const ProfileSchedule w = parse_profile_schedule("wait=3,active=2,skip_first=1,skip_first_wait=1");
  states.clear();
  for (int step = 1; step <= 9; ++step) states += static_cast<char>('0' + w.state(step));
  EXPECT_EQ(states, "022000220");
  EXPECT_THROW(parse_profile_schedule("skip_first_wait=2,active=1"), InputError);
  EXPECT_THROW(parse_profile_schedule("skip_first=-1,active=1"), InputError);
  // The text round-trips; without the new keys it is the text older readers know.
  EXPECT_EQ(schedule_text(parse_profile_schedule(schedule_text(w))), schedule_text(w));
  EXPECT_EQ(schedule_text(parse_profile_schedule("wait=3,active=2")), "wait=3,warmup=0,active=2,repeat=0");
}

TEST(GraphReplaySchedule, TheDefaultHybridWindowsComeRightAfterStepOneThenEvery200Steps) {
  const ProfileSchedule s = default_hybrid_schedule();
  ASSERT_TRUE(s.enabled);
  std::vector<int> analysed;
  for (int step = 1; step <= 450; ++step)
    if (analysed_step(s, step)) analysed.push_back(step);
  ASSERT_EQ(analysed.size(), 60u);  // 20 a window
  EXPECT_EQ(analysed.front(), 3);
  EXPECT_EQ(analysed[19], 22);
  EXPECT_EQ(analysed[20], 203);
  EXPECT_EQ(analysed[40], 403);
  // CUPTI's kinds are on from step 1 (the lead-in of the window at 2) to 22, and again from 201.
  EXPECT_TRUE(cupti_on_for_next(s, 0));
  EXPECT_TRUE(cupti_on_for_next(s, 21));
  EXPECT_FALSE(cupti_on_for_next(s, 22));   // step 23: between windows
  EXPECT_FALSE(cupti_on_for_next(s, 199));  // step 200
  EXPECT_TRUE(cupti_on_for_next(s, 200));   // step 201: the lead-in of the window at 202
  // The analysis reads the default back from the session's meta.
  const auto back = schedule_from_meta({{"session.schedule", schedule_text(s)}});
  ASSERT_TRUE(back);
  EXPECT_TRUE(analysed_step(*back, 203));
  EXPECT_FALSE(analysed_step(*back, 202));
  EXPECT_TRUE(hybrid_from_meta({{"session.trace_mode", kTraceHybrid}}));
  EXPECT_FALSE(hybrid_from_meta({{"session.trace_mode", kTraceWindows}}));
}

TEST(GraphReplayKeep, ReplaysAreKeptOutsideTheKernelWindows) {
  EventStore all;  // no schedule: everything
  EXPECT_TRUE(all.keep_graph_replay(5));
  EventStore s;
  s.gpu_windows.set_none();
  EXPECT_TRUE(s.keep_graph_replay(50));  // before any window
  s.gpu_windows.open(100), s.gpu_windows.close(200), s.gpu_windows.open(300);
  EXPECT_FALSE(s.keep_graph_replay(150));
  EXPECT_TRUE(s.keep_graph_replay(250));
  EXPECT_FALSE(s.keep_graph_replay(350));  // the open window
}

#if defined(TRAINSCOPE_HAVE_CUDA)
TEST(GraphReplayParse, AGraphTraceRecordBecomesAGraphReplay) {
  EventStore s;
  s.gpu_windows.open(100'000), s.gpu_windows.close(200'000);
  const std::int64_t offset = 1'000'000;  // CUPTI clock = host + 1 ms
  CuptiParser p(s, SessionClock(500, offset), 2, {});
  auto replay = [&](std::uint64_t start, std::uint64_t end, std::uint32_t corr) {
    CUpti_ActivityGraphTrace2 g{};
    g.kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
    g.start = start, g.end = end, g.correlationId = corr, g.deviceId = 0, g.graphId = 9, g.contextId = 1,
    g.streamId = 13;
    // Through a buffer as CUPTI hands it over: one record, walked by a stand-in for cuptiActivityGetNextRecord.
    std::vector<std::uint8_t> buffer(sizeof g);
    std::memcpy(buffer.data(), &g, sizeof g);
    return p.parse_buffer(buffer.data(), buffer.size(), [](std::uint8_t* b, std::size_t valid, CUpti_Activity** r) {
      if (*r) return CUPTI_ERROR_MAX_LIMIT_REACHED;
      (void)valid;
      *r = reinterpret_cast<CUpti_Activity*>(b);
      return CUPTI_SUCCESS;
    });
  };
  EXPECT_EQ(replay(1'050'500, 1'450'500, 77), 1);  // session 50'000 .. 450'000: outside the window
  replay(1'150'500, 1'160'500, 78);                // inside the kernel window [100 us, 200 us): not kept
  replay(0, 0, 79);                                // untimed: counted, not stored
  ASSERT_EQ(s.graph_replays.size(), 1u);
  const GraphReplayRecord& r = s.graph_replays[0];
  EXPECT_EQ(r.start, 50'000);
  EXPECT_EQ(r.end - r.start, 400'000);
  EXPECT_EQ(r.correlation, 77u);
  EXPECT_EQ(r.graph_id, 9u);
  EXPECT_EQ(r.stream, 13u);
  EXPECT_EQ(r.context, 1u);
  EXPECT_EQ(r.rank, 2);
  EXPECT_EQ(r.device, 0);
  EXPECT_EQ(p.counts().graph_replays, 3);
  EXPECT_EQ(p.counts().graph_replays_untimed, 1);
  EXPECT_EQ(s.counts().graph_replays, 1u);
  EXPECT_EQ(s.counts().events(), 1u);
}
// The live path of a hybrid recording without a GPU: the CUPTI parser (the collector's thread)
// appends graph replays from synthetic GRAPH_TRACE buffers while the trainer's thread appends steps
// and the session writer (the profiler's pump) writes batches; then the overview is built at close.
// Every replay and step must reach the file, none twice.
TEST(GraphReplayParse, ReplaysParsedWhileTheWriterWritesBatchesAllReachTheFile) {
  const std::string path = temp_path("live.tsession");
  EventStore s;
  s.gpu_windows.open(0), s.gpu_windows.close(1'000);  // a kernel window [0, 1 us), then replays
  CuptiParser p(s, SessionClock(0, 0), 0, {});
  constexpr int kReplays = 20'000, kPerBuffer = 50, kSteps = 2'000;
  std::atomic<bool> done{false};
  {
    SessionWriter w(path, s);
    std::thread writer([&] {
      while (!done.load()) {
        EXPECT_TRUE(w.write_batch());
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
    std::thread trainer([&] {
      for (int i = 1; i <= kSteps; ++i) {
        StepRecord st;
        st.global_step = i, st.epoch = 1, st.step = i, st.start = 10'000 * i, st.end = 10'000 * i + 5'000;
        s.append(s.steps, st);
      }
    });
    std::vector<CUpti_ActivityGraphTrace2> buffer(kPerBuffer);
    for (int b = 0; b < kReplays / kPerBuffer; ++b) {
      for (int j = 0; j < kPerBuffer; ++j) {
        const int i = b * kPerBuffer + j;
        CUpti_ActivityGraphTrace2& g = buffer[static_cast<std::size_t>(j)];
        g = {};
        g.kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
        g.start = 2'000 + 5'000ull * static_cast<std::uint64_t>(i), g.end = g.start + 4'000;
        g.correlationId = static_cast<std::uint32_t>(i + 1), g.graphId = 3, g.streamId = 7;
      }
      // Walks the records as cuptiActivityGetNextRecord does: each one after the one before.
      p.parse_buffer(reinterpret_cast<std::uint8_t*>(buffer.data()), buffer.size() * sizeof buffer[0],
                     [](std::uint8_t* base, std::size_t valid, CUpti_Activity** r) {
                       auto* next = *r ? reinterpret_cast<std::uint8_t*>(*r) + sizeof(CUpti_ActivityGraphTrace2) : base;
                       if (next >= base + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
                       *r = reinterpret_cast<CUpti_Activity*>(next);
                       return CUPTI_SUCCESS;
                     });
    }
    trainer.join();
    done = true;
    writer.join();
    w.close();
    EXPECT_TRUE(w.error().empty()) << w.error();
  }
  EXPECT_EQ(p.counts().graph_replays, kReplays);
  ASSERT_EQ(s.graph_replays.size(), static_cast<std::size_t>(kReplays));
  EventStore b;
  read_session(path, b);
  ASSERT_EQ(b.graph_replays.size(), static_cast<std::size_t>(kReplays));
  ASSERT_EQ(b.steps.size(), static_cast<std::size_t>(kSteps));
  for (std::size_t i = 0; i < b.graph_replays.size(); ++i) ASSERT_EQ(b.graph_replays[i], s.graph_replays[i]) << i;
  std::filesystem::remove(path);
}
#endif

TEST(GraphReplaySession, TheTableRoundTripsAndItsViewAddsTheEnd) {
  const std::string path = temp_path("roundtrip.tsession");
  EventStore a;
  for (int i = 0; i < 30; ++i)
    a.append(a.graph_replays, GraphReplayRecord{1000 * i, 1000 * i + 700, 0, 1, 3, 7, static_cast<std::uint32_t>(i + 1), 4});
  {
    SessionWriter w(path, a);
    ASSERT_TRUE(w.write_batch());
    a.append(a.graph_replays, GraphReplayRecord{90'000, 90'500, 0, 1, 3, 7, 99, 4});  // a second batch appends
    w.close();
    EXPECT_EQ(w.events_written(), 31);
  }
  EventStore b;
  read_session(path, b);
  ASSERT_EQ(b.graph_replays.size(), 31u);
  for (std::size_t i = 0; i < 31; ++i) EXPECT_EQ(a.graph_replays[i], b.graph_replays[i]) << i;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT MAX(\"end\"), COUNT(*), MAX(version) FROM graph_replay_view, schema_version",
                               -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(st, 0), 90'500);
  EXPECT_EQ(sqlite3_column_int64(st, 1), 31);
  EXPECT_EQ(sqlite3_column_int64(st, 2), kSessionSchemaVersion);
  EXPECT_EQ(kSessionSchemaVersion, 5);
  sqlite3_finalize(st);
  sqlite3_close(db);
  std::filesystem::remove(path);
}

TEST(GraphReplaySession, ASessionOfAnOlderFormatOpensWithNoReplays) {
  // A committed format-3/4 recording (tests/data) has no graph_replays table.
  const std::string recorded = std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/gpu_b128_nw4.tsession";
  EventStore s;
  ASSERT_NO_THROW(read_session(recorded, s));
  EXPECT_GT(s.kernels.size(), 0u);
  EXPECT_EQ(s.graph_replays.size(), 0u);
  // And a format-4 file as the writer made it before format 5: its schema, version 4.
  const std::string path = temp_path("format4.tsession");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const std::string sql = schema::create_sql(4) + "INSERT INTO schema_version VALUES(4);PRAGMA application_id=" +
                          std::to_string(kSessionApplicationId) + ";PRAGMA user_version=4;" +
                          "INSERT INTO steps(global_step, epoch, step, start, \"end\") VALUES(1, 1, 1, 0, 100);";
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
  EXPECT_EQ(schema::create_sql(4).find("graph_replays"), std::string::npos);
  EventStore old;
  ASSERT_NO_THROW(read_session(path, old));
  EXPECT_EQ(old.steps.size(), 1u);
  EXPECT_EQ(old.graph_replays.size(), 0u);
  std::filesystem::remove(path);
}

/// A hybrid recording's store: 10 steps of 1 ms from 0; steps 3-4 analysed with one 600 us kernel
/// each (a window of active=3 at steps 2-4 whose first step is left out), steps 5-10 with a 900 us
/// graph replay each, steps 1-2 with neither.
void fill_hybrid(EventStore& s) {
  s.set_meta("session.schedule", "wait=6,warmup=0,active=3,repeat=0,skip_first=1,skip_first_wait=1");
  s.set_meta("session.trace_mode", kTraceHybrid);
  s.set_meta("gpu_activity", "collected (CUPTI)");
  const StringId name = s.strings.intern("void elementwise_kernel<float>()");
  for (int i = 0; i < 10; ++i) {
    const std::int64_t a = 1'000'000LL * i;
    s.append(s.steps, StepRecord{i + 1, 1, i + 1, a, a + 1'000'000, 128, 0});
    HostRangeRecord h;
    h.start = a, h.end = a + 1'000'000, h.kind = static_cast<std::uint8_t>(trace::RangeKind::step), h.step = i + 1;
    if (i == 2 || i == 3) s.append(s.host_ranges, h);
    KernelRecord k;
    k.start = a + 100'000, k.end = a + 700'000, k.name = name, k.correlation = static_cast<std::uint32_t>(i + 1);
    if (i == 2 || i == 3) s.append(s.kernels, k);
    if (i >= 4) s.append(s.graph_replays, GraphReplayRecord{a + 50'000, a + 950'000, 0, 0, 1, 7, 100u + i, 3});
  }
}

TEST(GraphReplayAnalysis, GpuBusyOverTheRunCountsTheReplaysOfStepsWithoutKernels) {
  EventStore s;
  fill_hybrid(s);
  const analysis::Report r = analysis::analyze(s);
  EXPECT_EQ(r.steps, 2);  // the verdicts' steps stay the window's analysed ones
  ASSERT_TRUE(r.gpu_utilization);
  EXPECT_NEAR(*r.gpu_utilization, 0.6, 1e-9);
  ASSERT_TRUE(r.run_gpu_busy);
  const analysis::RunGpuBusy& b = *r.run_gpu_busy;
  EXPECT_EQ(b.kernel_steps, 2);
  EXPECT_EQ(b.replay_steps, 6);  // steps 1-2 have neither: left out
  EXPECT_EQ(b.replay_busy_ns, 6 * 900'000);
  EXPECT_EQ(b.replay_wall_ns, 6 * 1'000'000);
  EXPECT_NEAR(b.utilization(), (2 * 0.6 + 6 * 0.9) / 8, 1e-9);
  EXPECT_NE(analysis::to_text(r).find("GPU busy over the run 82.5 %"), std::string::npos) << analysis::to_text(r);
  EXPECT_NE(analysis::to_json(r).find("\"run_gpu_busy\""), std::string::npos);
  // A session without replays has no such figure.
  EventStore plain;
  plain.append(plain.steps, StepRecord{1, 1, 1, 0, 1000, 1, 0});
  EXPECT_FALSE(analysis::analyze(plain).run_gpu_busy);
}

TEST(GraphReplayAnalysis, UtilizationBucketsAreBusyWhereReplaysRan) {
  EventStore s;
  fill_hybrid(s);
  const analysis::GpuBuckets g =
      analysis::bucket_gpu(s, s.counts(), 0, 10'000'000, 1'000'000, analysis::DeviceProps{});
  ASSERT_EQ(g.count(), 10u);
  EXPECT_TRUE(g.gpu_present);
  EXPECT_NEAR(g.busy[0], 0.0, 1e-9);  // step 1: untraced
  EXPECT_NEAR(g.busy[2], 0.6, 1e-9);  // an analysed step: its kernel
  for (int i = 4; i < 10; ++i) EXPECT_NEAR(g.busy[i], 0.9, 1e-9) << i;  // a replay each
}

}  // namespace
}  // namespace ts::prof

namespace ts::trace {
namespace {

// The engine keeps an executable step graph for each graph tracing and launches the one made under the
// tracing now on: a change is counted once, and setting the tracing already on counts nothing.
TEST(GraphTracing, ChangesAreCountedOnceAndTheCurrentTracingIsKept) {
  set_graph_tracing(GraphTracing::per_kernel);
  const unsigned before = graph_tracing_changes();
  set_graph_tracing(GraphTracing::per_kernel);
  EXPECT_EQ(graph_tracing_changes(), before);
  EXPECT_EQ(graph_tracing(), GraphTracing::per_kernel);
  set_graph_tracing(GraphTracing::whole_graph);
  set_graph_tracing(GraphTracing::whole_graph);
  EXPECT_EQ(graph_tracing(), GraphTracing::whole_graph);
  EXPECT_EQ(graph_tracing_changes(), before + 1);
  set_graph_tracing(GraphTracing::per_kernel);
  EXPECT_EQ(graph_tracing(), GraphTracing::per_kernel);
  EXPECT_EQ(graph_tracing_changes(), before + 2);
}

}  // namespace
}  // namespace ts::trace
