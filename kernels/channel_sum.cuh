// What the bias-gradient passes share (kernels/epilogue.cu, kernels/pool/fused_pool.cu): packs of V
// elements loaded at once, the choice of pack width and index type for a tensor [n, channels, hw], and
// the deterministic per-channel sum. The sum runs on a (split, channel) grid: each block writes a
// partial sum, and the last block of a channel to finish (threadfence + counter, as CUDA's
// threadFenceReduction sample) adds the partials in index order and resets the counter, so no memset
// precedes it and the result is the same bit for bit in every run. Both passes walk the elements with
// the same blocks, threads and packs and add them in the same order, so a fused tail's bias gradient
// equals the unfused tail's bit for bit.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "kernels/common.cuh"

namespace ts::kernels {

constexpr std::int64_t kElemsPerSplit = 2048;  // per block of the bias reduction
constexpr std::int64_t kMaxSplits = 256;

/// Blocks per channel of the bias reduction over `per_channel` elements (1..kMaxSplits).
inline std::int64_t channel_splits(std::int64_t per_channel) {
  std::int64_t s = (per_channel + kElemsPerSplit - 1) / kElemsPerSplit;
  return s < 1 ? 1 : (s > kMaxSplits ? kMaxSplits : s);
}

/// V elements of T loaded and stored at once (8 bytes of bf16/fp16, 16 of fp32).
template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

/// Whether V-element packs can walk [n, channels, hw]: each plane's length a multiple of V (so a pack
/// never straddles two channels) and the pointers aligned for a pack.
template <int V>
bool packs_fit(std::int64_t hw, std::initializer_list<const void*> ptrs, std::size_t elem_bytes) {
  if (hw % V != 0) return false;
  for (const void* p : ptrs)
    if (p && reinterpret_cast<std::uintptr_t>(p) % (V * elem_bytes) != 0) return false;
  return true;
}

/// Calls f(V, I) with the pack width (4 or 1) and index type (std::uint32_t or std::int64_t) for a
/// tensor of `total` elements in planes of `hw` at the given pointers. 32-bit indices where the tensor
/// has fewer than 2^31 elements (nearly always): the channel of an element, (i / hw) % channels, is
/// then two 32-bit divisions instead of two 64-bit ones, which are tens of instructions each.
template <class T, class F>
void dispatch_shape(std::int64_t total, std::int64_t hw, std::initializer_list<const void*> ptrs, F&& f) {
  const bool packed = packs_fit<4>(hw, ptrs, sizeof(T));
  if (total >= (std::int64_t{1} << 31)) return f(std::integral_constant<int, 1>{}, std::int64_t{});
  if (packed) return f(std::integral_constant<int, 4>{}, std::uint32_t{});
  f(std::integral_constant<int, 1>{}, std::uint32_t{});
}

/// The range of packs that block (blockIdx.x = split, blockIdx.y = channel) of a bias reduction over
/// `packs` packs of its channel covers: [begin, end).
template <class I>
struct SplitRange {
  I begin, end;
};
template <class I>
__device__ __forceinline__ SplitRange<I> split_range(I packs) {
  const I splits = gridDim.x;
  const I chunk = (packs + splits - 1) / splits;
  const I begin = blockIdx.x * chunk;
  return {begin, min(begin + chunk, packs)};
}

/// The end of every block of a (split, channel) bias reduction of kThreads threads: the block's sum
/// (warp sums, then the warps in order) goes to partials[c * splits + split]; the last block of the
/// channel adds the channel's partials in index order into grad_bias[c] and resets counters[c].
/// Called by every thread of the block with its own running sum.
template <class I>
__device__ __forceinline__ void finish_channel_sum(float sum, I c, float* __restrict__ grad_bias, float* partials,
                                                   unsigned* counters) {
  const I splits = gridDim.x;
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
    for (I s = 0; s < splits; ++s) total += __ldcg(&partials[c * splits + s]);
    grad_bias[c] = total;
    counters[c] = 0;
  }
}

}  // namespace ts::kernels
