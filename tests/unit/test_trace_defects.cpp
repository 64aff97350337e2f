// The trace analysis's known defects on hand-built timelines: host sync (raw) counts the trainer's
// blocking runtime calls, as the sync-caused GPU idle does (the A100 CUDA-graph trace said
// "gpu_idle_sync_pct=46.37 host_sync_pct=0"); an imported trace's CPU threads count as CPU
// execution (the CPU-only gloo trace was 100 % "other"), TrainScope's own sessions unchanged; a sync
// causes GPU idle only where the GPU had nothing queued (the A100 trace's GPU waited with a CUDA
// graph queued while the host blocked in a copy: "Sync-bound (high)" beside sync_wait 0.0 %).
#include <gtest/gtest.h>

#include "engine/host_trace.h"
#include "profiling/analysis/analysis.h"

namespace ts::prof::analysis {
namespace {

using K = trace::RangeKind;
constexpr std::uint32_t kTrainer = 7, kWorker = 9;

struct Store {
  EventStore s;
  std::uint32_t corr = 1;
  void range(K k, std::int64_t a, std::int64_t b, std::uint32_t tid = kTrainer, std::int32_t device = -1) {
    HostRangeRecord r;
    r.start = a, r.end = b, r.thread = tid, r.kind = static_cast<std::uint8_t>(k), r.device = device;
    s.append(s.host_ranges, r);
  }
  void step(std::int64_t gs, std::int64_t a, std::int64_t b) {
    StepRecord r;
    r.global_step = gs, r.start = a, r.end = b;
    s.append(s.steps, r);
    range(K::step, a, b);
  }
  void call(const char* name, std::int64_t a, std::int64_t b) {
    RuntimeRecord rt;
    rt.start = a, rt.end = b, rt.thread = kTrainer, rt.correlation = corr++, rt.name = s.strings.intern(name);
    s.append(s.runtime, rt);
  }
  void kernel(std::int64_t a, std::int64_t b, std::int64_t ka, std::int64_t kb) {
    call("cudaLaunchKernel", a, b);
    KernelRecord k;
    k.start = ka, k.end = kb, k.correlation = corr - 1, k.name = s.strings.intern("void k()");
    s.append(s.kernels, k);
  }
};

double evidence(const Report& r, const std::string& verdict, const std::string& name) {
  for (const auto& v : r.verdicts)
    if (v.id == verdict)
      for (const auto& [k, x] : v.evidence)
        if (k == name) return x;
  return -1;
}

TEST(TraceDefects, BlockingRuntimeCallsCountAsHostSync) {
  // A kernel, then the host blocks in cudaDeviceSynchronize (no `sync` range: an imported trace).
  Store b;
  b.step(1, 0, 1000);
  b.kernel(0, 10, 10, 300);
  b.call("cudaDeviceSynchronize", 20, 400);
  const Report r = analyze(b.s);
  ASSERT_EQ(r.steps, 1);
  ASSERT_TRUE(r.idle_sync_ns);
  // The GPU idles from 300 on: [300, 400) inside the sync, then of what follows at most the 280 ns
  // of the sync's 380 not yet counted (the time removing the sync would give the host back).
  EXPECT_EQ(*r.idle_sync_ns, 100 + 280);
  EXPECT_EQ(r.sync_ns, 380);        // was 0: only `sync` host ranges counted
  EXPECT_EQ(r.breakdown[Category::runtime], 10 + 100);  // unchanged: the call is runtime where no kernel runs
}

TEST(TraceDefects, SyncRangesAndCallsInsideThemCountOnce) {
  Store b;
  b.step(1, 0, 1000);
  b.kernel(0, 10, 10, 300);
  b.range(K::sync, 15, 500);
  b.call("cudaStreamSynchronize", 20, 400);
  b.call("cudaMemcpy", 600, 700);  // a blocking copy outside the range
  const Report r = analyze(b.s);
  EXPECT_EQ(r.sync_ns, 485 + 100);
}

TEST(TraceDefects, SyncBoundEvidenceAgreesWithItself) {
  // Ten steps like the A100 trace's: short GPU work, then a long blocking device-to-host copy.
  Store b;
  for (int i = 0; i < 10; ++i) {
    const std::int64_t t = i * 1000;
    b.step(i + 1, t, t + 1000);
    b.kernel(t, t + 10, t + 10, t + 200);
    b.call("cudaMemcpy", t + 20, t + 900);
  }
  const Report r = analyze(b.s);
  ASSERT_GT(evidence(r, "sync_bound", "gpu_idle_sync_pct"), 10);
  EXPECT_NEAR(evidence(r, "sync_bound", "host_sync_pct"), 88.0, 1e-9);
}

TEST(TraceDefects, ASyncOverQueuedWorkCausesNoIdle) {
  // Ten steps like the A100 CUDA-graph trace's: the host launches the next GPU work early (a graph),
  // then blocks in a long device-to-pageable copy; the GPU idles with that work queued (waiting on
  // another dependency: an event, another rank), so the host's sync did not starve it.
  Store b;
  for (int i = 0; i < 10; ++i) {
    const std::int64_t t = i * 1000;
    b.step(i + 1, t, t + 1000);
    b.kernel(t, t + 10, t + 10, t + 100);
    b.kernel(t + 10, t + 20, t + 800, t + 980);  // queued at t + 10, runs after a 700 ns wait
    b.call("cudaMemcpy", t + 30, t + 985);
  }
  const Report r = analyze(b.s);
  EXPECT_EQ(evidence(r, "sync_bound", "gpu_idle_sync_pct"), -1);  // not fired (was 79 %: the queued waits)
  ASSERT_TRUE(r.idle_sync_ns && r.idle_by_host);
  // Only once the queue drained: the copy's last 5 ns, then the restart up to the next step's
  // kernel (25 ns; the last step's 15 ns to its end).
  EXPECT_EQ(*r.idle_sync_ns, 9 * 30 + 20);
  EXPECT_EQ(r.idle_by_host->sync, 10 * 5);      // idle inside a sync with nothing queued
  EXPECT_EQ(r.idle_by_host->device, 10 * 700);  // the GPU's own wait, the sync around it or not
  EXPECT_NEAR(100.0 * r.sync_ns / r.wall_ns, 95.5, 1e-9);  // the host's blocking time is unchanged
}

void two_threads(Store& b, bool imported) {
  if (imported) b.s.set_meta("import.format", "object form, schemaVersion 1");
  b.step(1, 0, 1000);
  b.range(K::other, 100, 600, kWorker);             // gloo:all_reduce on a worker thread (user_annotation)
  b.range(K::other, 550, 700, kWorker + 1);         // cpu_op on another thread, overlapping
  b.range(K::other, 0, 1000, 0xF0000001u);          // a synthetic lane ("PyTorch Profiler" span, async lane)
  b.range(K::other, 800, 900, kWorker, 0);          // a GPU-side annotation (device 0)
  b.range(K::data_wait, 900, 950, kWorker);         // only CPU execution comes from other threads
}

TEST(TraceDefects, ImportedTraceCountsEveryCpuThreadsExecution) {
  Store b;
  two_threads(b, true);
  const Report r = analyze(b.s);
  ASSERT_EQ(r.steps, 1);
  EXPECT_EQ(r.breakdown[Category::cpu_exec], 600);  // [100, 700)
  EXPECT_EQ(r.breakdown[Category::data_wait], 0);
  EXPECT_EQ(r.breakdown[Category::other], 400);
}

TEST(TraceDefects, OwnSessionsKeepTheTrainerThreadOnly) {
  Store b;
  two_threads(b, false);
  const Report r = analyze(b.s);
  EXPECT_EQ(r.breakdown[Category::cpu_exec], 0);
  EXPECT_EQ(r.breakdown[Category::other], 1000);
}

}  // namespace
}  // namespace ts::prof::analysis
