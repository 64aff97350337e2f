// profiling/import on the real traces of ../shared/cases/traces (Kineto, HTA, TraceLens, Chrome
// DevTools; their README lists sources and oddities). Each test skips when its file is absent.
// The ResNet-50 pair checks the whole path: import -> analysis -> input_bound on nw0 only.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "engine/host_trace.h"
#include "profiling/analysis/series.h"
#include "profiling/compare/compare.h"
#include "profiling/import/trace_analysis.h"
#include "profiling/import/trace_import.h"

namespace imp = ts::prof::import;
using ts::prof::EventStore;

namespace {

std::string trace_path(const std::string& name) {
  return std::string(TRAINSCOPE_SHARED_DIR) + "/cases/traces/" + name;
}

#define REQUIRE_TRACE(name)                                                              \
  const std::string path = trace_path(name);                                             \
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "absent: " << path

std::string meta(const EventStore& s, const std::string& key) {
  const auto m = s.meta();
  auto it = m.find(key);
  return it == m.end() ? "<absent>" : it->second;
}

std::int64_t warning_count(const imp::ImportSummary& s, const std::string& part) {
  for (const auto& w : s.warnings)
    if (w.what.find(part) != std::string::npos) return w.count;
  return 0;
}

bool has_verdict(const ts::prof::analysis::Report& r, const std::string& id) {
  for (const auto& v : r.verdicts)
    if (v.id == id) return true;
  return false;
}

/// Data-loader wait as a share of the analysed wall time, and the report.
double data_wait_share(const ts::prof::analysis::Report& r) {
  return r.wall_ns > 0 ? static_cast<double>(r.data_wait_ns) / static_cast<double>(r.wall_ns) : 0;
}

}  // namespace

TEST(ImportReal, EveryTraceImports) {
  const std::string dir = trace_path("");
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "absent: " << dir;
  int files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || !imp::is_trace_path(e.path().string())) continue;
    ++files;
    const auto t = imp::import_trace(e.path().string());
    const auto c = t.store->counts();
    std::printf("  %-60s %-13s %7lld events read, %7zu kept, %3lld steps, %lld warnings\n",
                e.path().filename().string().c_str(), t.summary.kind.c_str(),
                static_cast<long long>(t.summary.events_read), static_cast<std::size_t>(t.summary.events_kept),
                static_cast<long long>(t.summary.steps), static_cast<long long>(t.summary.warning_count()));
    EXPECT_GT(c.events(), 0u) << e.path();
    EXPECT_LE(t.summary.events_kept, t.summary.events_read) << e.path();  // derived records are not kept events
    // Times are relative to the earliest event: something starts at 0, nothing before it.
    std::int64_t lo = INT64_MAX;
    for (std::size_t i = 0; i < c.host_ranges; ++i) lo = std::min(lo, t.store->host_ranges[i].start);
    for (std::size_t i = 0; i < c.kernels; ++i) lo = std::min(lo, t.store->kernels[i].start);
    for (std::size_t i = 0; i < c.runtime; ++i) lo = std::min(lo, t.store->runtime[i].start);
    EXPECT_GE(lo, 0) << e.path();
    (void)imp::analyze_imported(*t.store);  // never throws or crashes on an imported store
  }
  EXPECT_GE(files, 9);
}

