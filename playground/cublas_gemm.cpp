// Cublas (see cublas_gemm.h).
#include "playground/cublas_gemm.h"

#include <cublas_v2.h>

#include <string>

#include "base/errors.h"

namespace ts::playground {
namespace {
cublasHandle_t h(void* p) {
  return static_cast<cublasHandle_t>(p);
}
/// Row-major C = A B as column-major C^T = B^T A^T through cublasGemmEx: A and B of type `in`, C of
/// type `out`, accumulated as `compute`.
cublasStatus_t gemm_ex(void* handle, int m, int n, int k, const void* a, const void* b, void* c, cudaDataType in,
                       cudaDataType out, cublasComputeType_t compute) {
  const float one = 1, zero = 0;
  return cublasGemmEx(h(handle), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, in, n, a, in, k, &zero, c, out, n, compute,
                      CUBLAS_GEMM_DEFAULT);
}
}  // namespace

Cublas::Cublas() {
  cublasHandle_t handle = nullptr;
  const cublasStatus_t s = cublasCreate(&handle);
  if (s != CUBLAS_STATUS_SUCCESS) throw DeviceError(std::string("cublasCreate failed: ") + cublasGetStatusString(s));
  handle_ = handle;
}

Cublas::~Cublas() {
  if (handle_) cublasDestroy(h(handle_));
}

int Cublas::version() const {
  int v = 0;
  cublasGetVersion(h(handle_), &v);
  return v;
}

#define TS_PG_CUBLAS_RETURN(call)        \
  do {                                   \
    const cublasStatus_t s_ = (call);    \
    if (s_ != CUBLAS_STATUS_SUCCESS) {   \
      last_ = cublasGetStatusString(s_); \
      return cudaErrorUnknown;           \
    }                                    \
    return cudaGetLastError();           \
  } while (0)

cudaError_t Cublas::sgemm(int m, int n, int k, const float* a, const float* b, float* c) {
  const float one = 1, zero = 0;
  TS_PG_CUBLAS_RETURN(cublasSgemm(h(handle_), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n));
}

cudaError_t Cublas::tf32(int m, int n, int k, const float* a, const float* b, float* c) {
  TS_PG_CUBLAS_RETURN(gemm_ex(handle_, m, n, k, a, b, c, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32));
}

cudaError_t Cublas::bf16(int m, int n, int k, const __nv_bfloat16* a, const __nv_bfloat16* b, float* c) {
  TS_PG_CUBLAS_RETURN(gemm_ex(handle_, m, n, k, a, b, c, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F));
}

cudaError_t Cublas::fp16(int m, int n, int k, const __half* a, const __half* b, float* c) {
  TS_PG_CUBLAS_RETURN(gemm_ex(handle_, m, n, k, a, b, c, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F));
}

cudaError_t Cublas::bf16_out(int m, int n, int k, const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c) {
  TS_PG_CUBLAS_RETURN(gemm_ex(handle_, m, n, k, a, b, c, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F));
}

}  // namespace ts::playground
