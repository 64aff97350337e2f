// AMP and gradient accumulation on the CPU backend: fp16 refused (a CUDA feature), bf16 refused with
// the CPU's reason; N micro-batches with the loss divided by N equal one batch of N times the size;
// optimizer state and counters round trip (what checkpoints rely on).
#include <gtest/gtest.h>

#include <cmath>

#include "base/errors.h"
#include "engine/network.h"
#include "engine/synthetic_data.h"

namespace ts {
namespace {

#ifdef TRAINSCOPE_HAVE_ONEDNN
constexpr bool kCpu = true;
#else
constexpr bool kCpu = false;
#endif

TEST(AmpMode, ParseAndNames) {
  EXPECT_EQ(parse_amp_mode("off"), AmpMode::off);
  EXPECT_EQ(parse_amp_mode("fp32"), AmpMode::off);
  EXPECT_EQ(parse_amp_mode("fp16"), AmpMode::fp16);
  EXPECT_EQ(parse_amp_mode("bf16"), AmpMode::bf16);
  EXPECT_STREQ(amp_mode_name(AmpMode::bf16), "bf16");
  try {
    parse_amp_mode("fp8");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("off, fp16, bf16"), std::string::npos);
  }
}

TEST(CpuAmp, Fp16AndBf16RefusedWithReason) {
  std::string why;
  EXPECT_TRUE(cpu_amp_support(AmpMode::off, &why));
  EXPECT_FALSE(cpu_amp_support(AmpMode::fp16, &why));
  EXPECT_NE(why.find("CUDA feature"), std::string::npos) << why;
  EXPECT_FALSE(cpu_amp_support(AmpMode::bf16, &why));
  EXPECT_NE(why.find("bf16"), std::string::npos) << why;
  if (!kCpu) GTEST_SKIP() << "built without the CPU backend";
  NetworkOptions o;
  o.amp = AmpMode::fp16;
  try {
    make_network(Device::cpu, simple_cnn_spec(), o);
    FAIL() << "fp16 on the CPU was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--amp fp16 on the CPU"), std::string::npos) << e.what();
  }
}

std::vector<std::uint8_t> images(std::int64_t n, std::vector<std::int32_t>& labels) {
  std::vector<std::uint8_t> im(static_cast<std::size_t>(n) * kImageBytes);
  for (std::int64_t i = 0; i < n; ++i) {
    labels.push_back(static_cast<std::int32_t>(i % 10));
    draw_synthetic_image(static_cast<int>(i % 10), 77 + i, im.data() + i * kImageBytes);
  }
  return im;
}

// Tolerance: the micro-batch gradients are summed in another order than the big batch's; with SGD
// (lr 0.1) the parameters after one update agree to 1e-5 of each tensor's largest magnitude.
TEST(CpuAccumulate, FourMicroBatchesEqualOneBigBatch) {
  if (!kCpu) GTEST_SKIP() << "built without the CPU backend";
  const std::int64_t big = 16, micro = 4;
  std::vector<std::int32_t> labels;
  const auto im = images(big, labels);
  NetworkOptions o;
  o.optimizer.type = OptimizerType::sgd;
  o.optimizer.lr = 0.1f;
  o.max_batch_size = big;
  auto one = make_network(Device::cpu, simple_cnn_spec(), o);
  one->set_dropout_enabled(false);
  one->train_step(Batch{big, im.data(), labels.data(), false, 0, 0});
  o.max_batch_size = micro;
  o.accumulate = 4;
  auto acc = make_network(Device::cpu, simple_cnn_spec(), o);
  acc->set_dropout_enabled(false);
  for (std::int64_t k = 0; k < big / micro; ++k) {
    EXPECT_EQ(acc->counters().optimizer_steps, 0);
    acc->train_step(Batch{micro, im.data() + k * micro * kImageBytes, labels.data() + k * micro, false, 0, k});
  }
  EXPECT_EQ(acc->counters().optimizer_steps, 1);
  EXPECT_EQ(acc->counters().train_steps, 4);
  const auto a = one->parameters(), b = acc->parameters();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    double scale = 0, worst = 0;
    for (float v : a[i].tensor.data) scale = std::max(scale, static_cast<double>(std::fabs(v)));
    for (std::size_t j = 0; j < a[i].tensor.data.size(); ++j)
      worst = std::max(worst, static_cast<double>(std::fabs(a[i].tensor.data[j] - b[i].tensor.data[j])));
    EXPECT_LE(worst, 1e-5 * scale) << a[i].name;
  }
}

TEST(CpuAccumulate, FlushAppliesPendingMicroBatches) {
  if (!kCpu) GTEST_SKIP() << "built without the CPU backend";
  std::vector<std::int32_t> labels;
  const auto im = images(8, labels);
  NetworkOptions o;
  o.max_batch_size = 8;
  o.accumulate = 3;
  auto net = make_network(Device::cpu, simple_cnn_spec(), o);
  net->train_step(Batch{8, im.data(), labels.data(), false, 0, 0});
  net->flush_accumulation();
  EXPECT_EQ(net->counters().optimizer_steps, 1);
  net->flush_accumulation();  // nothing pending
  EXPECT_EQ(net->counters().optimizer_steps, 1);
}

TEST(CpuCheckpointState, OptimizerStateAndCountersRoundTrip) {
  if (!kCpu) GTEST_SKIP() << "built without the CPU backend";
  std::vector<std::int32_t> labels;
  const auto im = images(8, labels);
  NetworkOptions o;
  o.max_batch_size = 8;
  auto a = make_network(Device::cpu, simple_cnn_spec(), o);
  for (int s = 0; s < 2; ++s) a->train_step(Batch{8, im.data(), labels.data(), false, 0, s});
  const auto state = a->optimizer_state();
  ASSERT_EQ(state.size(), 2 * a->parameters().size());
  EXPECT_EQ(state[0].name, "conv1.weight.exp_avg");
  auto b = make_network(Device::cpu, simple_cnn_spec(), o);
  auto values = a->parameters();
  for (auto& t : a->buffers()) values.push_back(t);
  b->set_parameters(values);
  b->set_optimizer_state(state);
  b->restore_counters(a->counters());
  a->train_step(Batch{8, im.data(), labels.data(), false, 0, 2});
  b->train_step(Batch{8, im.data(), labels.data(), false, 0, 2});
  EXPECT_EQ(a->last_loss(), b->last_loss());
  const auto pa = a->parameters(), pb = b->parameters();
  for (std::size_t i = 0; i < pa.size(); ++i) EXPECT_EQ(pa[i].tensor.data, pb[i].tensor.data) << pa[i].name;
  EXPECT_THROW(b->set_optimizer_state({{"nope.exp_avg", HostTensor({1})}}), InputError);
}

}  // namespace
}  // namespace ts
