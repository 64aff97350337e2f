// Measured metrics by PM sampling, without a GPU: decoding raw samples into series on the session
// clock, the accounting of lost, stretched and zero-length samples, the session meta, the round trip
// through a session file (and an old file without the metric tables), the analysis figures and the
// memory_bound_kernels finding on synthetic series, absent-metric reasons, the `pm` profile part.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "engine/network.h"
#include "profiling/analysis/analysis.h"
#include "profiling/metrics/pm_metrics.h"
#include "profiling/profiler.h"
#include "profiling/session/session_file.h"

namespace ts::prof {
namespace {

constexpr std::int64_t kMs = 1'000'000;

pm::RawSample raw(std::int64_t start_ms, std::int64_t end_ms, std::vector<double> v) {
  return {static_cast<std::uint64_t>(start_ms * kMs), static_cast<std::uint64_t>(end_ms * kMs), std::move(v)};
}

std::string name_of(const EventStore& s, std::uint32_t series) {
  for (std::size_t i = 0; i < s.metric_series.size(); ++i)
    if (s.metric_series[i].id == series) return s.strings.get(s.metric_series[i].name);
  return "";
}

TEST(PmDecode, SamplesBecomeSeriesOnTheSessionClock) {
  EventStore s;
  // Session start at host 5 ms; CUPTI's clock is 2 ms ahead of the host's: CUPTI 100 ms = session 93 ms.
  const SessionClock clock(5 * kMs, 2 * kMs);
  pm::Decoder d(s, clock, {{"sm_active", "dram_read"}, kMs});
  const std::vector<pm::RawSample> batch = {raw(100, 101, {50, 1e9}), raw(101, 102, {75, 2e9})};
  d.add(batch);
  ASSERT_EQ(s.metric_series.size(), 2u);
  EXPECT_EQ(s.strings.get(s.metric_series[0].name), "pm.sm_active");
  EXPECT_EQ(s.strings.get(s.metric_series[0].unit), "%");
  EXPECT_EQ(s.strings.get(s.metric_series[1].unit), "bytes/s");
  ASSERT_EQ(s.metric_samples.size(), 4u);
  EXPECT_EQ(s.metric_samples[0].time, 93 * kMs);
  EXPECT_EQ(name_of(s, s.metric_samples[0].series), "pm.sm_active");
  EXPECT_DOUBLE_EQ(s.metric_samples[0].value, 50);
  EXPECT_EQ(s.metric_samples[3].time, 94 * kMs);
  EXPECT_DOUBLE_EQ(s.metric_samples[3].value, 2e9);
  EXPECT_EQ(d.counts().kept, 2);
  EXPECT_EQ(d.counts().lost, 0);
}

TEST(PmDecode, GapsAreCountedAsLostSamplesNeverSilentlyMissing) {
  EventStore s;
  pm::Decoder d(s, SessionClock(0, 0), {{"sm_active"}, kMs});
  // The first sample after a start spans back ~300 ms: not kept, not lost (sampling had not begun).
  std::vector<pm::RawSample> b1 = {raw(0, 300, {1}), raw(300, 301, {2}), raw(301, 302, {3})};
  d.add(b1);
  EXPECT_EQ(d.counts().stretched, 1);
  EXPECT_EQ(d.counts().lost, 0);
  // An overflow: sampling restarts at 310 ms; its first sample spans the gap (302..310), then normal.
  d.overflow();
  std::vector<pm::RawSample> b2 = {raw(302, 310, {9}), raw(310, 311, {4}), raw(311, 312, {5})};
  d.add(b2);
  EXPECT_EQ(d.counts().overflows, 1);
  EXPECT_EQ(d.counts().stretched, 2);
  EXPECT_EQ(d.counts().lost, 8);  // 302..310: eight 1 ms samples
  // Zero-length samples after a stop and an out-of-order one are not kept.
  std::vector<pm::RawSample> b3 = {raw(0, 0, {7}), raw(305, 306, {7}), raw(312, 313, {6})};
  d.add(b3);
  EXPECT_EQ(d.counts().zero_length, 1);
  EXPECT_EQ(d.counts().out_of_order, 1);
  EXPECT_EQ(d.counts().kept, 5);
  ASSERT_EQ(s.metric_samples.size(), 5u);
  for (std::size_t i = 1; i < s.metric_samples.size(); ++i)
    EXPECT_LT(s.metric_samples[i - 1].time, s.metric_samples[i].time);
  // 5 samples from 300 ms to 312 ms: 4 intervals in 12 ms.
  EXPECT_NEAR(d.rate_hz(), 4 / 0.012, 1e-6);
}

TEST(PmDecode, AGapOfHalfAnIntervalRoundsToOneLostSample) {
  EventStore s;
  pm::Decoder d(s, SessionClock(0, 0), {{"sm_active"}, 1000});
  std::vector<pm::RawSample> b = {{1000, 2000, {1}}, {2400, 3400, {1}}, {3400, 4400, {1}}, {5900, 6900, {1}}};
  d.add(b);
  EXPECT_EQ(d.counts().lost, 0 + 2);  // 400 ns rounds to 0; 1500 ns to 2
}

TEST(PmDecode, MetaSaysRateSamplesLostAndWhyAMetricIsAbsent) {
  EventStore s;
  pm::DecodeCounts c;
  c.kept = 1000, c.lost = 3, c.overflows = 1;
  pm::write_meta(s, {"sm_active", "dram_read"}, {{"sm_active", "sm__cycles_active.avg.pct_of_peak_sustained_elapsed"}},
                 {{"pcie_rx", "device-level (PCIe) counters refused"}}, c, kMs, 999.6);
  const auto m = s.meta();
  EXPECT_EQ(m.at("pm_sampling"), "sampled at 1000 Hz (1000 samples, samples lost 3): sm_active, dram_read");
  EXPECT_EQ(m.at("pm_sampling.samples_lost"), "3");
  EXPECT_EQ(m.at("pm_sampling.overflows"), "1");
  EXPECT_EQ(m.at("pm_sampling.interval_ns"), "1000000");
  EXPECT_EQ(m.at("pm_sampling.absent.pcie_rx"), "device-level (PCIe) counters refused");
  EXPECT_NE(m.at("pm_sampling.counters").find("sm_active=sm__cycles_active"), std::string::npos);
}

TEST(PmDecode, RefusalReasonsSayWhatHappenedAndWhatToDo) {
  const std::string p = pm::refusal_reason(pm::Refusal::privileges, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  EXPECT_NE(p.find("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"), std::string::npos);
  EXPECT_NE(p.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
  EXPECT_NE(pm::refusal_reason(pm::Refusal::busy, "CUPTI_ERROR_HARDWARE_BUSY").find("another profiler"),
            std::string::npos);
  EXPECT_NE(pm::refusal_reason(pm::Refusal::unsupported, "CUPTI_ERROR_NOT_SUPPORTED").find("Turing"),
            std::string::npos);
}

TEST(PmDecode, EveryMetricHasAUnitAndACounterAndPcieIsDeviceLevel) {
  for (const pm::MetricSpec& m : pm::metric_specs()) {
    EXPECT_FALSE(m.counters.empty()) << m.name;
    EXPECT_TRUE(std::string(m.unit) == "%" || std::string(m.unit) == "bytes/s") << m.name;
    EXPECT_EQ(m.device_level, std::string(m.name).rfind("pcie", 0) == 0) << m.name;
  }
  EXPECT_EQ(pm::metric_specs().front().name, std::string("sm_active"));  // dropped last
  EXPECT_NE(pm::find_metric("warp_occupancy"), nullptr);
  EXPECT_EQ(pm::find_metric("nope"), nullptr);
}

TEST(PmSession, MetricSeriesRoundTripAndOldFilesReadWithout) {
  const std::string path = (std::filesystem::temp_directory_path() / ("ts_pm_" + std::to_string(getpid()) + ".tsession")).string();
  std::filesystem::remove(path);
  EventStore a;
  a.set_meta("pm_sampling", "sampled at 1000 Hz (2 samples, samples lost 0): sm_active");
  pm::Decoder d(a, SessionClock(0, 0), {{"sm_active", "dram_write"}, kMs});
  std::vector<pm::RawSample> b = {raw(1, 2, {10, 5e8}), raw(2, 3, {20, 6e8})};
  d.add(b);
  {
    SessionWriter w(path, a);
    w.close();
  }
  EventStore r;
  read_session(path, r);
  ASSERT_EQ(r.metric_series.size(), a.metric_series.size());
  ASSERT_EQ(r.metric_samples.size(), a.metric_samples.size());
  for (std::size_t i = 0; i < a.metric_samples.size(); ++i) EXPECT_EQ(r.metric_samples[i], a.metric_samples[i]);
  EXPECT_EQ(r.strings.get(r.metric_series[1].name), "pm.dram_write");
  EXPECT_EQ(r.meta().at("pm_sampling"), a.meta().at("pm_sampling"));
  std::filesystem::remove(path);
  // A session recorded before PM sampling (format 4 without the metric tables) reads with none.
  EventStore old;
  read_session(std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/gpu_b128_nw4.tsession", old);
  EXPECT_EQ(old.metric_series.size(), 0u);
  EXPECT_EQ(old.metric_samples.size(), 0u);
}

// --- analysis on synthetic series ---

struct Recording {
  EventStore s;
  std::uint32_t corr = 1;
  std::vector<std::string> metrics;
  pm::Decoder* dec = nullptr;
  void step(std::int64_t gs, std::int64_t a, std::int64_t b) {
    StepRecord r;
    r.global_step = gs, r.start = a, r.end = b;
    s.append(s.steps, r);
    HostRangeRecord h;
    h.start = a, h.end = b, h.thread = 7, h.kind = 0, h.step = gs;
    s.append(s.host_ranges, h);
  }
  void kernel(std::int64_t a, std::int64_t b) {
    KernelRecord k;
    k.start = a, k.end = b, k.correlation = corr++, k.name = s.strings.intern("k");
    s.append(s.kernels, k);
  }
};

/// 20 steps of 10 ms; in each a kernel runs the first 5 ms. Samples every 1 ms: while the kernel
/// runs sm_active 80 %, DRAM read 1.6 TB/s + write 0.8 TB/s; while idle sm_active 0 and DRAM 0.
void synthetic(Recording& run, double busy_read, double copy_ceiling) {
  pm::Decoder d(run.s, SessionClock(0, 0), {{"sm_active", "dram_read", "dram_write", "tensor_active"}, kMs});
  std::vector<pm::RawSample> b;
  for (int st = 0; st < 20; ++st) {
    const std::int64_t t0 = st * 10;
    run.step(st + 1, t0 * kMs, (t0 + 10) * kMs);
    run.kernel(t0 * kMs, (t0 + 5) * kMs);
    for (int m = 0; m < 10; ++m) {
      const bool busy = m < 5;
      b.push_back(raw(t0 + m, t0 + m + 1, {busy ? 80.0 : 0.0, busy ? busy_read : 0.0, busy ? 0.8e12 : 0.0, 0.0}));
    }
  }
  d.add(b);
  run.s.set_meta("pm_sampling", "sampled at 1000 Hz (200 samples, samples lost 0): sm_active, dram_read, dram_write, tensor_active");
  run.s.set_meta("pm_sampling.interval_ns", std::to_string(kMs));
  run.s.set_meta("pm_sampling.samples_lost", "0");
  run.s.set_meta("pm_sampling.absent.pcie_rx", "device-level (PCIe) counters refused beside context-level ones");
  if (copy_ceiling > 0)
    run.s.set_meta("pm_sampling.copy_ceiling_bytes_per_s", std::to_string(static_cast<std::int64_t>(copy_ceiling)));
}

TEST(PmAnalysis, MeansWhileKernelsRunBesideTheEstimates) {
  Recording run;
  synthetic(run, 1.6e12, 3.0e12);
  const analysis::Report r = analysis::analyze(run.s);
  ASSERT_TRUE(r.measured);
  const analysis::Measured& m = *r.measured;
  EXPECT_TRUE(m.kernel_weighted);
  EXPECT_EQ(m.samples, 200);
  ASSERT_TRUE(m.sm_active_pct);
  EXPECT_NEAR(*m.sm_active_pct, 80, 1e-9);  // idle samples weigh 0
  EXPECT_NEAR(*m.tensor_active_pct, 0, 1e-9);
  EXPECT_FALSE(m.warp_occupancy_pct);
  EXPECT_NEAR(*m.dram_bytes_per_s, 2.4e12, 1);
  EXPECT_NEAR(*m.dram_ceiling_share, 0.8, 1e-9);
  EXPECT_EQ(m.absent.at("pcie_rx"), "device-level (PCIe) counters refused beside context-level ones");
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].id, "memory_bound_kernels");
  const std::string text = analysis::to_text(r), json = analysis::to_json(r);
  EXPECT_NE(text.find("SM active 80.0 %"), std::string::npos) << text;
  EXPECT_NE(text.find("estimated SM efficiency"), std::string::npos);
  EXPECT_NE(text.find("finding [moderate] memory_bound_kernels"), std::string::npos);
  EXPECT_NE(text.find("pcie_rx absent: device-level"), std::string::npos);
  EXPECT_NE(json.find("\"measured\":{"), std::string::npos);
  EXPECT_NE(json.find("\"sm_efficiency_est\""), std::string::npos);
  EXPECT_NE(json.find("\"findings\":[{\"id\":\"memory_bound_kernels\""), std::string::npos);
}

TEST(PmAnalysis, MemoryBoundFindingAtItsThresholdOnly) {
  {  // 0.7 * 3e12 = 2.1e12 total: read 1.3e12 + write 0.8e12 is exactly at the threshold
    Recording run;
    synthetic(run, 1.3e12, 3.0e12);
    const analysis::Report r = analysis::analyze(run.s);
    EXPECT_NEAR(*r.measured->dram_ceiling_share, analysis::kMemoryBoundShare, 1e-9);
    EXPECT_EQ(r.findings.size(), 1u);
  }
  {  // below: no finding, and the analysis says by how much
    Recording run;
    synthetic(run, 1.2e12, 3.0e12);  // 2.0e12: 66.7 %
    const analysis::Report r = analysis::analyze(run.s);
    EXPECT_TRUE(r.findings.empty());
    EXPECT_EQ(r.measured->memory_bound, "not memory-bound: DRAM 67 % of the copy ceiling while kernels ran (the finding "
                                        "needs >= 70 %)");
    EXPECT_NE(analysis::to_text(r).find("memory-bound kernels: not memory-bound: DRAM 67 %"), std::string::npos);
    EXPECT_NE(analysis::to_json(r).find("\"memory_bound\":\"not memory-bound"), std::string::npos);
  }
  {  // no measured ceiling (a recorded program): not judged, and the text says why instead of "absent ... absent"
    Recording run;
    synthetic(run, 2.5e12, 0);
    run.s.set_meta("pm_sampling.copy_ceiling", "not measured: a recorded program's device memory is not TrainScope's to use");
    const analysis::Report r = analysis::analyze(run.s);
    EXPECT_FALSE(r.measured->dram_ceiling_share);
    EXPECT_TRUE(r.findings.empty());
    const std::string text = analysis::to_text(r);
    EXPECT_NE(text.find("no measured copy ceiling: not measured: a recorded program's"), std::string::npos) << text;
    EXPECT_EQ(text.find("absent of the measured copy ceiling"), std::string::npos) << text;
    EXPECT_NE(text.find("memory-bound kernels: not judged: no measured copy ceiling"), std::string::npos) << text;
    EXPECT_NE(analysis::to_json(r).find("\"copy_ceiling_absent\":\"not measured"), std::string::npos);
  }
}

TEST(PmAnalysis, NoSamplesSaysWhyAndOldSessionsHaveNoMeasuredBlock) {
  Recording run;
  run.step(1, 0, 10 * kMs);
  run.kernel(0, 5 * kMs);
  const analysis::Report old = analysis::analyze(run.s);
  EXPECT_FALSE(old.measured);
  EXPECT_EQ(analysis::to_text(old).find("measured (PM sampling)"), std::string::npos);
  run.s.set_meta("pm_sampling", "no measured metrics: GPU performance counters refused (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)");
  run.s.set_meta("pm_sampling.absent.sm_active", "GPU performance counters refused (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)");
  const analysis::Report r = analysis::analyze(run.s);
  ASSERT_TRUE(r.measured);
  EXPECT_EQ(r.measured->samples, 0);
  EXPECT_FALSE(r.measured->sm_active_pct);
  EXPECT_NE(analysis::to_text(r).find("none in the analysed steps (no measured metrics: GPU performance counters refused"),
            std::string::npos);
}

TEST(PmProfiler, EveryRunSaysWhyItHasNoMeasuredMetricsAndRecordsTheRest) {
  const std::string dir = std::filesystem::temp_directory_path().string() + "/ts_pm_profiler_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  auto run = [&](int device, const char* skip) {
    if (skip) setenv("TRAINSCOPE_PROFILE_SKIP", skip, 1);
    ProfilerOptions o;
    o.session_path = dir + "/run.tsession";
    o.cuda_device = device;
    std::filesystem::remove(o.session_path);
    Profiler p(o);
    unsetenv("TRAINSCOPE_PROFILE_SKIP");
    const ProfilerSummary s = p.stop();
    return std::make_pair(s, p.store().meta());
  };
  const auto [cpu, cpu_meta] = run(-1, nullptr);
  EXPECT_EQ(cpu.pm_status, "no measured metrics: the run is on the CPU");
  const auto [skipped, skipped_meta] = run(0, "pm,cupti");
  EXPECT_EQ(skipped.pm_status, "no measured metrics: left out (TRAINSCOPE_PROFILE_SKIP=pm)");
  EXPECT_EQ(skipped_meta.count("pm_sampling.copy_ceiling_bytes_per_s"), 0u);
  std::string no_gpu;
  if (!ts::cuda_available(&no_gpu)) {  // this machine: the sampler and the copy ceiling say why
    const auto [gpu, gpu_meta] = run(0, "cupti");
    EXPECT_EQ(gpu.pm_status.rfind("no measured metrics: ", 0), 0u) << gpu.pm_status;
    // A build with CUDA names each absent metric; one without (the ASan build) says so once.
    if (gpu.pm_status.find("built without CUDA") == std::string::npos) {
      const auto absent = gpu_meta.find("pm_sampling.absent.sm_active");
      ASSERT_NE(absent, gpu_meta.end()) << gpu.pm_status;
      EXPECT_EQ(absent->second, gpu.pm_status.substr(21));
    }
    const auto ceiling = gpu_meta.find("pm_sampling.copy_ceiling");
    ASSERT_NE(ceiling, gpu_meta.end());
    EXPECT_EQ(ceiling->second.rfind("not measured: ", 0), 0u) << ceiling->second;
  }
  std::filesystem::remove_all(dir);
}

TEST(PmProfileParts, PmCanBeLeftOutToMeasureItsCost) {
  setenv("TRAINSCOPE_PROFILE_SKIP", "pm,samplers", 1);
  const ProfileParts p = profile_parts_from_env();
  unsetenv("TRAINSCOPE_PROFILE_SKIP");
  EXPECT_FALSE(p.pm);
  EXPECT_FALSE(p.samplers);
  EXPECT_TRUE(p.cupti);
  EXPECT_TRUE(profile_parts_from_env().pm);
}

}  // namespace
}  // namespace ts::prof
