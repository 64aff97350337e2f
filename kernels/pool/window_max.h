// The maximum of a max-pooling window and which element it is, by PyTorch's rule; shared by the fused
// pooling kernels (kernels/pool/fused_pool.cu), their host references in the GPU tests and the CPU
// unit tests, so that one function decides ties and NaNs everywhere.
#pragma once
#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define TS_POOL_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define TS_POOL_HOST_DEVICE inline
#endif

namespace ts::kernels {

/// The maximum of a window and its position in the window, row-major (0..3 for a 2x2 window:
/// 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right).
struct WindowMax {
  float value;
  std::uint8_t index;
};

/// PyTorch's max_pool2d rule (max_pool_forward_nchw in aten/src/ATen/native/cuda/DilatedMaxPool2d.cu;
/// the CPU kernel, cpu/MaxPoolKernel.cpp, is the same): the running maximum starts at -inf with the
/// window's first element as its index, and element k takes over when `v > max || isnan(v)`. So among
/// equal maxima the FIRST in row-major order wins (a later one must be strictly greater); a NaN always
/// takes over (the maximum is NaN, and the LAST NaN of the window is the index); a window of -inf
/// gives -inf at index 0. `v != v` is the NaN test (no fast-math in these builds).
TS_POOL_HOST_DEVICE WindowMax window_max4(float v0, float v1, float v2, float v3) {
  const float v[4] = {v0, v1, v2, v3};
  WindowMax m{-INFINITY, 0};
  for (int k = 0; k < 4; ++k)  // unrolled by nvcc (a constant trip count): v stays in registers
    if (v[k] > m.value || v[k] != v[k]) m = WindowMax{v[k], static_cast<std::uint8_t>(k)};
  return m;
}

}  // namespace ts::kernels
