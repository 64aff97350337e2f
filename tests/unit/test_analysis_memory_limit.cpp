// Analysis of a run on a simulated smaller card (run.config memory_limit_bytes, --memory-limit): the
// cap is the card, the allocator's reserved total (memory.reserved.*) its use, also for a CPU run
// that has no device memory at all; memory_pressure says "Simulated" and points at the reserved peak.
#include <gtest/gtest.h>

#include "engine/host_trace.h"
#include "profiling/analysis/analysis.h"
#include "profiling/analysis/evidence.h"
#include "profiling/analysis/series.h"

namespace ts::prof::analysis {
namespace {

constexpr std::int64_t kGiB = 1ll << 30;

/// 20 steps of 1000 ns; per step one sampler round of reserved bytes (weights fixed, activations
/// `activations_gib`, peak at step `peak_step`) and optionally device.memory.used.
struct Store {
  EventStore s;
  void steps(double weights_gib, double activations_gib, int peak_step, double peak_extra_gib,
             double device_used = -1) {
    const auto w = static_cast<std::uint32_t>(1), a = static_cast<std::uint32_t>(2), u = static_cast<std::uint32_t>(3);
    s.append(s.series, SeriesRecord{w, s.strings.intern("memory.reserved.weights"), s.strings.intern("bytes")});
    s.append(s.series, SeriesRecord{a, s.strings.intern("memory.reserved.activations"), s.strings.intern("bytes")});
    s.append(s.series, SeriesRecord{u, s.strings.intern("device.memory.used"), s.strings.intern("bytes")});
    for (int i = 0; i < 20; ++i) {
      StepRecord st;
      st.global_step = i + 1, st.start = i * 1000, st.end = i * 1000 + 1000;
      s.append(s.steps, st);
      HostRangeRecord r;
      r.start = st.start, r.end = st.end, r.thread = 7, r.kind = static_cast<std::uint8_t>(trace::RangeKind::step);
      r.step = st.global_step;
      s.append(s.host_ranges, r);
      const std::int64_t t = i * 1000 + 500;
      s.append(s.samples, SampleRecord{t, w, weights_gib * kGiB});
      s.append(s.samples, SampleRecord{t, a, (activations_gib + (i == peak_step ? peak_extra_gib : 0)) * kGiB});
      if (device_used >= 0) s.append(s.samples, SampleRecord{t, u, device_used});
    }
  }
};

const Verdict* find(const Report& r, const std::string& id) {
  for (const auto& v : r.verdicts)
    if (v.id == id) return &v;
  return nullptr;
}

TEST(AnalysisMemoryLimit, RunConfigReadsTheCap) {
  EXPECT_EQ(run_config({{"run.config", R"({"memory_limit_bytes":8589934592})"}}).memory_limit_bytes, 8 * kGiB);
  EXPECT_EQ(run_config({{"run.config", R"({"batch_size":64})"}}).memory_limit_bytes, 0);
  EXPECT_EQ(run_config({{"run.config", R"({"memory_limit_bytes":"8"})"}}).memory_limit_bytes, 0);
}

TEST(AnalysisMemoryLimit, CpuRunJudgedAgainstTheSimulatedCard) {
  Store st;
  st.s.set_meta("device.kind", "cpu");
  st.s.set_meta("device.total_memory_bytes", "0");
  st.s.set_meta("run.config", R"({"device":"cpu","batch_size":128,"accumulate":1,"memory_limit_bytes":1073741824})");
  st.steps(0.25, 0.5, 12, 0.2);  // peak 0.95 GiB of 1 GiB, at step 13's sample (t = 12500)
  const Report r = analyze(st.s);
  EXPECT_EQ(r.config.memory_limit_bytes, kGiB);
  ASSERT_TRUE(r.peak_reserved_bytes);
  EXPECT_EQ(*r.peak_reserved_bytes, static_cast<std::int64_t>(0.95 * kGiB));
  ASSERT_TRUE(r.device_memory_fraction);
  EXPECT_NEAR(*r.device_memory_fraction, 0.95, 1e-9);
  EXPECT_FALSE(r.peak_device_memory_bytes);  // no device memory on a CPU run
  const Verdict* v = find(r, "memory_pressure");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->severity, "moderate");
  EXPECT_EQ(v->title, "Simulated 1 GiB card nearly full (--memory-limit 1)");
  ASSERT_EQ(v->evidence.size(), 3u);
  EXPECT_EQ(v->evidence[0].first, "device_memory_used_pct");  // of the simulated card
  EXPECT_NEAR(v->evidence[0].second, 95, 1e-6);
  EXPECT_EQ(v->evidence[2].first, "simulated_card_gib");
  EXPECT_DOUBLE_EQ(v->evidence[2].second, 1.0);
  EXPECT_EQ(v->settings, (std::vector<FixSetting>{{"batch_size", "64"}, {"accumulate", "2"}}));
  EXPECT_EQ(v->fix.find("--amp"), std::string::npos) << v->fix;  // the CPU backend has no AMP
  EXPECT_EQ(v->advice, "or use a smaller model");
  const auto spans = verdict_evidence(st.s, {"memory_pressure"}, Options{});
  EXPECT_EQ(spans.at("memory_pressure"), (std::vector<EvidenceSpan>{{12500, 13500}}));
  const std::string text = to_text(r);
  EXPECT_NE(text.find("simulated 1 GiB card (--memory-limit 1): peak reserved 0.95 GiB (95.0 % of the cap)"),
            std::string::npos) << text;
  const std::string json = to_json(r);
  EXPECT_NE(json.find("\"memory_limit_bytes\":1073741824"), std::string::npos) << json;
  EXPECT_NE(json.find("\"peak_reserved_bytes\":"), std::string::npos) << json;

