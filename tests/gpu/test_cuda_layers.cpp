// Every layer type of the CUDA backend, forward and backward, against the naive double-precision
// reference (tests/common/naive_layers), run with allow_tf32=false and deterministic algorithms.
// Tolerances per tensor (relative, with a floor of 1 % of the tensor's largest magnitude):
//   output and dL/dx 1e-4 (fp32 sums of at most a few hundred terms), parameter gradients 1e-3
//   (sums over N*H*W), BatchNorm 1e-3 (cuDNN's fp32 statistics), whole SimpleCNN 2e-3.
#include "gpu/gpu_test_util.h"
#include "kernels/dropout_hash.h"

namespace ts::gputest {
namespace {

struct Tolerances {
  double out = 1e-4, dx = 1e-4, grad = 1e-3;
};

void check_model(const ModelSpec& spec, std::int64_t n, Tolerances tol = {}, bool check_eval = false) {
  NetworkOptions opt = exact_options(n);
  auto net = make_cuda_network(spec, opt);
  ref::RefModel r(spec);
  r.set(net->parameters());
  r.set(net->buffers());
  r.seed = opt.seed;
  r.dropout_step = 0;
  Shape xs{n};
  xs.insert(xs.end(), spec.input.begin(), spec.input.end());
  ref::RefTensor x = ref::random_tensor(xs, 42);
  HostTensor y = net->forward(ref::to_host(x), true);
  ref::RefTensor yr = r.forward(x, true);
  expect_close("output", y, yr, tol.out);
  ref::RefTensor dy = ref::random_tensor(yr.shape, 43);
  HostTensor dx = net->backward(ref::to_host(dy));
  ref::RefTensor dxr = r.backward(dy);
  expect_close("dL/dx", dx, dxr, tol.dx);
  for (const auto& g : net->gradients()) {
    ASSERT_TRUE(r.grads.count(g.name)) << g.name;
    expect_close("gradient " + g.name, g.tensor, r.grads.at(g.name), tol.grad);
  }
  for (const auto& b : net->buffers()) expect_close("buffer " + b.name, b.tensor, r.buffers.at(b.name), tol.out);
  if (check_eval) {
    HostTensor ye = net->forward(ref::to_host(x), false);
    expect_close("eval output", ye, r.forward(x, false), tol.out);
  }
}

TEST(CudaLayers, Conv2dPadded) {
  TS_SKIP_WITHOUT_GPU();
  check_model(model({3, 12, 12}, {conv("conv", 3, 8, 3, 1, 1)}), 4);
}

TEST(CudaLayers, Conv2dStridedWithoutBias) {
  TS_SKIP_WITHOUT_GPU();
  check_model(model({4, 11, 9}, {conv("conv", 4, 6, 5, 2, 2, false)}), 3);
}

TEST(CudaLayers, Conv2dFusedReluDropout) {
  TS_SKIP_WITHOUT_GPU();
  check_model(model({3, 8, 8}, {conv("conv", 3, 5, 3, 1, 1), simple(LayerType::ReLU), simple(LayerType::Dropout, 0.3)}),
              4, {}, true);
}

TEST(CudaLayers, Linear) {
  TS_SKIP_WITHOUT_GPU();
  check_model(model({37}, {linear("fc", 37, 19)}), 5);
}

TEST(CudaLayers, FlattenLinearReluDropoutLinear) {
  TS_SKIP_WITHOUT_GPU();
  LayerSpec flat = simple(LayerType::Flatten);
  check_model(model({2, 4, 4}, {flat, linear("fc1", 32, 24), simple(LayerType::ReLU), simple(LayerType::Dropout, 0.25),
                                linear("fc2", 24, 10, false)}),
              6, {}, true);
}

TEST(CudaLayers, ReluStandalone) {
  TS_SKIP_WITHOUT_GPU();
  check_model(model({3, 5, 5}, {simple(LayerType::ReLU)}), 4);
}

TEST(CudaLayers, DropoutStandalone) {
  TS_SKIP_WITHOUT_GPU();
  check_model(model({3, 7, 7}, {simple(LayerType::Dropout, 0.4)}), 4, {}, true);
}

TEST(CudaLayers, MaxPool2d) {
  TS_SKIP_WITHOUT_GPU();
  check_model(model({3, 8, 8}, {pool(LayerType::MaxPool2d, 2, 2)}), 4);
  check_model(model({2, 9, 9}, {pool(LayerType::MaxPool2d, 3, 2, 1)}), 2);
}

TEST(CudaLayers, MaxPoolThenReluIsNotFused) {
  TS_SKIP_WITHOUT_GPU();
  check_model(model({3, 8, 8}, {pool(LayerType::MaxPool2d, 2, 2), simple(LayerType::ReLU)}), 3);
}

TEST(CudaLayers, AvgPool2dCountsPadding) {
  TS_SKIP_WITHOUT_GPU();
  check_model(model({3, 8, 8}, {pool(LayerType::AvgPool2d, 3, 2, 1)}), 4);
}

TEST(CudaLayers, AdaptiveAvgPool2d) {
  TS_SKIP_WITHOUT_GPU();
  LayerSpec l;
  l.type = LayerType::AdaptiveAvgPool2d;
  check_model(model({5, 6, 7}, {l}), 3);
}

TEST(CudaLayers, BatchNorm2dTrainAndEval) {
  TS_SKIP_WITHOUT_GPU();
  Tolerances t;
  t.out = t.dx = t.grad = 1e-3;
  check_model(model({4, 6, 6}, {batchnorm("bn", 4), simple(LayerType::ReLU)}), 5, t, true);
}

TEST(CudaLayers, ConvBatchNormReluPoolLinear) {
  TS_SKIP_WITHOUT_GPU();
  Tolerances t;
  t.out = t.dx = t.grad = 1e-3;
  check_model(model({3, 8, 8}, {conv("c", 3, 4, 3, 1, 1, false), batchnorm("bn", 4), simple(LayerType::ReLU),
                                pool(LayerType::MaxPool2d, 2, 2), simple(LayerType::Flatten), linear("fc", 64, 10)}),
              4, t, true);
}

// The whole seed model: forward, mean cross-entropy and every parameter gradient, dropout active.
TEST(CudaLayers, SimpleCnnGradientsMatchReference) {
  TS_SKIP_WITHOUT_GPU();
  const ModelSpec spec = simple_cnn_spec();
  const std::int64_t n = 8;
  NetworkOptions opt = exact_options(n);
  auto net = make_cuda_network(spec, opt);
  ref::RefModel r(spec);
  r.set(net->parameters());
  r.seed = opt.seed;
  r.dropout_step = 0;
  ref::RefTensor x = ref::random_tensor({n, 3, 32, 32}, 5);
  std::vector<std::int32_t> labels{0, 1, 2, 3, 4, 5, 6, 9};
  HostTensor logits;
  float loss = net->forward_backward_loss(ref::to_host(x), labels, &logits);
  ref::RefTensor lr = r.forward(x, true);
  ref::RefTensor dlogits;
  double loss_ref = ref::cross_entropy(lr, labels, &dlogits);
  r.backward(dlogits);
  expect_close("logits", logits, lr, 1e-4);
  EXPECT_NEAR(loss, loss_ref, 1e-5 * std::max(1.0, std::fabs(loss_ref)));
  for (const auto& g : net->gradients()) expect_close("gradient " + g.name, g.tensor, r.grads.at(g.name), 2e-3);
}

TEST(CudaLayers, DropoutMaskEqualsHash) {
  TS_SKIP_WITHOUT_GPU();
  const float p = 0.35f;
  const ModelSpec spec = model({4, 16, 16}, {simple(LayerType::Dropout, p)});
  NetworkOptions opt = exact_options(3, 99);
  auto net = make_cuda_network(spec, opt);
  HostTensor ones({3, 4, 16, 16}, std::vector<float>(3 * 4 * 16 * 16, 1.0f));
  for (std::uint64_t step = 0; step < 2; ++step) {
    HostTensor y = net->forward(ones, true);
    const std::uint64_t key = dropout_key(opt.seed, step, 0);
    const float scale = 1.0f / (1.0f - p);
    std::int64_t kept = 0;
    for (std::int64_t i = 0; i < y.numel(); ++i) {
      float expect = dropout_uniform(key, static_cast<std::uint64_t>(i)) >= p ? scale : 0.0f;
      ASSERT_EQ(y.data[i], expect) << "element " << i << " at step " << step;
      kept += expect != 0.0f;
    }
    EXPECT_NEAR(static_cast<double>(kept) / y.numel(), 1.0 - p, 0.05);
    net->optimizer_step();  // the mask is keyed by the optimizer step count
  }
  HostTensor eval = net->forward(ones, false);
  for (float v : eval.data) ASSERT_EQ(v, 1.0f);
  net->set_dropout_enabled(false);
  HostTensor off = net->forward(ones, true);
  for (float v : off.data) ASSERT_EQ(v, 1.0f);
}

}  // namespace
}  // namespace ts::gputest
