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
  const float one = 1, zero = 0;
  TS_PG_CUBLAS_RETURN(cublasGemmEx(h(handle_), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_32F, n, a, CUDA_R_32F,
                                   k, &zero, c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
}

cudaError_t Cublas::bf16(int m, int n, int k, const __nv_bfloat16* a, const __nv_bfloat16* b, float* c) {
  const float one = 1, zero = 0;
  TS_PG_CUBLAS_RETURN(cublasGemmEx(h(handle_), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_16BF, n, a,
                                   CUDA_R_16BF, k, &zero, c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

cudaError_t Cublas::fp16(int m, int n, int k, const __half* a, const __half* b, float* c) {
  const float one = 1, zero = 0;
  TS_PG_CUBLAS_RETURN(cublasGemmEx(h(handle_), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_16F, n, a, CUDA_R_16F,
                                   k, &zero, c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

cudaError_t Cublas::bf16_out(int m, int n, int k, const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c) {
  const float one = 1, zero = 0;
  TS_PG_CUBLAS_RETURN(cublasGemmEx(h(handle_), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_16BF, n, a,
                                   CUDA_R_16BF, k, &zero, c, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

}  // namespace ts::playground
