// Optimizer updates as one launch over the flat parameter buffer (all layers' parameters are
// allocated contiguously, likewise gradients and state), with the maths of engine/optim.h
// (torch.optim.SGD / Adam / AdamW, single-tensor form). Step-dependent scalars (Adam's bias
// corrections) are computed on the host and passed as arguments, so nothing is read back; inside a
// captured CUDA graph (OptimizerArgs::device_t) they come from the device's update counter instead.
// Optional in the same pass: gradients of earlier micro-batches (accumulation) are added, and the
// low-precision copy of the weights (AMP) is rewritten from the updated fp32 master weights.
// The fp16 variant with loss scaling lives in amp.cu (its step count lives on the device).
#include <type_traits>

#include "kernels/common.cuh"
#include "kernels/kernels.h"
#include "kernels/optimizer_step.cuh"

namespace ts::kernels {
namespace {

/// The step's scalars from the device's update counter (a CUDA-graph replay), else `a` as passed.
__device__ __forceinline__ OptimizerArgs step_args(OptimizerArgs a) {
  if (!a.device_t) return a;
  const long long t = *a.device_t + 1;
  a.first_step = t == 1;
  a.step_size = static_cast<float>(a.lr / (1.0 - pow(static_cast<double>(a.beta1), static_cast<double>(t))));
  a.bias_correction2_sqrt = static_cast<float>(sqrt(1.0 - pow(static_cast<double>(a.beta2), static_cast<double>(t))));
  return a;
}

__global__ void advance_step_counters_kernel(long long* counters, bool update) {
  counters[0] += 1;
  if (update) counters[1] += 1;
}

template <class LP>
__global__ void sgd_kernel(OptimizerArgs args, float* __restrict__ p, const float* __restrict__ grad,
                           const float* __restrict__ accum, float* __restrict__ buf, LP* __restrict__ lp,
                           std::int64_t n) {
  const OptimizerArgs a = step_args(args);
  for (std::int64_t i = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; i < n;
       i += (std::int64_t)gridDim.x * blockDim.x) {
    float g = grad[i];
    if (accum) g = accum[i] + g;
    const float w = sgd_element(a, p[i], g, buf, i, a.first_step);
    p[i] = w;
    if (lp) lp[i] = from_f32<LP>(w);
  }
}

template <class LP>
__global__ void adam_kernel(OptimizerArgs args, float* __restrict__ p, const float* __restrict__ grad,
                            const float* __restrict__ accum, float* __restrict__ m, float* __restrict__ v,
                            LP* __restrict__ lp, std::int64_t n) {
  const OptimizerArgs a = step_args(args);
  for (std::int64_t i = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; i < n;
       i += (std::int64_t)gridDim.x * blockDim.x) {
    float g = grad[i];
    if (accum) g = accum[i] + g;
    const float w = adam_element(a, p[i], g, m, v, i, a.step_size, a.bias_correction2_sqrt);
    p[i] = w;
    if (lp) lp[i] = from_f32<LP>(w);
  }
}

}  // namespace

void optimizer_update(const OptimizerArgs& a, float* param, const float* grad, float* state1, float* state2,
                      std::int64_t n, cudaStream_t stream, const float* accum, void* lp, ElemType lpt) {
  if (n == 0) return;
  // ~4 elements per thread keeps the grid small while every SM has several blocks.
  unsigned grid = grid_for((n + 3) / 4, kThreads, 4096);
  dispatch_elem(lp ? lpt : ElemType::f32, [&](auto* tag) {
    using LP = std::remove_pointer_t<decltype(tag)>;
    LP* low = static_cast<LP*>(lp);
    if (a.kind == OptimizerArgs::sgd)
      sgd_kernel<LP><<<grid, kThreads, 0, stream>>>(a, param, grad, accum, state1, low, n);
    else
      adam_kernel<LP><<<grid, kThreads, 0, stream>>>(a, param, grad, accum, state1, state2, low, n);
  });
  TS_KERNEL_CHECK("sgd_kernel / adam_kernel");
}

void advance_step_counters(long long* counters, bool update, cudaStream_t stream) {
  advance_step_counters_kernel<<<1, 1, 0, stream>>>(counters, update);
  TS_KERNEL_CHECK("advance_step_counters_kernel");
}

}  // namespace ts::kernels
