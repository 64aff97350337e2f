// The samplers' GPU-health series with fake NVML entry points (SamplerOptions::nvml):
// clock-event reasons and the SM clock's maximum every round, PCIe RX/TX every 4th round (bytes/s
// from NVML's KB/s), ECC counts and other processes every 10th; this process is not "another
// process"; an entry point the driver lacks gives no series (never zeros). The allocator's first
// sample comes when the network hands its stats over, not a period later.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "base/nvml.h"
#include "engine/host_trace.h"
#include "profiling/analysis/health.h"
#include "profiling/analysis/series.h"
#include "profiling/samplers.h"

namespace ts::prof {
namespace {

int fake_reasons(nvml::Device, unsigned long long* r) {
  *r = nvml::kReasonSwPowerCap;
  return nvml::kSuccess;
}
int fake_clock(nvml::Device, int type, unsigned* v) {
  *v = type == 1 ? 1500 : 3000;
  return nvml::kSuccess;
}
int fake_max_clock(nvml::Device, int, unsigned* v) {
  *v = 1980;
  return nvml::kSuccess;
}
int fake_pcie(nvml::Device, int counter, unsigned* kbs) {
  *kbs = counter == 1 ? 1000 : 10;  // RX (host to GPU) 1000 KB/s, TX 10 KB/s
  return nvml::kSuccess;
}
int fake_ecc(nvml::Device, int type, int /*counter*/, unsigned long long* c) {
  *c = type == 0 ? 3 : 0;
  return nvml::kSuccess;
}
int fake_processes(nvml::Device, unsigned* n, nvml::ProcessInfo* p) {
  if (*n < 2) return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  p[0] = {static_cast<unsigned>(getpid()), 100, 0, 0};  // this process
  p[1] = {4242, 1ull << 30, 0, 0};
  *n = 2;
  return nvml::kSuccess;
}

std::shared_ptr<nvml::Library> fake_nvml() {
  auto l = std::make_shared<nvml::Library>();
  l->clock_event_reasons = fake_reasons;
  l->clock = fake_clock;
  l->max_clock = fake_max_clock;
  l->pcie_throughput = fake_pcie;
  l->ecc_total = fake_ecc;
  l->compute_processes = fake_processes;
  return l;
}

analysis::SeriesSet sample(std::shared_ptr<nvml::Library> lib, int rounds, EventStore& store) {
  SamplerOptions o;
  o.period = std::chrono::milliseconds(0);
  o.nvml = std::move(lib);
  o.nvml_device = reinterpret_cast<nvml::Device>(0x1);
  Samplers s(store, SessionClock(trace::now_ns()), o);
  EXPECT_EQ(s.nvml_status(), "");
  for (int i = 0; i < rounds; ++i) s.sample_once();
  s.stop();
  analysis::SeriesSet set;
  set.update(store, store.series.size(), store.samples.size());
  return set;
}

TEST(SamplersHealth, SeriesAtTheirRates) {
  EventStore store;
  const auto set = sample(fake_nvml(), 20, store);
  const auto* reasons = set.find("gpu.clock_event_reasons");
  ASSERT_TRUE(reasons);
  EXPECT_EQ(reasons->unit, "bitmask");
  EXPECT_EQ(reasons->points.size(), 20u);
  EXPECT_EQ(reasons->points[0].v, static_cast<double>(nvml::kReasonSwPowerCap));
  ASSERT_TRUE(set.find("gpu.sm_clock_max"));
  EXPECT_EQ(set.find("gpu.sm_clock_max")->points.back().v, 1980);
  const auto* rx = set.find("gpu.pcie_rx");
  ASSERT_TRUE(rx);
  EXPECT_EQ(rx->points.size(), 5u);  // rounds 0, 4, 8, 12, 16
  EXPECT_EQ(rx->points[0].v, 1000 * 1024.0);
  EXPECT_EQ(set.find("gpu.pcie_tx")->points[0].v, 10 * 1024.0);
  ASSERT_TRUE(set.find("gpu.ecc_corrected"));
  EXPECT_EQ(set.find("gpu.ecc_corrected")->points.size(), 2u);  // rounds 0 and 10
  EXPECT_EQ(set.find("gpu.ecc_corrected")->points[0].v, 3);
  EXPECT_EQ(set.find("gpu.ecc_uncorrected")->points[0].v, 0);
  const auto* others = set.find("gpu.other_processes");
  ASSERT_TRUE(others);
  EXPECT_EQ(others->points[0].v, 1);  // this process left out
  EXPECT_EQ(set.find("gpu.other_processes_memory")->points[0].v, static_cast<double>(1ull << 30));
  // The analysis reads them: every sample power-capped at 1500 of 1980 MHz, another process on the card.
  const auto h = analysis::gpu_health(store);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->throttled_samples, 20);
  EXPECT_EQ(h->main_reason, "sw_power_cap");
  EXPECT_DOUBLE_EQ(*h->sm_clock_throttled_mhz, 1500);
  EXPECT_EQ(h->max_other_processes, 1);
}

TEST(SamplersHealth, MissingEntryPointsGiveNoSeries) {
  auto lib = std::make_shared<nvml::Library>();  // an NVML without any of them
  EventStore store;
  const auto set = sample(lib, 12, store);
  for (const char* n : {"gpu.clock_event_reasons", "gpu.sm_clock_max", "gpu.pcie_rx", "gpu.ecc_corrected",
                        "gpu.other_processes", "gpu.sm_clock", "gpu.utilization"})
    EXPECT_FALSE(set.find(n)) << n;
  EXPECT_FALSE(analysis::gpu_health(store));
}

TEST(Samplers, MemoryStatsGiveASampleAtOnce) {
  // A 10 s period: the allocator's first sample comes when the network hands its stats over, not a
  // period later.
  EventStore store;
  SamplerOptions o;
  o.period = std::chrono::seconds(10);
  Samplers s(store, SessionClock(trace::now_ns()), o);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the thread's first round is done
  MemoryStats m;
  m.allocated[0] = 12345;
  s.set_memory_stats([m] { return m; });
  const std::string name = "memory.allocated." + std::string(memory_category_name(static_cast<MemoryCategory>(0)));
  const analysis::SeriesSet::Series* found = nullptr;
  analysis::SeriesSet set;
  for (int i = 0; i < 200 && !found; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    set.update(store, store.series.size(), store.samples.size());
    found = set.find(name);
  }
  ASSERT_TRUE(found) << "no " << name << " sample within 2 s of set_memory_stats";
  EXPECT_EQ(found->points.front().v, 12345);
  s.stop();
}

}  // namespace
}  // namespace ts::prof
