// Shared helpers of the kernels: launch geometry and warp reductions.
#pragma once
#include <cstdint>

#include "engine/cuda/cuda_check.h"

namespace ts::kernels {

constexpr int kThreads = 256;

/// Blocks for a grid-stride loop over n elements: enough to fill the GPU, capped.
inline unsigned grid_for(std::int64_t n, int threads = kThreads, std::int64_t cap = 65535) {
  std::int64_t b = (n + threads - 1) / threads;
  if (b < 1) b = 1;
  return static_cast<unsigned>(b < cap ? b : cap);
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

}  // namespace ts::kernels
