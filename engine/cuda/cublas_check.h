// TS_CUBLAS_CHECK: checks a cuBLAS call, keeping file, line, the call and cuBLAS's status string.
#pragma once
#include <cublas_v2.h>

#include <string>

#include "base/errors.h"
#include "base/status_check.h"

namespace ts::cuda {
[[noreturn]] inline void throw_cublas_error(cublasStatus_t s, const char* call, const char* file, int line) {
  const std::string msg = failed_call_message(
      std::string("cuBLAS error ") + cublasGetStatusName(s) + " (" + cublasGetStatusString(s) + ")", call, file, line);
  if (s == CUBLAS_STATUS_ALLOC_FAILED) throw OutOfMemoryError(msg, 0, 0, call);
  throw DeviceError(msg);
}
}  // namespace ts::cuda

#define TS_CUBLAS_CHECK(call) \
  TS_CHECK_STATUS(cublasStatus_t, CUBLAS_STATUS_SUCCESS, ::ts::cuda::throw_cublas_error, call, #call)
