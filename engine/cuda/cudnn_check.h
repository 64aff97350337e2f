// TS_CUDNN_CHECK: checks a cuDNN call, keeping file, line, the call and cudnnGetErrorString; throws
// ts::DeviceError (OutOfMemoryError when cuDNN could not allocate). Include only from cuDNN units.
#pragma once
#include <cudnn.h>

#include <string>

#include "base/errors.h"
#include "base/status_check.h"

namespace ts::cuda {
[[noreturn]] inline void throw_cudnn_error(cudnnStatus_t s, const char* call, const char* file, int line) {
  const std::string msg = failed_call_message(std::string("cuDNN error ") + cudnnGetErrorString(s), call, file, line);
  if (s == CUDNN_STATUS_ALLOC_FAILED) throw OutOfMemoryError(msg, 0, 0, call);
  throw DeviceError(msg);
}
}  // namespace ts::cuda

#define TS_CUDNN_CHECK(call) \
  TS_CHECK_STATUS(cudnnStatus_t, CUDNN_STATUS_SUCCESS, ::ts::cuda::throw_cudnn_error, call, #call)
