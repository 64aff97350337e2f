// The range profiler against a fake CUPTI (its entry-point table, pm_api.h), without a GPU: every
// kernel of a launch comes back with its name and metric values, the launch is called again while
// CUPTI asks for passes, a chip without a metric's counter leaves that metric absent with the reason
// (the others kept), and refusals (privileges, another profiler, a failed launch, a CUPTI without the
// range profiler) are one short phrase each, with the range profiler disabled on every path.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "profiling/metrics/pm_api.h"
#include "profiling/metrics/range_metrics.h"
#include "profiling/metrics/range_profiler.h"

namespace ts::prof {
namespace {

/// What the fake chip knows and does; one test at a time (the entry points are plain functions).
struct Fake {
  CUptiResult availability_result = CUPTI_SUCCESS;
  CUptiResult enable_result = CUPTI_SUCCESS;
  CUptiResult set_config_result = CUPTI_SUCCESS;
  std::set<std::string> unknown;      // counters the host object refuses
  std::set<std::string> unevaluable;  // counters EvaluateToGpuValues refuses
  int passes = 1;                     // Stop reports every pass submitted after this many Start/Stop
  std::vector<std::string> kernels;   // the ranges a launch makes, by name
  std::map<std::string, double> value;  // counter -> value (every range the same, times range index + 1)
  std::size_t dropped = 0;
  int enables = 0, disables = 0, starts = 0, stops = 0, launches = 0;
  bool enabled = false, started = false;
  std::vector<std::uint8_t> availability_seen;  // the image the host object was given
} g;

CUpti_Profiler_Host_Object* next_host() {
  static std::uintptr_t n = 0x1000;
  return reinterpret_cast<CUpti_Profiler_Host_Object*>(n += 16);
}
std::map<CUpti_Profiler_Host_Object*, std::vector<std::string>> hosts;

CUptiResult result_string(CUptiResult r, const char** s) {
  *s = r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ? "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"
       : r == CUPTI_ERROR_HARDWARE_BUSY         ? "CUPTI_ERROR_HARDWARE_BUSY"
                                                : "CUPTI_ERROR_FAKE";
  return CUPTI_SUCCESS;
}
CUptiResult ok_init(CUpti_Profiler_Initialize_Params*) { return CUPTI_SUCCESS; }
CUptiResult chip_name(CUpti_Device_GetChipName_Params* p) {
  p->pChipName = "GH100";
  return CUPTI_SUCCESS;
}
CUptiResult availability(CUpti_Profiler_GetCounterAvailability_Params* p) {
  if (g.availability_result != CUPTI_SUCCESS) return g.availability_result;
  if (g.enabled) return CUPTI_ERROR_INVALID_OPERATION;  // CUPTI: may fail while a session is active
  p->counterAvailabilityImageSize = 4;
  if (p->pCounterAvailabilityImage)
    for (int i = 0; i < 4; ++i) p->pCounterAvailabilityImage[i] = static_cast<std::uint8_t>(7 + i);
  return CUPTI_SUCCESS;
}
CUptiResult host_init(CUpti_Profiler_Host_Initialize_Params* p) {
  if (p->profilerType != CUPTI_PROFILER_TYPE_RANGE_PROFILER) return CUPTI_ERROR_INVALID_PARAMETER;
  g.availability_seen.assign(p->pCounterAvailabilityImage, p->pCounterAvailabilityImage + 4);
  p->pHostObject = next_host();
  hosts[p->pHostObject] = {};
  return CUPTI_SUCCESS;
}
CUptiResult host_deinit(CUpti_Profiler_Host_Deinitialize_Params* p) {
  hosts.erase(p->pHostObject);
  return CUPTI_SUCCESS;
}
CUptiResult host_add(CUpti_Profiler_Host_ConfigAddMetrics_Params* p) {
  for (std::size_t i = 0; i < p->numMetrics; ++i)
    if (g.unknown.count(p->ppMetricNames[i])) return CUPTI_ERROR_INVALID_METRIC_NAME;
  for (std::size_t i = 0; i < p->numMetrics; ++i) hosts[p->pHostObject].push_back(p->ppMetricNames[i]);
  return CUPTI_SUCCESS;
}
CUptiResult image_size(CUpti_Profiler_Host_GetConfigImageSize_Params* p) {
  p->configImageSize = 8;
  return CUPTI_SUCCESS;
}
CUptiResult image(CUpti_Profiler_Host_GetConfigImage_Params*) { return CUPTI_SUCCESS; }
CUptiResult passes(CUpti_Profiler_Host_GetNumOfPasses_Params* p) {
  p->numOfPasses = static_cast<std::size_t>(g.passes);
  return CUPTI_SUCCESS;
}
CUptiResult evaluate(CUpti_Profiler_Host_EvaluateToGpuValues_Params* p) {
  for (std::size_t i = 0; i < p->numMetrics; ++i)
    if (g.unevaluable.count(p->ppMetricNames[i])) return CUPTI_ERROR_INVALID_METRIC_NAME;
  for (std::size_t i = 0; i < p->numMetrics; ++i)
    p->pMetricValues[i] = g.value[p->ppMetricNames[i]] * static_cast<double>(p->rangeIndex + 1);
  return CUPTI_SUCCESS;
}
CUptiResult r_enable(CUpti_RangeProfiler_Enable_Params* p) {
  if (g.enable_result != CUPTI_SUCCESS) return g.enable_result;
  ++g.enables;
  g.enabled = true;
  p->pRangeProfilerObject = reinterpret_cast<CUpti_RangeProfiler_Object*>(0x77);
  return CUPTI_SUCCESS;
}
CUptiResult r_disable(CUpti_RangeProfiler_Disable_Params*) {
  ++g.disables;
  g.enabled = false;
  return CUPTI_SUCCESS;
}
CUptiResult r_set_config(CUpti_RangeProfiler_SetConfig_Params* p) {
  if (p->range != CUPTI_AutoRange || p->replayMode != CUPTI_KernelReplay || p->numNestingLevels != 1)
    return CUPTI_ERROR_INVALID_PARAMETER;
  return g.set_config_result;
}
CUptiResult r_start(CUpti_RangeProfiler_Start_Params*) {
  ++g.starts;
  g.started = true;
  return CUPTI_SUCCESS;
}
CUptiResult r_stop(CUpti_RangeProfiler_Stop_Params* p) {
  ++g.stops;
  g.started = false;
  p->isAllPassSubmitted = g.stops >= g.passes ? 1 : 0;
  return CUPTI_SUCCESS;
}
CUptiResult r_decode(CUpti_RangeProfiler_DecodeData_Params* p) {
  p->numOfRangeDropped = g.dropped;
  return CUPTI_SUCCESS;
}
CUptiResult r_data_size(CUpti_RangeProfiler_GetCounterDataSize_Params* p) {
  if (p->maxNumRangeTreeNodes < p->maxNumOfRanges) return CUPTI_ERROR_INVALID_PARAMETER;
  p->counterDataSize = 32;
  return CUPTI_SUCCESS;
}
CUptiResult r_data_init(CUpti_RangeProfiler_CounterDataImage_Initialize_Params*) { return CUPTI_SUCCESS; }
CUptiResult r_data_info(CUpti_RangeProfiler_GetCounterDataInfo_Params* p) {
  p->numTotalRanges = g.kernels.size();
  return CUPTI_SUCCESS;
}
CUptiResult r_range_info(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params* p) {
  p->rangeName = g.kernels.at(p->rangeIndex).c_str();
  return CUPTI_SUCCESS;
}

CUcontext fake_context() { return reinterpret_cast<CUcontext>(0x55); }

std::shared_ptr<pm::PmApi> fake_api() {
  auto a = std::make_shared<pm::PmApi>();
  a->result_string = &result_string, a->profiler_initialize = &ok_init, a->chip_name = &chip_name;
  a->host_initialize = &host_init, a->host_deinitialize = &host_deinit, a->host_add_metrics = &host_add;
  a->host_config_image_size = &image_size, a->host_config_image = &image, a->host_passes = &passes;
  a->host_evaluate = &evaluate, a->profiler_counter_availability = &availability;
  a->range_enable = &r_enable, a->range_disable = &r_disable, a->range_set_config = &r_set_config;
  a->range_start = &r_start, a->range_stop = &r_stop, a->range_decode = &r_decode;
  a->range_counter_data_size = &r_data_size, a->range_counter_data_initialize = &r_data_init;
  a->range_counter_data_info = &r_data_info, a->range_info = &r_range_info;
  a->current_context = &fake_context;
  return a;
}

void reset() {
  g = Fake{};
  g.kernels = {"_Z11copy_kernelPKfPfl"};
  g.value = {{"sm__warps_active.avg.pct_of_peak_sustained_active", 80},
             {"sm__throughput.avg.pct_of_peak_sustained_elapsed", 20},
             {"dram__throughput.avg.pct_of_peak_sustained_elapsed", 90},
             {"dram__bytes_read.sum", 1e9},
             {"dram__bytes_write.sum", 1e9},
             {"gpu__time_duration.sum", 1e6}};
  hosts.clear();
}

RangeProfilerOptions options() {
  RangeProfilerOptions o;
  o.api = fake_api();
  return o;
}

/// A launch that counts its calls and says `ok`.
std::function<bool()> counting_launch(bool ok = true) {
  return [ok] {
    ++g.launches;
    EXPECT_TRUE(g.started) << "launched outside Start/Stop";
    return ok;
  };
}

TEST(RangeProfilerFake, EveryKernelOfALaunchComesBackWithItsNameAndValues) {
  reset();
  g.kernels = {"_Z6reduceILi6EEvPKfPfl", "_Z6reduceILi6EEvPKfPfl"};
  RangeProfiler p(options());
  ASSERT_TRUE(p.ready()) << p.why() << ": " << p.detail();
  EXPECT_EQ(p.counters().at("occupancy"), "sm__warps_active.avg.pct_of_peak_sustained_active");
  EXPECT_EQ(p.counters().at("duration"), "gpu__time_duration.sum");
  EXPECT_EQ(g.availability_seen, (std::vector<std::uint8_t>{7, 8, 9, 10}));  // the context's image reached the host
  const range::RangeResult r = p.profile(counting_launch());
  ASSERT_TRUE(r.ok()) << r.why << ": " << r.detail;
  EXPECT_EQ(g.launches, 1);
  EXPECT_EQ(r.launches, 1);
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].name, "_Z6reduceILi6EEvPKfPfl");
  EXPECT_DOUBLE_EQ(*r.kernels[0].value("occupancy"), 80);
  EXPECT_DOUBLE_EQ(*r.kernels[1].value("occupancy"), 160);  // the fake scales by range index + 1
  EXPECT_DOUBLE_EQ(*r.kernels[1].value("duration"), 2e6);
  EXPECT_TRUE(r.absent.empty());
  EXPECT_EQ(g.enables, 1);
  EXPECT_EQ(g.disables, 1);
  EXPECT_FALSE(g.enabled);
  // A second profile() on the same host side: enabled and disabled again.
  EXPECT_TRUE(p.profile(counting_launch()).ok());
  EXPECT_EQ(g.enables, 2);
  EXPECT_EQ(g.disables, 2);
}

