// Optimizer updates as one launch over the flat parameter buffer (all layers' parameters are
// allocated contiguously, likewise gradients and state), with the maths of engine/optim.h
// (torch.optim.SGD / Adam / AdamW, single-tensor form). Step-dependent scalars (Adam's bias
// corrections) are computed on the host and passed as arguments, so nothing is read back.
#include "kernels/common.cuh"
#include "kernels/kernels.h"

namespace ts::kernels {
namespace {

__global__ void sgd_kernel(OptimizerArgs a, float* __restrict__ p, const float* __restrict__ grad,
                           float* __restrict__ buf, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; i < n;
       i += (std::int64_t)gridDim.x * blockDim.x) {
    float g = grad[i];
    if (a.weight_decay != 0.0f) g += a.weight_decay * p[i];
    if (a.momentum != 0.0f) {
      float b = a.first_step ? g : a.momentum * buf[i] + (1.0f - a.dampening) * g;
      buf[i] = b;
      g = a.nesterov ? g + a.momentum * b : b;
    }
    p[i] -= a.lr * g;
  }
}

__global__ void adam_kernel(OptimizerArgs a, float* __restrict__ p, const float* __restrict__ grad,
                            float* __restrict__ m, float* __restrict__ v, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; i < n;
       i += (std::int64_t)gridDim.x * blockDim.x) {
    float g = grad[i];
    float w = p[i];
    if (a.kind == OptimizerArgs::adamw) w *= 1.0f - a.lr * a.weight_decay;
    else if (a.weight_decay != 0.0f) g += a.weight_decay * w;
    float mi = a.beta1 * m[i] + (1.0f - a.beta1) * g;
    float vi = a.beta2 * v[i] + (1.0f - a.beta2) * g * g;
    m[i] = mi;
    v[i] = vi;
    w -= a.step_size * mi / (sqrtf(vi) / a.bias_correction2_sqrt + a.eps);
    p[i] = w;
  }
}

}  // namespace

void optimizer_update(const OptimizerArgs& a, float* param, const float* grad, float* state1, float* state2,
                      std::int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  // ~4 elements per thread keeps the grid small while every SM has several blocks.
  unsigned grid = grid_for((n + 3) / 4, kThreads, 4096);
  if (a.kind == OptimizerArgs::sgd) {
    sgd_kernel<<<grid, kThreads, 0, stream>>>(a, param, grad, state1, n);
    TS_KERNEL_CHECK("sgd_kernel");
  } else {
    adam_kernel<<<grid, kThreads, 0, stream>>>(a, param, grad, state1, state2, n);
    TS_KERNEL_CHECK("adam_kernel");
  }
}

}  // namespace ts::kernels
