// Shared helpers of the kernels: launch geometry and warp reductions.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "base/cuda_check.h"
#include "kernels/kernels.h"

namespace ts::kernels {

constexpr int kThreads = 256;

/// Blocks for a grid-stride loop over n elements: enough to fill the GPU, capped.
inline unsigned grid_for(std::int64_t n, int threads = kThreads, std::int64_t cap = 65535) {
  std::int64_t b = (n + threads - 1) / threads;
  if (b < 1) b = 1;
  return static_cast<unsigned>(b < cap ? b : cap);
}

/// Loads widen to fp32; stores round to nearest even (fp16/bf16 activations under AMP).
__device__ __forceinline__ float to_f32(float v) { return v; }
__device__ __forceinline__ float to_f32(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_f32(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T> __device__ __forceinline__ T from_f32(float v);
template <> __device__ __forceinline__ float from_f32<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_f32<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

/// Calls f with a null pointer of the C++ type of `t` (float, __half, __nv_bfloat16): dispatches a
/// templated launch on the runtime element type.
template <class F>
void dispatch_elem(ElemType t, F&& f) {
  switch (t) {
    case ElemType::f32: f(static_cast<float*>(nullptr)); break;
    case ElemType::f16: f(static_cast<__half*>(nullptr)); break;
    case ElemType::bf16: f(static_cast<__nv_bfloat16*>(nullptr)); break;
  }
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
