// The pointwise tail of a layer: bias, ReLU and dropout fused into one pass, forward and backward.
// Forward runs in place on the convolution/GEMM output (one launch instead of three). Backward
// applies the dropout mask (recomputed from dropout_hash.h, so nothing is stored), the ReLU mask
// (from the forward output: y > 0) and, for a biased layer, the bias gradient in the same launch.
// The bias reduction is deterministic without a memset: each block of a (split, channel) grid writes
// a partial sum; the last block of a channel to finish (threadfence + counter, as CUDA's
// threadFenceReduction sample) adds the partials in index order and resets the counter.
#include "kernels/common.cuh"
#include "kernels/dropout_hash.h"
#include "kernels/kernels.h"

#include <type_traits>

namespace ts::kernels {
namespace {

constexpr std::int64_t kElemsPerSplit = 2048;  // per block of the bias reduction
constexpr std::int64_t kMaxSplits = 256;

std::int64_t splits_for(std::int64_t per_channel) {
  std::int64_t s = (per_channel + kElemsPerSplit - 1) / kElemsPerSplit;
  return s < 1 ? 1 : (s > kMaxSplits ? kMaxSplits : s);
}

/// The mask's key: fixed at launch, or read from the device's step counter (CUDA-graph replays).
__device__ __forceinline__ std::uint64_t mask_key(const Epilogue& e) {
  if (!e.dropout || !e.dropout_step) return e.dropout_key;
  return ts::dropout_key(e.dropout_seed, static_cast<std::uint64_t>(*e.dropout_step), e.dropout_layer);
}

__device__ __forceinline__ float dropout_mult(const Epilogue& e, std::uint64_t key, std::int64_t i, float scale) {
  return ts::dropout_uniform(key, static_cast<std::uint64_t>(i)) >= e.dropout_p ? scale : 0.0f;
}

template <class T>
__global__ void epilogue_forward_kernel(T* __restrict__ y, std::int64_t total, std::int64_t channels,
                                        std::int64_t hw, Epilogue e, float scale) {
  const std::uint64_t key = mask_key(e);
  for (std::int64_t i = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; i < total;
       i += (std::int64_t)gridDim.x * blockDim.x) {
    float v = to_f32(y[i]);
    if (e.bias) v += e.bias[(i / hw) % channels];
    if (e.relu) v = fmaxf(v, 0.0f);
    if (e.dropout) v *= dropout_mult(e, key, i, scale);
    y[i] = from_f32<T>(v);
  }
}

template <class T>
__device__ __forceinline__ float backward_one(float g, const T* y, std::int64_t i, const Epilogue& e,
                                              std::uint64_t key, float scale) {
  if (e.dropout) g *= dropout_mult(e, key, i, scale);
  if (e.relu && !(to_f32(y[i]) > 0.0f)) g = 0.0f;
  return g;
}

template <class T>
__global__ void epilogue_backward_kernel(T* __restrict__ dy, const T* __restrict__ y, std::int64_t total,
                                         Epilogue e, float scale) {
  const std::uint64_t key = mask_key(e);
  for (std::int64_t i = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; i < total;
       i += (std::int64_t)gridDim.x * blockDim.x)
    dy[i] = from_f32<T>(backward_one(to_f32(dy[i]), y, i, e, key, scale));
}

// grid: (splits, channels). Block (s, c) covers elements j in [s*chunk, (s+1)*chunk) of channel c,
// where j runs over (n, hw) and maps to the flat index (n*channels + c)*hw + j%hw.
template <class T>
__global__ void epilogue_backward_bias_kernel(T* __restrict__ dy, const T* __restrict__ y, std::int64_t n,
                                              std::int64_t channels, std::int64_t hw, Epilogue e, float scale,
                                              float* __restrict__ grad_bias, float* partials,
                                              unsigned* counters) {
  const std::int64_t c = blockIdx.y, splits = gridDim.x, per_channel = n * hw;
  const std::int64_t chunk = (per_channel + splits - 1) / splits;
  const std::int64_t begin = blockIdx.x * chunk;
  const std::int64_t end = min(begin + chunk, per_channel);
  const std::uint64_t key = mask_key(e);
  float sum = 0.0f;
  for (std::int64_t j = begin + threadIdx.x; j < end; j += blockDim.x) {
    std::int64_t i = ((j / hw) * channels + c) * hw + (j % hw);
    float g = backward_one(to_f32(dy[i]), y, i, e, key, scale);
    dy[i] = from_f32<T>(g);
    sum += g;
  }
  __shared__ float warp_sums[kThreads / 32];
  __shared__ bool last;
  sum = warp_sum(sum);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    float block = 0.0f;
    for (int w = 0; w < kThreads / 32; ++w) block += warp_sums[w];
    partials[c * splits + blockIdx.x] = block;
    __threadfence();
    last = atomicAdd(&counters[c], 1u) == static_cast<unsigned>(splits - 1);
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    float total = 0.0f;
    for (std::int64_t s = 0; s < splits; ++s) total += __ldcg(&partials[c * splits + s]);
    grad_bias[c] = total;
    counters[c] = 0;
  }
}

float dropout_scale(const Epilogue& e) { return e.dropout_p < 1.0f ? 1.0f / (1.0f - e.dropout_p) : 0.0f; }

}  // namespace

std::int64_t epilogue_partials_count(std::int64_t n, std::int64_t channels, std::int64_t hw) {
  return channels * splits_for(n * hw);
}

void epilogue_forward(void* y, ElemType t, std::int64_t n, std::int64_t channels, std::int64_t hw, const Epilogue& e,
                      cudaStream_t stream) {
  std::int64_t total = n * channels * hw;
  if (total == 0 || (!e.bias && !e.relu && !e.dropout)) return;
  dispatch_elem(t, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    epilogue_forward_kernel<T><<<grid_for(total), kThreads, 0, stream>>>(static_cast<T*>(y), total, channels, hw, e,
                                                                         dropout_scale(e));
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
    dim3 grid(static_cast<unsigned>(splits_for(n * hw)), static_cast<unsigned>(channels));
    dispatch_elem(t, [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      epilogue_backward_bias_kernel<T><<<grid, kThreads, 0, stream>>>(
          static_cast<T*>(dy), static_cast<const T*>(y), n, channels, hw, e, dropout_scale(e), grad_bias, partials,
          counters);
    });
    TS_KERNEL_CHECK("epilogue_backward_bias_kernel");
    return;
  }
  if (total == 0 || (!e.relu && !e.dropout)) return;
  dispatch_elem(t, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    epilogue_backward_kernel<T><<<grid_for(total), kThreads, 0, stream>>>(static_cast<T*>(dy), static_cast<const T*>(y),
                                                                          total, e, dropout_scale(e));
  });
  TS_KERNEL_CHECK("epilogue_backward_kernel");
}

}  // namespace ts::kernels
