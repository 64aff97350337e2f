// Model spec: a JSON list of layers with PyTorch's class and parameter names, and shape inference
// that validates it. A spec looks like
//   {"name": "SimpleCNN", "input": [3, 32, 32], "layers": [
//     {"type": "Conv2d", "name": "conv1", "in_channels": 3, "out_channels": 32, "kernel_size": 3, "padding": 1},
//     {"type": "ReLU"}, {"type": "MaxPool2d", "kernel_size": 2}, ...]}
// Defaults are PyTorch's (stride 1 / stride = kernel_size for pooling, bias true, Dropout p 0.5,
// BatchNorm eps 1e-5 momentum 0.1, Flatten start_dim 1). Parameter names follow PyTorch:
// "<layer name>.weight", "<layer name>.bias"; a layer without "name" is named by its index ("3").
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/tensor.h"

namespace ts {

enum class LayerType : std::uint8_t {
  Conv2d, BatchNorm2d, ReLU, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, Dropout, Flatten, Linear
};
const char* layer_type_name(LayerType t);

struct LayerSpec {
  LayerType type = LayerType::ReLU;
  std::string name;  // PyTorch module name; parameter names derive from it
  // Conv2d
  std::int64_t in_channels = 0, out_channels = 0;
  std::array<std::int64_t, 2> kernel_size{1, 1}, stride{1, 1}, padding{0, 0};
  bool bias = true;  // Conv2d, Linear
  // BatchNorm2d
  std::int64_t num_features = 0;
  double eps = 1e-5, momentum = 0.1;
  // Dropout
  double p = 0.5;
  // Flatten
  std::int64_t start_dim = 1;
  // Linear
  std::int64_t in_features = 0, out_features = 0;
  // AdaptiveAvgPool2d: output size (only 1x1 is supported, as global average pooling)
  std::array<std::int64_t, 2> output_size{1, 1};
};

struct ModelSpec {
  std::string name = "model";
  Shape input{3, 32, 32};  // one sample, without the batch dimension
  std::vector<LayerSpec> layers;
};

/// Parses a spec. `source` names the file (or "<embedded>") in error messages.
/// Throws InputError on malformed JSON (with the byte offset), ModelSpecError on an unknown layer
/// type or a bad parameter (with the layer index and type). Does not run shape inference.
ModelSpec parse_model_spec(std::string_view json, std::string_view source);
/// Reads and parses a spec file. Throws InputError when it cannot be read.
ModelSpec load_model_spec(const std::string& path);
/// Writes a spec back as JSON (parse_model_spec(to_json(s)) == s).
std::string to_json(const ModelSpec& spec);

/// Per-layer result of shape inference; shapes exclude the batch dimension.
struct LayerShape {
  Shape input, output;
  std::int64_t parameters = 0;     // learnable parameter count
  std::int64_t forward_flops = 0;  // per sample, multiply-add counted as 2 FLOPs
};

/// Infers every layer's output shape. Throws ModelSpecError with the layer index, its type and the
/// expected vs given size ("layer 7 (Linear): in_features is 4000 but its input has 4096 features").
/// The last layer's output must be [num_classes].
std::vector<LayerShape> infer_shapes(const ModelSpec& spec, std::int64_t num_classes = 10);

/// The seed's SimpleCNN (DESIGN.md), the embedded default (same as resources/models/simple_cnn.json).
ModelSpec simple_cnn_spec();

}  // namespace ts
