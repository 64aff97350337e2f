// uint8 -> fp32 normalisation of a batch, (x/255 - mean[c]) / std[c], the same expression as the CPU
// backend so both produce the same floats. Four pixels per thread (one 32-bit load) when hw % 4 == 0.
#include "kernels/common.cuh"
#include "kernels/kernels.h"

#include <type_traits>

namespace ts::kernels {

template <class T>
__global__ void normalize_u8_kernel(const std::uint8_t* __restrict__ x, T* __restrict__ y,
                                    std::int64_t n_elems, int channels, std::int64_t hw, NormalizeParams p) {
  for (std::int64_t i = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; i < n_elems;
       i += (std::int64_t)gridDim.x * blockDim.x) {
    int c = static_cast<int>((i / hw) % channels);
    y[i] = from_f32<T>((static_cast<float>(x[i]) / 255.0f - p.mean[c]) / p.std[c]);
  }
}

__global__ void normalize_u8x4_kernel(const uchar4* __restrict__ x, float4* __restrict__ y, std::int64_t n_vec,
                                      int channels, std::int64_t hw_vec, NormalizeParams p) {
  for (std::int64_t i = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; i < n_vec;
       i += (std::int64_t)gridDim.x * blockDim.x) {
    int c = static_cast<int>((i / hw_vec) % channels);
    uchar4 v = x[i];
    float m = p.mean[c], s = p.std[c];
    y[i] = make_float4((static_cast<float>(v.x) / 255.0f - m) / s, (static_cast<float>(v.y) / 255.0f - m) / s,
                       (static_cast<float>(v.z) / 255.0f - m) / s, (static_cast<float>(v.w) / 255.0f - m) / s);
  }
}

void normalize_u8(const std::uint8_t* x, void* y, ElemType yt, std::int64_t n, int channels, std::int64_t hw,
                  const NormalizeParams& p, cudaStream_t stream) {
  std::int64_t total = n * channels * hw;
  if (total == 0) return;
  bool aligned = (reinterpret_cast<std::uintptr_t>(x) % 4 == 0) && (reinterpret_cast<std::uintptr_t>(y) % 16 == 0);
  if (yt == ElemType::f32 && hw % 4 == 0 && aligned) {
    std::int64_t n_vec = total / 4;
    normalize_u8x4_kernel<<<grid_for(n_vec), kThreads, 0, stream>>>(
        reinterpret_cast<const uchar4*>(x), reinterpret_cast<float4*>(y), n_vec, channels, hw / 4, p);
    TS_KERNEL_CHECK("normalize_u8x4_kernel");
  } else {
    dispatch_elem(yt, [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      normalize_u8_kernel<T><<<grid_for(total), kThreads, 0, stream>>>(x, static_cast<T*>(y), total, channels, hw, p);
    });
    TS_KERNEL_CHECK("normalize_u8_kernel");
  }
}

}  // namespace ts::kernels
