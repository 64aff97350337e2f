// The allocator cap (a simulated smaller card, --memory-limit): the host allocator refuses what would
// take its reserved bytes past the cap with the OOM error naming the simulated card; the advice's
// arithmetic (a batch size that fits, the same effective batch with --accumulate); the CPU trainer at
// a cap reports the advice from the measured footprint, and a run at the advice fits.
#include <gtest/gtest.h>

#include <atomic>

#include "base/errors.h"
#include "common/expect_oom.h"
#include "engine/memory.h"
#include "engine/memory_fit.h"
#include "engine/synthetic_data.h"
#include "engine/trainer.h"

namespace ts {
namespace {

TEST(MemoryLimit, GibTextAndConversion) {
  EXPECT_EQ(memory_limit_gib_text(8 * kGiB), "8");
  EXPECT_EQ(memory_limit_gib_text(kGiB / 2), "0.5");
  EXPECT_EQ(simulated_card_text(8 * kGiB), "simulated 8 GiB card, --memory-limit 8");
  EXPECT_EQ(memory_limit_bytes_from_gib(8), 8 * kGiB);
  EXPECT_EQ(memory_limit_bytes_from_gib(0.5), kGiB / 2);
  EXPECT_EQ(memory_limit_gib_text(memory_limit_bytes_from_gib(0.3)), "0.3");
  EXPECT_THROW(memory_limit_bytes_from_gib(0), InputError);
  EXPECT_THROW(memory_limit_bytes_from_gib(-1), InputError);
  EXPECT_THROW(memory_limit_bytes_from_gib(1e-9), InputError);  // ~1 byte
  EXPECT_THROW(make_host_allocator(-1), InputError);
}

TEST(MemoryLimit, HostAllocatorRefusesPastTheCapOnReservedBytes) {
  const std::int64_t cap = 1 << 20;
  auto alloc = make_host_allocator(cap);
  EXPECT_EQ(alloc->limit_bytes(), cap);
  auto a = alloc->allocate(600 * 1024, MemoryCategory::activations, "activations of layer 0 (Conv2d conv1)");
  auto b = alloc->allocate(100, MemoryCategory::weights);  // reserved: rounded to 64 -> 128 bytes
  EXPECT_EQ(alloc->stats().total_reserved(), 600 * 1024 + 128);
  const auto oom = test::thrown_oom([&] {
    alloc->allocate(500 * 1024, MemoryCategory::activations, "activation gradients");
  });
  ASSERT_TRUE(oom);
  const OutOfMemoryError& e = *oom;
  const std::string msg = e.what();
  EXPECT_EQ(msg.rfind("out of memory (simulated 0.000976562 GiB card, --memory-limit 0.000976562): "
                      "activation gradients asked for 500.0 KiB (activations); ", 0), 0u) << msg;
  EXPECT_NE(msg.find("free of 1.0 MiB"), std::string::npos) << msg;
  EXPECT_EQ(e.memory_limit_bytes, cap);
  EXPECT_EQ(e.requested_bytes, 500 * 1024);
  EXPECT_EQ(e.free_bytes, cap - 600 * 1024 - 128);
  EXPECT_EQ(e.phase, "activation gradients");
  EXPECT_EQ(alloc->stats().total_reserved(), 600 * 1024 + 128);  // the refused request left no trace
  a.reset();
  auto c = alloc->allocate(900 * 1024, MemoryCategory::activations);  // room again once freed
  EXPECT_EQ(alloc->stats().total_reserved(), 900 * 1024 + 128);
  EXPECT_THROW(alloc->allocate(cap, MemoryCategory::other), OutOfMemoryError);
  EXPECT_EQ(make_host_allocator()->limit_bytes(), 0);
  auto unlimited = make_host_allocator();
  EXPECT_NO_THROW(unlimited->allocate(4 << 20, MemoryCategory::other));
}

TEST(MemoryFit, BatchSizeThatFitsKeepsTenPercentAndRounds) {
  const MemoryFootprint f{10 << 20, 1 << 20};  // 10 MiB fixed, 1 MiB per sample
  EXPECT_EQ(f.bytes(4), 14 << 20);
  EXPECT_EQ(batch_size_that_fits(f, 50ll << 20), 36);        // 40 * 0.9
  EXPECT_EQ(batch_size_that_fits(f, 210ll << 20), 160);      // 180 -> a multiple of 32
  EXPECT_EQ(batch_size_that_fits(f, 10ll << 20), 0);
  EXPECT_EQ(batch_size_that_fits({}, 1ll << 30), 0);         // unknown footprint
}

TEST(MemoryFit, SameEffectiveBatch) {
  MicroBatches m = same_effective_batch(512, 1, 192);
  EXPECT_EQ(m.batch_size, 128);
  EXPECT_EQ(m.accumulate, 4);
  EXPECT_TRUE(m.exact);
  m = same_effective_batch(256, 2, 200);  // E = 512
  EXPECT_EQ(m.batch_size * m.accumulate, 512);
  EXPECT_LE(m.batch_size, 200);
  m = same_effective_batch(1000, 1, 300);
  EXPECT_EQ(m.batch_size, 250);
  EXPECT_EQ(m.accumulate, 4);
  m = same_effective_batch(1ll << 30, 1, 100000);  // the GPU test's absurd batch: a power of two divides
  EXPECT_TRUE(m.exact);
  EXPECT_EQ(m.batch_size * m.accumulate, 1ll << 30);
  EXPECT_LE(m.batch_size, 100000);
  m = same_effective_batch(64, 1, 128);
  EXPECT_EQ(m.batch_size, 64);
  EXPECT_EQ(m.accumulate, 1);
  EXPECT_EQ(same_effective_batch(64, 1, 0).batch_size, 0);
}

TEST(MemoryFit, AdviceNamesTheFixWithTheSameEffectiveBatch) {
  const std::string gpu = oom_fix_advice(512, 1, 192, true, true, "on the simulated 8 GiB card");
  EXPECT_EQ(gpu, ": a batch size of at most 192 fits on the simulated 8 GiB card (lower --batch-size); for the same "
                 "effective batch of 512 images per optimizer step, use --batch-size 128 --accumulate 4 (gradient "
                 "accumulation), or --amp bf16 (activations in 16 bits)");
  // AMP already on: no --amp in the advice.
  EXPECT_EQ(oom_fix_advice(512, 1, 192, false, true, "on this GPU").find("--amp"), std::string::npos);
  EXPECT_NE(oom_fix_advice(512, 1, 192, false, false, "x").find("on a GPU --amp bf16"), std::string::npos);
  EXPECT_NE(oom_fix_advice(512, 1, 0, true, true, "on this GPU").find("not even a batch of 1 fits on this GPU"),
            std::string::npos);
  OutOfMemoryError e("boom", 1, 2, "p");
  e.memory_limit_bytes = 42;
  const OutOfMemoryError out = with_oom_advice(e, "boom, advised", 512, 1, 192);
  EXPECT_STREQ(out.what(), "boom, advised");
  EXPECT_EQ(out.suggested_batch_size, 128);
  EXPECT_EQ(out.suggested_accumulate, 4);
  EXPECT_EQ(out.memory_limit_bytes, 42);
  EXPECT_EQ(out.phase, "p");
}

#ifdef TRAINSCOPE_HAVE_ONEDNN
Cifar10 small_data() {
  SyntheticOptions o;
  o.train_images = 512;
  o.test_images = 128;
  return make_synthetic_cifar(o);
}

TrainConfig cpu_config(std::int64_t batch, int accumulate, std::int64_t cap) {
  TrainConfig c;
  c.device = Device::cpu;
  c.batch_size = batch;
  c.accumulate = accumulate;
  c.memory_limit_bytes = cap;
  c.num_workers = 0;
  c.log_every = 1000;
  return c;
}

// SimpleCNN on the CPU needs about 1 MiB per sample: batch 256 does not fit 128 MiB.
TEST(MemoryLimit, CpuTrainerAtTheCapAdvisesABatchThatFits) {
  const Cifar10 data = small_data();
  constexpr std::int64_t kCap = 128ll << 20;
  std::int64_t micro = 0;
  int accumulate = 0;
  const auto oom = test::thrown_oom([&] {
    Trainer t(cpu_config(256, 1, kCap), data);
    std::atomic<bool> stop{false};
    t.run(stop);
  });
  ASSERT_TRUE(oom);
  const OutOfMemoryError& e = *oom;
  const std::string msg = e.what();
  EXPECT_EQ(msg.rfind("out of memory (simulated 0.125 GiB card, --memory-limit 0.125): ", 0), 0u) << msg;
  EXPECT_NE(msg.find("per sample"), std::string::npos) << msg;
  EXPECT_NE(msg.find("fits on the simulated 0.125 GiB card"), std::string::npos) << msg;
  EXPECT_EQ(e.memory_limit_bytes, kCap);
  EXPECT_GT(e.suggested_batch_size, 0);
  EXPECT_LT(e.suggested_batch_size, 256);
  EXPECT_EQ(e.suggested_batch_size * e.suggested_accumulate, 256) << msg;
  micro = e.suggested_batch_size;
  accumulate = e.suggested_accumulate;
  ASSERT_GT(micro, 0);
  Trainer t(cpu_config(micro, accumulate, kCap), data);  // the advice: the same effective batch fits
  std::atomic<bool> stop{false};
  const TrainSummary s = t.run(stop);
  ASSERT_EQ(s.epochs.size(), 1u);
  EXPECT_EQ(s.epochs[0].images, 512);
  EXPECT_EQ(s.counters.optimizer_steps, 512 / (micro * accumulate));
  EXPECT_LE(s.memory.total_reserved(), kCap);
}

TEST(MemoryLimit, MeasuredCpuFootprintPredictsTheNetwork) {
  NetworkOptions opt;
  const MemoryFootprint f = measure_network_footprint(simple_cnn_spec(), opt);
  ASSERT_GT(f.per_sample_bytes, 0);
  EXPECT_GT(f.fixed_bytes, 4 * 2122186 * 4);  // weights, gradients, Adam's two states (and the accumulation sum)
  opt.max_batch_size = 64;
  opt.accumulate = 2;
  auto net = make_network(Device::cpu, simple_cnn_spec(), opt);
  const double predicted = static_cast<double>(f.bytes(64));
  const double built = static_cast<double>(net->memory_stats().total_reserved());
  EXPECT_NEAR(built / predicted, 1.0, 0.1) << "built " << built << " predicted " << predicted;
}
#endif

}  // namespace
}  // namespace ts
