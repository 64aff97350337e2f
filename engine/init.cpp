// PyTorch's default parameter initialisation, reproduced on the host so every backend starts from
// the same weights for the same seed. Sources: torch/nn/modules/conv.py and linear.py
// reset_parameters(): kaiming_uniform_(weight, a=sqrt(5)) gives bound = gain*sqrt(3/fan_in) with
// gain = sqrt(2/(1+a^2)) = sqrt(1/3), i.e. bound = 1/sqrt(fan_in); bias ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
// torch/nn/modules/batchnorm.py: weight 1, bias 0, running_mean 0, running_var 1.
#include <cmath>
#include <random>

#include "engine/network.h"

namespace ts {
namespace {

HostTensor uniform(Shape shape, double bound, std::mt19937_64& rng) {
  HostTensor t(std::move(shape));
  std::uniform_real_distribution<double> dist(-bound, bound);
  for (auto& v : t.data) v = static_cast<float>(dist(rng));
  return t;
}

HostTensor filled(Shape shape, float value) {
  HostTensor t(std::move(shape));
  for (auto& v : t.data) v = value;
  return t;
}

}  // namespace

std::vector<NamedTensor> initial_parameters(const ModelSpec& spec, std::uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 0x1234567ull);
  std::vector<NamedTensor> out;
  for (const auto& l : spec.layers) {
    switch (l.type) {
      case LayerType::Conv2d: {
        const std::int64_t fan_in = l.in_channels * l.kernel_size[0] * l.kernel_size[1];
        const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
        out.push_back({l.name + ".weight",
                       uniform({l.out_channels, l.in_channels, l.kernel_size[0], l.kernel_size[1]}, bound, rng)});
        if (l.bias) out.push_back({l.name + ".bias", uniform({l.out_channels}, bound, rng)});
        break;
      }
      case LayerType::Linear: {
        const double bound = 1.0 / std::sqrt(static_cast<double>(l.in_features));
        out.push_back({l.name + ".weight", uniform({l.out_features, l.in_features}, bound, rng)});
        if (l.bias) out.push_back({l.name + ".bias", uniform({l.out_features}, bound, rng)});
        break;
      }
      case LayerType::BatchNorm2d:
        out.push_back({l.name + ".weight", filled({l.num_features}, 1.0f)});
        out.push_back({l.name + ".bias", filled({l.num_features}, 0.0f)});
        break;
      default: break;
    }
  }
  return out;
}

std::vector<NamedTensor> initial_buffers(const ModelSpec& spec) {
  std::vector<NamedTensor> out;
  for (const auto& l : spec.layers) {
    if (l.type != LayerType::BatchNorm2d) continue;
    out.push_back({l.name + ".running_mean", filled({l.num_features}, 0.0f)});
    out.push_back({l.name + ".running_var", filled({l.num_features}, 1.0f)});
  }
  return out;
}

}  // namespace ts
