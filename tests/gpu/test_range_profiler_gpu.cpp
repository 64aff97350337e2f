// The range profiler on a real GPU: a 512 MiB float4 copy reads and writes 512 MiB of DRAM each (the
// counters must say so within 10 %) at a high share of the DRAM peak, an FMA loop keeps the SMs busy
// and DRAM idle, both at a plausible achieved occupancy, and the measured duration agrees with CUDA
// events. Then a playground run with --measure: every timed row carries measured figures, and the
// rows after a measured one are still timed from CUPTI's kernel records (measuring does not end the
// activity collection).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "engine/network.h"
#include "playground/playground.h"
#include "profiling/metrics/pm_sampler.h"
#include "profiling/metrics/range_profiler.h"

cudaError_t ts_launch_fma_loop(float* out, int blocks, int iterations, cudaStream_t stream);
cudaError_t ts_launch_copy4(const void* in, void* out, long long bytes, int sms, cudaStream_t stream);

namespace ts::prof {
namespace {

constexpr long long kCopyBytes = 512ll << 20;

void print(const range::RangeResult& r) {
  for (const auto& k : r.kernels) {
    std::printf("kernel %s:", k.name.c_str());
    for (const auto& [m, v] : k.values) std::printf(" %s=%.4g", m.c_str(), v);
    std::printf("\n");
  }
  for (const auto& [m, why] : r.absent) std::printf("absent %s: %s\n", m.c_str(), why.c_str());
}

/// A range profiler on device 0 (its primary context made current first).
std::unique_ptr<RangeProfiler> profiler() {
  EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
  EXPECT_EQ(cudaFree(nullptr), cudaSuccess);
  RangeProfilerOptions o;
  o.api = linked_pm_api();
  return std::make_unique<RangeProfiler>(o);
}

int sm_count() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  return sms;
}

TEST(RangeProfilerGpu, ACopyMovesItsBytesThroughDramAtAHighShareOfThePeak) {
  std::string why;
  if (!ts::cuda_available(&why)) GTEST_SKIP() << why;
  auto p = profiler();
  ASSERT_TRUE(p->ready()) << p->why() << ": " << p->detail();
  void *a = nullptr, *b = nullptr;
  ASSERT_EQ(cudaMalloc(&a, kCopyBytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, kCopyBytes), cudaSuccess);
  ASSERT_EQ(cudaMemset(a, 1, kCopyBytes), cudaSuccess);
  const int sms = sm_count();
  // The kernel's time by CUDA events (best of 3 after a warm-up), to hold the counters' duration against.
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  float best_ms = 1e9f;
  for (int i = 0; i < 4; ++i) {
    cudaEventRecord(e0);
    ASSERT_EQ(ts_launch_copy4(a, b, kCopyBytes, sms, nullptr), cudaSuccess);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    if (i > 0) best_ms = std::min(best_ms, ms);
  }
  int launches = 0;
  const range::RangeResult r = p->profile([&] {
    ++launches;
    return ts_launch_copy4(a, b, kCopyBytes, sms, nullptr) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
  });
  cudaEventDestroy(e0), cudaEventDestroy(e1);
  cudaFree(a), cudaFree(b);
  print(r);
  ASSERT_TRUE(r.ok()) << r.why << ": " << r.detail;
  EXPECT_TRUE(r.absent.empty());
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].name, "0");  // auto ranges are named by their index (launch order)
  const range::KernelMetrics& k = r.kernels[0];
  EXPECT_NEAR(*k.value("dram_read"), kCopyBytes, 0.1 * kCopyBytes);
  EXPECT_NEAR(*k.value("dram_write"), kCopyBytes, 0.1 * kCopyBytes);
  EXPECT_GE(*k.value("dram_throughput"), 50.0);  // a plain copy: most of the DRAM peak
  EXPECT_LE(*k.value("dram_throughput"), 100.5);
  EXPECT_GT(*k.value("occupancy"), 20.0);  // 4 blocks of 8 warps per SM: up to half the warp slots and more
  EXPECT_LE(*k.value("occupancy"), 100.5);
  const double event_ns = best_ms * 1e6;
  EXPECT_GT(*k.value("duration"), 0.5 * event_ns) << "events " << event_ns << " ns";
  EXPECT_LT(*k.value("duration"), 2.0 * event_ns) << "events " << event_ns << " ns";
  const range::LaunchFigures f = range::launch_figures(r.kernels);
  std::printf("copy: %.0f GB/s measured, %.0f GB/s by events, %d launch(es)\n", *f.dram_gbps,
              2.0 * kCopyBytes / event_ns, launches);
  EXPECT_GE(launches, 1);
}

