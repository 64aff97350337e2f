// The CPU backend's up-front host-memory check (engine/memory_fit.h), as the CUDA plan checks the
// card: a footprint past what is available is refused with a batch size that fits and --accumulate
// for the same effective batch; one that fits, or an unknown amount available, passes.
#include <gtest/gtest.h>

#include <string>

#include "base/errors.h"
#include "engine/memory_fit.h"
#include "engine/model_spec.h"

namespace ts {
namespace {

constexpr std::int64_t kMiB = std::int64_t{1} << 20;

TEST(HostMemory, AFootprintPastWhatIsAvailableIsRefusedWithAdvice) {
  const MemoryFootprint f{64 * kMiB, kMiB};  // 64 MiB fixed, 1 MiB per sample
  try {
    check_host_memory(f, 30000, 1, 1024 * kMiB);
    FAIL() << "30000 samples of 1 MiB fit 1 GiB";
  } catch (const OutOfMemoryError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("host memory: at batch size 30000 the CPU run needs about ", 0), 0u) << what;
    EXPECT_NE(what.find("this machine has 1.00 GiB available"), std::string::npos) << what;
    EXPECT_GT(e.suggested_batch_size, 0);
    EXPECT_LT(e.suggested_batch_size, 1024);
    EXPECT_EQ(e.requested_bytes, f.bytes(30000));
  }
  EXPECT_NO_THROW(check_host_memory(f, 100, 1, 1024 * kMiB));
  EXPECT_NO_THROW(check_host_memory(f, 30000, 1, -1));  // unknown: not guessed
}

TEST(HostMemory, TheLowerBoundAndWhatIsAvailableAreMeasured) {
  EXPECT_GT(host_available_bytes(), 0);  // Linux: /proc/meminfo
  const MemoryFootprint lb = footprint_lower_bound(simple_cnn_spec());
  // SimpleCNN: conv1's 32x32x32 output alone, with its gradient, is 256 KiB a sample.
  EXPECT_GT(lb.per_sample_bytes, 256 * 1024);
  EXPECT_GT(lb.fixed_bytes, 2 * 4 * 2'000'000);  // ~2.1 M parameters and their gradients in fp32
}

}  // namespace
}  // namespace ts
