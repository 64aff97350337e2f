// CUDA-graph kernels and their layers (profiling/cupti/graph_nodes.h, layer_stats.h "CUDA graphs"):
// the tracker maps a node created inside a launch call to that call's correlation id and a clone to
// its original's; CUPTI's callback structs reach it (CUDA builds); layer attribution gives each
// layer the kernels replayed from a graph whose capture-time launches lay in the layer's ranges, in
// the steps of their replays; the graph_nodes table goes through a session file and back; and a
// session without the table (written before it came) still opens, its graph kernels outside layers.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "engine/host_trace.h"
#include "profiling/analysis/layer_stats.h"
#include "profiling/cupti/graph_nodes.h"
#include "profiling/session/session_file.h"

#if defined(TRAINSCOPE_HAVE_CUDA)
#include "profiling/cupti/graph_node_callbacks.h"
#endif

namespace ts::prof {
namespace {

namespace fs = std::filesystem;
using K = trace::RangeKind;
using Api = GraphNodeTracker::Api;
constexpr std::uint32_t kTid = 7;

TEST(GraphNodes, ANodeMapsToTheLaunchInProgressAndACloneToItsOriginal) {
  GraphNodeTracker t;
  t.node_created(1);  // no launch in progress (an instantiation's copy): not kept
  GraphNodeTracker::api_enter(Api::runtime, 40);
  t.node_created(10);
  GraphNodeTracker::api_exit(Api::runtime);
  // cuBLAS: a driver launch alone maps to its own id ...
  GraphNodeTracker::api_enter(Api::driver, 41);
  t.node_created(11);
  GraphNodeTracker::api_exit(Api::driver);
  // ... but inside a runtime launch the runtime call's id wins, and a nested launch keeps the outer.
  GraphNodeTracker::api_enter(Api::runtime, 42);
  GraphNodeTracker::api_enter(Api::driver, 43);
  GraphNodeTracker::api_enter(Api::runtime, 44);
  t.node_created(12);
  GraphNodeTracker::api_exit(Api::runtime);
  t.node_created(13);
  GraphNodeTracker::api_exit(Api::driver);
  GraphNodeTracker::api_exit(Api::runtime);
  EXPECT_EQ(GraphNodeTracker::call_in_progress(), 0u);
  t.node_created(14);  // after every launch ended
  // Instantiation: clones of clones map to the capture-time launch; an unknown original is counted.
  t.node_cloned(110, 10);
  t.node_cloned(1110, 110);
  t.node_cloned(111, 11);
  t.node_cloned(999, 5);
  EXPECT_EQ(t.unmapped_clones(), 1);
  EventStore s;
  EXPECT_EQ(t.drain(s), 7u);
  EXPECT_EQ(t.drain(s), 0u);  // each mapping once
  const auto m = graph_node_correlations(s, s.graph_nodes.size());
  EXPECT_EQ(m.size(), 7u);
  EXPECT_EQ(m.at(10), 40u);
  EXPECT_EQ(m.at(11), 41u);
  EXPECT_EQ(m.at(12), 42u);
  EXPECT_EQ(m.at(13), 42u);
  EXPECT_EQ(m.at(110), 40u);
  EXPECT_EQ(m.at(1110), 40u);
  EXPECT_EQ(m.at(111), 41u);
  EXPECT_FALSE(m.count(1) || m.count(14) || m.count(999));
  EXPECT_EQ(graph_node_correlation(s, 1110), 40u);
  EXPECT_EQ(graph_node_correlation(s, 999), 0u);
  EXPECT_EQ(graph_node_correlation(s, 0), 0u);
}

#if defined(TRAINSCOPE_HAVE_CUDA)
// CUPTI's own structs through the shared callbacks: a launch's ENTER/EXIT (CUpti_CallbackData) and a
// node's creation and cloning (CUpti_ResourceData whose resourceDescriptor is a CUpti_GraphData).
CUptiResult fake_node_id(CUgraphNode node, std::uint64_t* id) {
  *id = reinterpret_cast<std::uintptr_t>(node);  // the fake handles are their ids
  return CUPTI_SUCCESS;
}

TEST(GraphNodes, CuptiCallbacksReachTheTracker) {
  GraphNodeTracker t;
  CUpti_CallbackData launch{};
  launch.correlationId = 77;
  launch.callbackSite = CUPTI_API_ENTER;
  EXPECT_TRUE(graph_node_api_callback(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &launch));
  EXPECT_FALSE(graph_node_api_callback(CUPTI_CB_DOMAIN_RUNTIME_API,
                                       CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, &launch));  // not followed
  CUpti_GraphData g{};
  g.node = reinterpret_cast<CUgraphNode>(std::uintptr_t{5});
  CUpti_ResourceData r{};
  r.resourceDescriptor = &g;
  EXPECT_TRUE(graph_node_resource_callback(t, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, &r,
                                           &fake_node_id));
  launch.callbackSite = CUPTI_API_EXIT;
  graph_node_api_callback(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &launch);
  EXPECT_EQ(GraphNodeTracker::call_in_progress(), 0u);
  g.node = reinterpret_cast<CUgraphNode>(std::uintptr_t{6});
  g.originalNode = reinterpret_cast<CUgraphNode>(std::uintptr_t{5});
  EXPECT_TRUE(graph_node_resource_callback(t, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED, &r,
                                           &fake_node_id));
  EXPECT_FALSE(graph_node_resource_callback(t, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &r,
                                            &fake_node_id));
  EventStore s;
  t.drain(s);
  EXPECT_EQ(graph_node_correlation(s, 5), 77u);
  EXPECT_EQ(graph_node_correlation(s, 6), 77u);
}
#endif

/// A training run with --cuda-graphs on, as the engine records it: step 1 captures the step (layer
/// ranges with their capture-time launches, no kernels run), then every step replays it with one
/// cudaGraphLaunch inside a "CUDA graph launch" range; the replayed kernels carry their graph node
/// (the executable graph's clone of the captured node) and the cudaGraphLaunch's correlation id.
struct GraphRun {
  EventStore s;
  std::uint32_t corr = 1;
  StringId launch = s.strings.intern("cudaLaunchKernel"), graph_launch = s.strings.intern("cudaGraphLaunch");
  StringId kname = s.strings.intern("some_kernel");
  struct Node {
    std::uint64_t exec_node;
    std::int64_t dur;
  };
  std::vector<Node> nodes;

