// The fusion rule for Conv2d -> ReLU -> MaxPool2d (see pool_fusion.h).
#include "engine/pool_fusion.h"

#include <cstdlib>
#include <string>

namespace ts {

bool max_pool_fusable(const LayerSpec& pool, const Shape& input) {
  if (pool.type != LayerType::MaxPool2d || input.size() != 3) return false;
  for (int d = 0; d < 2; ++d)
    if (pool.kernel_size[d] != 2 || pool.stride[d] != 2 || pool.padding[d] != 0) return false;
  return input[1] >= 2 && input[2] >= 2 && input[1] % 2 == 0 && input[2] % 2 == 0;
}

bool fuses_max_pool(const ModelSpec& spec, std::size_t i, const Shape& input) {
  if (i < 2 || i >= spec.layers.size()) return false;
  return spec.layers[i - 2].type == LayerType::Conv2d && spec.layers[i - 1].type == LayerType::ReLU &&
         max_pool_fusable(spec.layers[i], input);
}

std::vector<int> fused_max_pool_layers(const ModelSpec& spec) {
  const std::vector<LayerShape> shapes = infer_shapes(spec, 0);
  std::vector<int> fused;
  for (std::size_t i = 0; i < spec.layers.size(); ++i)
    if (fuses_max_pool(spec, i, shapes[i].input)) fused.push_back(static_cast<int>(i));
  return fused;
}

bool fused_pool_from_env() {
  const char* v = std::getenv("TRAINSCOPE_FUSED_POOL");
  if (!v) return true;
  const std::string s(v);
  return !(s == "0" || s == "off" || s == "false");
}

}  // namespace ts
