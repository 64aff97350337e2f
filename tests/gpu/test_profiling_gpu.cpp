// The profiler on a real GPU: a program with known kernels, copies and memsets yields exactly those
// records (matched by name and size), launches correlate with their kernels, and a CUDA-graph
// launch yields its kernels with a graph id.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <vector>

#include "engine/network.h"
#include "gpu/cuda_graph_scratch.h"
#include "profiling/event_source.h"
#include "profiling/profiler.h"

cudaError_t ts_launch_test_scale(float* x, int n, cudaStream_t stream);

namespace ts::prof {
namespace {

TEST(ProfilerGpu, KnownKernelsCopiesMemsetsAndAGraph) {
  std::string why;
  if (!ts::cuda_available(&why)) GTEST_SKIP() << why;
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("ts_gpu_prof_" + std::to_string(getpid()) + ".tsession")).string();
  ProfilerOptions o;
  o.session_path = path;
  o.cuda_device = 0;
  Profiler p(o);
  const int n = 12345;  // 49,380 bytes: a size nothing else copies
  // Freed on every way out: a failed ASSERT below returns early (under compute-sanitizer, where CUPTI
  // does not run, memcheck's leak check reported this buffer as leaked).
  test::CudaGraphScratch scratch;
  float*& d = scratch.d;
  cudaStream_t& s = scratch.s;
  cudaGraph_t& g = scratch.g;
  cudaGraphExec_t& ge = scratch.ge;
  ASSERT_EQ(cudaMalloc(&d, n * sizeof(float)), cudaSuccess);
  std::vector<float> h(n, 1.0f);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  for (int i = 0; i < 2; ++i) ASSERT_EQ(cudaMemsetAsync(d, 0, 777, nullptr), cudaSuccess);
  for (int i = 0; i < 5; ++i) ASSERT_EQ(ts_launch_test_scale(d, n, nullptr), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  for (int i = 0; i < 4; ++i) ts_launch_test_scale(d, n, s);
  ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
  ASSERT_EQ(cudaGraphInstantiate(&ge, g, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(ge, s), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const ProfilerSummary sum = p.stop();
  ASSERT_TRUE(sum.gpu_status.empty()) << sum.gpu_status;
  EXPECT_EQ(sum.dropped.cupti, 0);

  auto src = open_session(path);  // what the file holds, not only the live store
  const EventStore& st = src->store();
  int plain = 0, graph = 0;
  for (std::size_t i = 0; i < st.kernels.size(); ++i) {
    const KernelRecord& k = st.kernels[i];
    if (st.strings.get(k.name) != "ts_test_scale(float*, int)") continue;
    EXPECT_EQ(st.config(k).grid[0], (n + 127) / 128);
    EXPECT_EQ(st.config(k).block[0], 128);
    EXPECT_GT(st.config(k).registers, 0);
    EXPECT_GT(k.end, k.start);
    if (k.graph_id) {
      ++graph;
      EXPECT_NE(k.graph_node, 0u);
    } else {
      ++plain;
      bool launched = false;  // flow: the runtime call with the same correlation id
      for (std::size_t j = 0; j < st.runtime.size() && !launched; ++j)
        launched = st.runtime[j].correlation == k.correlation &&
                   st.strings.get(st.runtime[j].name).find("cudaLaunchKernel") != std::string::npos;
      EXPECT_TRUE(launched) << "no cudaLaunchKernel for correlation " << k.correlation;
    }
  }
  EXPECT_EQ(plain, 5);
  EXPECT_EQ(graph, 4);
  int copies = 0, memsets = 0;
  for (std::size_t i = 0; i < st.memcpys.size(); ++i) copies += st.memcpys[i].bytes == n * 4 && st.memcpys[i].copy_kind == 1;
  for (std::size_t i = 0; i < st.memsets.size(); ++i) memsets += st.memsets[i].bytes == 777;
  EXPECT_EQ(copies, 3);
  EXPECT_EQ(memsets, 2);
  EXPECT_GT(st.memory.size(), 0u);  // cudaMalloc/cudaFree (MEMORY2)
  EXPECT_GT(st.syncs.size(), 0u);   // cudaDeviceSynchronize
  EXPECT_GE(st.clock.size(), 2u);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ts::prof
