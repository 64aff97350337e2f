// A hybrid recording on a real GPU (profiler.h): the engine's CUDA-graph steps traced kernel by kernel
// in the schedule's windows and as whole graph replays (CUPTI_ACTIVITY_KIND_GRAPH_TRACE) between them.
// Each step between the windows must hold its replay with a true duration, each window's analysed
// steps their kernels, and nothing may carry an end time CUPTI made up when a kind was switched off
// while it still held the record (bench/RESULTS.md, "Why the scheduled windows read wrong").
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/host_trace.h"
#include "engine/model_spec.h"
#include "engine/network.h"
#include "engine/synthetic_data.h"
#include "profiling/analysis/analysis.h"
#include "profiling/event_source.h"
#include "profiling/profiler.h"
#include "profiling/schedule.h"

namespace ts::prof {
namespace {

constexpr std::int64_t kMaxNs = 5'000'000;  // SimpleCNN's b512 step runs well under 5 ms on an H100

std::string session_path(const char* name) {
  return (std::filesystem::temp_directory_path() /
          ("ts_gpu_graph_replays_" + std::to_string(getpid()) + "_" + name + ".tsession"))
      .string();
}

/// Trains `steps` CUDA-graph steps of SimpleCNN at batch 512 under a hybrid recording on `schedule`.
ProfilerSummary record_hybrid(const std::string& path, const ProfileSchedule& schedule, int steps) {
  const unsigned instrumentation_before = trace::graph_tracing_changes();
  struct CheckSwitches {  // on every return: each switch to or from graph replays told the engine
    const ProfileSchedule& schedule;
    int steps;
    unsigned before;
    ~CheckSwitches() {
      // The profiler sets CUPTI's mode for step s + 1 at step s's end, from kernels (the start) on.
      unsigned switches = 0;
      bool between = false;
      for (int s = 1; s <= steps; ++s) {
        const bool next = !cupti_on_for_next(schedule, s);
        switches += next != between;
        between = next;
      }
      // Stopping in graph replays switches back to per-kernel tracing once more (CuptiCollector::stop).
      EXPECT_EQ(trace::graph_tracing_changes() - before, switches + (between ? 1u : 0u))
          << "switches to or from GRAPH_TRACE that the engine's graphs were told of";
      EXPECT_EQ(trace::graph_tracing(), trace::GraphTracing::per_kernel) << "graph tracing left on after the recording";
    }
  } check{schedule, steps, instrumentation_before};
  ProfilerOptions o;
  o.session_path = path;
  o.cuda_device = 0;
  o.schedule = schedule;
  o.graph_replays_between_windows = true;
  constexpr int kBatch = 512;
  Profiler p(o);
  NetworkOptions no;
  no.max_batch_size = kBatch;
  no.cuda_graphs = true;
  auto net = make_cuda_network(simple_cnn_spec(), no);
  std::uint8_t* images = nullptr;
  std::int32_t* labels = nullptr;
  if (cudaMallocHost(&images, std::size_t{kBatch} * kImageBytes) != cudaSuccess ||
      cudaMallocHost(&labels, kBatch * sizeof(std::int32_t)) != cudaSuccess) {
    ADD_FAILURE() << "cudaMallocHost";
    return p.stop();
  }
  for (int i = 0; i < kBatch; ++i) {
    draw_synthetic_image(i % 10, 7 * i + 1, images + static_cast<std::size_t>(i) * kImageBytes);
    labels[i] = i % 10;
  }
  for (std::int64_t step = 1; step <= steps; ++step) {
    trace::set_current_step(step);
    const std::int64_t start = trace::now_ns();
    net->train_step(Batch{kBatch, images, labels, true, 0, step - 1});
    trace::StepEvent e;
    e.epoch = 1, e.step = step, e.global_step = step, e.start_ns = start, e.end_ns = trace::now_ns(), e.images = kBatch;
    trace::step_done(e);
  }
  net->drain_step_losses();
  cudaFreeHost(images);
  cudaFreeHost(labels);
  return p.stop();
}

/// The index of the step whose host span [start, next step's start) holds session time t; -1 before
/// the first. The host runs steps ahead of the GPU, so a step's GPU work starts in its span or later.
int step_at(const EventStore& st, std::int64_t t) {
  int at = -1;
  for (std::size_t i = 0; i < st.steps.size() && st.steps[i].start <= t; ++i) at = static_cast<int>(i);
  return at;
}

/// Checks a hybrid session against its schedule: kernels only in analysed steps, a replay per step
/// between the windows (as many as a window's step holds graph launches) and every duration true.
void check_hybrid(const std::string& path, const ProfileSchedule& schedule, int steps) {
  auto src = open_session(path);
  const EventStore& st = src->store();
  const auto meta = st.meta();
  ASSERT_EQ(meta.count("graph_replays"), 0u) << meta.at("graph_replays");  // CUPTI took GRAPH_TRACE
  EXPECT_EQ(meta.at("session.trace_mode"), kTraceHybrid);
  ASSERT_EQ(st.steps.size(), static_cast<std::size_t>(steps));
  int analysed = 0, between = 0;
  for (int s = 1; s <= steps; ++s) {
    analysed += analysed_step(schedule, s);
    between += !cupti_on_for_next(schedule, s - 1);
  }
  // Kernels: true durations, each starting in an analysed step; a window's replays counted by their
  // cudaGraphLaunch's correlation id.
  std::set<std::uint32_t> launches;
  for (std::size_t i = 0; i < st.kernels.size(); ++i) {
    const KernelRecord& k = st.kernels[i];
    EXPECT_GT(k.end, k.start) << st.strings.get(k.name);
    EXPECT_LT(k.end - k.start, kMaxNs) << st.strings.get(k.name) << " (a made-up end)";
    const int at = step_at(st, k.start);
    ASSERT_GE(at, 0);
    EXPECT_TRUE(analysed_step(schedule, st.steps[at].global_step))
        << "a kernel of step " << st.steps[at].global_step << ", outside the windows' analysed steps";
    if (k.graph_id) launches.insert(k.correlation);
  }
  ASSERT_GT(analysed, 0);
  const std::size_t per_step = launches.size() / static_cast<std::size_t>(analysed);
  ASSERT_GE(per_step, 1u);
  EXPECT_EQ(launches.size(), per_step * analysed) << "graph launches in the analysed steps";
  // Graph replays: one per launch of each step between the windows, none in a kernel-traced step.
  EXPECT_EQ(st.graph_replays.size(), per_step * between) << "graph replays between the windows";
  std::map<std::uint32_t, std::vector<const GraphReplayRecord*>> by_stream;
  for (std::size_t i = 0; i < st.graph_replays.size(); ++i) {
    const GraphReplayRecord& r = st.graph_replays[i];
    EXPECT_GT(r.end, r.start);
    EXPECT_LT(r.end - r.start, kMaxNs) << "replay " << r.correlation << " (a made-up end)";
    EXPECT_NE(r.graph_id, 0u);
    const int at = step_at(st, r.start);
    ASSERT_GE(at, 0);
    EXPECT_FALSE(cupti_on_for_next(schedule, st.steps[at].global_step - 1))
        << "a replay in step " << st.steps[at].global_step << ", whose kernels were traced";
    by_stream[r.stream].push_back(&r);
  }
  // Replays of one stream run one after another: a made-up end would overlap the next one.
  for (auto& [stream, v] : by_stream) {
    std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->start < b->start; });
    for (std::size_t i = 1; i < v.size(); ++i) EXPECT_LE(v[i - 1]->end, v[i]->start) << "stream " << stream;
  }
  // The analysis reads the windows' steps and counts the replays for the others.
  const analysis::Report r = analysis::analyze(st);
  EXPECT_EQ(r.steps, analysed);
  ASSERT_TRUE(r.run_gpu_busy);
  EXPECT_GE(r.run_gpu_busy->replay_steps, between - 2);  // the last steps' replays may run past the last step
  EXPECT_GT(r.run_gpu_busy->replay_busy_ns, 0);
}

