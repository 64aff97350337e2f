// cuBLAS at the top of the GEMM ladders (internal to ts_playground): row-major C = A B through
// column-major cuBLAS as C^T = B^T A^T. FP32 (cublasSgemm, default math: no TF32), TF32
// (cublasGemmEx, CUBLAS_COMPUTE_32F_FAST_TF32) and BF16/FP16 inputs with fp32 accumulation and fp32 C
// (cublasGemmEx, CUBLAS_COMPUTE_32F). Errors: ts::DeviceError with cuBLAS's status string.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace ts::playground {

class Cublas {
 public:
  Cublas();
  ~Cublas();
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  /// m x n = (m x k)(k x n), all row-major fp32. Returns cudaSuccess or cudaErrorUnknown (the
  /// cuBLAS status is kept in last_error()).
  cudaError_t sgemm(int m, int n, int k, const float* a, const float* b, float* c);
  cudaError_t tf32(int m, int n, int k, const float* a, const float* b, float* c);
  cudaError_t bf16(int m, int n, int k, const __nv_bfloat16* a, const __nv_bfloat16* b, float* c);
  cudaError_t fp16(int m, int n, int k, const __half* a, const __half* b, float* c);
  /// BF16 in and out (fp32 accumulation): the form frameworks run (torch.matmul on bf16 tensors).
  cudaError_t bf16_out(int m, int n, int k, const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c);
  const char* last_error() const { return last_; }
  /// cublasGetVersion, e.g. 130100.
  int version() const;

 private:
  void* handle_ = nullptr;
  const char* last_ = "";
};

}  // namespace ts::playground