  void range(K k, std::int64_t a, std::int64_t b, const char* layer, std::int64_t step) {
    HostRangeRecord r;
    r.start = a, r.end = b, r.thread = kTid, r.kind = static_cast<std::uint8_t>(k), r.step = step;
    r.name = s.strings.intern(trace::range_kind_name(k));
    if (layer) r.layer = s.strings.intern(layer);
    s.append(s.host_ranges, r);
  }
  std::uint32_t call(std::int64_t at, StringId name) {
    RuntimeRecord rt;
    rt.start = at, rt.end = at + 5, rt.thread = kTid, rt.correlation = corr, rt.name = name;
    s.append(s.runtime, rt);
    return corr++;
  }
  /// A launch captured at host time `at` (inside a range): node `node` (its clone node + 1000 in the
  /// executable graph) runs `dur` ns at each replay.
  void captured(std::int64_t at, std::uint64_t node, std::int64_t dur, bool with_mapping) {
    const std::uint32_t c = call(at, launch);
    if (with_mapping) {
      s.append(s.graph_nodes, GraphNodeRecord{node, c});
      s.append(s.graph_nodes, GraphNodeRecord{node + 1000, c});
    }
    nodes.push_back({node + 1000, dur});
  }
  void capture(bool with_mapping) {
    range(K::forward, 100, 200, "layer 0 (Conv2d conv1)", 1);
    captured(110, 1, 100, with_mapping);
    captured(120, 2, 50, with_mapping);
    range(K::forward, 200, 300, "layer 3 (Linear fc)", 1);
    captured(210, 3, 30, with_mapping);
    range(K::loss, 300, 350, nullptr, 1);
    captured(310, 4, 20, with_mapping);  // the loss: outside every layer
    range(K::backward, 350, 450, "layer 3 (Linear fc)", 1);
    captured(360, 5, 40, with_mapping);
    range(K::backward, 450, 570, "layer 0 (Conv2d conv1)", 1);
    captured(460, 6, 60, with_mapping);
  }
  /// Step `gs` (1000 ns from t0) replays the graph once.
  void replay_step(std::int64_t gs, std::int64_t t0) {
    s.append(s.steps, StepRecord{gs, 1, gs, t0, t0 + 1000, 16, 0});
    range(K::step, t0, t0 + 1000, nullptr, gs);
    range(K::other, t0 + 800, t0 + 810, nullptr, gs);  // "CUDA graph launch"
    const std::uint32_t g = call(t0 + 805, graph_launch);
    std::int64_t t = t0 + 900;
    for (const Node& n : nodes) {
      KernelRecord k;
      k.start = t, k.end = t + n.dur, k.correlation = g, k.name = kname, k.graph_id = 1, k.graph_node = n.exec_node;
      s.append(s.kernels, k);
      t += n.dur;
    }
  }
  void run(bool with_mapping, int steps = 3) {
    capture(with_mapping);
    for (int i = 1; i <= steps; ++i) replay_step(i, 1000 * i);
  }
};

const analysis::LayerStats& row(const analysis::LayerReport& r, int spec_index) {
  for (const auto& l : r.layers)
    if (l.spec_index == spec_index) return l;
  throw std::runtime_error("no row for layer " + std::to_string(spec_index));
}

TEST(GraphNodes, ReplayedKernelsGoToTheLayersTheirLaunchesWereCapturedIn) {
  GraphRun g;
  g.run(true);
  const analysis::LayerReport r = analysis::layer_stats(g.s);
  ASSERT_EQ(r.layers.size(), 2u);
  const auto& conv = row(r, 0);
  const auto& fc = row(r, 3);
  EXPECT_EQ(conv.forward.kernels, 6);  // 2 captured launches x 3 replays
  EXPECT_EQ(conv.forward.gpu_kernel_ns, 3 * 150);
  EXPECT_EQ(conv.backward.kernels, 3);
  EXPECT_EQ(conv.backward.gpu_kernel_ns, 3 * 60);
  EXPECT_EQ(fc.forward.gpu_kernel_ns, 3 * 30);
  EXPECT_EQ(fc.backward.gpu_kernel_ns, 3 * 40);
  EXPECT_EQ(conv.forward.calls, 1);  // the host ran the layer once, when it captured
  EXPECT_EQ(r.kernels_outside_layers, 3);  // the loss, once a step
  EXPECT_EQ(r.kernel_ns_outside_layers, 3 * 20);
  EXPECT_EQ(r.kernels_by_graph_node, 18);
  EXPECT_EQ(r.graph_kernels_unmapped, 0);
  EXPECT_EQ(r.kernels_unmatched, 0);
  EXPECT_DOUBLE_EQ(conv.forward.gpu_share, 450.0 / 3000);
}

TEST(GraphNodes, AReplayCountsInItsOwnStepNotTheCapturingOne) {
  GraphRun g;
  g.run(true);
  analysis::LayerStatsOptions o;
  o.first_step = 2;  // the capture (step 1) is filtered out; the replays of steps 2 and 3 are not
  const analysis::LayerReport r = analysis::layer_stats(g.s, o);
  EXPECT_EQ(r.steps, 2);
  EXPECT_EQ(row(r, 0).forward.kernels, 4);
  EXPECT_EQ(row(r, 0).forward.gpu_kernel_ns, 2 * 150);
  EXPECT_EQ(row(r, 0).forward.calls, 0);  // no host range in steps 2 and 3
  EXPECT_EQ(row(r, 3).backward.gpu_kernel_ns, 2 * 40);
  EXPECT_EQ(r.kernels_outside_layers, 2);
  o.first_step = -1, o.last_step = 1;
  EXPECT_EQ(row(analysis::layer_stats(g.s, o), 0).forward.gpu_kernel_ns, 150);
}

TEST(GraphNodes, WithoutTheMappingReplayedKernelsHaveNoLayerAndAreCounted) {
  GraphRun g;
  g.run(false);
  const analysis::LayerReport r = analysis::layer_stats(g.s);
  EXPECT_EQ(row(r, 0).forward.kernels, 0);
  EXPECT_EQ(row(r, 3).backward.kernels, 0);
  EXPECT_EQ(r.kernels_outside_layers, 18);  // each by its cudaGraphLaunch, in its step
  EXPECT_EQ(r.graph_kernels_unmapped, 18);
  EXPECT_EQ(r.kernels_by_graph_node, 0);
}

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("ts_graph_nodes_" + std::to_string(getpid()) + "_" + name + ".tsession")).string();
}

