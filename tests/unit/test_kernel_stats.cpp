// kernel_groups (kernel_stats.h) on hand-built stores with exact numbers (grouping, min/max/mean,
// shares, duration-weighted occupancy, tensor cores, time and step filters, the row limit) and on a
// recorded H200 session (the groups add up to every kernel's duration).
#include <gtest/gtest.h>

#include <map>

#include "profiling/analysis/analysis.h"
#include "profiling/analysis/kernel_stats.h"
#include "profiling/event_source.h"

namespace ts::prof::analysis {
namespace {

struct Store {
  EventStore s;
  std::uint32_t corr = 1;
  StringId launch = s.strings.intern("cudaLaunchKernel_v7000");
  /// A launch call at `call` (1 ns long) and its kernel [a, b) named `name`, `threads` per block.
  void kernel(const char* name, std::int64_t call, std::int64_t a, std::int64_t b, int threads = 256, int regs = 32) {
    RuntimeRecord rt;
    rt.start = call, rt.end = call + 1, rt.thread = 7, rt.correlation = corr, rt.name = launch;
    s.append(s.runtime, rt);
    KernelRecord k;
    k.start = a, k.end = b, k.correlation = corr++, k.name = s.strings.intern(name);
    KernelConfig c;
    c.grid[0] = 100, c.grid[1] = c.grid[2] = 1, c.block[0] = threads, c.block[1] = c.block[2] = 1;
    c.registers = regs;
    k.config = s.intern_config(c);
    s.append(s.kernels, k);
  }
  void step(std::int64_t gs, std::int64_t a, std::int64_t b) {
    StepRecord r;
    r.global_step = gs, r.start = a, r.end = b;
    s.append(s.steps, r);
  }
  void h200() {
    s.set_meta("device.kind", "cuda");
    s.set_meta("device.compute_capability", "9.0");
    s.set_meta("device.multiprocessors", "132");
  }
};

const KernelGroup* find(const std::vector<KernelGroup>& g, const std::string& name) {
  for (const auto& k : g)
    if (k.name == name) return &k;
  return nullptr;
}

TEST(KernelStats, GroupsByNameWithExactDurations) {
  Store b;
  b.kernel("gemm", 0, 10, 110);  // 100
  b.kernel("relu", 1, 120, 130); // 10
  b.kernel("gemm", 2, 200, 500); // 300
  b.kernel("relu", 3, 510, 540); // 30
  b.kernel("gemm", 4, 600, 650); // 50
  const auto g = kernel_groups(b.s);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].name, "gemm");  // largest total first
  EXPECT_EQ(g[0].calls, 3);
  EXPECT_EQ(g[0].total_ns, 450);
  EXPECT_EQ(g[0].min_ns, 50);
  EXPECT_EQ(g[0].max_ns, 300);
  EXPECT_DOUBLE_EQ(g[0].mean_ns, 150.0);
  EXPECT_DOUBLE_EQ(g[0].share_of_gpu_time, 450.0 / 490.0);
  EXPECT_EQ(g[1].name, "relu");
  EXPECT_EQ(g[1].calls, 2);
  EXPECT_EQ(g[1].total_ns, 40);
  EXPECT_DOUBLE_EQ(g[1].mean_ns, 20.0);
  EXPECT_DOUBLE_EQ(g[1].share_of_gpu_time, 40.0 / 490.0);
  EXPECT_EQ(total_kernel_ns(g), 490);
  EXPECT_EQ(b.s.strings.get(g[0].name_id), "gemm");
  EXPECT_FALSE(g[0].mean_occupancy);  // no CUDA device in meta: unknown, not 0
}

TEST(KernelStats, OccupancyIsDurationWeightedAndTensorCoresByName) {
  Store b;
  b.h200();
  // 256 threads x 32 regs: 8 blocks fill an SM (2048 threads): occupancy 1.0.
  b.kernel("sm90_xmma_fprop_implicit_gemm_f32f32", 0, 0, 100, 256, 32);
  // 1024 threads x 64 regs use the whole register file: 1 block, 1024 / 2048 = 0.5.
  b.kernel("sm90_xmma_fprop_implicit_gemm_f32f32", 1, 100, 400, 1024, 64);
  b.kernel("elementwise_kernel", 2, 400, 410);
  const auto g = kernel_groups(b.s);
  const auto* mma = find(g, "sm90_xmma_fprop_implicit_gemm_f32f32");
  ASSERT_TRUE(mma);
  const DeviceProps dev = device_props(b.s.meta());
  const auto full = theoretical_occupancy(dev, 256, 32, 0, 0), half = theoretical_occupancy(dev, 1024, 64, 0, 0);
  if (!full || !half) GTEST_SKIP() << "built without cuda_occupancy.h";
  EXPECT_DOUBLE_EQ(*full, 1.0);
  EXPECT_DOUBLE_EQ(*half, 0.5);
  ASSERT_TRUE(mma->mean_occupancy);
  EXPECT_DOUBLE_EQ(*mma->mean_occupancy, (1.0 * 100 + 0.5 * 300) / 400);
  EXPECT_TRUE(mma->tensor_cores);
  const auto* ew = find(g, "elementwise_kernel");
  ASSERT_TRUE(ew);
  EXPECT_FALSE(ew->tensor_cores);
  EXPECT_DOUBLE_EQ(*ew->mean_occupancy, 1.0);
}

