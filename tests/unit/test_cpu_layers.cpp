// The CPU backend's layers against the naive double-precision reference (tests/common), one layer
// type (or a tiny stack) per test, forward and backward (input gradient and parameter gradients);
// and the reference's own backward passes against central finite differences.
// Tolerances: fp32 oneDNN vs double reference, |a - b| <= kTol * max(1, |b|) (values are O(1));
// finite differences (h = 1e-6, double) vs analytic, kFdTol likewise.
#include <gtest/gtest.h>

#include <cmath>

#include "base/errors.h"
#include "common/naive_layers.h"
#include "engine/network.h"
#include "kernels/dropout_hash.h"

namespace ts {
namespace {

using ref::RefTensor;

constexpr double kTol = 1e-4;    // fp32 vs double
constexpr double kFdTol = 1e-6;  // double analytic vs double finite differences
constexpr double kFdTolFp32 = 2e-4;  // fp32 backend vs double finite differences

LayerSpec conv(std::int64_t in, std::int64_t out, std::array<std::int64_t, 2> k, std::array<std::int64_t, 2> s,
               std::array<std::int64_t, 2> p, bool bias = true) {
  LayerSpec l;
  l.type = LayerType::Conv2d;
  l.name = "conv";
  l.in_channels = in;
  l.out_channels = out;
  l.kernel_size = k;
  l.stride = s;
  l.padding = p;
  l.bias = bias;
  return l;
}

LayerSpec pool(LayerType t, std::int64_t k, std::int64_t s, std::int64_t p) {
  LayerSpec l;
  l.type = t;
  l.name = "pool";
  l.kernel_size = {k, k};
  l.stride = {s, s};
  l.padding = {p, p};
  return l;
}

LayerSpec simple(LayerType t, std::string name) {
  LayerSpec l;
  l.type = t;
  l.name = std::move(name);
  return l;
}

LayerSpec linear(std::int64_t in, std::int64_t out, bool bias = true, std::string name = "fc") {
  LayerSpec l;
  l.type = LayerType::Linear;
  l.name = std::move(name);
  l.in_features = in;
  l.out_features = out;
  l.bias = bias;
  return l;
}

LayerSpec batchnorm(std::int64_t c) {
  LayerSpec l;
  l.type = LayerType::BatchNorm2d;
  l.name = "bn";
  l.num_features = c;
  return l;
}

ModelSpec model(Shape input, std::vector<LayerSpec> layers) {
  ModelSpec s;
  s.name = "test";
  s.input = std::move(input);
  s.layers = std::move(layers);
  return s;
}

std::unique_ptr<Network> make_net(const ModelSpec& spec, std::int64_t max_batch, std::uint64_t seed = 7) {
  NetworkOptions o;
  o.max_batch_size = max_batch;
  o.seed = seed;
  return make_cpu_network(spec, o);
}

Shape batch_shape(std::int64_t n, const Shape& s) {
  Shape r{n};
  r.insert(r.end(), s.begin(), s.end());
  return r;
}

void expect_close(const HostTensor& got, const RefTensor& want, double tol, const std::string& what) {
  const auto c = ref::compare(got, want, 1.0);
  ASSERT_TRUE(c.shape_ok) << what << ": shape " << shape_string(got.shape) << " vs " << shape_string(want.shape);
  EXPECT_LE(c.max_rel, tol) << what << ": worst element " << c.worst_index << " got "
                            << got.data[static_cast<std::size_t>(std::max<std::int64_t>(c.worst_index, 0))]
                            << " want " << want.v[static_cast<std::size_t>(std::max<std::int64_t>(c.worst_index, 0))];
}

double dot(const RefTensor& a, const RefTensor& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.v.size(); ++i) s += a.v[i] * b.v[i];
  return s;
}

// Runs `spec` on the CPU backend and on the reference from the same parameters: forward (training),
// backward from a random dy; compares output, dx and every parameter gradient. Then checks the
// reference's and the backend's dx and parameter gradients against finite differences of the
// reference's L = sum(y * dy).
void check_against_reference(const ModelSpec& spec, std::int64_t n, std::uint64_t seed, bool check_fd = true) {
  auto net = make_net(spec, n);
  ref::RefModel rm(spec);
  rm.set(net->parameters());
  rm.set(net->buffers());
  rm.seed = 7;
  const RefTensor x = ref::from_host(ref::to_host(ref::random_tensor(batch_shape(n, spec.input), seed)));
  const HostTensor y = net->forward(ref::to_host(x), true);
  const RefTensor y_ref = rm.forward(x, true);
  expect_close(y, y_ref, kTol, "forward output");
  const RefTensor dy = ref::from_host(ref::to_host(ref::random_tensor(y_ref.shape, seed + 100)));
  const HostTensor dx = net->backward(ref::to_host(dy));
  const RefTensor dx_ref = rm.backward(dy);
  expect_close(dx, dx_ref, kTol, "dx");
  const auto grads = net->gradients();
  ASSERT_EQ(grads.size(), rm.grads.size());
  for (const auto& g : grads) {
    ASSERT_TRUE(rm.grads.count(g.name)) << g.name;
    expect_close(g.tensor, rm.grads.at(g.name), kTol, "gradient " + g.name);
  }
  if (!check_fd) return;
  // Finite differences of the reference (buffers restored so BatchNorm's running stats do not drift).
  const auto buffers0 = rm.buffers;
  auto loss_of_x = [&](const RefTensor& xv) { rm.buffers = buffers0; return dot(rm.forward(xv, true), dy); };
  const RefTensor dx_fd = ref::numerical_gradient(loss_of_x, x);
  EXPECT_LE(ref::compare(dx_ref.v, dx_fd.v, 1.0).max_rel, kFdTol) << "reference dx vs finite differences";
  expect_close(dx, dx_fd, kFdTolFp32, "backend dx vs finite differences");
  for (const auto& g : grads) {
    const RefTensor p0 = rm.params.at(g.name);
    auto loss_of_p = [&](const RefTensor& pv) {
      rm.params[g.name] = pv;
      rm.buffers = buffers0;
      return dot(rm.forward(x, true), dy);
    };
    const RefTensor g_fd = ref::numerical_gradient(loss_of_p, p0);
    rm.params[g.name] = p0;
    EXPECT_LE(ref::compare(rm.grads.at(g.name).v, g_fd.v, 1.0).max_rel, kFdTol) << "reference " << g.name << " vs FD";
    expect_close(g.tensor, g_fd, kFdTolFp32, "backend " + g.name + " vs finite differences");
  }
}

// ---- the reference on its own -----------------------------------------------------------------

TEST(NaiveLayers, ConvForwardByHand) {
  // 1x1x3x3 input, 2x2 all-ones kernel, bias 0.5, stride 1, no padding: sums of 2x2 windows.
  RefTensor x({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  RefTensor w({1, 1, 2, 2}, {1, 1, 1, 1});
  RefTensor b({1}, {0.5});
  const RefTensor y = ref::conv2d_forward(x, w, b, {});
  ASSERT_EQ(y.shape, (Shape{1, 1, 2, 2}));
  EXPECT_EQ(y.v, (std::vector<double>{12.5, 16.5, 24.5, 28.5}));
}

TEST(NaiveLayers, MaxPoolTiesGoToFirstMaximum) {
  RefTensor x({1, 1, 2, 2}, {3, 3, 3, 3});
  const RefTensor dx = ref::maxpool2d_backward(RefTensor({1, 1, 1, 1}, {1.0}), x, {2, 2, 2, 2, 0, 0});
  EXPECT_EQ(dx.v, (std::vector<double>{1, 0, 0, 0}));
}

TEST(NaiveLayers, AvgPoolCountsPadding) {
  RefTensor x({1, 1, 2, 2}, {4, 4, 4, 4});
  const RefTensor y = ref::avgpool2d_forward(x, {2, 2, 2, 2, 1, 1});  // each window holds one 4 and 3 pads
  ASSERT_EQ(y.shape, (Shape{1, 1, 2, 2}));
  for (double v : y.v) EXPECT_DOUBLE_EQ(v, 1.0);
}

TEST(NaiveLayers, CrossEntropyGradientMatchesFiniteDifferences) {
  const RefTensor z = ref::random_tensor({3, 5}, 11, -2, 2);
  const std::vector<std::int32_t> labels{0, 4, 2};
  RefTensor g;
  const double loss = ref::cross_entropy(z, labels, &g);
  EXPECT_GT(loss, 0.0);
  const RefTensor g_fd = ref::numerical_gradient([&](const RefTensor& t) { return ref::cross_entropy(t, labels); }, z);
  EXPECT_LE(ref::compare(g.v, g_fd.v, 1.0).max_rel, 1e-7);
  // Uniform logits: loss = log(K).
  EXPECT_NEAR(ref::cross_entropy(RefTensor({1, 5}), {3}), std::log(5.0), 1e-12);
}

TEST(NaiveLayers, BatchNormBackwardMatchesFiniteDifferences) {
  const RefTensor x = ref::random_tensor({3, 2, 2, 3}, 5);
  const RefTensor gamma({2}, {1.5, -0.5}), beta({2}, {0.1, 0.2}), dy = ref::random_tensor({3, 2, 2, 3}, 6);
  RefTensor rm({2}), rv({2}, {1, 1});
  ref::BatchNormCache cache;
  ref::batchnorm2d_forward_train(x, gamma, beta, 1e-5, 0.1, rm, rv, &cache);
  RefTensor dg, db;
  const RefTensor dx = ref::batchnorm2d_backward(dy, gamma, cache, &dg, &db);
  auto f = [&](const RefTensor& xv) {
    RefTensor a({2}), b({2}, {1, 1});
    return dot(ref::batchnorm2d_forward_train(xv, gamma, beta, 1e-5, 0.1, a, b, nullptr), dy);
  };
  EXPECT_LE(ref::compare(dx.v, ref::numerical_gradient(f, x).v, 1.0).max_rel, 1e-6);
}

// ---- the backend against the reference ------------------------------------------------------

TEST(CpuLayers, Conv2dStridePaddingBias) {
  check_against_reference(model({3, 7, 7}, {conv(3, 4, {3, 3}, {2, 2}, {1, 1})}), 2, 1);
}

TEST(CpuLayers, Conv2dRectangularNoBias) {
  check_against_reference(model({2, 6, 5}, {conv(2, 3, {3, 2}, {1, 2}, {0, 1}, false)}), 3, 2);
}

TEST(CpuLayers, Linear) { check_against_reference(model({6}, {linear(6, 4)}), 5, 3); }

TEST(CpuLayers, LinearNoBias) { check_against_reference(model({6}, {linear(6, 3, false)}), 2, 4); }

TEST(CpuLayers, ReLU) { check_against_reference(model({2, 3, 4}, {simple(LayerType::ReLU, "relu")}), 3, 5); }

TEST(CpuLayers, MaxPool2dPadded) {
  check_against_reference(model({2, 7, 7}, {pool(LayerType::MaxPool2d, 3, 2, 1)}), 2, 6);
}

TEST(CpuLayers, MaxPool2dDefault) {
  check_against_reference(model({3, 8, 8}, {pool(LayerType::MaxPool2d, 2, 2, 0)}), 2, 7);
}

TEST(CpuLayers, MaxPool2dTiesRouteToFirstMaximum) {
  // Integer-valued input with many ties in each window; no finite differences (not differentiable).
  ModelSpec spec = model({1, 4, 4}, {pool(LayerType::MaxPool2d, 2, 2, 0)});
  auto net = make_net(spec, 1);
  HostTensor x({1, 1, 4, 4}, {1, 1, 0, 2, 1, 1, 2, 2, 5, 3, 4, 4, 5, 5, 4, 4});
  const HostTensor y = net->forward(x, true);
  EXPECT_EQ(y.data, (std::vector<float>{1, 2, 5, 4}));
  const HostTensor dx = net->backward(HostTensor({1, 1, 2, 2}, {1, 2, 3, 4}));
  const RefTensor want = ref::maxpool2d_backward(ref::from_host(HostTensor({1, 1, 2, 2}, {1, 2, 3, 4})),
                                                 ref::from_host(x), {2, 2, 2, 2, 0, 0});
  expect_close(dx, want, 0.0, "maxpool ties dx");
}

TEST(CpuLayers, AvgPool2dCountIncludePad) {
  check_against_reference(model({2, 7, 7}, {pool(LayerType::AvgPool2d, 3, 2, 1)}), 2, 8);
}

TEST(CpuLayers, AdaptiveAvgPool2d) {
  check_against_reference(model({3, 5, 4}, {simple(LayerType::AdaptiveAvgPool2d, "gap")}), 2, 9);
}

TEST(CpuLayers, BatchNorm2dTrainingForwardBackward) {
  check_against_reference(model({3, 4, 5}, {batchnorm(3)}), 4, 10);
}

TEST(CpuLayers, FlattenThenLinear) {
  check_against_reference(model({2, 3, 3}, {simple(LayerType::Flatten, "flat"), linear(18, 4)}), 3, 11);
}

TEST(CpuLayers, DropoutTrainingMatchesHashMask) {
  LayerSpec d = simple(LayerType::Dropout, "drop");
  d.p = 0.3;
  check_against_reference(model({4, 3, 3}, {d}), 3, 12);
}

TEST(CpuLayers, TinyCnnStack) {
  LayerSpec d = simple(LayerType::Dropout, "drop");
  d.p = 0.25;
  ModelSpec spec = model({2, 6, 6}, {conv(2, 3, {3, 3}, {1, 1}, {1, 1}), batchnorm(3), simple(LayerType::ReLU, "r"),
                                     pool(LayerType::MaxPool2d, 2, 2, 0), d, simple(LayerType::Flatten, "f"),
                                     linear(27, 4)});
  check_against_reference(spec, 3, 13, /*check_fd=*/false);
}

}  // namespace
}  // namespace ts
