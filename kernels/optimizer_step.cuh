// One element of an optimizer update (torch.optim.SGD / Adam / AdamW, single-tensor form), shared by
// the plain update (optimizer.cu) and the fp16 update with loss scaling (amp.cu), so the maths of
// engine/optim.h is written once on the device. Each takes the fp32 weight and its gradient
// (accumulated, unscaled) and returns the new weight; state is read and written at index i.
#pragma once
#include <cstdint>

#include "kernels/kernels.h"

namespace ts::kernels {

/// SGD: weight decay, then momentum into buf[i] (buf may be null when momentum == 0: never read),
/// Nesterov when asked. first_step: the momentum buffer starts as the gradient.
__device__ __forceinline__ float sgd_element(const OptimizerArgs& a, float w, float g, float* __restrict__ buf,
                                             std::int64_t i, bool first_step) {
  if (a.weight_decay != 0.0f) g += a.weight_decay * w;
  if (a.momentum != 0.0f) {
    const float b = first_step ? g : a.momentum * buf[i] + (1.0f - a.dampening) * g;
    buf[i] = b;
    g = a.nesterov ? g + a.momentum * b : b;
  }
  return w - a.lr * g;
}

/// Adam / AdamW: decoupled (AdamW) or L2 (Adam) weight decay, the moments m[i] and v[i] updated;
/// step_size = lr / (1 - beta1^t) and bc2_sqrt = sqrt(1 - beta2^t) for step t.
__device__ __forceinline__ float adam_element(const OptimizerArgs& a, float w, float g, float* __restrict__ m,
                                              float* __restrict__ v, std::int64_t i, float step_size,
                                              float bc2_sqrt) {
  if (a.kind == OptimizerArgs::adamw) w *= 1.0f - a.lr * a.weight_decay;
  else if (a.weight_decay != 0.0f) g += a.weight_decay * w;
  const float mi = a.beta1 * m[i] + (1.0f - a.beta1) * g;
  const float vi = a.beta2 * v[i] + (1.0f - a.beta2) * g * g;
  m[i] = mi;
  v[i] = vi;
  return w - step_size * mi / (sqrtf(vi) / bc2_sqrt + a.eps);
}

}  // namespace ts::kernels
