// Automatic mixed precision: fp32 <-> fp16/bf16 casts, gradient accumulation, and the fp16 optimizer
// step with GradScaler's dynamic loss scaling done entirely on the device.
//
// Why one cooperative launch: a step with any non-finite gradient must be skipped as a whole, so the
// check must finish everywhere before any parameter is written. A grid-wide barrier
// (cooperative_groups::this_grid().sync(), launched with cudaLaunchCooperativeKernel, grid no larger
// than what is co-resident) gives that in one launch, and the skip decision, Adam's step count and
// the new scale never leave the device: the host reads them only at log intervals.
#include <cooperative_groups.h>

#include <type_traits>

#include "kernels/common.cuh"
#include "kernels/kernels.h"
#include "kernels/optimizer_step.cuh"

namespace ts::kernels {
namespace {
namespace cg = cooperative_groups;

template <class T>
__global__ void cast_from_float_kernel(const float* __restrict__ x, T* __restrict__ y, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; i < n;
       i += (std::int64_t)gridDim.x * blockDim.x)
    y[i] = from_f32<T>(x[i]);
}

template <class T>
__global__ void cast_to_float_kernel(const T* __restrict__ x, float* __restrict__ y, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; i < n;
       i += (std::int64_t)gridDim.x * blockDim.x)
    y[i] = to_f32(x[i]);
}

__global__ void grad_accumulate_kernel(float* __restrict__ acc, const float* __restrict__ g, std::int64_t n,
                                       bool first) {
  for (std::int64_t i = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; i < n;
       i += (std::int64_t)gridDim.x * blockDim.x)
    acc[i] = first ? g[i] : acc[i] + g[i];
}

template <class LP>
__global__ void amp_optimizer_kernel(OptimizerArgs a, AmpScalerArgs s, AmpDeviceState* state, float* scale_out,
                                     float* __restrict__ p, const float* __restrict__ grad,
                                     const float* __restrict__ accum, float* __restrict__ m, float* __restrict__ v,
                                     LP* __restrict__ lp, std::int64_t n) {
  cg::grid_group grid = cg::this_grid();
  const std::int64_t first = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x;
  const std::int64_t stride = (std::int64_t)gridDim.x * blockDim.x;
  // (1) inf/NaN check of the scaled gradients
  bool bad = false;
  for (std::int64_t i = first; i < n; i += stride) {
    float g = grad[i];
    if (accum) g = accum[i] + g;
    bad |= !isfinite(g);
  }
  if (__syncthreads_or(bad) && threadIdx.x == 0) atomicOr(&state->found_inf, 1u);
  grid.sync();
  __shared__ bool skip;
  __shared__ float inv_scale, step_size, bc2_sqrt;
  __shared__ bool first_step;
  if (threadIdx.x == 0) {
    volatile AmpDeviceState* vs = state;
    skip = vs->found_inf != 0;
    const float scale = vs->scale;
    inv_scale = 1.0f / scale;
    const long long t = vs->optimizer_steps + 1;
    first_step = t == 1;
    step_size = static_cast<float>(a.lr / (1.0 - pow(static_cast<double>(a.beta1), static_cast<double>(t))));
    bc2_sqrt = static_cast<float>(sqrt(1.0 - pow(static_cast<double>(a.beta2), static_cast<double>(t))));
  }
  __syncthreads();
  grid.sync();  // every block has read the state: block 0 may now advance it
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    const float scale = state->scale;
    if (scale_out) *scale_out = skip ? -scale : scale;
    if (skip) {
      state->scale = scale * s.backoff_factor;
      state->growth_tracker = 0;
      state->skipped_steps += 1;
    } else {
      state->optimizer_steps += 1;
      if (++state->growth_tracker == s.growth_interval) {
        const float grown = scale * s.growth_factor;
        if (isfinite(grown)) state->scale = grown;
        state->growth_tracker = 0;
      }
    }
    state->found_inf = 0;
  }
  if (skip) return;
  // (2) unscale and update
  for (std::int64_t i = first; i < n; i += stride) {
    float g = grad[i];
    if (accum) g = accum[i] + g;
    g *= inv_scale;
    const float w = a.kind == OptimizerArgs::sgd ? sgd_element(a, p[i], g, m, i, first_step)
                                                 : adam_element(a, p[i], g, m, v, i, step_size, bc2_sqrt);
    p[i] = w;
    lp[i] = from_f32<LP>(w);
  }
}

}  // namespace

void cast_from_float(const float* x, void* y, ElemType yt, std::int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  dispatch_elem(yt, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    cast_from_float_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(x, static_cast<T*>(y), n);
  });
  TS_KERNEL_CHECK("cast_from_float_kernel");
}

void cast_to_float(const void* x, ElemType xt, float* y, std::int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  dispatch_elem(xt, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    cast_to_float_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(static_cast<const T*>(x), y, n);
  });
  TS_KERNEL_CHECK("cast_to_float_kernel");
}

void grad_accumulate(float* acc, const float* g, std::int64_t n, bool first, cudaStream_t stream) {
  if (n == 0) return;
  grad_accumulate_kernel<<<grid_for((n + 3) / 4, kThreads, 4096), kThreads, 0, stream>>>(acc, g, n, first);
  TS_KERNEL_CHECK("grad_accumulate_kernel");
}

void amp_optimizer_update(const OptimizerArgs& a, const AmpScalerArgs& s, AmpDeviceState* state, float* scale_out,
                          float* param, const float* grad, const float* accum, float* state1, float* state2,
                          void* lp, ElemType lpt, std::int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  if (!lp || lpt == ElemType::f32) throw DeviceError("amp_optimizer_update needs the fp16/bf16 weight copy");
  dispatch_elem(lpt, [&](auto* tag) {
    using LP = std::remove_pointer_t<decltype(tag)>;
    auto kernel = amp_optimizer_kernel<LP>;
    // Co-resident grid: blocks per SM from the occupancy calculator times the SMs (cached per type).
    static int max_blocks = 0;
    if (max_blocks == 0) {
      int dev = 0, sms = 0, per_sm = 0;
      TS_CUDA_CHECK(cudaGetDevice(&dev));
      TS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
      TS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0));
      max_blocks = sms * (per_sm > 0 ? per_sm : 1);
    }
    unsigned grid = grid_for((n + 3) / 4, kThreads, max_blocks);
    LP* low = static_cast<LP*>(lp);
    OptimizerArgs aa = a;
    AmpScalerArgs ss = s;
    void* args[] = {&aa, &ss, &state, &scale_out, &param, &grad, &accum, &state1, &state2, &low, &n};
    TS_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), dim3(grid), dim3(kThreads), args,
                                              0, stream));
  });
  TS_KERNEL_CHECK("amp_optimizer_kernel");
}

}  // namespace ts::kernels
