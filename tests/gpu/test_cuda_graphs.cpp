// CUDA-graph steps (NetworkOptions::cuda_graphs): a replayed step computes what the eager step
// computes, bit for bit (the dropout step and Adam's t come from the device's counters, the loss from
// the graph's scratch), across input slots, two batch sizes, fp32/bf16/fp16 and a restore of the
// counters; and at batch 128, where the eager step is bound by the host's cuDNN/cuBLAS calls, a
// replayed step is no slower than the eager one.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <iostream>
#include <vector>

#include "engine/synthetic_data.h"
#include "gpu/gpu_test_util.h"

namespace ts::gputest {
namespace {

struct Data {
  std::vector<std::uint8_t> images;
  std::vector<std::int32_t> labels;
};

Data graph_data(std::int64_t n) {
  Data d;
  d.images.resize(static_cast<std::size_t>(n) * kImageBytes);
  for (std::int64_t i = 0; i < n; ++i) {
    draw_synthetic_image(static_cast<int>(i % 10), 31 * i + 5, d.images.data() + i * kImageBytes);
    d.labels.push_back(static_cast<int>(i % 10));
  }
  return d;
}

Batch batch_of(const Data& d, std::int64_t first, std::int64_t n) {
  return Batch{n, d.images.data() + first * kImageBytes, d.labels.data() + first, false, 0, 0};
}

/// 24 steps of batch 64 with a batch of 40 every sixth (the epoch's short batch), dropout on, Adam.
std::vector<float> train_losses(Network& net, const Data& d) {
  for (int s = 0; s < 24; ++s) {
    const std::int64_t n = s % 6 == 5 ? 40 : 64;
    net.train_step(batch_of(d, (s % 4) * 64, n));
  }
  return net.drain_step_losses();
}

NetworkOptions graph_options(AmpMode amp, bool graphs) {
  NetworkOptions o = exact_options(64);
  o.planned_batch_sizes = {40};
  o.amp = amp;
  o.cuda_graphs = graphs;
  return o;
}

TEST(CudaGraphs, ReplayedStepsEqualEagerStepsBitForBit) {
  TS_SKIP_WITHOUT_GPU();
  const Data d = graph_data(256);
  for (AmpMode amp : {AmpMode::off, AmpMode::bf16, AmpMode::fp16}) {
    auto eager = make_cuda_network(simple_cnn_spec(), graph_options(amp, false));
    auto graph = make_cuda_network(simple_cnn_spec(), graph_options(amp, true));
    const auto le = train_losses(*eager, d), lg = train_losses(*graph, d);
    ASSERT_EQ(le.size(), 24u);
    ASSERT_EQ(lg.size(), 24u);
    EXPECT_EQ(0, std::memcmp(le.data(), lg.data(), le.size() * sizeof(float))) << amp_mode_name(amp);
    EXPECT_EQ(eager->drained_loss_scales(), graph->drained_loss_scales()) << amp_mode_name(amp);
    EXPECT_EQ(eager->counters().optimizer_steps, graph->counters().optimizer_steps);
    const auto pe = eager->parameters(), pg = graph->parameters();
    for (std::size_t i = 0; i < pe.size(); ++i)
      EXPECT_EQ(pe[i].tensor.data, pg[i].tensor.data) << amp_mode_name(amp) << " " << pe[i].name;
  }
}

// A resumed run: the counters restored from another network reach the device before the next replay.
TEST(CudaGraphs, RestoredCountersReachTheReplayedStep) {
  TS_SKIP_WITHOUT_GPU();
  const Data d = graph_data(256);
  auto a = make_cuda_network(simple_cnn_spec(), graph_options(AmpMode::off, false));
  for (int s = 0; s < 7; ++s) a->train_step(batch_of(d, (s % 4) * 64, 64));
  auto b = make_cuda_network(simple_cnn_spec(), graph_options(AmpMode::off, true));
  b->set_parameters(a->parameters());
  b->set_optimizer_state(a->optimizer_state());
  b->restore_counters(a->counters());
  a->drain_step_losses();
  for (int s = 0; s < 5; ++s) {
    a->train_step(batch_of(d, (s % 4) * 64, 64));
    b->train_step(batch_of(d, (s % 4) * 64, 64));
  }
  const auto la = a->drain_step_losses(), lb = b->drain_step_losses();
  ASSERT_EQ(la.size(), 5u);
  EXPECT_EQ(0, std::memcmp(la.data(), lb.data(), la.size() * sizeof(float)));
  EXPECT_EQ(a->counters().train_steps, b->counters().train_steps);
}

double median_step_ms(Network& net, const Data& d, std::int64_t bs) {
  for (int s = 0; s < 5; ++s) net.train_step(batch_of(d, 0, bs));
  net.synchronize();
  std::vector<double> ms;
  for (int round = 0; round < 9; ++round) {  // 20 steps back to back, as an epoch runs them
    const auto t0 = std::chrono::steady_clock::now();
    for (int s = 0; s < 20; ++s) net.train_step(batch_of(d, 0, bs));
    net.synchronize();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / 20);
  }
  std::nth_element(ms.begin(), ms.begin() + 4, ms.end());
  return ms[4];
}

TEST(CudaGraphs, ReplayedStepIsNoSlowerAtBatch128) {
  TS_SKIP_WITHOUT_GPU();
  const Data d = graph_data(128);
  for (AmpMode amp : {AmpMode::off, AmpMode::bf16}) {
    double ms[2] = {0, 0};
    for (bool graphs : {false, true}) {
      NetworkOptions o;
      o.max_batch_size = 128;
      o.amp = amp;
      o.cuda_graphs = graphs;
      auto net = make_cuda_network(simple_cnn_spec(), o);
      ms[graphs] = median_step_ms(*net, d, 128);
    }
    std::cout << "batch 128 " << amp_mode_name(amp) << ": eager " << ms[0] << " ms, graph " << ms[1] << " ms ("
              << 128.0 / ms[0] * 1e3 << " vs " << 128.0 / ms[1] * 1e3 << " img/s)\n";
    EXPECT_LE(ms[1], ms[0]) << amp_mode_name(amp);
  }
}

}  // namespace
}  // namespace ts::gputest
