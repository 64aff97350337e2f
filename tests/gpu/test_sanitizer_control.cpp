// The positive control of the racecheck runs (bench/RESULTS.md "Memory safety"): "no hazard in
// TrainScope's kernels" means something only if racecheck sees a race in a kernel of ours, so this
// test launches one (ts::kernels::sanitizer_control::racy_shared) and racecheck must name it.
// Outside a sanitizer it checks that the kernel ran.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "engine/network.h"

cudaError_t ts_launch_racy_shared(int* out, int threads, cudaStream_t stream);

namespace {

TEST(SanitizerControl, RacyKernelIsSeenByRacecheck) {
  std::string why;
  if (!ts::cuda_available(&why)) GTEST_SKIP() << why;
  constexpr int kThreads = 256;
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, kThreads * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemset(d, 0xff, kThreads * sizeof(int)), cudaSuccess);
  ASSERT_EQ(ts_launch_racy_shared(d, kThreads, nullptr), cudaSuccess);
  std::vector<int> h(kThreads);
  ASSERT_EQ(cudaMemcpy(h.data(), d, kThreads * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d);
  // Whichever thread's write won, every value read back is some thread index: the kernel ran.
  for (int v : h) EXPECT_TRUE(v >= 0 && v < kThreads) << v;
}

}  // namespace
