// Softmax cross-entropy, forward and backward fused (training), and the evaluation counters.
// Training: one block of 32 warps; each warp takes rows r = warp, warp+32, ...; a row's max, sum of
// exponentials and gradient are computed by its lanes; per-row losses are added in a fixed order, so
// the mean loss is deterministic and written straight into the caller's slot (no memset, no atomics).
// Evaluation: one warp per row, argmax (first maximum, as torch.argmax) and the row's loss added to
// device counters with atomics; read once at the end of the pass.
#include <math_constants.h>

#include "kernels/common.cuh"
#include "kernels/kernels.h"

namespace ts::kernels {
namespace {

constexpr int kCeThreads = 1024;
constexpr int kCeWarps = kCeThreads / 32;

struct RowStats {
  float max, log_sum;  // log sum exp(x - max)
};

__device__ RowStats row_stats(const float* row, std::int64_t classes, int lane) {
  float m = -CUDART_INF_F;
  for (std::int64_t k = lane; k < classes; k += 32) m = fmaxf(m, row[k]);
  m = warp_max(m);
  float s = 0.0f;
  for (std::int64_t k = lane; k < classes; k += 32) s += expf(row[k] - m);
  s = warp_sum(s);
  return {m, logf(s)};
}

__global__ void cross_entropy_kernel(const float* __restrict__ logits, const std::int32_t* __restrict__ labels,
                                     std::int64_t n, std::int64_t classes, float* __restrict__ grad,
                                     float* __restrict__ loss) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const float inv_n = 1.0f / static_cast<float>(n);
  float warp_loss = 0.0f;  // meaningful in lane 0
  for (std::int64_t r = warp; r < n; r += kCeWarps) {
    const float* row = logits + r * classes;
    RowStats st = row_stats(row, classes, lane);
    int label = labels[r];
    bool valid = label >= 0 && label < classes;
    if (grad) {
      float* g = grad + r * classes;
      for (std::int64_t k = lane; k < classes; k += 32) {
        float p = expf(row[k] - st.max - st.log_sum);
        g[k] = (p - (k == label ? 1.0f : 0.0f)) * inv_n;
      }
    }
    if (lane == 0) warp_loss += valid ? (st.max + st.log_sum - row[label]) : CUDART_NAN_F;
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

__global__ void eval_kernel(const float* __restrict__ logits, const std::int32_t* __restrict__ labels,
                            std::int64_t n, std::int64_t classes, unsigned long long* correct,
                            double* loss_sum) {
  const int lane = threadIdx.x & 31;
  const std::int64_t r = (blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x) >> 5;
  if (r >= n) return;
  const float* row = logits + r * classes;
  // argmax: the largest value, ties to the smallest index
  float best = -CUDART_INF_F;
  std::int64_t best_k = classes;
  for (std::int64_t k = lane; k < classes; k += 32)
    if (row[k] > best) best = row[k], best_k = k;
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
    atomicAdd(loss_sum, valid ? static_cast<double>(st.max + st.log_sum - row[label]) : CUDART_NAN);
  }
}

}  // namespace

void cross_entropy_forward_backward(const float* logits, const std::int32_t* labels, std::int64_t n,
                                    std::int64_t classes, float* grad, float* loss, cudaStream_t stream) {
  if (n == 0) return;
  cross_entropy_kernel<<<1, kCeThreads, 0, stream>>>(logits, labels, n, classes, grad, loss);
  TS_KERNEL_CHECK("cross_entropy_kernel");
}

void eval_accumulate(const float* logits, const std::int32_t* labels, std::int64_t n, std::int64_t classes,
                     unsigned long long* correct, double* loss_sum, cudaStream_t stream) {
  if (n == 0) return;
  eval_kernel<<<grid_for(n * 32), kThreads, 0, stream>>>(logits, labels, n, classes, correct, loss_sum);
  TS_KERNEL_CHECK("eval_kernel");
}

}  // namespace ts::kernels
