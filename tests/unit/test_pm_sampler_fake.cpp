// The PM sampler against a fake CUPTI (its entry-point table, pm_api.h), without a GPU: the first
// counter a chip knows is chosen, metrics are dropped until the config takes one pass, PCIe is left
// out when device- and context-level counters may not mix, a hardware-buffer overflow restarts
// sampling (or stops it) and its gap is counted as samples lost, and a refusal for privileges leaves every metric
// absent with the reason, all in the session meta.
#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "profiling/metrics/pm_api.h"
#include "profiling/metrics/pm_metrics.h"
#include "profiling/metrics/pm_sampler.h"

namespace ts::prof {
namespace {

constexpr std::int64_t kMs = 1'000'000;

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// What the fake chip knows and does; one test at a time (the entry points are plain functions).
struct Fake {
  std::mutex mutex;
  CUptiResult enable_result = CUPTI_SUCCESS;
  std::set<std::string> unknown;           // counters the chip refuses
  std::size_t max_per_pass = 100;          // more metrics than this: two passes
  bool refuse_mix = false;                 // SetConfig refuses PCIe beside context-level counters
  int enables = 0, disables = 0;
  bool fail_set_config = false;
  std::map<CUpti_Profiler_Host_Object*, std::vector<std::string>> hosts;
  std::vector<std::string> config;         // the counters of the last config image
  struct Batch {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
    bool overflow = false;
  };
  std::deque<Batch> script;                // one per decode call
  bool sticky = false;                     // after an overflow, every decode overflows until enable()
  bool in_overflow = false;
  Batch current;
  std::uint64_t t0 = 0;                    // CUPTI ns of the first scripted sample
} g;

CUpti_Profiler_Host_Object* next_host() {
  static std::uintptr_t n = 0x1000;
  return reinterpret_cast<CUpti_Profiler_Host_Object*>(n += 16);
}

CUptiResult result_string(CUptiResult r, const char** s) {
  *s = r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ? "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" : "CUPTI_ERROR_FAKE";
  return CUPTI_SUCCESS;
}
CUptiResult timestamp(std::uint64_t* t) {
  *t = static_cast<std::uint64_t>(steady_ns());
  return CUPTI_SUCCESS;
}
CUptiResult ok_init(CUpti_Profiler_Initialize_Params*) { return CUPTI_SUCCESS; }
CUptiResult chip_name(CUpti_Device_GetChipName_Params* p) {
  p->pChipName = "GH100";
  return CUPTI_SUCCESS;
}
CUptiResult enable(CUpti_PmSampling_Enable_Params* p) {
  std::lock_guard lock(g.mutex);
  ++g.enables;
  g.in_overflow = false;
  p->pPmSamplingObject = reinterpret_cast<CUpti_PmSampling_Object*>(0x42);
  return g.enable_result;
}
CUptiResult disable(CUpti_PmSampling_Disable_Params*) {
  std::lock_guard lock(g.mutex);
  ++g.disables;
  return CUPTI_SUCCESS;
}
bool has_pcie(const std::vector<std::string>& names) {
  for (const auto& n : names)
    if (n.rfind("pcie", 0) == 0) return true;
  return false;
}
CUptiResult set_config(CUpti_PmSampling_SetConfig_Params*) {
  std::lock_guard lock(g.mutex);
  if (g.fail_set_config) return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
  return g.refuse_mix && has_pcie(g.config) && g.config.size() > 1 ? CUPTI_ERROR_NOT_SUPPORTED : CUPTI_SUCCESS;
}
CUptiResult start(CUpti_PmSampling_Start_Params*) { return CUPTI_SUCCESS; }
CUptiResult stop(CUpti_PmSampling_Stop_Params*) { return CUPTI_SUCCESS; }
CUptiResult decode(CUpti_PmSampling_DecodeData_Params* p) {
  std::lock_guard lock(g.mutex);
  g.current = {};
  p->decodeStopReason = CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS;
  if (g.in_overflow) {
    p->overflow = 1;
    return CUPTI_ERROR_OUT_OF_MEMORY;
  }
  if (g.script.empty()) return CUPTI_SUCCESS;
  g.current = g.script.front();
  g.script.pop_front();
  g.in_overflow = g.current.overflow && g.sticky;
  p->overflow = g.current.overflow ? 1 : 0;
  return g.current.overflow ? CUPTI_ERROR_OUT_OF_MEMORY : CUPTI_SUCCESS;
}
CUptiResult availability(CUpti_PmSampling_GetCounterAvailability_Params* p) {
  p->counterAvailabilityImageSize = 16;
  return CUPTI_SUCCESS;
}
CUptiResult data_size(CUpti_PmSampling_GetCounterDataSize_Params* p) {
  p->counterDataSize = 64;
  return CUPTI_SUCCESS;
}
CUptiResult data_init(CUpti_PmSampling_CounterDataImage_Initialize_Params*) { return CUPTI_SUCCESS; }
CUptiResult data_info(CUpti_PmSampling_GetCounterDataInfo_Params* p) {
  std::lock_guard lock(g.mutex);
  p->numCompletedSamples = g.current.spans.size();
  return CUPTI_SUCCESS;
}
CUptiResult sample_info(CUpti_PmSampling_CounterData_GetSampleInfo_Params* p) {
  std::lock_guard lock(g.mutex);
  p->startTimestamp = g.current.spans[p->sampleIndex].first;
  p->endTimestamp = g.current.spans[p->sampleIndex].second;
  return CUPTI_SUCCESS;
}
CUptiResult host_init(CUpti_Profiler_Host_Initialize_Params* p) {
  std::lock_guard lock(g.mutex);
  p->pHostObject = next_host();
  g.hosts[p->pHostObject] = {};
  return CUPTI_SUCCESS;
}
CUptiResult host_deinit(CUpti_Profiler_Host_Deinitialize_Params* p) {
  std::lock_guard lock(g.mutex);
  g.hosts.erase(p->pHostObject);
  return CUPTI_SUCCESS;
}
CUptiResult host_add(CUpti_Profiler_Host_ConfigAddMetrics_Params* p) {
  std::lock_guard lock(g.mutex);
  for (std::size_t i = 0; i < p->numMetrics; ++i)
    if (g.unknown.count(p->ppMetricNames[i])) return CUPTI_ERROR_INVALID_METRIC_NAME;
  for (std::size_t i = 0; i < p->numMetrics; ++i) g.hosts[p->pHostObject].push_back(p->ppMetricNames[i]);
  return CUPTI_SUCCESS;
}
CUptiResult image_size(CUpti_Profiler_Host_GetConfigImageSize_Params* p) {
  std::lock_guard lock(g.mutex);
  g.config = g.hosts[p->pHostObject];
  p->configImageSize = 8 + g.config.size();  // the image's length carries the metric count
  return CUPTI_SUCCESS;
}
CUptiResult image(CUpti_Profiler_Host_GetConfigImage_Params*) { return CUPTI_SUCCESS; }
CUptiResult passes(CUpti_Profiler_Host_GetNumOfPasses_Params* p) {
  std::lock_guard lock(g.mutex);
  p->numOfPasses = p->configImageSize - 8 > g.max_per_pass ? 2 : 1;
  return CUPTI_SUCCESS;
}
CUptiResult evaluate(CUpti_Profiler_Host_EvaluateToGpuValues_Params* p) {
  for (std::size_t i = 0; i < p->numMetrics; ++i) p->pMetricValues[i] = 10.0 * static_cast<double>(i + 1);
  return CUPTI_SUCCESS;
}

std::shared_ptr<const pm::PmApi> fake_api() {
  auto a = std::make_shared<pm::PmApi>();
  a->result_string = &result_string, a->timestamp = &timestamp, a->profiler_initialize = &ok_init;
  a->chip_name = &chip_name, a->enable = &enable, a->disable = &disable, a->set_config = &set_config;
  a->start = &start, a->stop = &stop, a->decode = &decode, a->counter_availability = &availability;
  a->counter_data_size = &data_size, a->counter_data_initialize = &data_init, a->counter_data_info = &data_info;
  a->sample_info = &sample_info, a->host_initialize = &host_init, a->host_deinitialize = &host_deinit;
  a->host_add_metrics = &host_add, a->host_config_image_size = &image_size, a->host_config_image = &image;
  a->host_passes = &passes, a->host_evaluate = &evaluate;
  return a;
}

void reset() {
  std::lock_guard lock(g.mutex);
  g.enable_result = CUPTI_SUCCESS;
  g.unknown.clear();
  g.max_per_pass = 100;
  g.refuse_mix = false;
  g.enables = 0, g.disables = 0;
  g.fail_set_config = false;
  g.hosts.clear();
  g.config.clear();
  g.script.clear();
  g.sticky = false;
  g.in_overflow = false;
  g.t0 = static_cast<std::uint64_t>(steady_ns());
}

/// `n` samples of 1 ms from `from_ms` after t0.
Fake::Batch samples(int from_ms, int n) {
  Fake::Batch b;
  for (int i = 0; i < n; ++i)
    b.spans.push_back({g.t0 + static_cast<std::uint64_t>((from_ms + i) * kMs), g.t0 + static_cast<std::uint64_t>((from_ms + i + 1) * kMs)});
  return b;
}

PmSamplerOptions options() {
  PmSamplerOptions o;
  o.api = fake_api();
  o.decode_period = std::chrono::milliseconds(2);
  return o;
}

void wait_for_script() {
  for (int i = 0; i < 1000; ++i) {
    {
      std::lock_guard lock(g.mutex);
      if (g.script.empty()) return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

TEST(PmSamplerFake, PcieLeftOutWhenDeviceAndContextLevelCountersMayNotMix) {
  reset();
  g.refuse_mix = true;
  g.unknown = {"sm__warps_active_realtime.avg.pct_of_peak_sustained_elapsed"};  // the second candidate serves
  EventStore s;
  PmSampler p(s, steady_ns(), options());
  ASSERT_TRUE(p.active()) << p.why();
  EXPECT_EQ(p.metrics(), (std::vector<std::string>{"sm_active", "tensor_active", "warp_occupancy", "dram_read",
                                                   "dram_write", "dram_peak"}));
  p.stop();
  const auto m = s.meta();
  EXPECT_NE(m.at("pm_sampling.absent.pcie_rx").find("device-level (PCIe) counters refused"), std::string::npos);
  EXPECT_NE(m.at("pm_sampling.absent.pcie_tx").find("CUPTI before 13.1"), std::string::npos);
  EXPECT_NE(m.at("pm_sampling.counters").find("warp_occupancy=tpc__warps_active_realtime"), std::string::npos);
  EXPECT_EQ(m.at("pm_sampling.passes"), "1");
}

TEST(PmSamplerFake, TheLeastWantedMetricsDroppedUntilTheConfigTakesOnePass) {
  reset();
  g.max_per_pass = 5;
  EventStore s;
  PmSampler p(s, steady_ns(), options());
  ASSERT_TRUE(p.active()) << p.why();
  EXPECT_EQ(p.metrics(), (std::vector<std::string>{"sm_active", "tensor_active", "warp_occupancy", "dram_read", "dram_write"}));
  p.stop();
  const auto m = s.meta();
  for (const char* dropped : {"dram_peak", "pcie_rx", "pcie_tx"})
    EXPECT_NE(m.at(std::string("pm_sampling.absent.") + dropped).find("needed 2 passes"), std::string::npos) << dropped;
}

TEST(PmSamplerFake, AnOverflowStopsAndStartsSamplingAndCountsTheGap) {
  reset();
  g.script = {samples(0, 10), samples(10, 10), Fake::Batch{{}, true}, samples(40, 5)};
  EventStore s;
  PmSampler p(s, steady_ns(), options());
  ASSERT_TRUE(p.active()) << p.why();
  wait_for_script();
  p.stop();
  const auto m = s.meta();
  EXPECT_EQ(g.enables, 1);  // the same object, stopped and started: CUPTI's other clients left alone
  EXPECT_EQ(m.at("pm_sampling.overflows"), "1");
  EXPECT_EQ(m.at("pm_sampling.samples"), "25");
  EXPECT_EQ(m.at("pm_sampling.samples_lost"), "20");  // 20 ms .. 40 ms
  EXPECT_NE(m.at("pm_sampling").find("samples lost 20"), std::string::npos);
  EXPECT_EQ(m.count("pm_sampling.stopped"), 0u);
  ASSERT_EQ(s.metric_series.size(), 8u);  // every metric of the table: the fake takes them all
  EXPECT_EQ(s.metric_samples.size(), 25u * 8u);
  EXPECT_DOUBLE_EQ(s.metric_samples[0].value, 10.0);  // sm_active: the fake's first value
}

TEST(PmSamplerFake, AnOverflowThatStaysStopsSamplingAndTheRestCountsAsLost) {
  reset();
  g.sticky = true;
  g.script = {samples(0, 10), Fake::Batch{{}, true}, samples(40, 5)};
  EventStore s;
  PmSampler p(s, steady_ns(), options());
  ASSERT_TRUE(p.active()) << p.why();
  for (int i = 0; i < 1000 && !s.meta().count("pm_sampling.stopped"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const std::int64_t before_stop = steady_ns();
  p.stop();
  const std::int64_t after_stop = steady_ns();
  const auto m = s.meta();
  EXPECT_EQ(g.enables, 1);  // never enabled again: that may finalize CUPTI
  EXPECT_EQ(m.at("pm_sampling.overflows"), "2");
  EXPECT_EQ(m.at("pm_sampling.samples"), "10");
  EXPECT_NE(m.at("pm_sampling.stopped").find("would end CUPTI's activity records"), std::string::npos);
  // From the last kept sample's end (t0 + 10 ms) to the stop, in 1 ms samples.
  const std::int64_t lost = std::stoll(m.at("pm_sampling.samples_lost"));
  EXPECT_GE(lost, (before_stop - static_cast<std::int64_t>(g.t0) - 10 * kMs) / kMs - 1);
  EXPECT_LE(lost, (after_stop - static_cast<std::int64_t>(g.t0) - 10 * kMs) / kMs + 1);
  EXPECT_GE(lost, 20);
}

TEST(PmSamplerFake, WithReenableAllowedASecondOverflowEnablesTheSamplerAgain) {
  reset();
  g.sticky = true;
  g.script = {samples(0, 10), Fake::Batch{{}, true}, samples(40, 5)};
  EventStore s;
  PmSamplerOptions o = options();
  o.reenable_after_overflow = true;
  PmSampler p(s, steady_ns(), o);
  ASSERT_TRUE(p.active()) << p.why();
  wait_for_script();
  p.stop();
  const auto m = s.meta();
  EXPECT_EQ(g.enables, 2);
  EXPECT_EQ(m.at("pm_sampling.overflows"), "2");
  EXPECT_EQ(m.at("pm_sampling.samples"), "15");
  EXPECT_EQ(m.at("pm_sampling.samples_lost"), "30");  // 10 ms .. 40 ms
}

TEST(PmSamplerFake, RefusedCountersLeaveEveryMetricAbsentWithTheReason) {
  reset();
  g.enable_result = CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
  EventStore s;
  PmSampler p(s, steady_ns(), options());
  EXPECT_FALSE(p.active());
  EXPECT_NE(p.why().find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
  p.stop();
  const auto m = s.meta();
  EXPECT_EQ(m.at("pm_sampling").rfind("no measured metrics: GPU performance counters refused", 0), 0u);
  for (const pm::MetricSpec& spec : pm::metric_specs())
    EXPECT_NE(m.at(std::string("pm_sampling.absent.") + spec.name).find("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"),
              std::string::npos);
  EXPECT_EQ(s.metric_samples.size(), 0u);
}

TEST(PmSamplerFake, ARefusalAfterEnableIsDisabledOnlyAtStop) {
  reset();
  g.fail_set_config = true;  // privileges refused at SetConfig: the object exists
  EventStore s;
  PmSampler p(s, steady_ns(), options());
  EXPECT_FALSE(p.active());
  EXPECT_NE(p.why().find("SetConfig"), std::string::npos);
  EXPECT_EQ(g.disables, 0);  // not while the run's activity collection may still be going
  p.stop();
  EXPECT_EQ(g.disables, 1);
}

TEST(PmSamplerFake, ACuptiWithoutPmSamplingSaysWhichEntryIsMissing) {
  reset();
  auto a = std::make_shared<pm::PmApi>(*fake_api());
  a->decode = nullptr;
  PmSamplerOptions o = options();
  o.api = a;
  EventStore s;
  PmSampler p(s, steady_ns(), o);
  EXPECT_FALSE(p.active());
  EXPECT_NE(p.why().find("cuptiPmSamplingDecodeData missing"), std::string::npos);
}

}  // namespace
}  // namespace ts::prof
