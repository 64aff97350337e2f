// Which MaxPool2d layers the CUDA backend runs as the fused tail of the convolution before them
// (kernels/pool/fused_pool.h: bias + ReLU + 2x2 max pool with a uint8 index, one pass each way): the
// pattern Conv2d -> ReLU -> MaxPool2d(kernel 2, stride 2, no padding) on an input of even height and
// width. Pure functions of the spec, so that CPU tests check the rule without a GPU; the CUDA plan
// (engine/cuda/cuda_network_plan.cpp) asks fuses_max_pool at each MaxPool2d while it builds its ops.
// Everything else (average pooling, other windows, a Dropout or BatchNorm between, a ReLU or Dropout
// after the pool) keeps the unfused path: epilogue, then cuDNN pooling.
#pragma once
#include <cstddef>
#include <vector>

#include "engine/model_spec.h"

namespace ts {

/// Whether `pool` on a per-sample input [C, H, W] is a window the fused kernels compute: MaxPool2d,
/// kernel 2x2, stride 2x2, padding 0, H and W even (every element in exactly one window).
bool max_pool_fusable(const LayerSpec& pool, const Shape& input);

/// Whether layer `i` of `spec` is a MaxPool2d that fuses: max_pool_fusable on its input `input`, and
/// layers i-1 and i-2 are a ReLU and a Conv2d (the ReLU joins the convolution's tail, then the pool).
bool fuses_max_pool(const ModelSpec& spec, std::size_t i, const Shape& input);

/// The spec indices of the MaxPool2d layers that fuse, in order; shapes by infer_shapes(spec, 0)
/// (throws ModelSpecError as it does). SimpleCNN: {2, 5}.
std::vector<int> fused_max_pool_layers(const ModelSpec& spec);

/// The environment's switch, TRAINSCOPE_FUSED_POOL: "0", "off" or "false" turn the fusion off (the
/// unfused path, for speed comparisons); unset or anything else leaves it on. Read at each call.
bool fused_pool_from_env();

}  // namespace ts
