// The fused tail Conv2d -> ReLU -> MaxPool2d(kernel 2, stride 2, no padding): one pass forward (the
// convolution's raw output -> bias + ReLU -> 2x2 max with its index), one pass backward (the pooled
// gradient -> the full-size gradient of the convolution's output and its bias gradient). Launchers are
// declared in fused_pool.h. Replaces epilogue_forward + cuDNN pooling forward and cuDNN pooling
// backward + epilogue_backward, four passes over full-size tensors (b1024 bf16 SimpleCNN on the H100:
// ~600 us of a 1.67 ms step).
//
// Why the results equal the unfused path's bit for bit:
// - Forward: each element gets epilogue_forward_kernel's expression (fp32 sum with the bias when there
//   is one, fmaxf with 0, rounded to nearest even into T), and the maximum is taken over those rounded
//   values, as cuDNN takes it over the epilogue's stored output. The output is the winning element
//   itself (selected, not rounded again). Rounding is monotone, so the maximum of the rounded values is
//   the rounded maximum; only which of several equal rounded values wins depends on the rule, and that
//   is window_max4's (PyTorch's: the first).
// - Backward: an element's gradient is dy where it is its window's index and y > 0, else 0: what the
//   unfused path leaves (cuDNN routes dy to the window's maximum; epilogue_backward's ReLU mask keeps it
//   where the ReLU output there, which is y, is > 0). The bias sum visits dx with the same (split,
//   channel) blocks, threads and packs as epilogue_backward_bias_kernel, adds the same fp32 values in
//   the same order and ends in the same code (kernels/channel_sum.cuh); the zeros it adds where cuDNN's
//   routed gradient is zero change no fp32 sum.
// - The one assumption about cuDNN: its max-pool backward gives a tie's gradient to the first maximum,
//   as PyTorch does (tests/gpu/test_fused_pool_gpu.cpp trains SimpleCNN both ways and compares).
//
// Index type I: std::uint32_t below 2^31 elements of the convolution's output (as epilogue.cu: 32-bit
// divisions), std::int64_t above. Every index is below the tensor's element count, so neither overflows.
#include <cstdint>
#include <string>
#include <type_traits>

#include "base/errors.h"
#include "kernels/channel_sum.cuh"
#include "kernels/common.cuh"
#include "kernels/pool/fused_pool.h"
#include "kernels/pool/window_max.h"

