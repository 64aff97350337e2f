// GPU health over a run (profiling/analysis/health.h) from hand-made sampler series: the
// "throttled" verdict at the 10 % threshold, the reason, the clock lost, and the
// "shared_gpu" warning when another process used the card.
#include <gtest/gtest.h>

#include <map>

#include "base/nvml.h"
#include "profiling/analysis/analysis.h"
#include "profiling/analysis/health.h"
#include "profiling/event_store.h"

namespace ts::prof::analysis {
namespace {

class Series {
 public:
  void put(const std::string& name, std::int64_t t, double v) {
    auto it = ids_.find(name);
    if (it == ids_.end()) {
      const auto id = static_cast<std::uint32_t>(ids_.size());
      store.append(store.series, SeriesRecord{id, store.strings.intern(name), store.strings.intern("")});
      it = ids_.emplace(name, id).first;
    }
    store.append(store.samples, SampleRecord{t, it->second, v});
  }
  EventStore store;

 private:
  std::map<std::string, std::uint32_t> ids_;
};

/// 100 sampler rounds 50 ms apart; the first `throttled` of them with `bits` set (GPU idle in the rest).
void run(Series& s, int throttled, std::uint64_t bits, double clock_throttled = 1500) {
  for (int i = 0; i < 100; ++i) {
    const std::int64_t t = i * 50'000'000LL;
    const bool th = i < throttled;
    s.put("gpu.clock_event_reasons", t, static_cast<double>(th ? bits : nvml::kReasonGpuIdle));
    s.put("gpu.sm_clock", t, th ? clock_throttled : 1980);
    s.put("gpu.sm_clock_max", t, 1980);
  }
}

/// A report that may judge verdicts, with the health of `s`.
Report judged(const Series& s) {
  Report r;
  r.steps = 20;
  r.wall_ns = 5'000'000'000LL;
  r.health = gpu_health(s.store);
  add_verdicts(r);
  return r;
}
const Verdict* find(const Report& r, const std::string& id) {
  for (const auto& v : r.verdicts)
    if (v.id == id) return &v;
  return nullptr;
}
double evidence(const Verdict& v, const std::string& k) {
  for (const auto& [n, x] : v.evidence)
    if (n == k) return x;
  return -1;
}

TEST(Health, ThrottledAtTenPercentOfSamples) {
  Series s;
  run(s, 10, nvml::kReasonSwPowerCap);
  const Report r = judged(s);
  const Verdict* v = find(r, "throttled");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->severity, "moderate");
  EXPECT_NE(v->title.find("sw_power_cap"), std::string::npos) << v->title;
  EXPECT_NE(v->title.find("1500 MHz of its 1980 MHz"), std::string::npos) << v->title;
  EXPECT_NE(v->fix.find("power limit"), std::string::npos);
  EXPECT_DOUBLE_EQ(evidence(*v, "throttled_samples_pct"), 10);
  EXPECT_NEAR(evidence(*v, "sm_clock_lost_pct"), 100 * (1 - 1500.0 / 1980), 1e-9);
  EXPECT_DOUBLE_EQ(*verdict_measure(r, "throttled"), 10);
  Series nine;
  run(nine, 9, nvml::kReasonSwPowerCap);
  EXPECT_FALSE(find(judged(nine), "throttled"));  // 9 %: below the threshold
}

TEST(Health, AnalysisTextAndJsonCarryTheHealth) {
  Series s;
  run(s, 10, nvml::kReasonSwPowerCap);
  const Report r = judged(s);
  const std::string t = to_text(r);
  EXPECT_NE(t.find("GPU health: clock held down in 10 of 100 samples (sw_power_cap, SM clock 1500 of 1980 MHz)"),
            std::string::npos)
      << t;
  EXPECT_NE(to_json(r).find("\"gpu_health\":{\"reason_samples\":100,\"throttled_samples\":10"), std::string::npos);
  Series empty;
  const std::string t0 = to_text(judged(empty));
  EXPECT_NE(t0.find("GPU health: absent"), std::string::npos) << t0;
}

TEST(Health, ThrottledHighAndMainReason) {
  Series s;
  run(s, 60, nvml::kReasonHwThermalSlowdown | nvml::kReasonGpuIdle);
  const Report r = judged(s);
  const Verdict* v = find(r, "throttled");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->severity, "high");
  EXPECT_EQ(r.health->main_reason, "hw_thermal_slowdown");
  EXPECT_NE(v->fix.find("too hot"), std::string::npos);
  EXPECT_EQ(r.health->reasons & nvml::kReasonGpuIdle, 0u);  // idle is not a throttle reason
}

TEST(Health, IdleAndApplicationClocksAreNotThrottling) {
  Series s;
  run(s, 100, nvml::kReasonGpuIdle | nvml::kReasonApplicationsClocksSetting);
  const Report r = judged(s);
  EXPECT_FALSE(find(r, "throttled"));
  EXPECT_EQ(r.health->throttled_samples, 0);
  EXPECT_EQ(r.health->reason_samples, 100);
}

TEST(Health, AnotherProcessIsAWarning) {
  Series s;
  run(s, 0, 0);
  for (int i = 0; i < 10; ++i) {
    s.put("gpu.other_processes", i * 500'000'000LL, i >= 5 ? 1 : 0);
    s.put("gpu.other_processes_memory", i * 500'000'000LL, i >= 5 ? 2147483648.0 : 0);
  }
  const Report r = judged(s);
  const Verdict* v = find(r, "shared_gpu");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->severity, "low");
  EXPECT_DOUBLE_EQ(evidence(*v, "other_processes_samples_pct"), 50);
  EXPECT_DOUBLE_EQ(evidence(*v, "other_processes_gib"), 2);
  EXPECT_FALSE(find(r, "throttled"));
  Series alone;
  run(alone, 0, 0);
  alone.put("gpu.other_processes", 0, 0);
  EXPECT_FALSE(find(judged(alone), "shared_gpu"));
}

TEST(Health, AbsentWithoutNvmlSeriesAndBadValuesSkipped) {
  Series none;
  none.put("gpu.utilization", 0, 50);
  EXPECT_FALSE(gpu_health(none.store));
  EXPECT_FALSE(find(judged(none), "throttled"));
  Series bad;
  bad.put("gpu.clock_event_reasons", 0, -4);
  bad.put("gpu.clock_event_reasons", 1, 0.5);
  bad.put("gpu.clock_event_reasons", 2, 1e300);
  bad.put("gpu.clock_event_reasons", 3, static_cast<double>(nvml::kReasonSwPowerCap));
  const auto h = gpu_health(bad.store);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->reason_samples, 1);
  EXPECT_EQ(h->throttled_samples, 1);
  EXPECT_FALSE(h->sm_clock_throttled_mhz);  // no clock series: not invented
}

TEST(Health, EccRise) {
  Series s;
  run(s, 0, 0);
  s.put("gpu.ecc_corrected", 0, 3);
  s.put("gpu.ecc_corrected", 1'000'000'000, 5);
  const auto h = gpu_health(s.store);
  EXPECT_DOUBLE_EQ(*h->ecc_corrected_rise, 2);
  EXPECT_FALSE(h->ecc_uncorrected_rise);
}

}  // namespace
}  // namespace ts::prof::analysis
