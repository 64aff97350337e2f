// CUDA-graph kernels get their layers on a real GPU (profiling/cupti/graph_nodes.h): the profiler's
// CUPTI callbacks map each graph node to the launch that was captured, the session file keeps the
// mapping (graph_nodes), and layer attribution gives each layer the kernels replayed from its
// captured launches. First a hand-made graph of two kernels captured inside two layer ranges and
// replayed three times; then the engine itself with --cuda-graphs on (the whole step captured once,
// replayed every step), whose Conv2d and Linear layers must all have forward and backward kernels.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "engine/host_trace.h"
#include "engine/model_spec.h"
#include "engine/network.h"
#include "engine/synthetic_data.h"
#include "gpu/cuda_graph_scratch.h"
#include "profiling/analysis/layer_stats.h"
#include "profiling/event_source.h"
#include "profiling/profiler.h"
#include "profiling/schedule.h"

cudaError_t ts_launch_test_scale(float* x, int n, cudaStream_t stream);

namespace ts::prof {
namespace {

std::string session_path(const char* name) {
  return (std::filesystem::temp_directory_path() / ("ts_gpu_graph_nodes_" + std::to_string(getpid()) + "_" + name +
                                                    ".tsession"))
      .string();
}

/// Reports step `gs` (host times from the steady clock) so the session has its StepRecord.
void step_done(std::int64_t gs, std::int64_t start) {
  trace::StepEvent e;
  e.epoch = 1, e.step = gs, e.global_step = gs, e.start_ns = start, e.end_ns = trace::now_ns(), e.images = 1;
  trace::step_done(e);
}

const analysis::LayerStats* row(const analysis::LayerReport& r, const std::string& label) {
  for (const auto& l : r.layers)
    if (l.label == label) return &l;
  return nullptr;
}

TEST(GraphNodesGpu, TwoCapturedKernelsMapToTheirLayers) {
  std::string why;
  if (!ts::cuda_available(&why)) GTEST_SKIP() << why;
  const std::string path = session_path("two");
  ProfilerOptions o;
  o.session_path = path;
  o.cuda_device = 0;
  Profiler p(o);
  const int n = 4096;
  test::CudaGraphScratch scratch;  // freed on every way out (a failed ASSERT returns early)
  float*& d = scratch.d;
  cudaStream_t& s = scratch.s;
  cudaGraph_t& g = scratch.g;
  cudaGraphExec_t& ge = scratch.ge;
  ASSERT_EQ(cudaMalloc(&d, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  for (std::int64_t step = 1; step <= 3; ++step) {
    trace::set_current_step(step);
    const std::int64_t start = trace::now_ns();
    {
      trace::ScopedRange st(trace::RangeKind::step, "step");
      if (step == 1) {  // capture, as the engine does: each launch inside its layer's range
        ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
        {
          trace::ScopedRange r(trace::RangeKind::forward, "forward", "layer 0 (Conv2d a)");
          ASSERT_EQ(ts_launch_test_scale(d, n, s), cudaSuccess);
        }
        {
          trace::ScopedRange r(trace::RangeKind::forward, "forward", "layer 1 (Linear b)");
          ASSERT_EQ(ts_launch_test_scale(d, n / 2, s), cudaSuccess);
        }
        ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
        ASSERT_EQ(cudaGraphInstantiate(&ge, g, 0), cudaSuccess);
      }
      trace::ScopedRange r(trace::RangeKind::other, "CUDA graph launch");
      ASSERT_EQ(cudaGraphLaunch(ge, s), cudaSuccess);
    }
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    step_done(step, start);
  }
  const ProfilerSummary sum = p.stop();
  ASSERT_TRUE(sum.gpu_status.empty()) << sum.gpu_status;

  auto src = open_session(path);  // what the file holds
  const EventStore& st = src->store();
  EXPECT_NE(st.meta()["graph_nodes"].find("followed"), std::string::npos) << st.meta()["graph_nodes"];
  EXPECT_GE(st.graph_nodes.size(), 2u);  // the captured nodes (and their clones)
  int replayed = 0;
  for (std::size_t i = 0; i < st.kernels.size(); ++i) replayed += st.kernels[i].graph_id != 0;
  EXPECT_EQ(replayed, 6);
  const analysis::LayerReport r = analysis::layer_stats(st);
  const auto* a = row(r, "layer 0 (Conv2d a)");
  const auto* b = row(r, "layer 1 (Linear b)");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->forward.kernels, 3);  // one kernel, replayed in each of the 3 steps
  EXPECT_EQ(b->forward.kernels, 3);
  EXPECT_GT(a->forward.gpu_kernel_ns, 0);
  EXPECT_EQ(r.kernels_by_graph_node, 6);
  EXPECT_EQ(r.graph_kernels_unmapped, 0);
  EXPECT_EQ(r.kernels_unmatched, 0);
  analysis::LayerStatsOptions later;
  later.first_step = 2;  // the replays of steps 2 and 3, though step 1 captured them
  EXPECT_EQ(row(analysis::layer_stats(st, later), "layer 0 (Conv2d a)")->forward.kernels, 2);
  std::filesystem::remove(path);
}

TEST(GraphNodesGpu, EngineStepsReplayedFromAGraphFillEveryLayer) {
  std::string why;
  if (!ts::cuda_available(&why)) GTEST_SKIP() << why;
  const std::string path = session_path("engine");
  ProfilerOptions o;
  o.session_path = path;
  o.cuda_device = 0;
  Profiler p(o);
  {
    NetworkOptions no;
    no.max_batch_size = 32;
    no.cuda_graphs = true;
    auto net = make_cuda_network(simple_cnn_spec(), no);
    std::vector<std::uint8_t> images(32 * kImageBytes);
    std::vector<std::int32_t> labels(32);
    for (int i = 0; i < 32; ++i) {
      draw_synthetic_image(i % 10, 7 * i + 1, images.data() + static_cast<std::size_t>(i) * kImageBytes);
      labels[static_cast<std::size_t>(i)] = i % 10;
    }
    for (std::int64_t step = 1; step <= 4; ++step) {
      trace::set_current_step(step);
      const std::int64_t start = trace::now_ns();
      net->train_step(Batch{32, images.data(), labels.data(), false, 0, 0});
      step_done(step, start);
    }
    net->drain_step_losses();  // waits for the device
  }
  const ProfilerSummary sum = p.stop();
  ASSERT_TRUE(sum.gpu_status.empty()) << sum.gpu_status;
  auto src = open_session(path);
  const EventStore& st = src->store();
  const analysis::LayerReport r = analysis::layer_stats(st);
  EXPECT_GT(r.kernels_by_graph_node, 0);
  EXPECT_EQ(r.graph_kernels_unmapped, 0);
  int layers = 0;
  for (const auto& l : r.layers) {
    if (l.label.find("Conv2d") == std::string::npos && l.label.find("Linear") == std::string::npos) continue;
    ++layers;
    EXPECT_GT(l.forward.kernels, 0) << l.label;
    EXPECT_GT(l.backward.kernels, 0) << l.label;
    EXPECT_GT(l.forward.gpu_kernel_ns, 0) << l.label;
  }
  EXPECT_EQ(layers, 4);  // SimpleCNN: conv1, conv2, fc1, fc2
  std::filesystem::remove(path);
}

TEST(GraphNodesGpu, AScheduledWindowKeepsEveryKernelItsStepsReplayed) {
  // The host enqueues replays from pinned batches without waiting, so it runs steps ahead of the GPU:
  // a window's last replays run after its last host step. Each replay kept must hold all of the
  // graph's kernels with their true durations, and exactly the analysed steps' replays are kept.
  std::string why;
  if (!ts::cuda_available(&why)) GTEST_SKIP() << why;
  const std::string path = session_path("schedule");
  ProfilerOptions o;
  o.session_path = path;
  o.cuda_device = 0;
  o.schedule = parse_profile_schedule("wait=6,warmup=0,active=4");
  constexpr int kBatch = 512, kSteps = 40;
  Profiler p(o);
  {
    NetworkOptions no;
    no.max_batch_size = kBatch;
    no.cuda_graphs = true;
    auto net = make_cuda_network(simple_cnn_spec(), no);
    std::uint8_t* images = nullptr;
    std::int32_t* labels = nullptr;
    ASSERT_EQ(cudaMallocHost(&images, std::size_t{kBatch} * kImageBytes), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&labels, kBatch * sizeof(std::int32_t)), cudaSuccess);
    for (int i = 0; i < kBatch; ++i) {
      draw_synthetic_image(i % 10, 7 * i + 1, images + static_cast<std::size_t>(i) * kImageBytes);
      labels[i] = i % 10;
    }
    for (std::int64_t step = 1; step <= kSteps; ++step) {
      trace::set_current_step(step);
      const std::int64_t start = trace::now_ns();
      net->train_step(Batch{kBatch, images, labels, true, 0, step - 1});
      step_done(step, start);
    }
    net->drain_step_losses();
    cudaFreeHost(images);
    cudaFreeHost(labels);
  }
  const ProfilerSummary sum = p.stop();
  ASSERT_TRUE(sum.gpu_status.empty()) << sum.gpu_status;
  auto src = open_session(path);
  const EventStore& st = src->store();
  std::map<std::uint32_t, int> per_replay;  // a replay's kernels share its cudaGraphLaunch's correlation id
  for (std::size_t i = 0; i < st.kernels.size(); ++i) {
    const KernelRecord& k = st.kernels[i];
    // SimpleCNN's kernels at batch 512 run well under a millisecond; a record paused before CUPTI
    // took it ends at the next flush, tens of milliseconds later.
    EXPECT_LT(k.end - k.start, 5'000'000) << st.strings.get(k.name);
    if (k.graph_id) ++per_replay[k.correlation];
  }
  int most = 0;
  for (const auto& [corr, n] : per_replay) most = std::max(most, n);
  ASSERT_GT(most, 10);
  for (const auto& [corr, n] : per_replay) EXPECT_EQ(n, most) << "replay " << corr << " lost kernels";
  // Windows of 4 active steps (7-10, 17-20, 27-30, 37-40), each analysed from its second: the replays
  // of steps 8-10, 18-20, 28-30 and 38-40 are kept, and nothing of the steps before them.
  EXPECT_EQ(per_replay.size(), 12u) << "replays kept";
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ts::prof
