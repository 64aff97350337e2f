// cuBLASLt BF16 GEMM with the algorithm chosen by measurement (internal to ts_playground): the
// library's heuristic proposes up to `candidates` algorithms for the shape; each is timed with CUDA
// events and the fastest is kept. This is what autotuners do on top of cuBLAS (PyTorch's
// TORCH_BLAS_PREFER_CUBLASLT / torch.compile's max-autotune, cuBLASLt's own sample "LtSgemm-
// SimpleAlgoSearch"): the default row shows what one heuristic call picks, this one what the
// library can do for the shape on this card.
// Row-major C (m x n) = A (m x k) B (k x n), BF16 A and B, FP32 accumulation (CUBLAS_COMPUTE_32F),
// C in FP32 or BF16, computed through column-major cuBLASLt as C^T = B^T A^T.
// Errors: ts::DeviceError with cuBLASLt's status string (creation, or no algorithm for the shape).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace ts::playground {

class TunedBf16Gemm {
 public:
  /// Prepares the descriptors and a workspace of `workspace_bytes` (NVIDIA recommends 32 MiB on
  /// Hopper: cuBLAS documentation, "cublasSetWorkspace").
  TunedBf16Gemm(int m, int n, int k, bool bf16_out, std::size_t workspace_bytes = std::size_t{64} << 20);
  ~TunedBf16Gemm();
  TunedBf16Gemm(const TunedBf16Gemm&) = delete;
  TunedBf16Gemm& operator=(const TunedBf16Gemm&) = delete;

  /// Asks the heuristic for up to `candidates` algorithms, times each over `launches` launches
  /// after one warm-up (CUDA events, mean ms per launch) and keeps the fastest. `a`, `b` are BF16
  /// device pointers, `c` FP32 or BF16 as constructed. Returns one line: how many candidates, which
  /// was kept and its time against the heuristic's first choice. Throws DeviceError.
  std::string tune(const void* a, const void* b, void* c, int candidates = 16, int launches = 5);
  /// One GEMM with the kept algorithm (the heuristic's first before tune()). cudaSuccess or
  /// cudaErrorUnknown (cuBLASLt's status in last_error()).
  cudaError_t run(const void* a, const void* b, void* c);
  const char* last_error() const { return last_; }

 private:
  void release();
  cudaError_t run_algo(int index, const void* a, const void* b, void* c);
  struct Impl;
  Impl* impl_ = nullptr;
  const char* last_ = "";
};

}  // namespace ts::playground
