// The playground's CPU side (playground, no GPU): every CPU reference, the checks, the
// occupancy arithmetic (hand-computed from CUDA's occupancy calculator rules for cc 9.0), the
// datasheet table, the ladder arithmetic and its text/JSON forms, and the families' size rules.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>

#include "base/errors.h"
#include "playground/ladder.h"
#include "playground/limits.h"
#include "playground/reference.h"
#include "playground/session.h"
#include "profiling/event_source.h"
#include "profiling/event_store.h"
#include "profiling/session/session_file.h"

namespace ts::playground {
namespace {

TEST(PlaygroundReference, PatternsAreDeterministicSmallIntegersAndUnitFloats) {
  for (std::uint64_t i = 0; i < 10000; ++i) {
    const float s = pattern(i, 3);
    EXPECT_EQ(s, std::floor(s));
    EXPECT_GE(s, 0.0f);
    EXPECT_LE(s, 7.0f);
    const float u = pattern_signed(i, 3);
    EXPECT_GE(u, -1.0f);
    EXPECT_LT(u, 1.0f);
    EXPECT_EQ(u * 32768.0f, std::floor(u * 32768.0f));  // a multiple of 2^-15
  }
  EXPECT_EQ(pattern(12345, 1), pattern(12345, 1));
  int differ = 0;
  for (std::uint64_t i = 0; i < 100; ++i) differ += pattern(i, 1) != pattern(i, 2);
  EXPECT_GT(differ, 50);  // seeds give different data
}

TEST(PlaygroundReference, CheckExactCountsDifferences) {
  const float a[] = {1, 2, 3, 4}, b[] = {1, 2, 5, 4};
  EXPECT_TRUE(check_exact(a, a, 4).passed);
  const Check c = check_exact(a, b, 4);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.max_error, 1);
  EXPECT_EQ(c.worst, 2);
}

TEST(PlaygroundReference, VectorAddStridedReadTransposeReduce) {
  std::vector<float> c(100);
  vector_add_ref(100, 1, 2, c.data());
  for (int i = 0; i < 100; ++i) EXPECT_EQ(c[i], pattern(i, 1) + pattern(i, 2));
  std::vector<float> s(50);
  strided_read_ref(50, 32, 4, s.data());
  for (int i = 0; i < 50; ++i) EXPECT_EQ(s[i], pattern(static_cast<std::uint64_t>(i) * 32, 4));
  const float m[] = {1, 2, 3, 4, 5, 6};  // 2 x 3
  float t[6];
  transpose_ref(m, 2, 3, t);
  const float want[] = {1, 4, 2, 5, 3, 6};  // 3 x 2
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t[i], want[i]);
  std::int64_t sum = 0;
  for (int i = 0; i < 100000; ++i) sum += static_cast<std::int64_t>(pattern(i, 6));
  EXPECT_EQ(reduce_ref(100000, 6), static_cast<double>(sum));
}

TEST(PlaygroundReference, RoundingToReducedPrecisions) {
  EXPECT_EQ(round_to(1.0f + 0x1p-9f, "bf16"), 1.0f);                // below half an ulp (2^-7)
  EXPECT_EQ(round_to(1.0f + 0x1p-8f, "bf16"), 1.0f);                // a tie: to the even 1.0
  EXPECT_EQ(round_to(1.0f + 3 * 0x1p-8f, "bf16"), 1.0f + 0x1p-6f);  // a tie: up to the even neighbour
  EXPECT_EQ(round_to(1.0f + 0x1p-7f, "bf16"), 1.0f + 0x1p-7f);      // representable
  EXPECT_EQ(round_to(1.0f + 0x1p-12f, "tf32"), 1.0f);               // below half an ulp (2^-10)
  EXPECT_EQ(round_to(1.0f + 0x1p-10f, "tf32"), 1.0f + 0x1p-10f);
  EXPECT_EQ(round_to(1.0f + 0x1p-10f, "fp16"), 1.0f + 0x1p-10f);
  EXPECT_EQ(round_to(0x1p-15f, "fp16"), 0x1p-15f);  // an fp16 subnormal, exact
  EXPECT_EQ(round_to(0.1f, "fp32"), 0.1f);
  EXPECT_NEAR(round_to(0.1f, "bf16"), 0.1f, 0.1f * 0x1p-8f);
}