namespace ts::kernels {
namespace {

/// max(x + b, 0) rounded to T: epilogue_forward_kernel's expression with a bias (when has_bias) and
/// ReLU. Without a bias x itself goes in, not x + 0 (which would turn -0 into +0). fmaxf returns the
/// other argument for a NaN, so this ReLU, like the epilogue's, gives 0 for a NaN.
template <class T>
__device__ __forceinline__ T relu_bias(T x, bool has_bias, float b) {
  float v = to_f32(x);
  if (has_bias) v += b;
  v = fmaxf(v, 0.0f);
  return from_f32<T>(v);
}

/// A window of four ReLU outputs (row-major): its maximum, the element itself, and its index.
template <class T>
__device__ __forceinline__ void pool_window(T t0, T t1, T t2, T t3, T& y, std::uint8_t& index) {
  const WindowMax m = window_max4(to_f32(t0), to_f32(t1), to_f32(t2), to_f32(t3));
  y = m.index == 0 ? t0 : (m.index == 1 ? t1 : (m.index == 2 ? t2 : t3));  // selects: no local memory
  index = m.index;
}

// Two windows a thread, side by side: a row of 4 elements (one Pack) from each of their two input rows.
// Needs width % 4 == 0 (the pair lies in one pooled row, a row of 4 in one input row), x aligned for
// Pack<T, 4>, y for Pack<T, 2>, index (may be null) for 2 bytes.
template <class T, class I>
__global__ void relu_max_pool_forward_pairs(const T* __restrict__ x, const float* __restrict__ bias, T* __restrict__ y,
                                            std::uint8_t* __restrict__ index, I pairs, I channels, I pooled_h,
                                            I pooled_w, I width) {
  const bool has_bias = bias != nullptr;
  for (I g = blockIdx.x * static_cast<I>(blockDim.x) + threadIdx.x; g < pairs;
       g += static_cast<I>(gridDim.x) * blockDim.x) {
    const I q = 2 * g;                                      // the pair's first pooled element
    const I row = q / pooled_w;                             // its pooled row, over [n, channels, pooled_h]
    const I in = 2 * (row * width + (q - row * pooled_w));  // its top-left input: input row 2 * row
    const float b = has_bias ? bias[(row / pooled_h) % channels] : 0.0f;
    const Pack<T, 4> top = *reinterpret_cast<const Pack<T, 4>*>(x + in);
    const Pack<T, 4> bottom = *reinterpret_cast<const Pack<T, 4>*>(x + in + width);
    Pack<T, 2> out;
    std::uint8_t idx[2];
#pragma unroll
    for (int k = 0; k < 2; ++k)
      pool_window(relu_bias(top.v[2 * k], has_bias, b), relu_bias(top.v[2 * k + 1], has_bias, b),
                  relu_bias(bottom.v[2 * k], has_bias, b), relu_bias(bottom.v[2 * k + 1], has_bias, b), out.v[k],
                  idx[k]);
    *reinterpret_cast<Pack<T, 2>*>(y + q) = out;
    if (index) *reinterpret_cast<uchar2*>(index + q) = make_uchar2(idx[0], idx[1]);
  }
}

// One window a thread, four scalar loads: any even width, any alignment.
template <class T, class I>
__global__ void relu_max_pool_forward_scalar(const T* __restrict__ x, const float* __restrict__ bias, T* __restrict__ y,
                                             std::uint8_t* __restrict__ index, I pooled, I channels, I pooled_h,
                                             I pooled_w, I width) {
  const bool has_bias = bias != nullptr;
  for (I q = blockIdx.x * static_cast<I>(blockDim.x) + threadIdx.x; q < pooled;
       q += static_cast<I>(gridDim.x) * blockDim.x) {
    const I row = q / pooled_w;
    const I in = 2 * (row * width + (q - row * pooled_w));
    const float b = has_bias ? bias[(row / pooled_h) % channels] : 0.0f;
    std::uint8_t idx;
    pool_window(relu_bias(x[in], has_bias, b), relu_bias(x[in + 1], has_bias, b), relu_bias(x[in + width], has_bias, b),
                relu_bias(x[in + width + 1], has_bias, b), y[q], idx);
    if (index) index[q] = idx;
  }
}

/// A window's gradient and index: dy where the window's maximum y is > 0 (ReLU's gradient), else 0.
struct WindowGrad {
  float g;
  unsigned index;
};
template <class T, class I>
__device__ __forceinline__ WindowGrad window_grad(const T* __restrict__ dy, const T* __restrict__ y,
                                                  const std::uint8_t* __restrict__ index, I q) {
  return {to_f32(y[q]) > 0.0f ? to_f32(dy[q]) : 0.0f, index[q]};
}

// grid (splits, channels) and the walk of epilogue_backward_bias_kernel: block (s, c) covers the packs
// of V elements j of its split of channel c, j running over (n, hw) and mapping to the flat index
// (n * channels + c) * hw + j % hw. Each element's gradient is gathered from its window. kRow4 (V == 4,
// width % 4 == 0): a pack is 4 elements of one input row from an even column, two windows side by side,
// each loaded once. Every element of dx is written; grad_bias (may be null) gets the channel's sum.
template <class T, int V, class I, bool kRow4>
__global__ void relu_max_pool_backward_kernel(const T* __restrict__ dy, const T* __restrict__ y,
                                              const std::uint8_t* __restrict__ index, T* __restrict__ dx, I n,
                                              I channels, I hw, I width, float* __restrict__ grad_bias, float* partials,
                                              unsigned* counters) {
  const I c = blockIdx.y, packs = n * hw / V;
  const SplitRange<I> range = split_range(packs);
  const I pooled_w = width / 2, pooled_hw = hw / 4;
  float sum = 0.0f;
  for (I g = range.begin + threadIdx.x; g < range.end; g += blockDim.x) {
    const I j = g * V;
    const I plane = (j / hw) * channels + c, p = j % hw;  // p: the pack's first element in its plane
    I h = p / width, w = p - h * width;
    const I pooled_plane = plane * pooled_hw;
    float gk[V];
    if constexpr (kRow4) {
      const unsigned top = static_cast<unsigned>(h & 1) << 1;  // the row's first index in a window: 0 or 2
      const I q = pooled_plane + (h / 2) * pooled_w + w / 2;
      const WindowGrad left = window_grad(dy, y, index, q), right = window_grad(dy, y, index, q + 1);
      gk[0] = left.index == top ? left.g : 0.0f;
      gk[1] = left.index == top + 1 ? left.g : 0.0f;
      gk[2] = right.index == top ? right.g : 0.0f;
      gk[3] = right.index == top + 1 ? right.g : 0.0f;
    } else {
#pragma unroll
      for (int k = 0; k < V; ++k) {
        const WindowGrad m = window_grad(dy, y, index, pooled_plane + (h / 2) * pooled_w + w / 2);
        gk[k] = m.index == static_cast<unsigned>(((h & 1) << 1) | (w & 1)) ? m.g : 0.0f;
        if (++w == width) w = 0, ++h;  // a pack may run on into the next row (width % 4 != 0)
      }
    }
    Pack<T, V> d;
#pragma unroll
    for (int k = 0; k < V; ++k) {  // epilogue_backward_bias_kernel's order: element by element
      d.v[k] = from_f32<T>(gk[k]);
      sum += gk[k];
    }
    reinterpret_cast<Pack<T, V>*>(dx)[(plane * hw + p) / V] = d;
  }
  if (grad_bias) finish_channel_sum(sum, c, grad_bias, partials, counters);
}

bool aligned(const void* p, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

void check_shape(const PoolTailShape& s, const char* what) {
  if (s.n >= 0 && s.channels >= 1 && s.channels <= 65535 && s.height >= 2 && s.width >= 2 && s.height % 2 == 0 &&
      s.width % 2 == 0)
    return;
  throw InputError(std::string(what) + ": the fused ReLU + 2x2 max pool needs n >= 0, 1..65535 channels and an even " +
                   "height and width >= 2, not [" + std::to_string(s.n) + ", " + std::to_string(s.channels) + ", " +
                   std::to_string(s.height) + ", " + std::to_string(s.width) + "]");
}

}  // namespace

std::int64_t relu_max_pool_partials_count(const PoolTailShape& s) {
  return epilogue_partials_count(s.n, s.channels, s.height * s.width);
}

void relu_max_pool_forward(const void* x, const float* bias, ElemType t, const PoolTailShape& s, void* y,
                           std::uint8_t* index, cudaStream_t stream) {
  check_shape(s, "relu_max_pool_forward");
  const std::int64_t total = s.conv_elements(), pooled = s.pooled_elements();
  if (total == 0) return;
  dispatch_elem(t, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const auto* xt = static_cast<const T*>(x);
    auto* yt = static_cast<T*>(y);
    if (total >= (std::int64_t{1} << 31)) {
      relu_max_pool_forward_scalar<T, std::int64_t><<<grid_for(pooled), kThreads, 0, stream>>>(
          xt, bias, yt, index, pooled, s.channels, s.height / 2, s.width / 2, s.width);
      return;
    }
    using I = std::uint32_t;
    const bool pairs = s.width % 4 == 0 && aligned(x, 4 * sizeof(T)) && aligned(y, 2 * sizeof(T)) && aligned(index, 2);
    if (pairs)
      relu_max_pool_forward_pairs<T, I><<<grid_for(pooled / 2), kThreads, 0, stream>>>(
          xt, bias, yt, index, static_cast<I>(pooled / 2), static_cast<I>(s.channels), static_cast<I>(s.height / 2),
          static_cast<I>(s.width / 2), static_cast<I>(s.width));
    else
      relu_max_pool_forward_scalar<T, I><<<grid_for(pooled), kThreads, 0, stream>>>(
          xt, bias, yt, index, static_cast<I>(pooled), static_cast<I>(s.channels), static_cast<I>(s.height / 2),
          static_cast<I>(s.width / 2), static_cast<I>(s.width));
  });
  TS_KERNEL_CHECK("relu_max_pool_forward");
}

void relu_max_pool_backward(const void* dy, const void* y, const std::uint8_t* index, ElemType t,
                            const PoolTailShape& s, void* dx, float* grad_bias, float* partials, unsigned* counters,
                            cudaStream_t stream) {
  check_shape(s, "relu_max_pool_backward");
  const std::int64_t total = s.conv_elements(), hw = s.height * s.width;
  if (total == 0) {
    if (grad_bias) TS_CUDA_CHECK(cudaMemsetAsync(grad_bias, 0, sizeof(float) * s.channels, stream));
    return;
  }
  const dim3 grid(static_cast<unsigned>(channel_splits(s.n * hw)), static_cast<unsigned>(s.channels));
  dispatch_elem(t, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    // epilogue_backward's choice of pack and index type for the full-size gradient it would walk.
    dispatch_shape<T>(total, hw, {dx}, [&](auto v, auto index_type) {
      constexpr int V = decltype(v)::value;
      using I = decltype(index_type);
      auto launch = [&](auto row4) {
        relu_max_pool_backward_kernel<T, V, I, decltype(row4)::value><<<grid, kThreads, 0, stream>>>(
            static_cast<const T*>(dy), static_cast<const T*>(y), index, static_cast<T*>(dx), static_cast<I>(s.n),
            static_cast<I>(s.channels), static_cast<I>(hw), static_cast<I>(s.width), grad_bias, partials, counters);
      };
      if constexpr (V == 4) {
        if (s.width % 4 == 0) return launch(std::true_type{});
      }
      launch(std::false_type{});
    });
  });
  TS_KERNEL_CHECK("relu_max_pool_backward_kernel");
}

}  // namespace ts::kernels
