// The pointwise tail of a layer: bias, ReLU and dropout fused into one pass, forward and backward.
// Forward runs in place on the convolution/GEMM output (one launch instead of three). Backward
// applies the dropout mask (recomputed from dropout_hash.h, so nothing is stored), the ReLU mask
// (from the forward output: y > 0) and, for a biased layer, the bias gradient in the same launch.
// The bias reduction is deterministic without a memset (kernels/channel_sum.cuh): each block of a
// (split, channel) grid writes a partial sum; the last block of a channel to finish adds the partials
// in index order and resets the counter.
#include "kernels/channel_sum.cuh"
#include "kernels/common.cuh"
#include "kernels/dropout_hash.h"
#include "kernels/kernels.h"

#include <cstdint>
#include <initializer_list>
#include <type_traits>

namespace ts::kernels {
namespace {

/// The mask's key: fixed at launch, or read from the device's step counter (CUDA-graph replays).
__device__ __forceinline__ std::uint64_t mask_key(const Epilogue& e) {
  if (!e.dropout || !e.dropout_step) return e.dropout_key;
  return ts::dropout_key(e.dropout_seed, static_cast<std::uint64_t>(*e.dropout_step), e.dropout_layer);
}

__device__ __forceinline__ float dropout_mult(const Epilogue& e, std::uint64_t key, std::int64_t i, float scale) {
  return ts::dropout_uniform(key, static_cast<std::uint64_t>(i)) >= e.dropout_p ? scale : 0.0f;
}

// Index type I: 32-bit unsigned where the tensor has fewer than 2^31 elements (nearly always): the
// channel of an element, (i / hw) % channels, is then two 32-bit divisions instead of two 64-bit ones,
// which are tens of instructions each and made these memory-bound passes several times slower than
// the memory (b1024 bf16 on the H200: 259 us of forward epilogues a step, ~60 us of traffic).
template <class T, int V, class I>
__global__ void epilogue_forward_kernel(T* __restrict__ y, I total, I channels, I hw, Epilogue e, float scale) {
  const std::uint64_t key = mask_key(e);
  const I packs = total / V;
  for (I g = blockIdx.x * static_cast<I>(blockDim.x) + threadIdx.x; g < packs; g += static_cast<I>(gridDim.x) * blockDim.x) {
    const I i0 = g * V;
    const float b = e.bias ? e.bias[(i0 / hw) % channels] : 0.0f;
    Pack<T, V> p = reinterpret_cast<const Pack<T, V>*>(y)[g];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      float v = to_f32(p.v[k]);
      if (e.bias) v += b;
      if (e.relu) v = fmaxf(v, 0.0f);
      if (e.dropout) v *= dropout_mult(e, key, static_cast<std::int64_t>(i0) + k, scale);
      p.v[k] = from_f32<T>(v);
    }
    reinterpret_cast<Pack<T, V>*>(y)[g] = p;
  }
}

template <class T>
__device__ __forceinline__ float backward_one(float g, T y, std::int64_t i, const Epilogue& e, std::uint64_t key,
                                              float scale) {
  if (e.dropout) g *= dropout_mult(e, key, i, scale);
  if (e.relu && !(to_f32(y) > 0.0f)) g = 0.0f;
  return g;
}

template <class T, int V, class I>
__global__ void epilogue_backward_kernel(T* __restrict__ dy, const T* __restrict__ y, I total, Epilogue e, float scale) {
  const std::uint64_t key = mask_key(e);
  const I packs = total / V;
  for (I g = blockIdx.x * static_cast<I>(blockDim.x) + threadIdx.x; g < packs; g += static_cast<I>(gridDim.x) * blockDim.x) {
    Pack<T, V> d = reinterpret_cast<const Pack<T, V>*>(dy)[g];
    const Pack<T, V> yy = reinterpret_cast<const Pack<T, V>*>(y)[g];
#pragma unroll
    for (int k = 0; k < V; ++k)
      d.v[k] = from_f32<T>(backward_one(to_f32(d.v[k]), yy.v[k], static_cast<std::int64_t>(g) * V + k, e, key, scale));
    reinterpret_cast<Pack<T, V>*>(dy)[g] = d;
  }
}

// grid: (splits, channels). Block (s, c) covers packs of V elements j in [s*chunk, (s+1)*chunk) of
// channel c, where j runs over (n, hw) and maps to the flat index (n*channels + c)*hw + j%hw.
template <class T, int V, class I>
__global__ void epilogue_backward_bias_kernel(T* __restrict__ dy, const T* __restrict__ y, I n, I channels, I hw,
                                              Epilogue e, float scale, float* __restrict__ grad_bias, float* partials,
                                              unsigned* counters) {
  const I c = blockIdx.y, packs = n * hw / V;
  const SplitRange<I> range = split_range(packs);
  const std::uint64_t key = mask_key(e);
  float sum = 0.0f;
  for (I g = range.begin + threadIdx.x; g < range.end; g += blockDim.x) {
    const I j = g * V;
    const I i0 = ((j / hw) * channels + c) * hw + (j % hw);  // a multiple of V: hw and j are
    Pack<T, V> d = reinterpret_cast<const Pack<T, V>*>(dy)[i0 / V];
    const Pack<T, V> yy = reinterpret_cast<const Pack<T, V>*>(y)[i0 / V];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const float gk = backward_one(to_f32(d.v[k]), yy.v[k], static_cast<std::int64_t>(i0) + k, e, key, scale);
      d.v[k] = from_f32<T>(gk);
      sum += gk;
    }
    reinterpret_cast<Pack<T, V>*>(dy)[i0 / V] = d;
  }
  finish_channel_sum(sum, c, grad_bias, partials, counters);
}