TEST(ImportReal, ResNet50DataLoaderBottleneckOnNw0NotNw4) {
  const std::string nw0 = trace_path("kineto_2021-06_resnet50_nw0_memory.pt.trace.json.gz");
  const std::string nw4 = trace_path("kineto_2021-06_resnet50_nw4_memory.pt.trace.json.gz");
  if (!std::filesystem::exists(nw0) || !std::filesystem::exists(nw4)) GTEST_SKIP() << "absent: the ResNet-50 pair";
  const auto a = imp::import_trace(nw0), b = imp::import_trace(nw4);
  for (const auto* t : {&a, &b}) {
    const EventStore& s = *t->store;
    ASSERT_EQ(s.steps.size(), 6u);
    EXPECT_EQ(meta(s, "device.compute_capability"), "7.0");
    EXPECT_EQ(meta(s, "device.multiprocessors"), "80");
    // The string tid "25738" of X events and the integer 25738 of memory/flow events: one thread,
    // the one that ran the steps and the runtime calls.
    std::uint32_t step_thread = 0;
    for (std::size_t i = 0; i < s.host_ranges.size(); ++i)
      if (s.host_ranges[i].kind == static_cast<std::uint8_t>(ts::trace::RangeKind::step)) step_thread = s.host_ranges[i].thread;
    std::size_t on_trainer = 0;
    for (std::size_t i = 0; i < s.runtime.size(); ++i) on_trainer += s.runtime[i].thread == step_thread;
    EXPECT_GT(on_trainer, s.runtime.size() / 2);  // the rest: autograd's backward thread ("25772")
  }
  EXPECT_EQ(a.store->memory.size(), 12838u);
  EXPECT_EQ(b.store->memory.size(), 10980u);
  const auto ra = imp::analyze_imported(*a.store), rb = imp::analyze_imported(*b.store);
  const double wa = data_wait_share(ra), wb = data_wait_share(rb);
  std::printf("  DataLoader wait: nw0 %.1f %% of %.1f ms/step, nw4 %.1f %% of %.1f ms/step\n", 100 * wa,
              ra.wall_ns / 1e6 / ra.steps, 100 * wb, rb.wall_ns / 1e6 / rb.steps);
  EXPECT_GT(wa, 0.25);  // README: 45.5 ms of a 153.0 ms step (about 30 %)
  EXPECT_LT(wa, 0.35);
  EXPECT_LT(wb, 0.02);  // README: 1.4 ms of a 142.8 ms step
  EXPECT_TRUE(has_verdict(ra, "input_bound"));
  EXPECT_FALSE(has_verdict(rb, "input_bound"));
  for (const auto& v : ra.verdicts) {
    if (v.id != "input_bound") continue;
    for (const auto& [name, value] : v.evidence) {
      if (name == "step_ms") {
        EXPECT_NEAR(value, ra.wall_ns / 1e6 / ra.steps, 1e-6);  // per real step
      }
    }
  }
  // The comparison of the pair gives the verdicts --analyze gives (it analysed them as sessions of
  // its own: 10 steps needed, a warm-up step left out, so nothing fired).
  const auto c = ts::prof::compare::compare({a.store.get(), b.store.get()}, {"nw0", "nw4"});
  EXPECT_TRUE(has_verdict(c.sessions[0].report, "input_bound"));
  EXPECT_FALSE(has_verdict(c.sessions[1].report, "input_bound"));
  // The memory curve: these traces' [memory] events have no addresses; frees are subtracted by
  // their size (the curve climbed to ~35 GB, past the 34 GB card). Peak 2.79 GB, back near 0.
  const auto mem = ts::prof::analysis::cupti_device_memory(*a.store, a.store->memory.size());
  ASSERT_FALSE(mem.points.empty());
  double peak = 0;
  for (const auto& p : mem.points) peak = std::max(peak, p.v);
  std::printf("  nw0 device memory curve: peak %.2f GB, last %.2f GB, %lld unmatched releases\n", peak / 1e9,
              mem.points.back().v / 1e9, static_cast<long long>(mem.unmatched_releases));
  EXPECT_GT(peak, 2.0e9);
  EXPECT_LT(peak, 3.5e9);
  EXPECT_LT(mem.points.back().v, 0.5e9);
  EXPECT_EQ(mem.unmatched_releases, 0);
}

TEST(ImportReal, HtaCudaGraphFanOutNcclAndRank) {
  REQUIRE_TRACE("hta_a100_rank0of16_cudagraph_nccl.json.gz");
  const auto t = imp::import_trace(path);
  const EventStore& s = *t.store;
  EXPECT_EQ(s.kernels.size(), 6080u);
  EXPECT_EQ(s.memcpys.size(), 1390u);
  EXPECT_EQ(s.memsets.size(), 277u);
  EXPECT_EQ(t.summary.communication_kernels, 80);
  EXPECT_EQ(meta(s, "distributed.world_size"), "16");
  EXPECT_EQ(meta(s, "device.name"), "NVIDIA A100-SXM4-80GB");
  // 70 cudaGraphLaunch calls; each links to many GPU activities by its correlation id.
  std::vector<std::uint32_t> graph;
  for (std::size_t i = 0; i < s.runtime.size(); ++i)
    if (s.strings.get(s.runtime[i].name) == "cudaGraphLaunch") graph.push_back(s.runtime[i].correlation);
  EXPECT_EQ(graph.size(), 70u);
  std::sort(graph.begin(), graph.end());
  std::map<std::uint32_t, int> ops;
  for (std::size_t i = 0; i < s.kernels.size(); ++i)
    if (std::binary_search(graph.begin(), graph.end(), s.kernels[i].correlation)) ++ops[s.kernels[i].correlation];
  int most = 0;
  for (const auto& [c, n] : ops) most = std::max(most, n);
  EXPECT_GT(most, 1);
  EXPECT_GT(warning_count(t.summary, "flow ends (f) without"), 20000);  // README: 28k f without s
}

