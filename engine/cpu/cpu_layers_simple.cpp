// Layers with no oneDNN primitive: Dropout (counter-based mask from dropout_hash.h, so the CPU and
// CUDA backends drop the same elements for the same seed, step and layer) and Flatten (a no-op on
// contiguous NCHW data: the next layer reads the same storage as [N, C*H*W]).
#include "engine/cpu/cpu_layers.h"
#include "engine/dropout_hash.h"

namespace ts::cpu {
namespace {

Tensor buffer_of(const LayerBuild& b, const Shape& per_sample, DType dtype, MemoryCategory category) {
  Shape s{b.max_batch};
  s.insert(s.end(), per_sample.begin(), per_sample.end());
  return Tensor(*b.alloc, dtype, s, category);
}

// Training forward with dropout enabled: y[i] = keep[i] ? x[i] / (1 - p) : 0, keep[i] =
// dropout_uniform(dropout_key(seed, step, layer index), i) >= p over the flat batch index i.
// Otherwise (eval, or disabled for reference tests) the identity.
class DropoutLayer final : public CpuLayer {
 public:
  explicit DropoutLayer(const LayerBuild& b) : b_(b), p_(static_cast<float>(b.spec->p)) {
    y_ = buffer_of(b, b.output, DType::f32, MemoryCategory::activations);
    dx_ = buffer_of(b, b.input, DType::f32, MemoryCategory::activations);
    mask_ = buffer_of(b, b.input, DType::u8, MemoryCategory::workspace);
  }
  float* forward(float* x, std::int64_t n, bool training) override {
    identity_ = !training || !b_.state->dropout_enabled;
    if (identity_) return x;
    const std::int64_t count = n * numel(b_.input);
    const std::uint64_t key = dropout_key(b_.state->seed, static_cast<std::uint64_t>(b_.state->step), b_.index);
    const float scale = p_ < 1.0f ? 1.0f / (1.0f - p_) : 0.0f;
    std::uint8_t* mask = mask_.data_as<std::uint8_t>();
    float* y = y_.data_as<float>();
    for (std::int64_t i = 0; i < count; ++i) {
      const bool keep = p_ < 1.0f && dropout_uniform(key, static_cast<std::uint64_t>(i)) >= p_;
      mask[i] = keep ? 1 : 0;
      y[i] = keep ? x[i] * scale : 0.0f;
    }
    return y;
  }
  float* backward(float* dy, std::int64_t n, bool need_dx) override {
    if (!need_dx) return nullptr;
    if (identity_) return dy;
    const std::int64_t count = n * numel(b_.input);
    const float scale = p_ < 1.0f ? 1.0f / (1.0f - p_) : 0.0f;
    const std::uint8_t* mask = mask_.data_as<std::uint8_t>();
    float* dx = dx_.data_as<float>();
    for (std::int64_t i = 0; i < count; ++i) dx[i] = mask[i] ? dy[i] * scale : 0.0f;
    return dx;
  }

 private:
  LayerBuild b_;
  float p_;
  bool identity_ = true;
  Tensor y_, dx_, mask_;
};

class FlattenLayer final : public CpuLayer {
 public:
  float* forward(float* x, std::int64_t, bool) override { return x; }
  float* backward(float* dy, std::int64_t, bool need_dx) override { return need_dx ? dy : nullptr; }
};

}  // namespace

std::unique_ptr<CpuLayer> make_dropout_layer(const LayerBuild& b) { return std::make_unique<DropoutLayer>(b); }
std::unique_ptr<CpuLayer> make_flatten_layer(const LayerBuild&) { return std::make_unique<FlattenLayer>(); }

}  // namespace ts::cpu
