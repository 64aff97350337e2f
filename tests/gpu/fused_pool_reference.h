// Host references of the fused ReLU + 2x2 max pool (kernels/pool/fused_pool.h) for the GPU tests:
// each element's ReLU output as the unfused epilogue stores it (fp32 sum with the bias, fmax with 0,
// rounded to T), each window's maximum by PyTorch's rule (kernels/pool/window_max.h, the function the
// kernels call), the routed and masked gradient, and the bias gradient summed in double. Also the test
// inputs, with windows made to hit the rule's corners (ties, all negative, NaN, infinities, values that
// differ in fp32 but round to the same bf16/fp16).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "kernels/kernels.h"
#include "kernels/pool/fused_pool.h"
#include "kernels/pool/window_max.h"

namespace ts::gputest::fused_ref {

template <class T>
T from_float(float v);
template <>
inline float from_float<float>(float v) {
  return v;
}
template <>
inline __half from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <>
inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
inline float to_float(float v) {
  return v;
}
inline float to_float(__half v) {
  return __half2float(v);
}
inline float to_float(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

template <class T>
constexpr kernels::ElemType elem_type() {
  if constexpr (std::is_same_v<T, float>)
    return kernels::ElemType::f32;
  else if constexpr (std::is_same_v<T, __half>)
    return kernels::ElemType::f16;
  else
    return kernels::ElemType::bf16;
}
template <class T>
constexpr const char* type_name() {
  return elem_type<T>() == kernels::ElemType::f32 ? "fp32"
                                                  : (elem_type<T>() == kernels::ElemType::f16 ? "fp16" : "bf16");
}

/// Two values the same: equal (so +0 == -0) or both NaN.
inline bool same(float a, float b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

/// The convolution's output [n, c, h, w] and its pooled windows [n, c, h/2, w/2].
struct Geometry {
  std::int64_t n, c, h, w;
  std::int64_t conv() const { return n * c * h * w; }
  std::int64_t pooled() const { return conv() / 4; }
  kernels::PoolTailShape shape() const { return kernels::PoolTailShape{n, c, h, w}; }
  /// Flat index of element k (0..3, row-major) of pooled window q.
  std::int64_t element(std::int64_t q, int k) const {
    const std::int64_t row = q / (w / 2), col = q % (w / 2);
    return (2 * row + k / 2) * w + 2 * col + k % 2;
  }
  std::int64_t channel_of_window(std::int64_t q) const { return (q / ((h / 2) * (w / 2))) % c; }
  /// The pooled window that element e (a flat index of the convolution's output) belongs to.
  std::int64_t window_of(std::int64_t e) const {
    const std::int64_t plane = e / (h * w), p = e % (h * w);
    return plane * (h / 2) * (w / 2) + (p / w / 2) * (w / 2) + (p % w) / 2;
  }
};

/// The inputs of one test: x (the convolution's raw output), bias, the pooled gradient dy.
template <class T>
struct Inputs {
  std::vector<T> x, dy;
  std::vector<float> bias;
  bool has_bias = true;
};

/// Normal values, every 12th window of a kind: 0 four equal maxima, 1 equal maxima at 1 and 3, 2 all
/// negative, 3 a NaN, 4 +inf, 5 -inf, 6 two values 2^-12 apart (one bf16/fp16 value, two fp32 ones),
/// 7 equal maxima at 2 and 3. With more than one channel, channel 0 has no such windows and a bias of
/// -100: its ReLU is 0 everywhere (and its bias gradient exactly 0).
template <class T>
Inputs<T> make_inputs(const Geometry& g, bool has_bias, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(static_cast<std::size_t>(g.conv()));
  for (float& a : v) a = dist(rng);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (std::int64_t q = 0; q < g.pooled(); ++q) {
    if (g.c > 1 && g.channel_of_window(q) == 0) continue;
    auto at = [&](int k) -> float& { return v[static_cast<std::size_t>(g.element(q, k))]; };
    switch (q % 12) {
      case 0:
        at(0) = at(1) = at(2) = at(3) = 0.75f;
        break;
      case 1:
        at(1) = at(3) = 2.5f, at(0) = at(2) = -1.0f;
        break;
      case 2:
        for (int k = 0; k < 4; ++k) at(k) = -8.0f - static_cast<float>(k);
        break;
      case 3:
        at(2) = nan;
        break;
      case 4:
        at(3) = inf;
        break;
      case 5:
        at(0) = -inf;
        break;
      case 6:
        at(0) = at(3) = 0.0f, at(1) = 3.0f, at(2) = 3.0f * (1.0f + 1.0f / 4096.0f);
        break;
      case 7:
        at(0) = at(1) = 1.0f, at(2) = at(3) = 1.5f;
        break;
      default:
        break;
    }
  }
  Inputs<T> in;
  in.has_bias = has_bias;
  for (float a : v) in.x.push_back(from_float<T>(a));
  in.dy.resize(static_cast<std::size_t>(g.pooled()));
  for (T& d : in.dy) d = from_float<T>(dist(rng));
  in.bias.resize(static_cast<std::size_t>(g.c));
  for (float& b : in.bias) b = 0.5f * dist(rng);
  if (g.c > 1) in.bias[0] = -100.0f;
  return in;
}

template <class T>
struct HostForward {
  std::vector<T> relu;  // every element's ReLU output: what the unfused epilogue leaves in place
  std::vector<T> y;
  std::vector<std::uint8_t> index;
};

template <class T>
HostForward<T> host_forward(const Geometry& g, const Inputs<T>& in) {
  HostForward<T> f;
  f.relu.resize(in.x.size());
  for (std::int64_t i = 0; i < g.conv(); ++i) {
    float v = to_float(in.x[static_cast<std::size_t>(i)]);
    if (in.has_bias) v += in.bias[static_cast<std::size_t>((i / (g.h * g.w)) % g.c)];
    f.relu[static_cast<std::size_t>(i)] = from_float<T>(std::fmax(v, 0.0f));  // fmax(NaN, 0) = 0, as fmaxf
  }
  f.y.resize(static_cast<std::size_t>(g.pooled()));
  f.index.resize(f.y.size());
  for (std::int64_t q = 0; q < g.pooled(); ++q) {
    T t[4];
    for (int k = 0; k < 4; ++k) t[k] = f.relu[static_cast<std::size_t>(g.element(q, k))];
    const kernels::WindowMax m = kernels::window_max4(to_float(t[0]), to_float(t[1]), to_float(t[2]), to_float(t[3]));
    f.y[static_cast<std::size_t>(q)] = t[m.index];
    f.index[static_cast<std::size_t>(q)] = m.index;
  }
  return f;
}

template <class T>
struct HostBackward {
  std::vector<T> dx;                       // the fused kernel's output: routed to the index, 0 where y <= 0
  std::vector<T> routed;                   // cuDNN's max-pool gradient: routed to the index, before the ReLU mask
  std::vector<double> grad_bias, abs_sum;  // per channel: the sum of dx and of |dx|
};

template <class T>
HostBackward<T> host_backward(const Geometry& g, const HostForward<T>& f, const std::vector<T>& dy) {
  HostBackward<T> b;
  b.dx.assign(static_cast<std::size_t>(g.conv()), from_float<T>(0.0f));
  b.routed = b.dx;
  b.grad_bias.assign(static_cast<std::size_t>(g.c), 0.0);
  b.abs_sum = b.grad_bias;
  for (std::int64_t q = 0; q < g.pooled(); ++q) {
    const auto e = static_cast<std::size_t>(g.element(q, f.index[static_cast<std::size_t>(q)]));
    const T d = dy[static_cast<std::size_t>(q)];
    b.routed[e] = d;
    if (!(to_float(f.y[static_cast<std::size_t>(q)]) > 0.0f)) continue;
    b.dx[e] = d;
    const auto c = static_cast<std::size_t>(g.channel_of_window(q));
    b.grad_bias[c] += to_float(d);
    b.abs_sum[c] += std::fabs(to_float(d));
  }
  return b;
}

/// cudaMalloc'd bytes, freed on every way out (a failed ASSERT returns early).
class DeviceBytes {
 public:
  explicit DeviceBytes(std::size_t bytes) {
    if (cudaMalloc(&p_, bytes + 256) != cudaSuccess) p_ = nullptr;
  }
  ~DeviceBytes() {
    if (p_) cudaFree(p_);
  }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
  bool ok() const { return p_ != nullptr; }
  /// The buffer `offset` elements of U past its (256-byte aligned) start.
  template <class U>
  U* at(int offset = 0) const {
    return static_cast<U*>(p_) + offset;
  }

 private:
  void* p_ = nullptr;
};

}  // namespace ts::gputest::fused_ref