TEST(ImportReal, OutOfOrderSyncsAndSubMicrosecondTimes) {
  REQUIRE_TRACE("kineto_2026-04_h100_out_of_order_before_fix.json");
  const auto t = imp::import_trace(path);
  const EventStore& s = *t.store;
  ASSERT_EQ(s.syncs.size(), 2u);
  EXPECT_LE(s.syncs[0].start, s.syncs[1].start);  // sorted on the way in
  EXPECT_EQ(warning_count(t.summary, "flow ends (f) without"), 2);
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].end - s.kernels[0].start, 20);  // dur 0.02 µs with displayTimeUnit "ms"
  EXPECT_EQ(meta(s, "device.compute_capability"), "9.0");
}

TEST(ImportReal, CpuOnlyTraceRelativeToBaseTime) {
  REQUIRE_TRACE("hta_cpu_only_gloo_rank34of300.pt.trace.json.gz");
  const auto t = imp::import_trace(path);
  const EventStore& s = *t.store;
  EXPECT_EQ(s.kernels.size(), 0u);
  EXPECT_EQ(meta(s, "device.kind"), "cpu");
  EXPECT_EQ(meta(s, "gpu_activity"), "none in the imported trace");
  EXPECT_EQ(meta(s, "distributed.rank"), "34");
  EXPECT_EQ(s.host_ranges[0].rank, 34);
  // ts are µs after baseTimeNanoseconds (1719853884000000000): the start is about 14 days later.
  const long long start = std::stoll(meta(s, "session.start_unix_ns"));
  EXPECT_GT(start, 1719853884000000000ll + 13ll * 86400 * 1'000'000'000);
  EXPECT_LT(start, 1719853884000000000ll + 15ll * 86400 * 1'000'000'000);
}

TEST(ImportReal, ComputePropertiesOfTheTbPluginInput) {
  REQUIRE_TRACE("kineto_2021-05_tbplugin_gpu_metrics_input.json");
  const auto t = imp::import_trace(path);
  EXPECT_EQ(meta(*t.store, "import.device_properties"), "computeProperties");
  EXPECT_EQ(meta(*t.store, "device.multiprocessors"), "80");
  EXPECT_EQ(t.store->kernels.size(), 30u);
  EXPECT_EQ(t.store->steps.size(), 1u);  // one ProfilerStep#2 range in the file
}

TEST(ImportReal, TraceLensMemoryTotalsBecomeSamples) {
  REQUIRE_TRACE("tracelens_h100_memory_flops_modules.json.gz");
  const auto t = imp::import_trace(path);
  EXPECT_EQ(t.store->memory.size(), 620u);
  EXPECT_EQ(t.store->samples.size(), 1240u);  // Total Allocated and Total Reserved of each
  EXPECT_EQ(t.store->kernels.size(), 154u);
}

TEST(ImportReal, ChromeDevToolsHasNoEmptyLeadIn) {
  REQUIRE_TRACE("chrome116_devtools_trace_object_form.json");
  const auto t = imp::import_trace(path);
  EXPECT_EQ(t.summary.kind, "Chrome trace");
  std::int64_t hi = 0;
  for (std::size_t i = 0; i < t.store->host_ranges.size(); ++i) hi = std::max(hi, t.store->host_ranges[i].end);
  EXPECT_LT(hi, 60ll * 1'000'000'000);  // M events at ts 0 do not set the origin (2.7 h lead-in)
  EXPECT_GT(warning_count(t.summary, "unsupported phases"), 0);
}

TEST(ImportReal, TruncatedArrayWithTrailingComma) {
  REQUIRE_TRACE("synthetic/speedscope_handmade_truncated_array_trailing_comma.json");
  const auto t = imp::import_trace(path);
  EXPECT_TRUE(t.summary.truncated);
  EXPECT_EQ(t.store->host_ranges.size(), 4u);
}
