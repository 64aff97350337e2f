// The model builder's in-place parameter text of one layer, e.g. "in_channels=3 out_channels=32
// kernel_size=3 padding=1" (PyTorch's names; a pair as "3x5"; booleans true/false). Parsing goes
// through the engine's spec parser, so defaults and checks are exactly those of a spec file.
#pragma once
#include <string>

#include "engine/model_spec.h"

namespace ts::gui {

/// The layer's parameters as "key=value" words separated by spaces (the layer's name excluded).
std::string format_layer_params(const LayerSpec& layer);

/// Parses `text` for a layer of `type` named `name`; unspecified keys take PyTorch's defaults.
/// Throws InputError / ModelSpecError with a one-line reason (unknown key, bad value).
LayerSpec parse_layer_params(LayerType type, const std::string& name, const std::string& text);

/// A new layer of `type` whose sizes fit `input` (the previous layer's output, without the batch
/// dimension): in_channels / num_features / in_features from the input; sensible PyTorch-like defaults.
LayerSpec default_layer(LayerType type, const Shape& input);

/// All layer types, in the order the builder offers them.
const std::vector<LayerType>& all_layer_types();

}  // namespace ts::gui
