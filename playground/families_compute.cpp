// reduction, sgemm and tensor ladders (see families.h). GEMM work = 2 m n k flops. Checks: own FP32
// kernels against cuBLAS SGEMM on the whole matrix (normalised error <= 1e-4); cuBLAS and the
// tensor-core rows on 1024 sampled elements against the CPU in double from inputs rounded to the
// row's precision (FP32 1e-5, TF32/BF16/FP16 1e-3); WMMA bf16 also on the whole matrix against
// cuBLAS BF16 (1e-3). Tolerances and why: docs/playground.md.
#include <fmt/core.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>

#include "base/errors.h"
#include "playground/cublas_gemm.h"
#include "playground/cublaslt_tuned.h"
#include "playground/families.h"
#include "playground/kernels/launch.h"
#include "playground/kernels/pattern.h"

namespace ts::playground {

void run_reduction(Context& ctx, Ladder& ladder, std::int64_t n) {
  ladder.unit = Unit::gbps;
  const int sms = ctx.prop.multiProcessorCount;
  DeviceBuffer<float> in(n), partial(k::reduction_blocks(n, 1, sms));
  TS_PG_CUDA(k::fill(in.get(), n, 6, 0, nullptr));
  const double want = reduce_ref(n, 6);
  const char* names[] = {"interleaved, divergent", "strided index",      "sequential addressing",
                         "first add during load",  "last warp shuffled", "several per thread"};
  const char* what[] = {
      "tree in shared memory, active threads tid % 2s == 0: divergent warps, slow modulo",
      "index = 2 s tid: whole warps stay active, but strided shared accesses conflict on banks",
      "active threads tid < s read s[tid + s]: contiguous, conflict-free",
      "each thread adds two elements while loading: half the blocks, no idle threads at the first level",
      "the last 32 values summed with __shfl_down_sync: no __syncthreads for the last 5 levels",
      "a fixed grid (8 blocks per SM), each thread sums many elements first: fewer blocks, loads overlap"};
  for (int step = 1; step <= 6; ++step) {
    const std::int64_t blocks = k::reduction_blocks(n, step, sms);
    VariantResult v = variant(fmt::format("{} {}", step, names[step - 1]), what[step - 1],
                              static_cast<double>(n + blocks) * sizeof(float));
    run_variant(
        ctx, ladder, std::move(v), [&, step] { return k::reduce(in.get(), partial.get(), n, step, sms, nullptr); },
        [&, blocks] {
          const std::vector<float> p = partial.to_host(blocks);
          double got = 0;
          for (float x : p) got += x;
          Check c;
          c.what = "exact: partial sums (fp32, exact for the pattern) added in double";
          c.max_error = std::fabs(got - want);
          c.passed = got == want;
          return c;
        },
        [&] { poison(partial.get(), partial.count()); });
  }
}

namespace {

struct Samples {
  std::vector<std::int64_t> rows, cols;
};
Samples gemm_samples(std::int64_t side, int count) {
  Samples s;
  for (int i = 0; i < count; ++i) {
    s.rows.push_back(static_cast<std::int64_t>(pattern_mix(2 * i, 99) % static_cast<std::uint64_t>(side)));
    s.cols.push_back(static_cast<std::int64_t>(pattern_mix(2 * i + 1, 99) % static_cast<std::uint64_t>(side)));
  }
  return s;
}

Check check_samples(const DeviceBuffer<float>& c, std::int64_t side, const Samples& s, const std::vector<double>& ref,
                    double tol) {
  const std::vector<float> h = c.to_host();
  std::vector<float> got;
  for (std::size_t i = 0; i < s.rows.size(); ++i) got.push_back(h[s.rows[i] * side + s.cols[i]]);
  Check r = check_normalised(got.data(), ref.data(), static_cast<std::int64_t>(got.size()), tol);
  r.what = fmt::format("{} sampled elements vs CPU (double): {}", got.size(), r.what);
  return r;
}

constexpr std::uint32_t kSeedA = 11, kSeedB = 12;

// Mean time of 3 launches after one warm-up, CUDA events (a choice between configurations, not a
// figure shown as the variant's time).
double quick_ms(const std::function<cudaError_t()>& launch) {
  cudaEvent_t e0, e1;
  TS_PG_CUDA(cudaEventCreate(&e0));
  TS_PG_CUDA(cudaEventCreate(&e1));
  TS_PG_CUDA(launch());
  TS_PG_CUDA(cudaEventRecord(e0));
  for (int i = 0; i < 3; ++i) TS_PG_CUDA(launch());
  TS_PG_CUDA(cudaEventRecord(e1));
  TS_PG_CUDA(cudaEventSynchronize(e1));
  float ms = 0;
  TS_PG_CUDA(cudaEventElapsedTime(&ms, e0, e1));
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return ms / 3;
}
constexpr double kTolFp32Full = 1e-4, kTolFp32Sampled = 1e-5, kTolReduced = 1e-3;
// bf16 output: kTolReduced plus the output's own rounding, half a bf16 ulp = 2^-8 relative.
constexpr double kTolBf16Out = kTolReduced + 0x1p-8;
constexpr const char* kNoBf16 = "not run: bf16 needs compute capability 8.0 or newer";

float bf16_bits_to_float(__nv_bfloat16 v) {
  std::uint16_t bits;
  std::memcpy(&bits, &v, 2);
  const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace

void run_sgemm(Context& ctx, Ladder& ladder, std::int64_t side) {
  ladder.unit = Unit::tflops;
  const int s = static_cast<int>(side);
  const std::int64_t nn = side * side;
  DeviceBuffer<float> a(nn), b(nn), c(nn), cref(nn);
  DeviceBuffer<__nv_bfloat16> a16(nn), b16(nn);
  TS_PG_CUDA(k::fill(a.get(), nn, kSeedA, 1, nullptr));
  TS_PG_CUDA(k::fill(b.get(), nn, kSeedB, 1, nullptr));
  TS_PG_CUDA(k::to_bf16(a.get(), a16.get(), nn, nullptr));
  TS_PG_CUDA(k::to_bf16(b.get(), b16.get(), nn, nullptr));
  Cublas blas;
  TS_PG_CUDA(blas.sgemm(s, s, s, a.get(), b.get(), cref.get()));
  const std::vector<float> ref = cref.to_host();
  const Samples smp = gemm_samples(side, 1024);
  const double flops = 2.0 * side * side * side;
  const char* names[] = {"1 naive",           "2 coalesced",        "3 shared-memory tiles", "4 1D block tiling",
                         "5 2D block tiling", "6 vectorised loads", "7 warp tiling",         "8 double buffering"};
  const char* what[] = {
      "a thread per output; consecutive threads take consecutive rows: A and C accesses 4k bytes apart",
      "consecutive threads take consecutive columns: B and C accesses coalesce, A broadcasts",
      "32x32 tiles of A and B staged in shared memory: each global element read once per tile",
      "each thread computes 8 outputs of a column (64x64 block, BK 8): fewer shared loads per FMA",
      "each thread computes 8x8 outputs (128x128 block): outer products from registers",
      "float4 global and shared loads; A's tile stored transposed so its column reads are contiguous",
      "a warp owns a sub-tile of the block's (BK 16): each warp reads only its own strips of shared memory",
      "the next tile's global loads are issued before this tile's FMAs, into a second shared buffer: one barrier per "
      "tile"};
  auto check_full = [&] {
    Check r = check_normalised(c.to_host().data(), ref.data(), nn, kTolFp32Full);
    r.what = "whole matrix vs cuBLAS SGEMM: " + r.what;
    return r;
  };
  for (int v = 1; v <= 6; ++v)
    run_variant(
        ctx, ladder, variant(names[v - 1], what[v - 1], flops),
        [&, v] { return k::sgemm(v, s, s, s, a.get(), b.get(), c.get(), nullptr); }, check_full,
        [&] { poison(c.get(), nn); });
  // Steps 7 and 8: two tile configurations, the faster kept (Boehm tuned his by search too).
  double config_ms[2] = {0, 0};
  for (int cfg = 0; cfg < 2; ++cfg)
    config_ms[cfg] =
        quick_ms([&, cfg] { return k::sgemm_warptile(cfg, false, s, s, s, a.get(), b.get(), c.get(), nullptr); });
  const int cfg = config_ms[1] < config_ms[0] ? 1 : 0;
  const std::string picked = fmt::format(
      "tile config {} kept: 128 threads (64x64 per warp) {:.3f} ms, 256 threads "
      "(64x32 per warp) {:.3f} ms (CUDA events, 3 launches)",
      cfg == 0 ? "128-thread" : "256-thread", config_ms[0], config_ms[1]);
  for (int v = 7; v <= 8; ++v) {
    VariantResult row = variant(names[v - 1], what[v - 1], flops);
    row.note = picked;
    run_variant(
        ctx, ladder, std::move(row),
        [&, v] { return k::sgemm_warptile(cfg, v == 8, s, s, s, a.get(), b.get(), c.get(), nullptr); }, check_full,
        [&] { poison(c.get(), nn); });
  }
  const auto fp32 = sgemm_ref_at(side, side, side, kSeedA, kSeedB, smp.rows, smp.cols, "fp32");
  const auto tf32 = sgemm_ref_at(side, side, side, kSeedA, kSeedB, smp.rows, smp.cols, "tf32");
  const auto bf16 = sgemm_ref_at(side, side, side, kSeedA, kSeedB, smp.rows, smp.cols, "bf16");
  auto clear = [&] { poison(c.get(), nn); };
  run_variant(
      ctx, ladder, variant("cuBLAS FP32", "cublasSgemm: the library's FP32 kernel (no tensor cores)", flops, false),
      [&] { return blas.sgemm(s, s, s, a.get(), b.get(), c.get()); },
      [&] { return check_samples(c, side, smp, fp32, kTolFp32Sampled); }, clear);
  run_variant(
      ctx, ladder, variant("cuBLAS TF32", "tensor cores on FP32 data rounded to TF32 (10-bit mantissa)", flops, false),
      [&] { return blas.tf32(s, s, s, a.get(), b.get(), c.get()); },
      [&] { return check_samples(c, side, smp, tf32, kTolReduced); }, clear);
  VariantResult bf =
      variant("cuBLAS BF16", "BF16 inputs (half the bytes), tensor cores, FP32 accumulation", flops, false);
  if (ctx.prop.major < 8) return skip_variant(ladder, std::move(bf), kNoBf16);
  run_variant(
      ctx, ladder, std::move(bf), [&] { return blas.bf16(s, s, s, a16.get(), b16.get(), c.get()); },
      [&] { return check_samples(c, side, smp, bf16, kTolReduced); }, clear);
}

namespace {

// The top of the tensor ladder: cuBLASLt BF16 (fp32 C) with the fastest of the heuristic's algorithms
// for this shape (cublaslt_tuned.h), checked against the same CPU samples as the default row.
void run_tuned_bf16(Context& ctx, Ladder& ladder, std::int64_t side, const __nv_bfloat16* a, const __nv_bfloat16* b,
                    DeviceBuffer<float>& c, const Samples& smp, const std::vector<double>& ref) {
  const int s = static_cast<int>(side);
  const double flops = 2.0 * side * side * side;
  VariantResult row = variant("cuBLASLt BF16, tuned",
                              "the same GEMM with the fastest of cuBLASLt's candidate algorithms for this shape, "
                              "timed here (what autotuners do)",
                              flops, false);
  try {
    auto gemm = std::make_shared<TunedBf16Gemm>(s, s, s, false);
    row.note = gemm->tune(a, b, c.get());
    run_variant(
        ctx, ladder, std::move(row), [&, gemm] { return gemm->run(a, b, c.get()); },
        [&] { return check_samples(c, side, smp, ref, kTolReduced); }, [&] { poison(c.get(), side * side); });
  } catch (const DeviceError& e) {
    skip_variant(ladder, std::move(row), e.what());
  }
}

}  // namespace

void run_tensor(Context& ctx, Ladder& ladder, std::int64_t side) {
  ladder.unit = Unit::tflops;
  const int s = static_cast<int>(side);
  const std::int64_t nn = side * side;
  DeviceBuffer<float> a(nn), b(nn), c(nn), cbf(nn);
  DeviceBuffer<__half> ah(nn), bh(nn);
  DeviceBuffer<__nv_bfloat16> ab(nn), bb(nn);
  TS_PG_CUDA(k::fill(a.get(), nn, kSeedA, 1, nullptr));
  TS_PG_CUDA(k::fill(b.get(), nn, kSeedB, 1, nullptr));
  TS_PG_CUDA(k::to_half(a.get(), ah.get(), nn, nullptr));
  TS_PG_CUDA(k::to_half(b.get(), bh.get(), nn, nullptr));
  TS_PG_CUDA(k::to_bf16(a.get(), ab.get(), nn, nullptr));
  TS_PG_CUDA(k::to_bf16(b.get(), bb.get(), nn, nullptr));
  Cublas blas;
  const bool has_bf16 = ctx.prop.major >= 8;
  if (has_bf16) TS_PG_CUDA(blas.bf16(s, s, s, ab.get(), bb.get(), cbf.get()));
  const std::vector<float> ref_bf = has_bf16 ? cbf.to_host() : std::vector<float>();
  const Samples smp = gemm_samples(side, 1024);
  const auto fp32 = sgemm_ref_at(side, side, side, kSeedA, kSeedB, smp.rows, smp.cols, "fp32");
  const auto tf32 = sgemm_ref_at(side, side, side, kSeedA, kSeedB, smp.rows, smp.cols, "tf32");
  const auto fp16 = sgemm_ref_at(side, side, side, kSeedA, kSeedB, smp.rows, smp.cols, "fp16");
  const auto bf16 = sgemm_ref_at(side, side, side, kSeedA, kSeedB, smp.rows, smp.cols, "bf16");
  const double flops = 2.0 * side * side * side;
  auto clear = [&] { poison(c.get(), nn); };
  run_variant(
      ctx, ladder,
      variant("WMMA fp16", "a warp computes 32x32 with 16x16x16 fragments loaded from global memory", flops),
      [&] { return k::wmma_gemm_half(s, s, s, ah.get(), bh.get(), c.get(), nullptr); },
      [&] { return check_samples(c, side, smp, fp16, kTolReduced); }, clear);
  VariantResult wb = variant("WMMA bf16", "the same kernel on bf16 (fp32's range, 7-bit mantissa)", flops);
  if (!has_bf16)
    skip_variant(ladder, std::move(wb), kNoBf16);
  else
    run_variant(
        ctx, ladder, std::move(wb), [&] { return k::wmma_gemm_bf16(s, s, s, ab.get(), bb.get(), c.get(), nullptr); },
        [&] {
          Check r = check_normalised(c.to_host().data(), ref_bf.data(), nn, kTolReduced);
          r.what = "whole matrix vs cuBLAS BF16: " + r.what;
          return r;
        },
        clear);
  run_variant(
      ctx, ladder, variant("cuBLAS FP32", "cublasSgemm on CUDA cores: the FP32 baseline", flops, false),
      [&] { return blas.sgemm(s, s, s, a.get(), b.get(), c.get()); },
      [&] { return check_samples(c, side, smp, fp32, kTolFp32Sampled); }, clear);
  run_variant(
      ctx, ladder, variant("cuBLAS TF32", "tensor cores on FP32 data rounded to TF32", flops, false),
      [&] { return blas.tf32(s, s, s, a.get(), b.get(), c.get()); },
      [&] { return check_samples(c, side, smp, tf32, kTolReduced); }, clear);
  run_variant(
      ctx, ladder, variant("cuBLAS FP16", "fp16 inputs, tensor cores, FP32 accumulation", flops, false),
      [&] { return blas.fp16(s, s, s, ah.get(), bh.get(), c.get()); },
      [&] { return check_samples(c, side, smp, fp16, kTolReduced); }, clear);
  if (!has_bf16) {
    skip_variant(ladder, variant("cuBLAS BF16", "bf16 inputs, tensor cores, FP32 accumulation", flops, false), kNoBf16);
    return;
  }
  run_variant(
      ctx, ladder, variant("cuBLAS BF16", "bf16 inputs, tensor cores, FP32 accumulation", flops, false),
      [&] { return blas.bf16(s, s, s, ab.get(), bb.get(), c.get()); },
      [&] { return check_samples(c, side, smp, bf16, kTolReduced); }, clear);
  DeviceBuffer<__nv_bfloat16> cb(nn);
  run_variant(
      ctx, ladder,
      variant("cuBLAS BF16, bf16 out", "C written as bf16 too: what torch.matmul on bf16 runs", flops, false),
      [&] { return blas.bf16_out(s, s, s, ab.get(), bb.get(), cb.get()); },
      [&] {
        const std::vector<__nv_bfloat16> h = cb.to_host();
        std::vector<float> got;
        for (std::size_t i = 0; i < smp.rows.size(); ++i)
          got.push_back(bf16_bits_to_float(h[smp.rows[i] * side + smp.cols[i]]));
        Check r = check_normalised(got.data(), bf16.data(), static_cast<std::int64_t>(got.size()), kTolBf16Out);
        r.what = fmt::format("{} sampled elements vs CPU (double): {}", got.size(), r.what);
        return r;
      },
      [&] { TS_PG_CUDA(cudaMemset(cb.get(), 0xFF, static_cast<std::size_t>(nn) * 2)); });
  run_tuned_bf16(ctx, ladder, side, ab.get(), bb.get(), c, smp, bf16);
}

}  // namespace ts::playground
