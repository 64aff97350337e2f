// A device buffer, a stream, a captured graph and its instance for GPU tests, freed on every way out
// (a failed ASSERT returns early; under compute-sanitizer, memcheck's leak check reports what is left).
#pragma once
#include <cuda_runtime.h>

namespace ts::test {

struct CudaGraphScratch {
  float* d = nullptr;
  cudaStream_t s = nullptr;
  cudaGraph_t g = nullptr;
  cudaGraphExec_t ge = nullptr;
  CudaGraphScratch() = default;
  CudaGraphScratch(const CudaGraphScratch&) = delete;
  CudaGraphScratch& operator=(const CudaGraphScratch&) = delete;
  ~CudaGraphScratch() {
    if (ge) cudaGraphExecDestroy(ge);
    if (g) cudaGraphDestroy(g);
    if (s) cudaStreamDestroy(s);
    if (d) cudaFree(d);
  }
};

}  // namespace ts::test
