// Error checks for CUDA runtime and cuBLAS calls and kernel launches. Each keeps the file, the line,
// the call and the library's own error string, and throws ts::DeviceError (ts::OutOfMemoryError for
// an allocation failure). cuDNN's check lives in cudnn_check.h so that cudnn.h stays in the cuDNN
// translation units. Header-only; used by engine/cuda and kernels/.
#pragma once
#include <cuda_runtime_api.h>

#include <string>

#include "base/errors.h"
#include "base/status_check.h"

namespace ts::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line) {
  const std::string msg = failed_call_message(
      std::string("CUDA error ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")", call, file, line);
  if (e == cudaErrorMemoryAllocation) {
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    throw OutOfMemoryError(msg, 0, static_cast<std::int64_t>(free_b), call);
  }
  throw DeviceError(msg);
}

}  // namespace ts::cuda

/// Checks a CUDA runtime call: TS_CUDA_CHECK(cudaMemcpyAsync(...)).
#define TS_CUDA_CHECK(call) TS_CHECK_STATUS(cudaError_t, cudaSuccess, ::ts::cuda::throw_cuda_error, call, #call)

/// After every kernel launch: reports a bad configuration or an earlier asynchronous fault.
#define TS_KERNEL_CHECK(kernel_name) \
  TS_CHECK_STATUS(cudaError_t, cudaSuccess, ::ts::cuda::throw_cuda_error, cudaGetLastError(), "launch of " kernel_name)
