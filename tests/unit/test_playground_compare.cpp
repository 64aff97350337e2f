// The playground's compare, roofline and knob checks (playground compare.h, roofline.h,
// knobs.h), on hand-made ladders: no GPU.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cmath>

#include "base/errors.h"
#include "playground/compare.h"
#include "playground/knobs.h"
#include "playground/roofline.h"

namespace ts::playground {
namespace {

VariantResult row(const std::string& name, double throughput, double median_ns, double work, bool passed = true) {
  VariantResult v;
  v.name = name, v.what_changed = "changes " + name;
  v.checked = true, v.check_passed = passed;
  v.throughput = passed ? throughput : 0, v.median_ns = median_ns, v.work = work;
  return v;
}

Ladder sgemm(double scale, std::int64_t side = 4096) {
  Ladder l;
  l.family = "sgemm", l.title = "SGEMM", l.unit = Unit::tflops, l.size = side;
  const double flops = 2.0 * side * side * side;
  for (auto [name, t] : {std::pair{"1 naive", 0.5}, {"7 warp tiling", 38.8}, {"cuBLAS BF16", 600.0}}) {
    const double tf = t * scale;
    l.variants.push_back(row(name, tf, flops / tf / 1e3, flops));
  }
  l.variants.back().own = false;
  return l;
}

Ladder copy(double gbps) {
  Ladder l;
  l.family = "copy", l.unit = Unit::gbps, l.size = 1 << 20;
  const double bytes = 8.0 * l.size;
  l.variants = {row("float per thread", gbps * 0.9, bytes / (gbps * 0.9), bytes),
                row("float4 per thread", gbps, bytes / gbps, bytes)};
  return l;
}

TEST(PlaygroundRoofline, GemmIntensityCountsEachMatrixOnceInItsPrecision) {
  const Ladder l = sgemm(1, 4096);
  const double s = 4096;
  const LaunchWork fp32 = launch_work(l, l.variants[0]);
  EXPECT_DOUBLE_EQ(fp32.flops, 2 * s * s * s);
  EXPECT_DOUBLE_EQ(fp32.bytes, 3 * s * s * 4);
  EXPECT_NEAR(fp32.intensity(), 2 * s / 12, 1e-9);  // 682.7 flop/byte at 4096
  const LaunchWork bf16 = launch_work(l, l.variants[2]);
  EXPECT_DOUBLE_EQ(bf16.bytes, 2 * s * s * 2 + s * s * 4);
  VariantResult out = l.variants[2];
  out.name = "cuBLAS BF16, bf16 out";
  EXPECT_DOUBLE_EQ(launch_work(l, out).bytes, 3 * s * s * 2);
}

TEST(PlaygroundRoofline, MemoryKernelsWithoutArithmeticAreLeftOutAndSaySo) {
  Ladder va;
  va.family = "vector_add", va.unit = Unit::gbps, va.size = 1000;
  va.variants = {row("full wave", 3000, 4, 12000)};
  const Roofline r = roofline({copy(4000), va, sgemm(1)}, "NVIDIA H200");
  // copy: no flops, left out with the reason; vector_add: 1 add per 12 bytes.
  ASSERT_FALSE(r.left_out.empty());
  EXPECT_NE(r.left_out[0].find("copy"), std::string::npos);
  ASSERT_EQ(r.points.size(), 4u);
  EXPECT_EQ(r.points[0].family, "vector_add");
  EXPECT_NEAR(r.points[0].intensity, 1.0 / 12, 1e-12);
  EXPECT_NEAR(r.points[0].gbps, 3000, 1e-9);
  EXPECT_NEAR(r.points[3].tflops, 600, 1e-6);  // flops / median time gives the ladder's figure back
  EXPECT_FALSE(r.points[3].own);
  // The bandwidth roof is measured (the copy ladder's best), the peaks are the datasheet's.
  EXPECT_TRUE(r.bandwidth.measured);
  EXPECT_DOUBLE_EQ(r.bandwidth.value, 4000);
  ASSERT_EQ(r.peaks.size(), 3u);
  EXPECT_DOUBLE_EQ(r.peaks[0].value, 67);
  EXPECT_FALSE(r.peaks[0].measured);
}

TEST(PlaygroundRoofline, WithoutACopyLadderTheRoofIsTheDatasheetsAndFailedRowsAreNoPoints) {
  Ladder l = sgemm(1);
  l.variants[1].check_passed = false;
  const Roofline r = roofline({l}, "NVIDIA H200");
  EXPECT_FALSE(r.bandwidth.measured);
  EXPECT_DOUBLE_EQ(r.bandwidth.value, 4800);
  EXPECT_EQ(r.points.size(), 2u);
  EXPECT_NE(r.left_out.back().find("check failed"), std::string::npos);
  const Roofline unknown = roofline({l}, "Some Card");
  EXPECT_TRUE(unknown.peaks.empty());
  EXPECT_EQ(unknown.bandwidth.value, 0);
}

TEST(PlaygroundRoofline, AttainableIsTheLowerRoof) {
  EXPECT_DOUBLE_EQ(attainable_tflops(1, 4000, 67), 4);       // 1 flop/byte x 4000 GB/s = 4 TFLOP/s
  EXPECT_DOUBLE_EQ(attainable_tflops(1000, 4000, 67), 67);   // compute-bound
  EXPECT_DOUBLE_EQ(attainable_tflops(16.75, 4000, 67), 67);  // the ridge point
}

TEST(PlaygroundCompare, VariantsMatchByNameWithRatiosAndTheFasterRun) {
  const StoredRun a{"NVIDIA A100-SXM4-80GB", "cupti", {sgemm(1), copy(1800)}};
  StoredRun b{"NVIDIA H200", "cupti", {sgemm(2), copy(1800 * 1.01)}};
  b.ladders[0].variants[0].check_passed = false;  // B's naive failed: no ratio
  b.ladders[0].variants.push_back(row("8 double buffering", 40, 1, 1));
  const RunComparison c = compare_runs(a, b);
  ASSERT_EQ(c.ladders.size(), 2u);
  const auto& g = c.ladders[0];
  ASSERT_EQ(g.rows.size(), 4u);
  EXPECT_EQ(g.rows[0].ratio, 0);
  EXPECT_EQ(g.rows[0].faster, 0);
  EXPECT_FALSE(g.rows[0].passed_b);
  EXPECT_NEAR(g.rows[1].ratio, 2, 1e-12);
  EXPECT_EQ(g.rows[1].faster, 'B');
  EXPECT_FALSE(g.rows[3].in_a);  // B's own row last
  EXPECT_TRUE(g.rows[3].in_b);
  EXPECT_NEAR(g.geomean_ratio, 2, 1e-12);
  EXPECT_EQ(c.ladders[1].rows[1].faster, '=');  // 1 % apart: the same
  EXPECT_NE(c.differences[0].find("device"), std::string::npos);
  EXPECT_NE(c.summary.find("B faster in 2"), std::string::npos) << c.summary;
  const std::string t = format_compare_text(c, "a.tsession", "b.tsession");
  EXPECT_NE(t.find("2.00x"), std::string::npos) << t;
  EXPECT_NE(t.find("no time"), std::string::npos) << t;
  rapidjson::Document d;
  d.Parse(format_compare_json(c, "a", "b").c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_STREQ(d["ladders"][0]["variants"][1]["faster"].GetString(), "B");
}

TEST(PlaygroundCompare, SizesAndLaunchesThatDifferAreNamedAndDisjointRunsSaySo) {
  StoredRun a{"NVIDIA H200", "cupti", {sgemm(1, 4096)}};
  StoredRun b{"NVIDIA H200", "cupti", {sgemm(1, 2048)}};
  a.ladders[0].variants[1].launch = "grid 32x32x1 block 128x1x1";
  b.ladders[0].variants[1].launch = "grid 16x16x1 block 128x1x1";
  const RunComparison c = compare_runs(a, b);
  ASSERT_EQ(c.differences.size(), 2u);
  EXPECT_EQ(c.differences[0], "sgemm size: 4096 vs 2048");
  EXPECT_NE(c.differences[1].find("launch"), std::string::npos);
  const RunComparison none = compare_runs(StoredRun{"x", "cupti", {copy(1)}}, StoredRun{"x", "cupti", {sgemm(1)}});
  EXPECT_NE(none.summary.find("nothing to compare"), std::string::npos);
  EXPECT_EQ(none.ladders.size(), 2u);
}

TEST(PlaygroundKnobs, OutOfRangeIsRefusedWithTheRule) {
  EXPECT_NO_THROW(check_threads_per_block(256));
  for (int bad : {0, 31, 100, 2048}) EXPECT_THROW(check_threads_per_block(bad), InputError) << bad;
  try {
    check_threads_per_block(100);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of 32"), std::string::npos);
  }
  EXPECT_NO_THROW(check_blocks_per_grid(0));
  EXPECT_THROW(check_blocks_per_grid(-1), InputError);
  EXPECT_THROW(check_blocks_per_grid((1ll << 30) + 1), InputError);
  const SmLimits sm = sm90_limits();
  EXPECT_NO_THROW(check_launch_knobs(sm, {256, 32, 0}));
  EXPECT_THROW(check_launch_knobs(sm, {256, 256, 0}), InputError);
  EXPECT_THROW(check_launch_knobs(sm, {256, 32, 228 * 1024}), InputError);
  // 256 threads, 32 registers, no shared memory: 8 blocks per SM, 100 % (cc 9.0, hand-computed).
  EXPECT_NE(occupancy_text(sm, {256, 32, 0}).find("8 blocks of 256 threads per SM: 100 %"), std::string::npos)
      << occupancy_text(sm, {256, 32, 0});
}

}  // namespace
}  // namespace ts::playground