TEST(PlaygroundReference, SgemmReferenceAtSampledElementsMatchesTheFullOne) {
  const int m = 8, n = 12, k = 16;
  std::vector<float> a(m * k), b(k * n);
  for (int i = 0; i < m * k; ++i) a[i] = pattern_signed(i, 11);
  for (int i = 0; i < k * n; ++i) b[i] = pattern_signed(i, 12);
  const std::vector<double> full = sgemm_ref(m, n, k, a.data(), b.data());
  std::vector<std::int64_t> rows, cols;
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c) rows.push_back(r), cols.push_back(c);
  const std::vector<double> at = sgemm_ref_at(m, n, k, 11, 12, rows, cols);
  ASSERT_EQ(at.size(), full.size());
  for (std::size_t i = 0; i < at.size(); ++i) EXPECT_DOUBLE_EQ(at[i], full[i]);
  // By hand: one element.
  double e = 0;
  for (int p = 0; p < k; ++p) e += static_cast<double>(a[2 * k + p]) * b[p * n + 5];
  EXPECT_DOUBLE_EQ(full[2 * n + 5], e);
}

TEST(PlaygroundReference, NormalisedCheckHonoursItsToleranceAndFailsOnNaN) {
  const double ref[] = {10, -20, 5};
  const float close[] = {10.001f, -20.0f, 5.0f}, far[] = {11, -20, 5}, nan[] = {10, NAN, 5};
  EXPECT_TRUE(check_normalised(close, ref, 3, 1e-4).passed);  // 0.001 / 20 = 5e-5
  const Check f = check_normalised(far, ref, 3, 1e-4);
  EXPECT_FALSE(f.passed);
  EXPECT_NEAR(f.max_error, 1.0 / 20, 1e-6);
  EXPECT_EQ(f.worst, 0);
  EXPECT_FALSE(check_normalised(nan, ref, 3, 1e-4).passed);
}

TEST(PlaygroundReference, DivergencePathsAreTheirRecurrences) {
  EXPECT_EQ(divergence_ref(5, 7, 0, 0), pattern(5, 7));
  float x = pattern(5, 7);
  for (int t = 0; t < 10; ++t) x = std::fma(x, 0.9990234375f, 0.5f);
  EXPECT_EQ(divergence_ref(5, 7, 0, 10), x);
  float y = pattern(5, 7);
  for (int t = 0; t < 5; ++t) y = std::fma(std::fma(y, -0.4990234375f, 1.25f), 0.998046875f, -0.25f);
  EXPECT_EQ(divergence_ref(5, 7, 1, 10), y);
}

// Hand-computed with cuda_occupancy.h's rules for cc 9.0: 2048 threads, 32 blocks, 64K registers in
// 4 sub-partitions (units of 256 per warp), 228 KiB shared memory with 1 KiB reserved per block.
TEST(PlaygroundOccupancy, Sm90Limits) {
  const SmLimits sm = sm90_limits();
  Occupancy o = occupancy(sm, 256, 32, 0);  // 8 blocks by threads
  EXPECT_EQ(o.blocks_per_sm, 8);
  EXPECT_DOUBLE_EQ(o.occupancy, 1.0);
  EXPECT_EQ(o.limiter, OccupancyLimiter::threads);
  o = occupancy(sm, 256, 64, 0);  // 2048 regs per warp: 8 warps per sub-partition, 32 per SM, 4 blocks
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.5);
  EXPECT_EQ(o.limiter, OccupancyLimiter::registers);
  o = occupancy(sm, 256, 255, 0);  // 8160 -> 8192 per warp: 2 warps per sub-partition, one block
  EXPECT_EQ(o.blocks_per_sm, 1);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.125);
  o = occupancy(sm, 32, 16, 0);  // 64 by threads, 32 by the block limit
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.5);
  EXPECT_EQ(o.limiter, OccupancyLimiter::blocks);
  o = occupancy(sm, 256, 32, 64 * 1024);  // 66560 B per block: 3 in 233472
  EXPECT_EQ(o.blocks_per_sm, 3);
  EXPECT_DOUBLE_EQ(o.occupancy, 24.0 / 64);
  EXPECT_EQ(o.limiter, OccupancyLimiter::shared_memory);
  o = occupancy(sm, 256, 32, 200 * 1024);
  EXPECT_EQ(o.blocks_per_sm, 1);
  o = occupancy(sm, 1024, 64, 0);  // 32 warps x 2048 regs = 64K: one block
  EXPECT_EQ(o.blocks_per_sm, 1);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.5);
  EXPECT_EQ(occupancy(sm, 1024, 65, 0).blocks_per_sm, 0);          // 65 -> 2304 per warp x 32 > 64K
  EXPECT_EQ(occupancy(sm, 2048, 16, 0).blocks_per_sm, 0);          // over 1024 threads per block
  EXPECT_EQ(occupancy(sm, 256, 32, 228 * 1024).blocks_per_sm, 0);  // over the opt-in maximum
}

