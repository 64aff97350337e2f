// Softmax cross-entropy, forward and backward fused (training), and the evaluation counters.
// Training: one block of 32 warps; each warp takes rows r = warp, warp+32, ...; a row's max, sum of
// exponentials and gradient are computed by its lanes; per-row losses are added in a fixed order, so
// the mean loss is deterministic and written straight into the caller's slot (no memset, no atomics).
// Evaluation: one warp per row, argmax (first maximum, as torch.argmax) and the row's loss added to
// device counters with atomics; read once at the end of the pass.
#include <math_constants.h>

#include "kernels/common.cuh"
#include "kernels/kernels.h"

#include <type_traits>

namespace ts::kernels {
namespace {

constexpr int kCeThreads = 1024;
constexpr int kCeWarps = kCeThreads / 32;

struct RowStats {
  float max, log_sum;  // log sum exp(x - max)
};

template <class T>
__device__ RowStats row_stats(const T* row, std::int64_t classes, int lane) {
  float m = -CUDART_INF_F;
  for (std::int64_t k = lane; k < classes; k += 32) m = fmaxf(m, to_f32(row[k]));
  m = warp_max(m);
  float s = 0.0f;
  for (std::int64_t k = lane; k < classes; k += 32) s += expf(to_f32(row[k]) - m);
  s = warp_sum(s);
  return {m, logf(s)};
}

template <class T>
__global__ void cross_entropy_kernel(const T* __restrict__ logits, const std::int32_t* __restrict__ labels,
                                     std::int64_t n, std::int64_t classes, T* __restrict__ grad,
                                     float* __restrict__ loss, float grad_mult, const float* grad_scale) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const float inv_n = 1.0f / static_cast<float>(n);
  const float gmul = inv_n * grad_mult * (grad_scale ? *grad_scale : 1.0f);
  float warp_loss = 0.0f;  // meaningful in lane 0
  for (std::int64_t r = warp; r < n; r += kCeWarps) {
    const T* row = logits + r * classes;
    RowStats st = row_stats(row, classes, lane);
    int label = labels[r];
    bool valid = label >= 0 && label < classes;
    if (grad) {
      T* g = grad + r * classes;
      for (std::int64_t k = lane; k < classes; k += 32) {
        float p = expf(to_f32(row[k]) - st.max - st.log_sum);
        g[k] = from_f32<T>((p - (k == label ? 1.0f : 0.0f)) * gmul);
      }
    }
    if (lane == 0) warp_loss += valid ? (st.max + st.log_sum - to_f32(row[label])) : CUDART_NAN_F;
  }
  __shared__ float sums[kCeWarps];
  if (lane == 0) sums[warp] = warp_loss;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int w = 0; w < kCeWarps; ++w) total += sums[w];
    *loss = total * inv_n;
  }
}

template <class T>
__global__ void eval_kernel(const T* __restrict__ logits, const std::int32_t* __restrict__ labels,
                            std::int64_t n, std::int64_t classes, unsigned long long* correct,
                            double* loss_sum) {
  const int lane = threadIdx.x & 31;
  const std::int64_t r = (blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x) >> 5;
  if (r >= n) return;
  const T* row = logits + r * classes;
  // argmax: the largest value, ties to the smallest index
  float best = -CUDART_INF_F;
  std::int64_t best_k = classes;
  for (std::int64_t k = lane; k < classes; k += 32)
    if (to_f32(row[k]) > best) best = to_f32(row[k]), best_k = k;
  for (int o = 16; o > 0; o >>= 1) {
    float ob = __shfl_xor_sync(0xffffffffu, best, o);
    std::int64_t ok = __shfl_xor_sync(0xffffffffu, best_k, o);
    if (ob > best || (ob == best && ok < best_k)) best = ob, best_k = ok;
  }
  RowStats st = row_stats(row, classes, lane);
  if (lane == 0) {
    int label = labels[r];
    bool valid = label >= 0 && label < classes;
    if (valid && best_k == label) atomicAdd(correct, 1ull);
    atomicAdd(loss_sum, valid ? static_cast<double>(st.max + st.log_sum - to_f32(row[label])) : CUDART_NAN);
  }
}

}  // namespace

void cross_entropy_forward_backward(const void* logits, ElemType t, const std::int32_t* labels, std::int64_t n,
                                    std::int64_t classes, void* grad, float* loss, cudaStream_t stream,
                                    float grad_mult, const float* grad_scale) {
  if (n == 0) return;
  dispatch_elem(t, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    cross_entropy_kernel<T><<<1, kCeThreads, 0, stream>>>(static_cast<const T*>(logits), labels, n, classes,
                                                          static_cast<T*>(grad), loss, grad_mult, grad_scale);
  });
  TS_KERNEL_CHECK("cross_entropy_kernel");
}

void eval_accumulate(const void* logits, ElemType t, const std::int32_t* labels, std::int64_t n, std::int64_t classes,
                     unsigned long long* correct, double* loss_sum, cudaStream_t stream) {
  if (n == 0) return;
  dispatch_elem(t, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    eval_kernel<T><<<grid_for(n * 32), kThreads, 0, stream>>>(static_cast<const T*>(logits), labels, n, classes,
                                                              correct, loss_sum);
  });
  TS_KERNEL_CHECK("eval_kernel");
}

}  // namespace ts::kernels
