// Error checks for CUDA runtime and cuBLAS calls and kernel launches. Each keeps the file, the line,
// the call and the library's own error string, and throws ts::DeviceError (ts::OutOfMemoryError for
// an allocation failure). cuDNN's check lives in cudnn_check.h so that cudnn.h stays in the cuDNN
// translation units. Header-only; used by engine/cuda and kernels/.
#pragma once
#include <cuda_runtime_api.h>

#include <string>

#include "base/errors.h"

namespace ts::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line) {
  std::string msg = std::string("CUDA error ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) +
                    ") in " + call + " at " + file + ":" + std::to_string(line);
  if (e == cudaErrorMemoryAllocation) {
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    throw OutOfMemoryError(msg, 0, static_cast<std::int64_t>(free_b), call);
  }
  throw DeviceError(msg);
}

}  // namespace ts::cuda

/// Checks a CUDA runtime call: TS_CUDA_CHECK(cudaMemcpyAsync(...)).
#define TS_CUDA_CHECK(call)                                                      \
  do {                                                                           \
    cudaError_t ts_err_ = (call);                                                \
    if (ts_err_ != cudaSuccess) ::ts::cuda::throw_cuda_error(ts_err_, #call, __FILE__, __LINE__); \
  } while (0)

/// After every kernel launch: reports a bad configuration or an earlier asynchronous fault.
#define TS_KERNEL_CHECK(kernel_name)                                             \
  do {                                                                           \
    cudaError_t ts_err_ = cudaGetLastError();                                    \
    if (ts_err_ != cudaSuccess) ::ts::cuda::throw_cuda_error(ts_err_, "launch of " kernel_name, __FILE__, __LINE__); \
  } while (0)