TEST(PlaygroundLimits, DatasheetTableKeyedByName) {
  const auto h200 = datasheet_peaks("NVIDIA H200");
  ASSERT_TRUE(h200);
  EXPECT_EQ(h200->dram_gbps, 4800);
  EXPECT_NEAR(h200->bf16_tflops, 989.5, 0.1);
  EXPECT_NE(std::string(h200->source).find("nvidia.com"), std::string::npos);
  const auto nvl = datasheet_peaks("NVIDIA H200 NVL");
  ASSERT_TRUE(nvl);
  EXPECT_STREQ(nvl->card, "NVIDIA H200 NVL");
  EXPECT_EQ(datasheet_peaks("NVIDIA H100 80GB HBM3")->dram_gbps, 3350);
  EXPECT_FALSE(datasheet_peaks("Some Card"));
}

TEST(PlaygroundLadder, MedianThroughputShares) {
  EXPECT_EQ(median({}), 0);
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(throughput(Unit::gbps, 1e9, 1e6), 1000);  // 1 GB in 1 ms = 1000 GB/s
  EXPECT_DOUBLE_EQ(throughput(Unit::tflops, 2e12, 1e9), 2);  // 2 TFLOP in 1 s
  EXPECT_EQ(throughput(Unit::gbps, 1, 0), 0);
  Ladder l;
  l.limit.value = 200;
  VariantResult a, b, c;
  a.checked = a.check_passed = true, a.throughput = 50;
  b.checked = b.check_passed = true, b.throughput = 100;
  c.checked = true, c.check_passed = false, c.throughput = 1000;  // failed: no part in "best"
  l.variants = {a, b, c};
  compute_shares(l);
  EXPECT_DOUBLE_EQ(l.variants[0].share_of_best, 0.5);
  EXPECT_DOUBLE_EQ(l.variants[1].share_of_best, 1.0);
  EXPECT_DOUBLE_EQ(l.variants[1].share_of_limit, 0.5);
  EXPECT_EQ(l.variants[2].share_of_best, 0);
  EXPECT_EQ(l.failed_checks(), 1);
  l.variants[0].limit = 100;  // a row's own limit wins over the ladder's
  compute_shares(l);
  EXPECT_DOUBLE_EQ(l.variants[0].share_of_limit, 0.5);
  EXPECT_DOUBLE_EQ(l.variants[1].share_of_limit, 0.5);
}