float dropout_scale(const Epilogue& e) { return e.dropout_p < 1.0f ? 1.0f / (1.0f - e.dropout_p) : 0.0f; }

}  // namespace

std::int64_t epilogue_partials_count(std::int64_t n, std::int64_t channels, std::int64_t hw) {
  return channels * channel_splits(n * hw);
}

void epilogue_forward(void* y, ElemType t, std::int64_t n, std::int64_t channels, std::int64_t hw, const Epilogue& e,
                      cudaStream_t stream) {
  std::int64_t total = n * channels * hw;
  if (total == 0 || (!e.bias && !e.relu && !e.dropout)) return;
  dispatch_elem(t, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    dispatch_shape<T>(total, hw, {y}, [&](auto v, auto index) {
      constexpr int V = decltype(v)::value;
      using I = decltype(index);
      epilogue_forward_kernel<T, V, I><<<grid_for(total / V), kThreads, 0, stream>>>(
          static_cast<T*>(y), static_cast<I>(total), static_cast<I>(channels), static_cast<I>(hw), e, dropout_scale(e));
    });
  });
  TS_KERNEL_CHECK("epilogue_forward_kernel");
}

void epilogue_backward(void* dy, const void* y, ElemType t, std::int64_t n, std::int64_t channels, std::int64_t hw,
                       const Epilogue& e, float* grad_bias, float* partials, unsigned* counters,
                       cudaStream_t stream) {
  std::int64_t total = n * channels * hw;
  if (e.bias && grad_bias) {
    if (total == 0) {
      TS_CUDA_CHECK(cudaMemsetAsync(grad_bias, 0, sizeof(float) * channels, stream));
      return;
    }
    dim3 grid(static_cast<unsigned>(channel_splits(n * hw)), static_cast<unsigned>(channels));
    dispatch_elem(t, [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      dispatch_shape<T>(total, hw, {dy, y}, [&](auto v, auto index) {
        constexpr int V = decltype(v)::value;
        using I = decltype(index);
        epilogue_backward_bias_kernel<T, V, I><<<grid, kThreads, 0, stream>>>(
            static_cast<T*>(dy), static_cast<const T*>(y), static_cast<I>(n), static_cast<I>(channels), static_cast<I>(hw),
            e, dropout_scale(e), grad_bias, partials, counters);
      });
    });
    TS_KERNEL_CHECK("epilogue_backward_bias_kernel");
    return;
  }
  if (total == 0 || (!e.relu && !e.dropout)) return;
  dispatch_elem(t, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    // The flat pass needs no channel: packs fit wherever the total does.
    dispatch_shape<T>(total, total, {dy, y}, [&](auto v, auto index) {
      constexpr int V = decltype(v)::value;
      using I = decltype(index);
      epilogue_backward_kernel<T, V, I><<<grid_for(total / V), kThreads, 0, stream>>>(
          static_cast<T*>(dy), static_cast<const T*>(y), static_cast<I>(total), e, dropout_scale(e));
    });
  });
  TS_KERNEL_CHECK("epilogue_backward_kernel");
}

}  // namespace ts::kernels
