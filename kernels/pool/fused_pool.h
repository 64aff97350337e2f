// Launchers of the fused tail Conv2d -> ReLU -> MaxPool2d(kernel 2, stride 2, no padding) (the kernels
// are in fused_pool.cu beside this header). They replace, on the convolution's raw output, the engine's
// unfused tail (epilogue_forward: bias + ReLU in place; cuDNN max-pool forward; cuDNN max-pool
// backward writing a full-size gradient; epilogue_backward: ReLU mask + bias gradient) with one pass
// each way, and give the same values bit for bit (see fused_pool.cu for why). Like every launcher of
// kernels/: enqueues on `stream`, never synchronises or allocates, checks the launch (DeviceError);
// pointers are device pointers; tensors are NCHW of ElemType t; bias and its gradient fp32.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/kernels.h"

namespace ts::kernels {

/// The convolution's output [n, channels, height, width] that the fused tail pools: height and width
/// even and >= 2 (2x2 windows, stride 2, no padding), channels <= 65535 (the bias gradient's grid).
/// The pooled tensors are [n, channels, height / 2, width / 2].
struct PoolTailShape {
  std::int64_t n = 0, channels = 0, height = 0, width = 0;
  std::int64_t conv_elements() const { return n * channels * height * width; }
  std::int64_t pooled_elements() const { return conv_elements() / 4; }
};

/// Forward. x: the convolution's output before its bias; bias [channels] or null. Each element becomes
/// v = max(x + bias[c], 0) in fp32 rounded to t, as epilogue_forward computes it; y holds the maximum
/// of each 2x2 window of v and index (uint8, y's shape; null in evaluation) its position 0..3,
/// row-major, by PyTorch's rule (kernels/pool/window_max.h: the first of equal maxima, NaN wins).
/// Throws InputError for a shape PoolTailShape does not allow.
void relu_max_pool_forward(const void* x, const float* bias, ElemType t, const PoolTailShape& s, void* y,
                           std::uint8_t* index, cudaStream_t stream);

/// Backward. dy, y and index: the pooled gradient, output and index of the forward. Writes every
/// element of dx [n, channels, height, width]: dy at its window's index where y > 0 (ReLU's gradient:
/// 0 where the ReLU output, here the window's maximum, is 0), 0 elsewhere. When grad_bias is not null
/// it is overwritten with dx summed over n, height and width per channel, in fp32 and deterministically
/// (kernels/channel_sum.cuh): `partials` holds relu_max_pool_partials_count floats and `counters`
/// [channels] must be zero before the first call (each call leaves them zero). The sum walks dx as
/// epilogue_backward walks a [n, channels, height * width] gradient, so it equals the unfused path's
/// bias gradient bit for bit. Throws InputError for a shape PoolTailShape does not allow.
void relu_max_pool_backward(const void* dy, const void* y, const std::uint8_t* index, ElemType t,
                            const PoolTailShape& s, void* dx, float* grad_bias, float* partials, unsigned* counters,
                            cudaStream_t stream);

/// Floats of `partials` for relu_max_pool_backward (epilogue_partials_count of the full-size tensor).
std::int64_t relu_max_pool_partials_count(const PoolTailShape& s);

}  // namespace ts::kernels
