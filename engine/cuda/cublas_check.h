// TS_CUBLAS_CHECK: checks a cuBLAS call, keeping file, line, the call and cuBLAS's status string.
#pragma once
#include <cublas_v2.h>

#include <string>

#include "base/errors.h"

namespace ts::cuda {
[[noreturn]] inline void throw_cublas_error(cublasStatus_t s, const char* call, const char* file, int line) {
  std::string msg = std::string("cuBLAS error ") + cublasGetStatusName(s) + " (" + cublasGetStatusString(s) +
                    ") in " + call + " at " + file + ":" + std::to_string(line);
  if (s == CUBLAS_STATUS_ALLOC_FAILED) throw OutOfMemoryError(msg, 0, 0, call);
  throw DeviceError(msg);
}
}  // namespace ts::cuda

#define TS_CUBLAS_CHECK(call)                                                        \
  do {                                                                               \
    cublasStatus_t ts_st_ = (call);                                                  \
    if (ts_st_ != CUBLAS_STATUS_SUCCESS) ::ts::cuda::throw_cublas_error(ts_st_, #call, __FILE__, __LINE__); \
  } while (0)
