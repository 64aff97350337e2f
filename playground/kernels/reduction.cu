// The reduction family: Mark Harris's sequence ("Optimizing Parallel Reduction in CUDA", NVIDIA,
// 2007), each step one change on the one before. Every step sums n floats into one partial sum per
// block (the host adds the partials); the time shown is this first pass, which reads all the data.
//   1 interleaved addressing, divergent branch (tid % (2s) == 0)
//   2 interleaved addressing, strided index (no divergence, shared-memory bank conflicts)
//   3 sequential addressing (conflict-free)
//   4 first add during the global load (half the blocks)
//   5 last warp unrolled with __shfl_down_sync (no __syncthreads in the last 5 levels)
//   6 several elements per thread (a fixed grid, grid-stride loads)
// Steps 1-4 loop to blockDim.x, a run-time value, as Harris's reduce0-3 do (so the compiler cannot
// unroll the tree and turn step 1's modulo into a mask); steps 5-6 know the block size at compile
// time (his reduce5-6 take it as a template parameter). Kernels first, then the launcher (launch.h).
#include "playground/kernels/launch.h"

namespace ts::playground::k {
namespace {

constexpr int kBlock = 256;
constexpr int kBlocksPerSmStep6 = 8;  // step 6's grid: 8 blocks of 256 per SM (full occupancy on cc 9.0)

__global__ void reduce1(const float* in, float* out) {
  __shared__ float s[kBlock];
  const unsigned tid = threadIdx.x;
  s[tid] = in[blockIdx.x * static_cast<std::int64_t>(blockDim.x) + tid];
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

__global__ void reduce2(const float* in, float* out) {
  __shared__ float s[kBlock];
  const unsigned tid = threadIdx.x;
  s[tid] = in[blockIdx.x * static_cast<std::int64_t>(blockDim.x) + tid];
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    const unsigned index = 2 * stride * tid;
    if (index < blockDim.x) s[index] += s[index + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

__global__ void reduce3(const float* in, float* out) {
  __shared__ float s[kBlock];
  const unsigned tid = threadIdx.x;
  s[tid] = in[blockIdx.x * static_cast<std::int64_t>(blockDim.x) + tid];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

__global__ void reduce4(const float* in, float* out) {
  __shared__ float s[kBlock];
  const unsigned tid = threadIdx.x;
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(2 * blockDim.x) + tid;
  s[tid] = in[i] + in[i + blockDim.x];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// The tree down to 64 values in shared memory, then the first warp finishes with register shuffles.
__device__ float block_sum_shfl(float v, float* s) {
  const unsigned tid = threadIdx.x;
  s[tid] = v;
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 32; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  float x = 0;
  if (tid < 32) {
    x = s[tid] + s[tid + 32];
    for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_down_sync(0xffffffffu, x, offset);
  }
  return x;
}

__global__ void reduce5(const float* in, float* out) {
  __shared__ float s[kBlock];
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(2 * kBlock) + threadIdx.x;
  const float x = block_sum_shfl(in[i] + in[i + kBlock], s);
  if (threadIdx.x == 0) out[blockIdx.x] = x;
}

__global__ void reduce6(const float* in, float* out, std::int64_t n) {
  __shared__ float s[kBlock];
  float sum = 0;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * 2 * kBlock;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(2 * kBlock) + threadIdx.x; i < n; i += step)
    sum += in[i] + in[i + kBlock];
  const float x = block_sum_shfl(sum, s);
  if (threadIdx.x == 0) out[blockIdx.x] = x;
}

}  // namespace

std::int64_t reduction_blocks(std::int64_t n, int step, int sms) {
  if (step <= 3) return n / kBlock;
  if (step <= 5) return n / (2 * kBlock);
  const std::int64_t full = static_cast<std::int64_t>(sms) * kBlocksPerSmStep6;
  const std::int64_t most = n / (2 * kBlock);
  return full < most ? full : most;
}

cudaError_t reduce(const float* in, float* partial, std::int64_t n, int step, int sms, cudaStream_t s) {
  const auto blocks = static_cast<unsigned>(reduction_blocks(n, step, sms));
  switch (step) {
    case 1:
      reduce1<<<blocks, kBlock, 0, s>>>(in, partial);
      break;
    case 2:
      reduce2<<<blocks, kBlock, 0, s>>>(in, partial);
      break;
    case 3:
      reduce3<<<blocks, kBlock, 0, s>>>(in, partial);
      break;
    case 4:
      reduce4<<<blocks, kBlock, 0, s>>>(in, partial);
      break;
    case 5:
      reduce5<<<blocks, kBlock, 0, s>>>(in, partial);
      break;
    default:
      reduce6<<<blocks, kBlock, 0, s>>>(in, partial, n);
      break;
  }
  return cudaGetLastError();
}

}  // namespace ts::playground::k
