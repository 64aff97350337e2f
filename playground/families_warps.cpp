// divergence and occupancy ladders (see families.h). Divergence work = 2 flops per fmaf, the
// useful work of each thread (iters fmaf whichever path it takes). Occupancy: bytes read.
#include <fmt/core.h>

#include <cmath>

#include "playground/families.h"
#include "playground/kernels/launch.h"
#include "playground/limits.h"

namespace ts::playground {

void run_divergence(Context& ctx, Ladder& ladder, std::int64_t n) {
  ladder.unit = Unit::tflops;
  constexpr int kIters = 512;
  constexpr std::uint32_t kSeed = 7;
  DeviceBuffer<float> out(n);
  const double flops = 2.0 * kIters * static_cast<double>(n);
  const char* names[] = {"no branch", "branch per warp", "branch per lane"};
  const char* what[] = {"every thread takes path 0: the baseline",
                        "path = the warp's parity: each warp runs one path, no warp runs both",
                        "path = the lane's parity: every warp runs both paths, half its lanes masked each time"};
  for (int mode = 0; mode < 3; ++mode)
    run_variant(
        ctx, ladder, variant(names[mode], what[mode], flops),
        [&, mode] { return k::divergence(out.get(), n, kSeed, kIters, mode, nullptr); },
        [&, mode] {
          const std::vector<float> h = out.to_host();
          Check c;
          c.what = "exact on every 1021st element (fmaf recurrences, CPU = GPU bit for bit)";
          c.passed = true;
          for (std::int64_t i = 0; i < n; i += 1021) {
            const int lane = static_cast<int>(i % 256);
            const int path = mode == 0 ? 0 : mode == 1 ? (lane / 32) & 1 : lane & 1;
            if (h[i] != divergence_ref(i, kSeed, path, kIters)) {
              c.passed = false;
              c.max_error += 1;
              if (c.worst < 0) c.worst = i;
            }
          }
          return c;
        },
        [&] { poison(out.get(), n); });
}

namespace {

SmLimits limits_of(const cudaDeviceProp& p) {
  SmLimits l;
  l.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  l.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  l.max_threads_per_block = p.maxThreadsPerBlock;
  l.regs_per_sm = p.regsPerMultiprocessor;
  l.regs_per_block = p.regsPerBlock;
  l.smem_per_sm = static_cast<std::int64_t>(p.sharedMemPerMultiprocessor);
  l.smem_per_block_optin = static_cast<std::int64_t>(p.sharedMemPerBlockOptin);
  l.reserved_smem_per_block = static_cast<std::int64_t>(p.reservedSharedMemPerBlock);
  return l;
}

}  // namespace

void run_occupancy(Context& ctx, Ladder& ladder, std::int64_t n) {
  ladder.unit = Unit::gbps;
  DeviceBuffer<float> in(n);
  DeviceBuffer<unsigned long long> total(1);
  TS_PG_CUDA(k::fill(in.get(), n, 8, 0, nullptr));
  const double want = reduce_ref(n, 8);
  const SmLimits sm = limits_of(ctx.prop);
  struct Row {
    const char* name;
    const char* what;
    int kernel, threads, smem;
  };
  const Row rows[] = {
      {"32 threads", "32-thread blocks: at most 32 blocks per SM, so 1024 of 2048 threads", 0, 32, 0},
      {"64 threads", "64-thread blocks: 32 blocks fill the SM's 2048 threads", 0, 64, 0},
      {"256 threads", "256-thread blocks: 8 per SM", 0, 256, 0},
      {"1024 threads", "1024-thread blocks: 2 per SM", 0, 1024, 0},
      {"256 + 64 KiB smem", "64 KiB of dynamic shared memory per block: 3 blocks fit in 228 KiB", 0, 256, 64 * 1024},
      {"256 + 200 KiB smem", "200 KiB per block: one block (256 threads) per SM", 0, 256, 200 * 1024},
      {"ILP 16",
       "16 float4 loads per loop trip (unrolled): how many are in flight is the compiler's choice; "
       "its registers are in the note",
       1, 256, 0},
      {"ILP 16, launch bounds (256, 8)",
       "__launch_bounds__(256, 8): 8 blocks must fit, so at most 32 registers "
       "per thread (what does not fit goes to local memory: 'B local')",
       2, 256, 0},
  };
  for (const Row& r : rows) {
    cudaFuncAttributes fa{};
    TS_PG_CUDA(cudaFuncGetAttributes(&fa, k::occupancy_kernel(r.kernel)));
    if (r.smem > 48 * 1024)
      TS_PG_CUDA(
          cudaFuncSetAttribute(k::occupancy_kernel(r.kernel), cudaFuncAttributeMaxDynamicSharedMemorySize, r.smem));
    int api_blocks = 0;
    TS_PG_CUDA(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&api_blocks, k::occupancy_kernel(r.kernel), r.threads, r.smem));
    const Occupancy o = occupancy(sm, r.threads, fa.numRegs, static_cast<std::int64_t>(fa.sharedSizeBytes) + r.smem);
    VariantResult v = variant(r.name, r.what, static_cast<double>(n) * sizeof(float));
    v.note = fmt::format(
        "{} regs, {} B local; occupancy: calculated {} blocks/SM = {:.0f}% (limited by {}), "
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor {} blocks/SM{}",
        fa.numRegs, fa.localSizeBytes, o.blocks_per_sm, 100 * o.occupancy, limiter_name(o.limiter), api_blocks,
        o.blocks_per_sm == api_blocks ? "" : " (DIFFERS)");
    const int blocks = ctx.prop.multiProcessorCount * std::max(api_blocks, 1);  // one full wave
    run_variant(
        ctx, ladder, std::move(v),
        [&, r, blocks] {
          return k::occupancy_read(r.kernel, in.get(), n, total.get(), r.threads, blocks, r.smem, nullptr);
        },
        [&] {
          Check c;
          c.what = "exact: the sum (an integer) equals the CPU's";
          const double got = static_cast<double>(total.to_host()[0]);
          c.max_error = std::fabs(got - want);
          c.passed = got == want;
          return c;
        },
        [&] { TS_PG_CUDA(cudaMemset(total.get(), 0, sizeof(unsigned long long))); });
  }
}

}  // namespace ts::playground