TEST(RangeProfilerFake, TheLaunchIsCalledAgainUntilEveryPassIsSubmitted) {
  reset();
  g.passes = 3;
  RangeProfiler p(options());
  const range::RangeResult r = p.profile(counting_launch());
  ASSERT_TRUE(r.ok()) << r.why;
  EXPECT_EQ(g.launches, 3);
  EXPECT_EQ(r.launches, 3);
  EXPECT_EQ(g.starts, 3);
  EXPECT_EQ(g.stops, 3);
}

TEST(RangeProfilerFake, ReplayNeedingMorePassesThanAllowedFailsAndDisables) {
  reset();
  g.passes = 100;
  RangeProfilerOptions o = options();
  o.max_launches = 4;
  RangeProfiler p(o);
  const range::RangeResult r = p.profile(counting_launch());
  EXPECT_EQ(r.why, "the range profiler needed too many passes");
  EXPECT_EQ(g.launches, 4);
  EXPECT_FALSE(g.enabled);
  EXPECT_FALSE(g.started);
}

TEST(RangeProfilerFake, PrivilegesRefusedSayRootOrRmProfilingAdminOnly) {
  reset();
  g.availability_result = CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
  RangeProfiler p(options());
  EXPECT_FALSE(p.ready());
  EXPECT_EQ(p.why(), "GPU counters need root or RmProfilingAdminOnly=0");
  EXPECT_NE(p.detail().find("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"), std::string::npos);
  const range::RangeResult r = p.profile(counting_launch());
  EXPECT_EQ(r.why, "GPU counters need root or RmProfilingAdminOnly=0");
  EXPECT_EQ(g.launches, 0);
  EXPECT_EQ(g.enables, 0);
}

