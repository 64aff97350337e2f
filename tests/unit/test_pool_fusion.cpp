// The rule that decides which MaxPool2d layers the CUDA plan fuses into the convolution before them
// (engine/pool_fusion.h), its environment switch, and PyTorch's window rule that the fused kernels use
// (kernels/pool/window_max.h): ties to the first maximum, NaN wins. CPU only: the CUDA plan itself needs
// a GPU (tests/gpu/test_fused_pool_gpu.cpp counts its ops).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include "engine/model_spec.h"
#include "engine/pool_fusion.h"
#include "kernels/pool/window_max.h"

namespace ts {
namespace {

LayerSpec conv(std::int64_t in, std::int64_t out, std::int64_t pad = 1) {
  LayerSpec l;
  l.type = LayerType::Conv2d;
  l.in_channels = in, l.out_channels = out, l.kernel_size = {3, 3}, l.padding = {pad, pad};
  return l;
}
LayerSpec pool(LayerType t, std::int64_t k, std::int64_t stride, std::int64_t pad = 0) {
  LayerSpec l;
  l.type = t;
  l.kernel_size = {k, k}, l.stride = {stride, stride}, l.padding = {pad, pad};
  return l;
}
LayerSpec simple(LayerType t) {
  LayerSpec l;
  l.type = t;
  return l;
}
LayerSpec batchnorm(std::int64_t c) {
  LayerSpec l;
  l.type = LayerType::BatchNorm2d;
  l.num_features = c;
  return l;
}
ModelSpec model(Shape input, std::vector<LayerSpec> layers) {
  ModelSpec s;
  s.input = std::move(input);
  s.layers = std::move(layers);
  for (std::size_t i = 0; i < s.layers.size(); ++i) s.layers[i].name = std::to_string(i);
  return s;
}
const LayerSpec kMax2 = pool(LayerType::MaxPool2d, 2, 2);
const LayerSpec kRelu = simple(LayerType::ReLU);

TEST(PoolFusion, SimpleCnnFusesBothPools) {
  EXPECT_EQ(fused_max_pool_layers(simple_cnn_spec()), (std::vector<int>{2, 5}));
}

TEST(PoolFusion, OnlyConvReluMaxPoolOfTwoByTwoFuses) {
  EXPECT_EQ(fused_max_pool_layers(model({3, 8, 8}, {conv(3, 4), kRelu, kMax2})), (std::vector<int>{2}));
  // Conv without a bias still fuses (the kernels take a null bias).
  LayerSpec no_bias = conv(3, 4);
  no_bias.bias = false;
  EXPECT_EQ(fused_max_pool_layers(model({3, 8, 8}, {no_bias, kRelu, kMax2})), (std::vector<int>{2}));
  const std::vector<std::pair<std::string, ModelSpec>> unfused = {
      {"average pooling", model({3, 8, 8}, {conv(3, 4), kRelu, pool(LayerType::AvgPool2d, 2, 2)})},
      {"global average pooling", model({3, 8, 8}, {conv(3, 4), kRelu, simple(LayerType::AdaptiveAvgPool2d)})},
      {"padding 1", model({3, 8, 8}, {conv(3, 4), kRelu, pool(LayerType::MaxPool2d, 2, 2, 1)})},
      {"stride 1", model({3, 8, 8}, {conv(3, 4), kRelu, pool(LayerType::MaxPool2d, 2, 1)})},
      {"kernel 3", model({3, 8, 8}, {conv(3, 4), kRelu, pool(LayerType::MaxPool2d, 3, 2)})},
      {"odd height and width", model({3, 9, 9}, {conv(3, 4), kRelu, kMax2})},
      {"no ReLU", model({3, 8, 8}, {conv(3, 4), kMax2})},
      {"Dropout before the pool", model({3, 8, 8}, {conv(3, 4), kRelu, simple(LayerType::Dropout), kMax2})},
      {"BatchNorm between", model({3, 8, 8}, {conv(3, 4), batchnorm(4), kRelu, kMax2})},
      {"a ReLU with no convolution", model({3, 8, 8}, {kRelu, kMax2})},
      {"a pool first", model({3, 8, 8}, {kMax2, kRelu})},
  };
  for (const auto& [what, spec] : unfused) EXPECT_TRUE(fused_max_pool_layers(spec).empty()) << what;
}

TEST(PoolFusion, OddHeightOrWidthKeepsTheUnfusedPath) {
  // 30 -> 15 after the first pool: the first fuses, the second (odd input) does not.
  EXPECT_EQ(fused_max_pool_layers(model({3, 30, 30}, {conv(3, 4), kRelu, kMax2, conv(4, 4), kRelu, kMax2})),
            (std::vector<int>{2}));
  EXPECT_TRUE(fused_max_pool_layers(model({3, 8, 9}, {conv(3, 4), kRelu, kMax2})).empty()) << "odd width";
  EXPECT_TRUE(fused_max_pool_layers(model({3, 9, 8}, {conv(3, 4), kRelu, kMax2})).empty()) << "odd height";
  EXPECT_TRUE(max_pool_fusable(kMax2, {4, 8, 8}));
  EXPECT_TRUE(max_pool_fusable(kMax2, {1, 2, 2}));
  EXPECT_FALSE(max_pool_fusable(kMax2, {4, 8, 7}));
  EXPECT_FALSE(max_pool_fusable(kMax2, {4, 7, 8}));
  EXPECT_FALSE(max_pool_fusable(kMax2, {4, 0, 8}));
  EXPECT_FALSE(max_pool_fusable(kMax2, {64}));
  LayerSpec wide = kMax2;
  wide.kernel_size = {2, 3};
  EXPECT_FALSE(max_pool_fusable(wide, {4, 8, 8}));
  LayerSpec tall = kMax2;
  tall.stride = {2, 1};
  EXPECT_FALSE(max_pool_fusable(tall, {4, 8, 8}));
}

TEST(PoolFusion, EnvironmentSwitch) {
  const char* old = std::getenv("TRAINSCOPE_FUSED_POOL");
  const std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
  unsetenv("TRAINSCOPE_FUSED_POOL");
  EXPECT_TRUE(fused_pool_from_env());
  for (const char* off : {"0", "off", "false"}) {
    setenv("TRAINSCOPE_FUSED_POOL", off, 1);
    EXPECT_FALSE(fused_pool_from_env()) << off;
  }
  for (const char* on : {"1", "on", ""}) {
    setenv("TRAINSCOPE_FUSED_POOL", on, 1);
    EXPECT_TRUE(fused_pool_from_env()) << on;
  }
  if (saved)
    setenv("TRAINSCOPE_FUSED_POOL", saved->c_str(), 1);
  else
    unsetenv("TRAINSCOPE_FUSED_POOL");
}

// PyTorch's max_pool2d (max_pool_forward_nchw): a later element wins only when strictly greater or NaN.
TEST(PoolFusion, WindowMaxTakesTheFirstOfEqualMaximaAndNaN) {
  using kernels::window_max4;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  auto check = [](kernels::WindowMax m, float value, int index, const char* what) {
    if (std::isnan(value))
      EXPECT_TRUE(std::isnan(m.value)) << what;
    else
      EXPECT_EQ(m.value, value) << what;
    EXPECT_EQ(m.index, index) << what;
  };
  check(window_max4(1, 2, 3, 4), 4, 3, "increasing");
  check(window_max4(4, 3, 2, 1), 4, 0, "decreasing");
  check(window_max4(0, 0, 0, 0), 0, 0, "all zero (ReLU of a negative window): the first");
  check(window_max4(1, 2, 2, 1), 2, 1, "a tie: the first");
  check(window_max4(3, 1, 3, 3), 3, 0, "three equal: the first");
  check(window_max4(1, nan, 2, 3), nan, 1, "NaN wins");
  check(window_max4(nan, 5, nan, 1), nan, 2, "the last NaN is the index");
  check(window_max4(-inf, -inf, -inf, -inf), -inf, 0, "all -inf: the first");
  check(window_max4(-1, -0.0f, 0.0f, -2), -0.0f, 1, "+0 is not greater than -0");
  EXPECT_TRUE(std::signbit(window_max4(-1, -0.0f, 0.0f, -2).value));
  check(window_max4(-3, -2, -5, -4), -2, 1, "negative values");
}

}  // namespace
}  // namespace ts
