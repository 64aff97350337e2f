// The warps family. Divergence: a branch whose two sides do equal work costs twice the time when the
// lanes of one warp disagree (the warp runs both sides, masking), and nothing extra when whole warps
// agree (CUDA C++ Programming Guide, "SIMT Architecture"). Occupancy: a streaming read whose
// resident warps are limited by block size, registers (__launch_bounds__ variants) or dynamic shared
// memory, beside CUDA's occupancy calculator. Kernels first, then the launchers (launch.h).
#include "playground/kernels/launch.h"
#include "playground/kernels/pattern.h"

namespace ts::playground::k {
namespace {

template <int Mode>
__global__ void divergence_kernel(float* out, std::int64_t n, std::uint32_t seed, int iters) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const int path = Mode == 0   ? 0
                   : Mode == 1 ? static_cast<int>((threadIdx.x / 32) & 1)
                               : static_cast<int>(threadIdx.x & 1);
  float x = pattern_small(i, seed);
  if (path == 0)
    x = divergence_path(x, 0, iters);
  else
    x = divergence_path(x, 1, iters);
  out[i] = x;
}

// Sums float4s, ILP of them in flight per thread per iteration; the dynamic shared memory of the
// launch is only reserved (it limits the resident blocks). Each warp adds its sum once (exact: the
// pattern's small integers stay below 2^24 per warp for n <= 2^28).
template <int Ilp>
__device__ void occupancy_body(const float4* in, std::int64_t n4, unsigned long long* total) {
  float sum = 0;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  for (; i + (Ilp - 1) * stride < n4; i += Ilp * stride) {
    float4 v[Ilp];
#pragma unroll
    for (int u = 0; u < Ilp; ++u) v[u] = in[i + u * stride];
#pragma unroll
    for (int u = 0; u < Ilp; ++u) sum += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  }
  for (; i < n4; i += stride) {
    const float4 v = in[i];
    sum += (v.x + v.y) + (v.z + v.w);
  }
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(total, static_cast<unsigned long long>(sum));
}

__global__ void occupancy_ilp1(const float4* in, std::int64_t n4, unsigned long long* total) {
  occupancy_body<1>(in, n4, total);
}
__global__ void occupancy_ilp16(const float4* in, std::int64_t n4, unsigned long long* total) {
  occupancy_body<16>(in, n4, total);
}
// The capped variant asks for every thread slot of the SM to be fillable by 256-thread blocks: 8 on
// cc 8.0/9.0 (2048 threads per SM), 6 on 8.6/8.9 (1536), 4 on 7.5 (1024); more is out of range there.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define TS_PG_CAPPED_BLOCKS 4
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890)
#define TS_PG_CAPPED_BLOCKS 6
#else
#define TS_PG_CAPPED_BLOCKS 8
#endif
__global__ void __launch_bounds__(256, TS_PG_CAPPED_BLOCKS)
    occupancy_ilp16_capped(const float4* in, std::int64_t n4, unsigned long long* total) {
  occupancy_body<16>(in, n4, total);
}

}  // namespace

cudaError_t divergence(float* out, std::int64_t n, std::uint32_t seed, int iters, int mode, cudaStream_t s) {
  const auto grid = static_cast<unsigned>((n + 255) / 256);
  if (mode == 0)
    divergence_kernel<0><<<grid, 256, 0, s>>>(out, n, seed, iters);
  else if (mode == 1)
    divergence_kernel<1><<<grid, 256, 0, s>>>(out, n, seed, iters);
  else
    divergence_kernel<2><<<grid, 256, 0, s>>>(out, n, seed, iters);
  return cudaGetLastError();
}

const void* occupancy_kernel(int variant) {
  if (variant == 1) return reinterpret_cast<const void*>(&occupancy_ilp16);
  if (variant == 2) return reinterpret_cast<const void*>(&occupancy_ilp16_capped);
  return reinterpret_cast<const void*>(&occupancy_ilp1);
}

cudaError_t occupancy_read(int variant, const float* in, std::int64_t n, unsigned long long* total, int threads,
                           int blocks, int dyn_smem, cudaStream_t s) {
  if (dyn_smem > 48 * 1024) {
    const cudaError_t e =
        cudaFuncSetAttribute(occupancy_kernel(variant), cudaFuncAttributeMaxDynamicSharedMemorySize, dyn_smem);
    if (e != cudaSuccess) return e;
  }
  const auto* in4 = reinterpret_cast<const float4*>(in);
  if (variant == 1)
    occupancy_ilp16<<<blocks, threads, dyn_smem, s>>>(in4, n / 4, total);
  else if (variant == 2)
    occupancy_ilp16_capped<<<blocks, threads, dyn_smem, s>>>(in4, n / 4, total);
  else
    occupancy_ilp1<<<blocks, threads, dyn_smem, s>>>(in4, n / 4, total);
  return cudaGetLastError();
}

}  // namespace ts::playground::k