TEST(RangeProfilerFake, AnotherProfilerHoldingTheDeviceIsSaidAndNothingIsLaunched) {
  reset();
  g.enable_result = CUPTI_ERROR_HARDWARE_BUSY;
  RangeProfiler p(options());
  ASSERT_TRUE(p.ready());  // the host side needs no counters
  const range::RangeResult r = p.profile(counting_launch());
  EXPECT_EQ(r.why, "another profiler holds the GPU counters");
  EXPECT_NE(r.detail.find("enable: CUPTI_ERROR_HARDWARE_BUSY"), std::string::npos);
  EXPECT_EQ(g.launches, 0);
  EXPECT_EQ(g.disables, 0);
}

TEST(RangeProfilerFake, AChipWithoutAMetricsCounterKeepsTheOthers) {
  reset();
  g.unknown = {"dram__throughput.avg.pct_of_peak_sustained_elapsed"};
  RangeProfiler p(options());
  ASSERT_TRUE(p.ready());
  const range::RangeResult r = p.profile(counting_launch());
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.absent.count("dram_throughput"), 1u);
  EXPECT_NE(r.absent.at("dram_throughput").find("chip GH100 has no counter"), std::string::npos);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_FALSE(r.kernels[0].value("dram_throughput"));
  EXPECT_TRUE(r.kernels[0].value("occupancy"));
  EXPECT_TRUE(r.kernels[0].value("dram_read"));
  const range::LaunchFigures f = range::launch_figures(r.kernels);
  EXPECT_FALSE(f.dram_pct);
  ASSERT_TRUE(f.dram_gbps);
  EXPECT_DOUBLE_EQ(*f.dram_gbps, 2e9 / 1e6);  // 2 GB in 1 ms
}

