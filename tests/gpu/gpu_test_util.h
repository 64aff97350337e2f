// Helpers of the CUDA backend's tests: the skip macro every test starts with (no GPU or no driver:
// SKIPPED, never FAILED), exact-maths network options (no TF32, deterministic algorithms) and a
// comparison against the naive double-precision reference with a named tolerance per tensor.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "base/errors.h"
#include "common/naive_layers.h"
#include "engine/network.h"

#define TS_SKIP_WITHOUT_GPU()                                 \
  do {                                                        \
    std::string ts_why_;                                      \
    if (!::ts::cuda_available(&ts_why_)) GTEST_SKIP() << ts_why_; \
  } while (0)

namespace ts::gputest {

/// fp32 without TF32, deterministic algorithms: what the reference comparisons run with.
inline NetworkOptions exact_options(std::int64_t max_batch = 8, std::uint64_t seed = 1234) {
  NetworkOptions o;
  o.max_batch_size = max_batch;
  o.allow_tf32 = false;
  o.deterministic = true;
  o.seed = seed;
  return o;
}

/// Relative error with a floor of `floor_frac` of the reference's largest magnitude, so that values
/// near zero are judged on the tensor's own scale: |a-b| / max(floor, |b|) <= tol.
inline void expect_close(const std::string& what, const HostTensor& a, const ref::RefTensor& b, double tol,
                         double floor_frac = 1e-2) {
  ASSERT_EQ(a.shape, b.shape) << what << ": shape";
  double scale = 0;
  for (double v : b.v) scale = std::max(scale, std::fabs(v));
  ref::Comparison c = ref::compare(a, b, std::max(1e-12, floor_frac * scale));
  EXPECT_TRUE(c.shape_ok) << what;
  EXPECT_LE(c.max_rel, tol) << what << ": max_abs " << c.max_abs << " max_rel " << c.max_rel << " at element "
                            << c.worst_index << " (tolerance " << tol << ", scale " << scale << ")";
}

inline const NamedTensor* find(const std::vector<NamedTensor>& v, const std::string& name) {
  for (const auto& t : v)
    if (t.name == name) return &t;
  return nullptr;
}

inline LayerSpec conv(std::string name, std::int64_t in, std::int64_t out, std::int64_t k, std::int64_t stride = 1,
                      std::int64_t pad = 0, bool bias = true) {
  LayerSpec l;
  l.type = LayerType::Conv2d;
  l.name = std::move(name);
  l.in_channels = in, l.out_channels = out;
  l.kernel_size = {k, k}, l.stride = {stride, stride}, l.padding = {pad, pad};
  l.bias = bias;
  return l;
}
inline LayerSpec linear(std::string name, std::int64_t in, std::int64_t out, bool bias = true) {
  LayerSpec l;
  l.type = LayerType::Linear;
  l.name = std::move(name);
  l.in_features = in, l.out_features = out, l.bias = bias;
  return l;
}
inline LayerSpec pool(LayerType t, std::int64_t k, std::int64_t stride, std::int64_t pad = 0) {
  LayerSpec l;
  l.type = t;
  l.kernel_size = {k, k}, l.stride = {stride, stride}, l.padding = {pad, pad};
  return l;
}
inline LayerSpec simple(LayerType t, double p = 0.5) {
  LayerSpec l;
  l.type = t;
  l.p = p;
  return l;
}
inline LayerSpec batchnorm(std::string name, std::int64_t c) {
  LayerSpec l;
  l.type = LayerType::BatchNorm2d;
  l.name = std::move(name);
  l.num_features = c;
  return l;
}
inline ModelSpec model(Shape input, std::vector<LayerSpec> layers) {
  ModelSpec s;
  s.name = "test";
  s.input = std::move(input);
  s.layers = std::move(layers);
  for (std::size_t i = 0; i < s.layers.size(); ++i)
    if (s.layers[i].name.empty()) s.layers[i].name = std::to_string(i);
  return s;
}

}  // namespace ts::gputest
