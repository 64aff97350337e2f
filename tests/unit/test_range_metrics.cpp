// The range profiler's metric table and a launch's figures (profiling/metrics/range_metrics.h),
// and a RangeProfiler that cannot measure (a build without CUDA, or no CUPTI entry points) saying
// why without calling the launch. No GPU, no CUPTI needed.
#include <gtest/gtest.h>

#include "profiling/metrics/range_metrics.h"
#include "profiling/metrics/range_profiler.h"

namespace ts::prof::range {
namespace {

KernelMetrics kernel(std::map<std::string, double> v) {
  KernelMetrics k;
  k.name = "k";
  k.values = std::move(v);
  return k;
}

TEST(RangeMetrics, CountersAreNsightComputesMetricNames) {
  // The names a user passes to `ncu --metrics` to check a figure: a typo here would measure
  // something else (or nothing) on every chip.
  const std::map<std::string, std::string> want = {
      {"occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active"},
      {"sm_throughput", "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
      {"dram_throughput", "dram__throughput.avg.pct_of_peak_sustained_elapsed"},
      {"dram_read", "dram__bytes_read.sum"},
      {"dram_write", "dram__bytes_write.sum"},
      {"duration", "gpu__time_duration.sum"}};
  ASSERT_EQ(metric_specs().size(), want.size());
  for (const RangeMetricSpec& s : metric_specs()) {
    ASSERT_TRUE(want.count(s.name)) << s.name;
    ASSERT_FALSE(s.counters.empty());
    EXPECT_EQ(s.counters.front(), want.at(s.name)) << s.name;
    EXPECT_EQ(find_metric(s.name), &s);
  }
  EXPECT_EQ(find_metric("nope"), nullptr);
}

TEST(RangeMetrics, ShortReasonsAreOnePhraseEach) {
  EXPECT_EQ(short_reason(pm::Refusal::privileges), "GPU counters need root or RmProfilingAdminOnly=0");
  EXPECT_EQ(short_reason(pm::Refusal::busy), "another profiler holds the GPU counters");
  EXPECT_EQ(short_reason(pm::Refusal::unsupported), "GPU counters not supported on this GPU or setup");
  EXPECT_EQ(short_reason(pm::Refusal::other), "the range profiler failed");
}

TEST(RangeMetrics, OneKernelsFiguresAreItsOwn) {
  const LaunchFigures f = launch_figures({kernel({{"occupancy", 87.5},
                                                  {"sm_throughput", 12},
                                                  {"dram_throughput", 91},
                                                  {"dram_read", 2e9},
                                                  {"dram_write", 2e9},
                                                  {"duration", 1.25e6}})});
  EXPECT_EQ(f.kernels, 1);
  EXPECT_DOUBLE_EQ(*f.occupancy_pct, 87.5);
  EXPECT_DOUBLE_EQ(*f.sm_pct, 12);
  EXPECT_DOUBLE_EQ(*f.dram_pct, 91);
  EXPECT_DOUBLE_EQ(*f.duration_ns, 1.25e6);
  EXPECT_DOUBLE_EQ(*f.dram_gbps, 4e9 / 1.25e6);  // 3200 GB/s
}

TEST(RangeMetrics, SeveralKernelsAreWeightedByDuration) {
  // A 3 ms kernel at 90 % and a 1 ms one at 10 %: 70 % over the 4 ms.
  const LaunchFigures f = launch_figures(
      {kernel({{"occupancy", 90}, {"dram_read", 3e9}, {"dram_write", 1e9}, {"duration", 3e6}}),
       kernel({{"occupancy", 10}, {"dram_read", 0}, {"dram_write", 0}, {"duration", 1e6}})});
  EXPECT_EQ(f.kernels, 2);
  EXPECT_DOUBLE_EQ(*f.occupancy_pct, 70);
  EXPECT_DOUBLE_EQ(*f.duration_ns, 4e6);
  EXPECT_DOUBLE_EQ(*f.dram_gbps, 4e9 / 4e6);
  EXPECT_FALSE(f.sm_pct);  // measured for neither kernel
}

TEST(RangeMetrics, AFigureOneKernelLacksIsNotGuessed) {
  const LaunchFigures f =
      launch_figures({kernel({{"occupancy", 90}, {"duration", 3e6}}), kernel({{"duration", 1e6}})});
  EXPECT_FALSE(f.occupancy_pct);
  EXPECT_DOUBLE_EQ(*f.duration_ns, 4e6);
  EXPECT_FALSE(f.dram_gbps);
  const LaunchFigures none = launch_figures({});
  EXPECT_EQ(none.kernels, 0);
  EXPECT_FALSE(none.duration_ns);
}

TEST(RangeProfilerUnavailable, SaysWhyAndNeverCallsTheLaunch) {
  RangeProfiler p(RangeProfilerOptions{});  // no entry points (a CUDA build) or no CUDA at all
  EXPECT_FALSE(p.ready());
#if defined(TRAINSCOPE_HAVE_CUDA)
  EXPECT_EQ(p.why(), "no CUPTI entry points");
#else
  EXPECT_EQ(p.why(), "built without CUDA");
#endif
  int calls = 0;
  const RangeResult r = p.profile([&] { return ++calls, true; });
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.why, p.why());
  EXPECT_EQ(calls, 0);
  EXPECT_TRUE(r.kernels.empty());
}

}  // namespace
}  // namespace ts::prof::range
