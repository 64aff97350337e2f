// Layers with no oneDNN primitive: Dropout (counter-based mask from dropout_hash.h, so the CPU and
// CUDA backends drop the same elements for the same seed, step and layer) and Flatten (a no-op on
// flat data; on [C, H, W] samples, which the backend keeps in NHWC, it transposes to NCHW order so
// that features are numbered as PyTorch numbers them).
#include "engine/cpu/cpu_layers.h"
#include "engine/cpu/cpu_ops.h"
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
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) {
      const bool keep = p_ < 1.0f && dropout_uniform(key, nchw_index(i)) >= p_;
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
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) dx[i] = mask[i] ? dy[i] * scale : 0.0f;
    return dx;
  }

 private:
  /// The NCHW flat index of storage element i (storage is NHWC for [C, H, W] samples).
  std::uint64_t nchw_index(std::int64_t i) const {
    if (b_.input.size() != 3) return static_cast<std::uint64_t>(i);
    const std::int64_t C = b_.input[0], HW = b_.input[1] * b_.input[2];
    const std::int64_t c = i % C, pix = (i / C) % HW, n = i / (C * HW);
    return static_cast<std::uint64_t>((n * C + c) * HW + pix);
  }
  LayerBuild b_;
  float p_;
  bool identity_ = true;
  Tensor y_, dx_, mask_;
};

class FlattenLayer final : public CpuLayer {
 public:
  explicit FlattenLayer(const LayerBuild& b) : b_(b), image_(b.input.size() == 3) {
    if (!image_) return;
    y_ = buffer_of(b, b.output, DType::f32, MemoryCategory::activations);
    dx_ = buffer_of(b, b.input, DType::f32, MemoryCategory::activations);
  }
  float* forward(float* x, std::int64_t n, bool) override {
    if (!image_) return x;
    nhwc_to_nchw(x, y_.data_as<float>(), n, b_.input[0], b_.input[1] * b_.input[2]);
    return y_.data_as<float>();
  }
  float* backward(float* dy, std::int64_t n, bool need_dx) override {
    if (!need_dx) return nullptr;
    if (!image_) return dy;
    nchw_to_nhwc(dy, dx_.data_as<float>(), n, b_.input[0], b_.input[1] * b_.input[2]);
    return dx_.data_as<float>();
  }

 private:
  LayerBuild b_;
  bool image_;
  Tensor y_, dx_;
};

}  // namespace

std::unique_ptr<CpuLayer> make_dropout_layer(const LayerBuild& b) { return std::make_unique<DropoutLayer>(b); }
std::unique_ptr<CpuLayer> make_flatten_layer(const LayerBuild& b) { return std::make_unique<FlattenLayer>(b); }

}  // namespace ts::cpu