TEST(PlaygroundLadder, TextHidesAFailedRowsTimeAndJsonParses) {
  Ladder l;
  l.family = "copy";
  l.title = "device copy";
  l.size = 1024;
  l.size_what = "elements";
  VariantResult ok, bad;
  ok.name = "fine";
  ok.checked = ok.check_passed = true;
  ok.median_ns = 123456, ok.throughput = 42.5, ok.time_source = "cupti";
  bad.name = "broken";
  bad.checked = true, bad.max_error = 3, bad.median_ns = 999999;
  l.variants = {ok, bad};
  l.limit = {"HBM, datasheet", 4800, false, "a datasheet"};
  const std::string t = format_text(l);
  EXPECT_NE(t.find("123.5 us"), std::string::npos) << t;
  EXPECT_EQ(t.find("1.000 ms"), std::string::npos) << t;  // the failed row's time is not shown
  EXPECT_NE(t.find("FAILED"), std::string::npos);
  EXPECT_NE(t.find("datasheet"), std::string::npos);
  rapidjson::Document d;
  d.Parse(format_json({l}, "NVIDIA H200", "cupti").c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_EQ(d["failed_checks"].GetInt(), 1);
  EXPECT_STREQ(d["ladders"][0]["variants"][1]["name"].GetString(), "broken");
  EXPECT_FALSE(d["ladders"][0]["limit"]["measured"].GetBool());
}

TEST(PlaygroundLadder, ShortKernelNamesDropNamespacesReturnTypesAndParameters) {
  EXPECT_EQ(short_kernel_name("void ts::playground::k::(anonymous namespace)::sgemm_naive<32>(int, float const*)"),
            "sgemm_naive<32>");
  EXPECT_EQ(short_kernel_name("ts::playground::k::(anonymous namespace)::vector_add_kernel"), "vector_add_kernel");
  EXPECT_EQ(short_kernel_name("void ts::k::reduce<256, ts::k::Op>(float const*, float*)"),
            "reduce<256, ts::k::Op>");  // qualifiers inside template arguments stay
  const std::string blas = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_cublas";
  EXPECT_EQ(short_kernel_name(blas), blas);
  EXPECT_EQ(short_kernel_name("copy4_kernel(float4 const*, float4*, long)"), "copy4_kernel");
  EXPECT_EQ(short_kernel_name(""), "");
  EXPECT_EQ(short_kernel_name("ns::"), "ns::");  // nothing left: the name as given
}

TEST(PlaygroundFamilies, NamesAndSizeRules) {
  EXPECT_EQ(families().size(), 9u);
  EXPECT_THROW(family("nope"), InputError);
  EXPECT_EQ(check_size(family("sgemm"), 0), 4096);
  EXPECT_EQ(check_size(family("sgemm"), 256), 256);
  EXPECT_THROW(check_size(family("sgemm"), 100), InputError);
  EXPECT_THROW(check_size(family("copy"), 1ll << 40), InputError);
  // The memory families' defaults are >= 8x the H200's 60 MiB L2 (the figures are DRAM's).
  EXPECT_GE(check_size(family("copy"), 0) * 4 * 2, 8ll * 60 * 1024 * 1024);
  EXPECT_GE(check_size(family("reduction"), 0) * 4, 8ll * 60 * 1024 * 1024);
  EXPECT_GE(check_size(family("transpose"), 0) * 2 * check_size(family("transpose"), 0) * 4 * 2,
            8ll * 60 * 1024 * 1024);
}

Ladder sample_ladder() {
  Ladder l;
  l.family = "sgemm", l.title = "SGEMM", l.unit = Unit::tflops, l.size = 256, l.size_what = "side";
  l.warning = "a warning";
  l.limit = {"FP32, datasheet", 67, false, "a datasheet"};
  l.other_limits = {{"cuBLAS SGEMM, measured", 51.3, true, "this ladder"}};
  VariantResult v;
  v.name = "1 naive", v.what_changed = "naive", v.checked = v.check_passed = true, v.max_error = 1e-7;
  v.tolerance = 1e-4, v.check_what = "vs cuBLAS", v.median_ns = 1234.5, v.event_ns = 1300, v.launches = 7;
  v.kernels_per_launch = 1, v.time_source = "cupti", v.work = 3.3e7, v.throughput = 26.7, v.share_of_best = 0.5;
  v.share_of_limit = 0.4, v.limit = 494.5, v.limit_what = "TF32", v.launch = "grid 8x8x1", v.note = "a note";
  VariantResult bad = v;
  bad.name = "broken", bad.check_passed = false, bad.own = false;
  l.variants = {v, bad};
  return l;
}

TEST(PlaygroundSession, ARunRoundTripsThroughTheSessionFormat) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("ts_pg_" + std::to_string(getpid()) + ".tsession")).string();
  prof::EventStore store;
  StoredRun run{"NVIDIA H200", "cupti", {sample_ladder()}};
  write_playground_session(path, store, run);
  const StoredRun back = read_playground_session(path);
  EXPECT_EQ(back.device, "NVIDIA H200");
  EXPECT_EQ(back.timing, "cupti");
  ASSERT_EQ(back.ladders.size(), 1u);
  const Ladder& l = back.ladders[0];
  EXPECT_EQ(l.family, "sgemm");
  EXPECT_EQ(l.unit, Unit::tflops);
  EXPECT_EQ(l.size, 256);
  EXPECT_EQ(l.warning, "a warning");
  EXPECT_EQ(l.limit.value, 67);
  EXPECT_FALSE(l.limit.measured);
  ASSERT_EQ(l.other_limits.size(), 1u);
  EXPECT_TRUE(l.other_limits[0].measured);
  ASSERT_EQ(l.variants.size(), 2u);
  const VariantResult& v = l.variants[0];
  EXPECT_EQ(v.name, "1 naive");
  EXPECT_DOUBLE_EQ(v.median_ns, 1234.5);
  EXPECT_EQ(v.launches, 7);
  EXPECT_EQ(v.time_source, "cupti");
  EXPECT_DOUBLE_EQ(v.limit, 494.5);
  EXPECT_EQ(v.note, "a note");
  EXPECT_FALSE(l.variants[1].check_passed);
  EXPECT_FALSE(l.variants[1].own);
  EXPECT_EQ(l.failed_checks(), 1);
  // It is an ordinary session too: the generic reader opens it and sees what it is.
  auto src = prof::open_session(path);
  EXPECT_EQ(src->store().meta().at("run.kind"), "playground");
  std::filesystem::remove(path);
}

TEST(PlaygroundSession, OlderFormatsAndTrainingSessionsHoldNoPlaygroundRun) {
  // Format 1 (tests/data, before the playground tables): read, no ladders, no error.
  const std::string v1 = std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/gpu_b16_nw4.tsession";
  EXPECT_TRUE(read_playground_session(v1).ladders.empty());
  EXPECT_THROW(read_playground_session("/nonexistent.tsession"), prof::SessionError);
}

}  // namespace
}  // namespace ts::playground