TEST(RangeProfilerFake, AMetricThatFailsToEvaluateIsAbsentAndTheOthersKept) {
  reset();
  g.unevaluable = {"sm__throughput.avg.pct_of_peak_sustained_elapsed"};
  RangeProfiler p(options());
  const range::RangeResult r = p.profile(counting_launch());
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.absent.count("sm_throughput"), 1u);
  EXPECT_NE(r.absent.at("sm_throughput").find("evaluation failed"), std::string::npos);
  EXPECT_DOUBLE_EQ(*r.kernels.at(0).value("dram_throughput"), 90);
}

TEST(RangeProfilerFake, NoMetricOnTheChipIsNotReady) {
  reset();
  for (const auto& [counter, v] : g.value) g.unknown.insert(counter);
  RangeProfiler p(options());
  EXPECT_FALSE(p.ready());
  EXPECT_EQ(p.why(), "no metric available on chip GH100");
  EXPECT_EQ(p.absent().size(), range::metric_specs().size());
}

TEST(RangeProfilerFake, AFailedLaunchStopsAndDisablesTheProfiler) {
  reset();
  RangeProfiler p(options());
  const range::RangeResult r = p.profile(counting_launch(false));
  EXPECT_EQ(r.why, "the launch failed under the profiler");
  EXPECT_EQ(g.starts, g.stops);
  EXPECT_EQ(g.enables, 1);
  EXPECT_EQ(g.disables, 1);
}

TEST(RangeProfilerFake, ARefusedConfigDisablesTheProfiler) {
  reset();
  g.set_config_result = CUPTI_ERROR_NOT_SUPPORTED;
  RangeProfiler p(options());
  const range::RangeResult r = p.profile(counting_launch());
  EXPECT_EQ(r.why, "GPU counters not supported on this GPU or setup");
  EXPECT_EQ(g.launches, 0);
  EXPECT_EQ(g.disables, 1);
}

TEST(RangeProfilerFake, ALaunchWithoutKernelsSaysSo) {
  reset();
  g.kernels.clear();
  RangeProfiler p(options());
  const range::RangeResult r = p.profile(counting_launch());
  EXPECT_EQ(r.why, "no kernel launched");
  EXPECT_EQ(g.disables, 1);
}

TEST(RangeProfilerFake, DroppedKernelsAreCounted) {
  reset();
  g.dropped = 3;
  RangeProfiler p(options());
  EXPECT_EQ(p.profile(counting_launch()).dropped_ranges, 3);
}

TEST(RangeProfilerFake, ACuptiWithoutTheRangeProfilerSaysSo) {
  reset();
  auto a = fake_api();
  a->range_decode = nullptr;
  RangeProfilerOptions o = options();
  o.api = a;
  RangeProfiler p(o);
  EXPECT_FALSE(p.ready());
  EXPECT_EQ(p.why(), "this CUPTI has no range profiler");
  EXPECT_NE(p.detail().find("cuptiRangeProfilerDecodeData missing"), std::string::npos);
  EXPECT_EQ(p.profile(counting_launch()).why, "this CUPTI has no range profiler");
  EXPECT_EQ(g.launches, 0);
}

TEST(RangeProfilerFake, OnlyTheMetricsAskedForAreMeasured) {
  reset();
  RangeProfilerOptions o = options();
  o.metrics = {"occupancy", "duration"};
  RangeProfiler p(o);
  const range::RangeResult r = p.profile(counting_launch());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.kernels.at(0).values.size(), 2u);
  EXPECT_EQ(p.counters().size(), 2u);
}

}  // namespace
}  // namespace ts::prof