TEST(GraphNodes, TheTableGoesThroughASessionFile) {
  GraphRun g;
  g.run(true);
  g.s.append(g.s.graph_nodes, GraphNodeRecord{0xF000'0000'0000'0001ull, 4'000'000'000u});  // ids past int64 and int32
  const std::string path = temp_path("roundtrip");
  {
    SessionWriter w(path, g.s);
    w.close();
  }
  EventStore read;
  read_session(path, read);
  ASSERT_EQ(read.graph_nodes.size(), g.s.graph_nodes.size());
  for (std::size_t i = 0; i < read.graph_nodes.size(); ++i) EXPECT_EQ(read.graph_nodes[i], g.s.graph_nodes[i]) << i;
  EXPECT_EQ(row(analysis::layer_stats(read), 0).forward.gpu_kernel_ns, 3 * 150);
  // The table as the sqlite3 shell reads it: a replayed kernel's capture-time launch.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT COUNT(*) FROM kernel_view k JOIN graph_nodes n ON n.node_id = k.graph_node "
                               "JOIN runtime_view r ON r.correlation = n.correlation WHERE r.name = 'cudaLaunchKernel'",
                               -1, &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(st, 0), 18);
  sqlite3_finalize(st);
  sqlite3_close(db);
  fs::remove(path);
}