TEST(RangeProfilerGpu, AnFmaLoopKeepsTheSmsBusyAndDramIdle) {
  std::string why;
  if (!ts::cuda_available(&why)) GTEST_SKIP() << why;
  auto p = profiler();
  ASSERT_TRUE(p->ready()) << p->why() << ": " << p->detail();
  float* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, sizeof(float)), cudaSuccess);
  const int sms = sm_count();
  const range::RangeResult r = p->profile([&] {
    return ts_launch_fma_loop(out, sms * 8, 20'000, nullptr) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
  });
  cudaFree(out);
  print(r);
  ASSERT_TRUE(r.ok()) << r.why << ": " << r.detail;
  ASSERT_EQ(r.kernels.size(), 1u);
  const range::KernelMetrics& k = r.kernels[0];
  EXPECT_GE(*k.value("sm_throughput"), 50.0);
  EXPECT_LE(*k.value("sm_throughput"), 100.5);
  EXPECT_LT(*k.value("dram_throughput"), 10.0);
  EXPECT_GT(*k.value("occupancy"), 50.0);  // 8 blocks of 8 warps per SM: every warp slot of cc 8.0-9.0
  EXPECT_LE(*k.value("occupancy"), 100.5);
}

TEST(RangeProfilerGpu, TheProfilerCanBeUsedAgainAndLeavesNoErrorBehind) {
  std::string why;
  if (!ts::cuda_available(&why)) GTEST_SKIP() << why;
  auto p = profiler();
  ASSERT_TRUE(p->ready()) << p->why();
  float* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, sizeof(float)), cudaSuccess);
  for (int i = 0; i < 3; ++i) {
    const range::RangeResult r = p->profile([&] {
      return ts_launch_fma_loop(out, 4, 100, nullptr) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
    });
    EXPECT_TRUE(r.ok()) << i << ": " << r.why << ": " << r.detail;
    EXPECT_EQ(r.kernels.size(), 1u) << i;
  }
  // A launch outside the profiler afterwards runs as ever.
  EXPECT_EQ(ts_launch_fma_loop(out, 4, 100, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaFree(out);
}

}  // namespace
}  // namespace ts::prof

namespace ts::playground {
namespace {

TEST(PlaygroundGpu, MeasureFillsEveryTimedRow) {
  std::string why;
  if (!cuda_available(&why)) GTEST_SKIP() << why;
  Options o;
  o.measure = true;
  // Sizes per family: copy large enough for DRAM (128 MB > 2x the H200's L2), the others small.
  RunResult r;
  for (const auto& [family, size] : {std::pair<const char*, std::int64_t>{"copy", 1 << 25}, {"reduction", 1 << 22},
                                     {"sgemm", 512}}) {
    o.families = {family};
    o.size = size;
    RunResult one = run(o);
    ASSERT_TRUE(one.measure_status.empty()) << one.measure_status;
    r.cupti_status = one.cupti_status;
    for (auto& l : one.ladders) r.ladders.push_back(std::move(l));
  }
  for (const Ladder& l : r.ladders)
    for (const VariantResult& v : l.variants) {
      const std::string name = l.family + " / " + v.name;
      ASSERT_TRUE(v.measured) << name;
      const Measured& m = *v.measured;
      std::printf("%-40s occ %5.1f  SM %5.1f  DRAM %5.1f  %6.0f GB/s  %9.0f ns (timed %9.0f ns)  %s\n", name.c_str(),
                  m.occupancy_pct.value_or(-1), m.sm_pct.value_or(-1), m.dram_pct.value_or(-1),
                  m.dram_gbps.value_or(-1), m.duration_ns.value_or(-1), v.median_ns, m.why.c_str());
      if (!v.check_passed) continue;
      EXPECT_TRUE(m.ok()) << name << ": " << m.why;
      ASSERT_TRUE(m.occupancy_pct && m.sm_pct && m.dram_pct && m.dram_gbps && m.duration_ns) << name << ": " << m.absent;
      EXPECT_GT(*m.occupancy_pct, 0) << name;
      EXPECT_LE(*m.occupancy_pct, 100.5) << name;
      EXPECT_LE(*m.sm_pct, 100.5) << name;
      EXPECT_LE(*m.dram_pct, 100.5) << name;
      if (r.cupti_status.empty()) {
        EXPECT_EQ(v.time_source, "cupti") << name << ": measuring must not end CUPTI's kernel records";
        EXPECT_EQ(m.kernels, v.kernels_per_launch) << name;
      }
      if (l.family == "copy") {
        EXPECT_GE(*m.dram_pct, 40.0) << name;
        EXPECT_GT(*m.duration_ns, 0.5 * v.median_ns) << name;
        EXPECT_LT(*m.duration_ns, 2.0 * v.median_ns) << name;
      }
    }
}

}  // namespace
}  // namespace ts::playground