  Store plain;  // the same run without a cap: a CPU run has no card to judge against
  plain.s.set_meta("device.kind", "cpu");
  plain.s.set_meta("run.config", R"({"device":"cpu","batch_size":128})");
  plain.steps(0.25, 0.5, 12, 0.2);
  const Report p = analyze(plain.s);
  EXPECT_FALSE(p.device_memory_fraction);
  EXPECT_FALSE(find(p, "memory_pressure"));
  EXPECT_TRUE(p.peak_reserved_bytes);
}

// On a GPU the cap replaces the card: 4 GiB reserved of an 8 GiB cap is no pressure even when the
// real card is nearly full (other processes), and 7.9 GiB reserved is, on a card 95 % free.
TEST(AnalysisMemoryLimit, GpuRunUsesTheCapNotTheRealCard) {
  auto report = [](double reserved_gib, double used_bytes) {
    Store st;
    st.s.set_meta("device.kind", "cuda");
    st.s.set_meta("device.total_memory_bytes", "150000000000");
    st.s.set_meta("run.config", R"({"device":"cuda","batch_size":512,"memory_limit_bytes":8589934592})");
    st.steps(0.5, reserved_gib - 0.5, 3, 0.0, used_bytes);
    return analyze(st.s);
  };
  const Report relaxed = report(4.0, 146e9);
  EXPECT_NEAR(*relaxed.device_memory_fraction, 0.5, 1e-9);
  EXPECT_EQ(*relaxed.peak_device_memory_bytes, static_cast<std::int64_t>(146e9));
  EXPECT_FALSE(find(relaxed, "memory_pressure"));
  const Report full = report(7.9, 10e9);
  const Verdict* v = find(full, "memory_pressure");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->severity, "high");  // 98.75 % > 97 %
  EXPECT_NE(v->title.find("Simulated 8 GiB card"), std::string::npos) << v->title;
  EXPECT_NE(v->fix.find("--amp bf16"), std::string::npos) << v->fix;
}

TEST(AnalysisMemoryLimit, ReservedTotalSumsOneRound) {
  Store st;
  st.steps(1.0, 2.0, 5, 1.0);
  const auto total = reserved_total(st.s, st.s.counts());
  ASSERT_EQ(total.size(), 20u);
  EXPECT_EQ(total[0].t, 500);
  EXPECT_DOUBLE_EQ(total[0].v, 3.0 * kGiB);
  EXPECT_DOUBLE_EQ(total[5].v, 4.0 * kGiB);
  EXPECT_TRUE(reserved_total(EventStore{}, {}).empty());
}

}  // namespace
}  // namespace ts::prof::analysis