TEST(KernelStats, TimeFilterKeepsKernelsStartingInTheRange) {
  Store b;
  b.kernel("a", 0, 0, 100);
  b.kernel("a", 1, 100, 150);
  b.kernel("b", 2, 199, 260);
  b.kernel("a", 3, 200, 230);
  KernelStatsOptions o;
  o.from_ns = 100, o.to_ns = 200;  // [100, 200): the second and third kernels
  const auto g = kernel_groups(b.s, o);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].name, "b");
  EXPECT_EQ(g[0].total_ns, 61);
  EXPECT_EQ(g[1].name, "a");
  EXPECT_EQ(g[1].calls, 1);
  EXPECT_EQ(g[1].total_ns, 50);
  EXPECT_DOUBLE_EQ(g[1].share_of_gpu_time, 50.0 / 111.0);
}

TEST(KernelStats, StepFilterFollowsTheLaunchingCall) {
  Store b;
  b.step(1, 0, 1000);
  b.step(2, 1000, 2000);
  b.kernel("k", 10, 900, 1100);    // launched in step 1, runs into step 2
  b.kernel("k", 1500, 1600, 1700); // step 2
  b.kernel("k", 2500, 2600, 2700); // after every step (evaluation)
  KernelRecord orphan;             // no runtime call with its correlation id
  orphan.start = 1200, orphan.end = 1300, orphan.correlation = 999, orphan.name = b.s.strings.intern("k");
  b.s.append(b.s.kernels, orphan);
  KernelStatsOptions o;
  o.first_step = 1, o.last_step = 1;
  auto g = kernel_groups(b.s, o);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].calls, 1);
  EXPECT_EQ(g[0].total_ns, 200);
  o.first_step = 2, o.last_step = -1;
  g = kernel_groups(b.s, o);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].calls, 1);
  EXPECT_EQ(g[0].total_ns, 100);
  g = kernel_groups(b.s);  // no filter: all four
  EXPECT_EQ(g[0].calls, 4);
  EXPECT_EQ(g[0].total_ns, 200 + 100 + 100 + 100);
}

TEST(KernelStats, DriverApiLaunchTakesThePrecedingCall) {
  Store b;
  b.step(1, 0, 1000);
  b.step(2, 1000, 2000);
  b.kernel("k", 10, 900, 1000);  // correlation 1, launched in step 1
  KernelRecord driver;           // correlation 2: cuLaunchKernel, no runtime record
  driver.start = 1100, driver.end = 1130, driver.correlation = b.corr++, driver.name = b.s.strings.intern("cutlass");
  b.s.append(b.s.kernels, driver);
  b.kernel("k", 1500, 1600, 1700);  // correlation 3, step 2
  KernelStatsOptions o;
  o.first_step = 1, o.last_step = 1;
  const auto g = kernel_groups(b.s, o);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].name, "k");
  EXPECT_EQ(g[0].calls, 1);
  EXPECT_EQ(g[1].name, "cutlass");
  EXPECT_EQ(g[1].total_ns, 30);
  o.first_step = 2, o.last_step = 2;
  EXPECT_EQ(kernel_groups(b.s, o).size(), 1u);
}

TEST(KernelStats, RowLimitReadsOnlyThatPrefix) {
  Store b;
  b.kernel("a", 0, 0, 10);
  b.kernel("a", 1, 10, 30);
  b.kernel("a", 2, 30, 60);
  StoreCounts c = b.s.counts();
  c.kernels = 2;
  KernelStatsOptions o;
  o.limit = &c;
  const auto g = kernel_groups(b.s, o);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].calls, 2);
  EXPECT_EQ(g[0].total_ns, 30);
}

TEST(KernelStats, OddRecordsDoNotCrash) {
  Store b;
  KernelRecord k;
  k.start = 100, k.end = 50, k.name = 12345;  // end before start, unknown name id
  b.s.append(b.s.kernels, k);
  const auto g = kernel_groups(b.s);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].name, "");
  EXPECT_EQ(g[0].total_ns, 0);
  EXPECT_EQ(g[0].calls, 1);
  EXPECT_TRUE(kernel_groups(EventStore{}).empty());
}

TEST(KernelStats, RecordedSessionGroupsAddUpToEveryKernel) {
  const auto src = open_session(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession");
  const EventStore& s = src->store();
  std::int64_t sum = 0;
  std::map<std::string, std::int64_t> calls;
  for (std::size_t i = 0; i < s.kernels.size(); ++i)
    sum += s.kernels[i].end - s.kernels[i].start, ++calls[s.strings.get(s.kernels[i].name)];
  const auto g = kernel_groups(s);
  ASSERT_FALSE(g.empty());
  EXPECT_EQ(total_kernel_ns(g), sum);
  std::int64_t n = 0;
  double share = 0;
  for (const auto& k : g) {
    EXPECT_EQ(k.calls, calls[k.name]) << k.name;
    EXPECT_LE(k.min_ns, k.mean_ns);
    EXPECT_LE(k.mean_ns, k.max_ns);
    n += k.calls, share += k.share_of_gpu_time;
    if (k.mean_occupancy) {
      EXPECT_GT(*k.mean_occupancy, 0.0);
      EXPECT_LE(*k.mean_occupancy, 1.0);
    }
  }
  EXPECT_EQ(n, static_cast<std::int64_t>(s.kernels.size()));
  EXPECT_NEAR(share, 1.0, 1e-9);
  EXPECT_EQ(g.size(), calls.size());
  for (std::size_t i = 1; i < g.size(); ++i) EXPECT_GE(g[i - 1].total_ns, g[i].total_ns);
  // A step range: fewer kernels, each of them launched inside steps 2..3.
  KernelStatsOptions o;
  o.first_step = 2, o.last_step = 3;
  const auto part = kernel_groups(s, o);
  ASSERT_FALSE(part.empty());
  EXPECT_LT(total_kernel_ns(part), sum);
}

}  // namespace
}  // namespace ts::prof::analysis