TEST(GraphNodes, ASessionWithoutTheTableOpens) {
  GraphRun g;
  g.run(true);
  const std::string path = temp_path("older");
  {
    SessionWriter w(path, g.s);
    w.close();
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DROP TABLE graph_nodes", nullptr, nullptr, nullptr), SQLITE_OK);  // as written before it came
  sqlite3_close(db);
  EventStore read;
  ASSERT_NO_THROW(read_session(path, read));
  EXPECT_EQ(read.graph_nodes.size(), 0u);
  EXPECT_EQ(read.kernels.size(), 18u);
  const analysis::LayerReport r = analysis::layer_stats(read);
  EXPECT_EQ(r.graph_kernels_unmapped, 18);
  EXPECT_EQ(row(r, 0).forward.kernels, 0);
  fs::remove(path);
  // A recorded session of format 1 (no graph_nodes either) opens with none.
  EventStore old;
  read_session(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession", old);
  EXPECT_EQ(old.graph_nodes.size(), 0u);
  EXPECT_GT(old.kernels.size(), 0u);
}

TEST(GraphNodes, AFollowerReadsTheTableAsItGrows) {
  GraphRun g;
  g.capture(true);
  const std::string path = temp_path("follow");
  SessionWriter w(path, g.s);
  ASSERT_TRUE(w.write_batch());
  EventStore live;
  SessionFollower f(path, live);
  f.poll();
  EXPECT_EQ(live.graph_nodes.size(), 12u);
  g.replay_step(1, 1000);
  g.s.append(g.s.graph_nodes, GraphNodeRecord{77, 1});
  ASSERT_TRUE(w.write_batch());
  f.poll();
  EXPECT_EQ(live.graph_nodes.size(), 13u);
  EXPECT_EQ(live.kernels.size(), 6u);
  w.close();
  fs::remove(path);
}

}  // namespace
}  // namespace ts::prof
