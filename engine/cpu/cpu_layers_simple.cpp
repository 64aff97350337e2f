// Layers on own loops: MaxPool2d (see below), Dropout (counter-based mask from dropout_hash.h, so the CPU and
// CUDA backends drop the same elements for the same seed, step and layer) and Flatten (a no-op on
// flat data; on [C, H, W] samples, which the backend keeps in NHWC, it transposes to NCHW order so
// that features are numbered as PyTorch numbers them).
#include <cstring>
#include <limits>

#include "engine/cpu/cpu_layers.h"
#include "engine/cpu/cpu_ops.h"
#include "kernels/dropout_hash.h"

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

// MaxPool2d on NHWC storage with PyTorch's semantics: windows scan kh then kw, the first maximum
// wins (strictly greater replaces; NaN propagates), padding never wins. Own loops rather than
// oneDNN's: oneDNN 2.6's AVX2 max pooling in training mode (with its workspace) measured 8.7 ms
// forward + 7.4 ms backward for SimpleCNN's pool1 at batch 128 on this AMD EPYC host (its masked
// workspace stores are slow there), against ~0.6 ms for this loop; a fifth of the whole step.
class MaxPoolLayer final : public CpuLayer {
 public:
  explicit MaxPoolLayer(const LayerBuild& b) : b_(b) {
    y_ = buffer_of(b, b.output, DType::f32, MemoryCategory::activations);
    dx_ = buffer_of(b, b.input, DType::f32, MemoryCategory::activations);
    argmax_ = buffer_of(b, b.output, DType::i32, MemoryCategory::workspace);
  }
  float* forward(float* x, std::int64_t n, bool) override {
    const std::int64_t C = b_.input[0], OH = b_.output[1], OW = b_.output[2], in = numel(b_.input);
    float* y = y_.data_as<float>();
    std::int32_t* arg = argmax_.data_as<std::int32_t>();
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < n * OH; ++r)
      for (std::int64_t ow = 0; ow < OW; ++ow) {
        const std::int64_t o = (r * OW + ow) * C;
        window_max(x + (r / OH) * in, r % OH, ow, y + o, arg + o);
      }
    return y_.data_as<float>();
  }
  float* backward(float* dy, std::int64_t n, bool need_dx) override {
    if (!need_dx) return nullptr;
    const std::int64_t C = b_.input[0], in = numel(b_.input), out = numel(b_.output);
    float* dx = dx_.data_as<float>();
    const std::int32_t* arg = argmax_.data_as<std::int32_t>();
#pragma omp parallel for schedule(static)
    for (std::int64_t s = 0; s < n; ++s) {  // per sample, so overlapping windows never race
      float* dxs = dx + s * in;
      std::memset(dxs, 0, static_cast<std::size_t>(in) * sizeof(float));
      for (std::int64_t o = s * out; o < (s + 1) * out; ++o)
        if (arg[o] >= 0) dxs[arg[o] * C + o % C] += dy[o];
    }
    return dx;
  }

 private:
  /// Max over the window of output (oh, ow) for every channel of one sample; `arg` gets the input
  /// pixel index ih*W + iw of the maximum. Branch-free inner loop over channels (vectorised).
  void window_max(const float* xs, std::int64_t oh, std::int64_t ow, float* y, std::int32_t* arg) const {
    const LayerSpec& l = *b_.spec;
    const std::int64_t C = b_.input[0], H = b_.input[1], W = b_.input[2];
    bool first = true;
    for (std::int64_t kh = 0; kh < l.kernel_size[0]; ++kh) {
      const std::int64_t ih = oh * l.stride[0] - l.padding[0] + kh;
      if (ih < 0 || ih >= H) continue;
      for (std::int64_t kw = 0; kw < l.kernel_size[1]; ++kw) {
        const std::int64_t iw = ow * l.stride[1] - l.padding[1] + kw;
        if (iw < 0 || iw >= W) continue;
        const float* px = xs + (ih * W + iw) * C;
        const auto pix = static_cast<std::int32_t>(ih * W + iw);
        if (first) {
          for (std::int64_t c = 0; c < C; ++c) y[c] = px[c], arg[c] = pix;
          first = false;
          continue;
        }
        for (std::int64_t c = 0; c < C; ++c) {
          const float v = px[c], m = y[c];
          const bool take = (v > m) | ((v != v) & (m == m));  // NaN wins, as in PyTorch
          y[c] = take ? v : m;
          arg[c] = take ? pix : arg[c];
        }
      }
    }
    if (first)  // only padding in the window (PyTorch forbids padding > kernel/2, so never)
      for (std::int64_t c = 0; c < C; ++c) y[c] = -std::numeric_limits<float>::infinity(), arg[c] = -1;
  }

  LayerBuild b_;
  Tensor y_, dx_, argmax_;
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

std::unique_ptr<CpuLayer> make_maxpool_layer(const LayerBuild& b) { return std::make_unique<MaxPoolLayer>(b); }
std::unique_ptr<CpuLayer> make_dropout_layer(const LayerBuild& b) { return std::make_unique<DropoutLayer>(b); }
std::unique_ptr<CpuLayer> make_flatten_layer(const LayerBuild& b) { return std::make_unique<FlattenLayer>(b); }

}  // namespace ts::cpu
