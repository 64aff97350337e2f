// The caching allocator (per-category allocated/reserved bytes, reuse without cudaMalloc, release on
// empty_cache), the network's memory plan (nothing allocated in a step), the OOM report for an
// absurd max_batch_size, the cap of a simulated smaller card (--memory-limit: the allocator refuses
// past it after releasing its cache; the plan sees it and advises a batch that then fits), and
// device_info().
#include "engine/cuda/caching_allocator.h"
#include "engine/cuda/cuda_network.h"
#include "common/expect_oom.h"
#include "gpu/gpu_test_util.h"

#include <cmath>
#include <iostream>
#include <vector>

namespace ts::gputest {
namespace {

std::int64_t at(const std::array<std::int64_t, kMemoryCategoryCount>& a, MemoryCategory c) {
  return a[static_cast<std::size_t>(c)];
}

TEST(CudaAllocator, StatsPerCategoryAndReuse) {
  TS_SKIP_WITHOUT_GPU();
  cuda::CachingAllocator alloc(0);
  auto a = alloc.allocate(1000, MemoryCategory::activations, "test");
  ASSERT_NE(a->ptr, nullptr);
  EXPECT_EQ(a->block_bytes, 1024u);
  MemoryStats s = alloc.stats();
  EXPECT_EQ(at(s.allocated, MemoryCategory::activations), 1000);
  EXPECT_EQ(at(s.reserved, MemoryCategory::activations), 1024);
  EXPECT_EQ(alloc.malloc_count(), 1);
  void* first = a->ptr;
  a.reset();
  s = alloc.stats();
  EXPECT_EQ(at(s.allocated, MemoryCategory::activations), 0);
  EXPECT_EQ(at(s.reserved, MemoryCategory::activations), 1024);  // cached, still reserved
  EXPECT_EQ(alloc.cached_bytes(), 1024);
  auto b = alloc.allocate(900, MemoryCategory::weights);  // best fit: the cached block, no cudaMalloc
  EXPECT_EQ(b->ptr, first);
  EXPECT_EQ(alloc.malloc_count(), 1);
  s = alloc.stats();
  EXPECT_EQ(at(s.reserved, MemoryCategory::activations), 0);
  EXPECT_EQ(at(s.reserved, MemoryCategory::weights), 1024);
  EXPECT_EQ(at(s.allocated, MemoryCategory::weights), 900);
  auto big = alloc.allocate(1 << 20, MemoryCategory::workspace);  // no cached block fits: new
  EXPECT_EQ(alloc.malloc_count(), 2);
  EXPECT_EQ(alloc.stats().peak_allocated, 900 + (1 << 20));
  b.reset();
  big.reset();
  alloc.empty_cache();
  s = alloc.stats();
  EXPECT_EQ(s.total_reserved(), 0);
  EXPECT_EQ(s.total_allocated(), 0);
  EXPECT_EQ(alloc.free_count(), 2);
}

TEST(CudaAllocator, SmallRequestDoesNotTakeHugeCachedBlock) {
  TS_SKIP_WITHOUT_GPU();
  cuda::CachingAllocator alloc(0);
  alloc.allocate(64 << 20, MemoryCategory::workspace).reset();
  auto small = alloc.allocate(4096, MemoryCategory::activations);
  EXPECT_EQ(alloc.malloc_count(), 2);
  EXPECT_EQ(alloc.cached_bytes(), 64 << 20);
}

TEST(CudaNetworkMemory, PlanIsAllocatedUpFrontAndStepsDoNotAllocate) {
  TS_SKIP_WITHOUT_GPU();
  NetworkOptions opt;
  opt.max_batch_size = 128;
  auto net = make_cuda_network(simple_cnn_spec(), opt);
  auto* cuda_net = dynamic_cast<cuda::CudaNetwork*>(net.get());
  ASSERT_NE(cuda_net, nullptr);
  MemoryStats s = net->memory_stats();
  // SimpleCNN: 2,122,186 parameters (4 bytes each, padding to 256 B per tensor included at most).
  EXPECT_GE(at(s.allocated, MemoryCategory::weights), 2122186 * 4);
  EXPECT_EQ(at(s.allocated, MemoryCategory::gradients), at(s.allocated, MemoryCategory::weights));
  EXPECT_EQ(at(s.allocated, MemoryCategory::optimizer_state), 2 * at(s.allocated, MemoryCategory::weights));
  EXPECT_GT(at(s.allocated, MemoryCategory::activations), 128 * 32 * 32 * 32 * 4);
  EXPECT_GT(at(s.allocated, MemoryCategory::workspace), 0);
  EXPECT_GE(at(s.allocated, MemoryCategory::input_batches), 3 * 128 * 3072);
  const std::int64_t mallocs = cuda_net->allocator().malloc_count();
  std::vector<std::uint8_t> images(128 * kImageBytes, 100);
  std::vector<std::int32_t> labels(128, 3);
  Batch b{128, images.data(), labels.data(), false, 0, 0};
  for (int i = 0; i < 5; ++i) net->train_step(b);
  net->synchronize();
  EXPECT_EQ(cuda_net->allocator().malloc_count(), mallocs);
  EXPECT_EQ(net->memory_stats().total_allocated(), s.total_allocated());
  std::cout << cuda_net->describe_algorithms(128);
}

TEST(CudaNetworkMemory, AbsurdBatchSizeReportsLayerBytesAndABatchSizeThatFits) {
  TS_SKIP_WITHOUT_GPU();
  NetworkOptions opt;
  opt.max_batch_size = 1ll << 30;
  const auto oom = test::thrown_oom([&] {
    make_cuda_network(simple_cnn_spec(), opt);
  });
  ASSERT_TRUE(oom);
  const OutOfMemoryError& e = *oom;
  const std::string msg = e.what();
  std::cout << msg << "\n";
  EXPECT_NE(msg.find("layer 0 (Conv2d"), std::string::npos) << msg;
  EXPECT_NE(msg.find("asked for"), std::string::npos) << msg;
  EXPECT_NE(msg.find("batch size of at most"), std::string::npos) << msg;
  EXPECT_GT(e.requested_bytes, 1ll << 40);
  EXPECT_GT(e.free_bytes, 0);
  EXPECT_GT(e.suggested_batch_size, 128);
  EXPECT_LT(e.suggested_batch_size, opt.max_batch_size);
}

// The cap counts reserved bytes: a cached block counts until the allocator releases its cache, which
// it does before it refuses; a refusal names the simulated card and calls no cudaMalloc.
TEST(CudaAllocator, CapRefusesPastReservedAfterReleasingTheCache) {
  TS_SKIP_WITHOUT_GPU();
  constexpr std::int64_t kMiB = 1 << 20, kCap = 4 * kMiB;
  cuda::CachingAllocator alloc(0, kCap);
  EXPECT_EQ(alloc.limit_bytes(), kCap);
  alloc.allocate(3 * kMiB, MemoryCategory::activations, "test").reset();  // cached: still reserved
  EXPECT_EQ(alloc.free_under_limit(), kCap - 3 * kMiB);
  auto small = alloc.allocate(kMiB / 2, MemoryCategory::weights);  // 3 MiB > 2 x 0.5 MiB: a new block
  EXPECT_EQ(alloc.cached_bytes(), 3 * kMiB);
  auto one = alloc.allocate(kMiB, MemoryCategory::gradients);  // 3.5 + 1 > 4: the cache goes first
  EXPECT_EQ(alloc.cached_bytes(), 0);
  EXPECT_EQ(alloc.free_count(), 1);
  EXPECT_EQ(alloc.stats().total_reserved(), kMiB / 2 + kMiB);
  const std::int64_t mallocs = alloc.malloc_count();
  const auto oom = test::thrown_oom([&] {
    alloc.allocate(3 * kMiB, MemoryCategory::activations, "activations of layer 0 (Conv2d conv1)");
  });
  ASSERT_TRUE(oom);
  const OutOfMemoryError& e = *oom;
  const std::string msg = e.what();
  EXPECT_EQ(msg.rfind("CUDA out of memory (simulated 0.00390625 GiB card, --memory-limit 0.00390625): activations of "
                      "layer 0 (Conv2d conv1) asked for 3.0 MiB (activations); 2.5 MiB free of 4.0 MiB", 0), 0u)
      << msg;
  EXPECT_EQ(e.memory_limit_bytes, kCap);
  EXPECT_EQ(e.requested_bytes, 3 * kMiB);
  EXPECT_EQ(e.free_bytes, kCap - kMiB / 2 - kMiB);
  EXPECT_EQ(alloc.malloc_count(), mallocs);
  EXPECT_EQ(alloc.stats().total_reserved(), kMiB / 2 + kMiB);
  one.reset();
  alloc.empty_cache();
  auto again = alloc.allocate(3 * kMiB, MemoryCategory::activations);  // room once freed
  EXPECT_NE(again->ptr, nullptr);
}

// The plan at a 1 GiB cap: SimpleCNN at batch 8192 needs about 4 GiB of activations. The message
// names the simulated card; its batch size and accumulation (the same effective batch) then build,
// train and stay under the cap.
TEST(CudaNetworkMemory, PlanAtACapAdvisesABatchThatFitsTheSimulatedCard) {
  TS_SKIP_WITHOUT_GPU();
  NetworkOptions opt;
  opt.max_batch_size = 8192;
  opt.memory_limit_bytes = 1ll << 30;
  std::int64_t micro = 0;
  int accumulate = 0;
  const auto oom = test::thrown_oom([&] {
    make_cuda_network(simple_cnn_spec(), opt);
  });
  ASSERT_TRUE(oom);
  const OutOfMemoryError& e = *oom;
  const std::string msg = e.what();
  std::cout << msg << "\n";
  EXPECT_EQ(msg.rfind("CUDA out of memory (simulated 1 GiB card, --memory-limit 1): ", 0), 0u) << msg;
  EXPECT_NE(msg.find("of the simulated 1 GiB card was free"), std::string::npos) << msg;
  EXPECT_NE(msg.find("batch size of at most"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the same effective batch of 8192"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--amp bf16"), std::string::npos) << msg;
  EXPECT_EQ(e.memory_limit_bytes, 1ll << 30);
  EXPECT_LE(e.free_bytes, 1ll << 30);
  EXPECT_GT(e.suggested_batch_size, 0);
  EXPECT_LT(e.suggested_batch_size, 8192);
  EXPECT_EQ(e.suggested_batch_size * e.suggested_accumulate, 8192) << msg;
  micro = e.suggested_batch_size;
  accumulate = e.suggested_accumulate;
  ASSERT_GT(micro, 0);
  opt.max_batch_size = micro;
  opt.accumulate = accumulate;
  auto net = make_cuda_network(simple_cnn_spec(), opt);
  std::vector<std::uint8_t> images(static_cast<std::size_t>(micro) * kImageBytes, 100);
  std::vector<std::int32_t> labels(static_cast<std::size_t>(micro), 3);
  const Batch b{micro, images.data(), labels.data(), false, 0, 0};
  for (int i = 0; i < accumulate; ++i) net->train_step(b);
  net->synchronize();
  EXPECT_TRUE(std::isfinite(net->last_loss()));
  EXPECT_EQ(net->counters().optimizer_steps, 1);
  EXPECT_LE(net->memory_stats().total_reserved(), 1ll << 30);
}

TEST(CudaDevice, InfoReportsVersions) {
  TS_SKIP_WITHOUT_GPU();
  auto net = make_cuda_network(simple_cnn_spec(), exact_options(4));
  DeviceInfo d = net->device_info();
  std::cout << d.name << " cc " << d.compute_capability_major << "." << d.compute_capability_minor << " SMs "
            << d.multiprocessors << " | " << d.library_versions << "\n";
  EXPECT_EQ(d.device, Device::cuda);
  EXPECT_FALSE(d.name.empty());
  EXPECT_GE(d.compute_capability_major, 7);
  EXPECT_GT(d.multiprocessors, 0);
  EXPECT_GT(d.total_memory_bytes, 0);
  EXPECT_GE(d.runtime_version, 13000);
  EXPECT_GE(d.cudnn_version, 90000);
  EXPECT_GT(d.cublas_version, 0);
}

}  // namespace
}  // namespace ts::gputest
