// Shape inference for model specs: output shape, parameter count and forward FLOPs of each layer,
// with errors that name the layer and the expected vs given size. Also the seed's SimpleCNN.
#include <string>

#include "base/errors.h"
#include "engine/model_spec.h"

namespace ts {
namespace {

[[noreturn]] void fail(int i, const LayerSpec& l, const std::string& what) {
  throw ModelSpecError(i, layer_type_name(l.type),
                       "layer " + std::to_string(i) + " (" + layer_type_name(l.type) +
                           (l.name != std::to_string(i) ? " '" + l.name + "'" : "") + "): " + what);
}

void require_chw(int i, const LayerSpec& l, const Shape& in) {
  if (in.size() != 3) fail(i, l, "expects an image input [C, H, W] but its input is " + shape_string(in));
}

/// PyTorch's output size of a convolution or pooling window: floor((n + 2p - k) / s) + 1.
std::int64_t window_out(std::int64_t n, std::int64_t k, std::int64_t s, std::int64_t p) {
  return (n + 2 * p - k) / s + 1;
}

LayerShape infer_window(int i, const LayerSpec& l, const Shape& in, std::int64_t out_c) {
  require_chw(i, l, in);
  LayerShape r{in, {}, 0, 0};
  std::int64_t hw[2];
  for (int d = 0; d < 2; ++d) {
    const std::int64_t n = in[1 + d];
    if (n + 2 * l.padding[d] < l.kernel_size[d])
      fail(i, l, "kernel_size " + std::to_string(l.kernel_size[d]) + " is larger than its padded input " +
                     std::to_string(n + 2 * l.padding[d]) + " (input " + shape_string(in) + ")");
    hw[d] = window_out(n, l.kernel_size[d], l.stride[d], l.padding[d]);
  }
  r.output = {out_c, hw[0], hw[1]};
  return r;
}

LayerShape infer_layer(int i, const LayerSpec& l, const Shape& in) {
  LayerShape r{in, in, 0, 0};
  const std::int64_t n_in = numel(in);
  switch (l.type) {
    case LayerType::Conv2d: {
      require_chw(i, l, in);
      if (in[0] != l.in_channels)
        fail(i, l, "in_channels is " + std::to_string(l.in_channels) + " but its input has " +
                       std::to_string(in[0]) + " channels (input " + shape_string(in) + ")");
      r = infer_window(i, l, in, l.out_channels);
      const std::int64_t k = l.in_channels * l.kernel_size[0] * l.kernel_size[1];
      r.parameters = l.out_channels * k + (l.bias ? l.out_channels : 0);
      r.forward_flops = 2 * k * numel(r.output);
      break;
    }
    case LayerType::BatchNorm2d:
      require_chw(i, l, in);
      if (in[0] != l.num_features)
        fail(i, l, "num_features is " + std::to_string(l.num_features) + " but its input has " +
                       std::to_string(in[0]) + " channels");
      r.parameters = 2 * l.num_features;
      r.forward_flops = 4 * n_in;
      break;
    case LayerType::ReLU: r.forward_flops = n_in; break;
    case LayerType::MaxPool2d:
    case LayerType::AvgPool2d:
      r = infer_window(i, l, in, in.empty() ? 0 : in[0]);
      r.forward_flops = numel(r.output) * l.kernel_size[0] * l.kernel_size[1];
      break;
    case LayerType::AdaptiveAvgPool2d:
      require_chw(i, l, in);
      r.output = {in[0], 1, 1};
      r.forward_flops = n_in;
      break;
    case LayerType::Dropout: r.forward_flops = n_in; break;
    case LayerType::Flatten: r.output = {n_in}; break;
    case LayerType::Linear:
      if (in.size() != 1)
        fail(i, l, "expects a flat input [features] but its input is " + shape_string(in) + " (add a Flatten before it)");
      if (in[0] != l.in_features)
        fail(i, l, "in_features is " + std::to_string(l.in_features) + " but its input has " +
                       std::to_string(in[0]) + " features");
      r.output = {l.out_features};
      r.parameters = l.in_features * l.out_features + (l.bias ? l.out_features : 0);
      r.forward_flops = 2 * l.in_features * l.out_features;
      break;
  }
  for (auto d : r.output)
    if (d <= 0) fail(i, l, "its output " + shape_string(r.output) + " is empty (input " + shape_string(in) + ")");
  return r;
}

}  // namespace

std::vector<LayerShape> infer_shapes(const ModelSpec& spec, std::int64_t num_classes) {
  if (spec.layers.empty()) throw ModelSpecError(-1, "", "the model has no layers");
  std::vector<LayerShape> out;
  Shape cur = spec.input;
  for (std::size_t i = 0; i < spec.layers.size(); ++i) {
    out.push_back(infer_layer(static_cast<int>(i), spec.layers[i], cur));
    cur = out.back().output;
  }
  if (num_classes > 0 && (cur.size() != 1 || cur[0] != num_classes)) {
    const int last = static_cast<int>(spec.layers.size()) - 1;
    fail(last, spec.layers.back(),
         "the model must end with " + std::to_string(num_classes) + " outputs (one per class) but its output is " +
             shape_string(cur));
  }
  return out;
}

ModelSpec simple_cnn_spec() {
  auto conv = [](const char* name, std::int64_t in, std::int64_t out) {
    LayerSpec l;
    l.type = LayerType::Conv2d; l.name = name; l.in_channels = in; l.out_channels = out;
    l.kernel_size = {3, 3}; l.padding = {1, 1};
    return l;
  };
  auto simple = [](LayerType t, std::string name) { LayerSpec l; l.type = t; l.name = std::move(name); return l; };
  auto pool = [](std::string name) {
    LayerSpec l; l.type = LayerType::MaxPool2d; l.name = std::move(name); l.kernel_size = {2, 2}; l.stride = {2, 2};
    return l;
  };
  auto linear = [](const char* name, std::int64_t in, std::int64_t out) {
    LayerSpec l; l.type = LayerType::Linear; l.name = name; l.in_features = in; l.out_features = out;
    return l;
  };
  LayerSpec drop = simple(LayerType::Dropout, "dropout");
  drop.p = 0.25;
  ModelSpec s;
  s.name = "SimpleCNN";
  s.input = {3, 32, 32};
  s.layers = {conv("conv1", 3, 32), simple(LayerType::ReLU, "relu1"), pool("pool1"),
              conv("conv2", 32, 64), simple(LayerType::ReLU, "relu2"), pool("pool2"),
              simple(LayerType::Flatten, "flatten"), linear("fc1", 4096, 512), simple(LayerType::ReLU, "relu3"),
              drop, linear("fc2", 512, 10)};
  return s;
}

}  // namespace ts
