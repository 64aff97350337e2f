// The max pool fused into a convolution's tail (NetworkOptions::fused_pool) in the CUDA network: the
// plan fuses SimpleCNN's two pools and nothing else, accounts the index bytes as activations, models
// with the pattern match the double-precision reference (tests/common/naive_layers), and SimpleCNN
// trains with and without the fusion to the same losses and parameters bit for bit (fp32, bf16, fp16;
// eager and CUDA-graph steps), with the same evaluation counts.
#include <cmath>
#include <cstring>
#include <vector>

#include "engine/cuda/cuda_network.h"
#include "engine/synthetic_data.h"
#include "gpu/gpu_test_util.h"

namespace ts::gputest {
namespace {

NetworkOptions fused_options(bool fused, std::int64_t max_batch = 8) {
  NetworkOptions o = exact_options(max_batch);
  o.fused_pool = fused;
  return o;
}

const cuda::CudaNetwork& cuda_net(const Network& net) {
  return dynamic_cast<const cuda::CudaNetwork&>(net);
}

std::vector<int> fused_layers(const Network& net) {
  std::vector<int> layers;
  for (const cuda::Op& op : cuda_net(net).ops())
    if (op.fused_pool()) layers.push_back(op.pool_layer);
  return layers;
}

std::int64_t activation_bytes(const Network& net) {
  return net.memory_stats().allocated[static_cast<std::size_t>(MemoryCategory::activations)];
}

TEST(FusedPoolNetwork, SimpleCnnBecomesFourOps) {
  TS_SKIP_WITHOUT_GPU();
  const std::int64_t n = 64;
  auto fused = make_cuda_network(simple_cnn_spec(), fused_options(true, n));
  auto unfused = make_cuda_network(simple_cnn_spec(), fused_options(false, n));
  const auto& ops = cuda_net(*fused).ops();
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(fused_layers(*fused), (std::vector<int>{2, 5}));
  EXPECT_EQ(ops[0].conv_shape, (Shape{32, 32, 32}));
  EXPECT_EQ(ops[0].out_shape, (Shape{32, 16, 16}));
  EXPECT_EQ(ops[1].out_shape, (Shape{4096}));  // Flatten: a view of the pooled output
  EXPECT_EQ(cuda_net(*unfused).ops().size(), 6u);
  EXPECT_TRUE(fused_layers(*unfused).empty());
  // Each fused op keeps the raw output and the pooled one as the unfused conv + pool did, plus one
  // index byte per pooled element: 32x16x16 + 64x8x8 = 12,288 bytes a sample.
  EXPECT_EQ(activation_bytes(*fused) - activation_bytes(*unfused), n * 12288);
}

TEST(FusedPoolNetwork, OtherPoolingKeepsTheUnfusedPath) {
  TS_SKIP_WITHOUT_GPU();
  const std::vector<ModelSpec> specs = {
      model({3, 8, 8}, {conv("c", 3, 4, 3, 1, 1), simple(LayerType::ReLU), pool(LayerType::AvgPool2d, 2, 2)}),
      model({3, 9, 9}, {conv("c", 3, 4, 3, 1, 1), simple(LayerType::ReLU), pool(LayerType::MaxPool2d, 2, 2)}),
      model({3, 8, 8}, {conv("c", 3, 4, 3, 1, 1), simple(LayerType::ReLU), pool(LayerType::MaxPool2d, 2, 2, 1)}),
      model({3, 8, 8}, {conv("c", 3, 4, 3, 1, 1), simple(LayerType::ReLU), pool(LayerType::MaxPool2d, 2, 1)}),
      model({3, 8, 8}, {conv("c", 3, 4, 3, 1, 1), simple(LayerType::ReLU), pool(LayerType::MaxPool2d, 3, 2)}),
      model({3, 8, 8}, {conv("c", 3, 4, 3, 1, 1), pool(LayerType::MaxPool2d, 2, 2)}),
  };
  for (const ModelSpec& spec : specs) {
    auto net = make_cuda_network(spec, fused_options(true));
    EXPECT_TRUE(fused_layers(*net).empty()) << to_json(spec);
  }
}

/// Forward, backward and gradients against the double-precision reference (tolerances of
/// test_cuda_layers.cpp: fp32 sums of a few hundred terms 1e-4, parameter gradients 1e-3), training
/// and evaluation; the spec must fuse `want_fused` pools.
void check_model(const ModelSpec& spec, std::int64_t n, std::size_t want_fused) {
  SCOPED_TRACE(to_json(spec));
  auto net = make_cuda_network(spec, fused_options(true, n));
  ASSERT_EQ(fused_layers(*net).size(), want_fused);
  ref::RefModel r(spec);
  r.set(net->parameters());
  r.seed = 1234;
  Shape xs{n};
  xs.insert(xs.end(), spec.input.begin(), spec.input.end());
  const ref::RefTensor x = ref::random_tensor(xs, 42);
  expect_close("output", net->forward(ref::to_host(x), true), r.forward(x, true), 1e-4);
  const ref::RefTensor dy = ref::random_tensor(r.forward(x, true).shape, 43);
  expect_close("dL/dx", net->backward(ref::to_host(dy)), r.backward(dy), 1e-4);
  for (const auto& g : net->gradients()) {
    ASSERT_TRUE(r.grads.count(g.name)) << g.name;
    expect_close("gradient " + g.name, g.tensor, r.grads.at(g.name), 1e-3);
  }
  expect_close("eval output", net->forward(ref::to_host(x), false), r.forward(x, false), 1e-4);
}

TEST(FusedPoolNetwork, LayersMatchTheReference) {
  TS_SKIP_WITHOUT_GPU();
  const LayerSpec relu = simple(LayerType::ReLU), max2 = pool(LayerType::MaxPool2d, 2, 2);
  check_model(model({3, 8, 8}, {conv("c", 3, 4, 3, 1, 1), relu, max2}), 4, 1);
  check_model(model({3, 8, 8}, {conv("c", 3, 5, 3, 1, 1, false), relu, max2}), 3, 1);  // no bias, 5 channels
  check_model(model({3, 6, 10}, {conv("c", 3, 6, 3, 1, 1), relu, max2}), 1, 1);        // width 10: scalar forward
  check_model(model({3, 8, 8}, {conv("c", 3, 4, 3, 1, 1), relu, max2, relu}), 4, 1);   // a ReLU after: standalone
  check_model(model({3, 8, 8}, {conv("c", 3, 4, 3, 1, 1), relu, max2, simple(LayerType::Dropout, 0.3)}), 4, 1);
  check_model(model({3, 16, 16}, {conv("c1", 3, 8, 3, 1, 1), relu, max2, conv("c2", 8, 8, 3, 1, 1), relu, max2,
                                  simple(LayerType::Flatten), linear("fc", 128, 10)}),
              5, 2);
}

struct Data {
  std::vector<std::uint8_t> images;
  std::vector<std::int32_t> labels;
};

Data make_data(std::int64_t n) {
  Data d;
  d.images.resize(static_cast<std::size_t>(n) * kImageBytes);
  for (std::int64_t i = 0; i < n; ++i) {
    draw_synthetic_image(static_cast<int>(i % 10), 17 * i + 3, d.images.data() + i * kImageBytes);
    d.labels.push_back(static_cast<int>(i % 10));
  }
  return d;
}

struct Trained {
  std::vector<float> losses;
  std::vector<NamedTensor> params;
  EvalResult eval;
};

/// 8 steps of batch 64 with a batch of 40 as the fifth (a short batch), then one evaluation pass.
Trained train(bool fused, AmpMode amp, bool graphs, const Data& d) {
  NetworkOptions o = fused_options(fused, 64);
  o.planned_batch_sizes = {40};
  o.amp = amp;
  o.cuda_graphs = graphs;
  auto net = make_cuda_network(simple_cnn_spec(), o);
  for (int s = 0; s < 8; ++s) {
    const std::int64_t n = s == 4 ? 40 : 64;
    net->train_step(
        Batch{n, d.images.data() + (s % 4) * 64 * kImageBytes, d.labels.data() + (s % 4) * 64, false, 0, s});
  }
  Trained t;
  t.losses = net->drain_step_losses();
  t.params = net->parameters();
  net->begin_eval();
  net->eval_batch(Batch{64, d.images.data(), d.labels.data(), false, 0, 0});
  net->eval_batch(Batch{40, d.images.data() + 64 * kImageBytes, d.labels.data() + 64, false, 0, 1});
  t.eval = net->end_eval();
  return t;
}

// Bit for bit: the fused kernels compute every value as the unfused path does and sum the bias
// gradient in its order (kernels/pool/fused_pool.cu says why). A difference here with
// FusedPoolGpu.SameBitsAsEpilogueAndCudnnPooling passing points at the plan or the buffers.
TEST(FusedPoolNetwork, TrainsAsTheUnfusedPathBitForBit) {
  TS_SKIP_WITHOUT_GPU();
  const Data d = make_data(256);
  for (AmpMode amp : {AmpMode::off, AmpMode::bf16, AmpMode::fp16})
    for (bool graphs : {false, true}) {
      SCOPED_TRACE(testing::Message() << amp_mode_name(amp) << (graphs ? ", CUDA graphs" : ", eager"));
      const Trained a = train(true, amp, graphs, d), b = train(false, amp, graphs, d);
      ASSERT_EQ(a.losses.size(), 8u);
      ASSERT_EQ(b.losses.size(), 8u);
      for (std::size_t s = 0; s < a.losses.size(); ++s)
        EXPECT_EQ(std::memcmp(&a.losses[s], &b.losses[s], sizeof(float)), 0)
            << "step " << s << ": fused " << a.losses[s] << ", unfused " << b.losses[s];
      ASSERT_EQ(a.params.size(), b.params.size());
      for (std::size_t i = 0; i < a.params.size(); ++i)
        EXPECT_EQ(a.params[i].tensor.data, b.params[i].tensor.data) << a.params[i].name;
      EXPECT_EQ(a.eval.correct, b.eval.correct);
      // The evaluation's loss sum is added with double atomics, in whatever order they land.
      EXPECT_NEAR(a.eval.loss_sum, b.eval.loss_sum, 1e-12 * std::fabs(b.eval.loss_sum));
    }
}

}  // namespace
}  // namespace ts::gputest