TEST(GraphReplaysGpu, TheDefaultHybridTracesKernelsInItsWindowAndAReplayPerStepAfter) {
  std::string why;
  if (!ts::cuda_available(&why)) GTEST_SKIP() << why;
  const std::string path = session_path("default");
  const ProfileSchedule s = default_hybrid_schedule();  // analysed 3-22, kernels on 1-22, replays from 23
  constexpr int kSteps = 60;
  const ProfilerSummary sum = record_hybrid(path, s, kSteps);
  ASSERT_TRUE(sum.gpu_status.empty()) << sum.gpu_status;
  check_hybrid(path, s, kSteps);
  std::filesystem::remove(path);
}

TEST(GraphReplaysGpu, WindowsAndReplaysAlternateWithoutMadeUpEnds) {
  // Three windows (kernels on 1-5, 15-19, 29-33; analysed 3-5, 17-19, 31-33) and replays between:
  // every switch both ways, each after the device drained.
  std::string why;
  if (!ts::cuda_available(&why)) GTEST_SKIP() << why;
  const std::string path = session_path("alternate");
  const ProfileSchedule s = parse_profile_schedule("wait=10,warmup=0,active=4,skip_first=1,skip_first_wait=1");
  constexpr int kSteps = 40;
  const ProfilerSummary sum = record_hybrid(path, s, kSteps);
  ASSERT_TRUE(sum.gpu_status.empty()) << sum.gpu_status;
  check_hybrid(path, s, kSteps);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ts::prof
