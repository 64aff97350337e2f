// TS_CUDNN_CHECK: checks a cuDNN call, keeping file, line, the call and cudnnGetErrorString; throws
// ts::DeviceError (OutOfMemoryError when cuDNN could not allocate). Include only from cuDNN units.
#pragma once
#include <cudnn.h>

#include <string>

#include "base/errors.h"

namespace ts::cuda {
[[noreturn]] inline void throw_cudnn_error(cudnnStatus_t s, const char* call, const char* file, int line) {
  std::string msg = std::string("cuDNN error ") + cudnnGetErrorString(s) + " in " + call + " at " + file + ":" +
                    std::to_string(line);
  if (s == CUDNN_STATUS_ALLOC_FAILED) throw OutOfMemoryError(msg, 0, 0, call);
  throw DeviceError(msg);
}
}  // namespace ts::cuda

#define TS_CUDNN_CHECK(call)                                                         \
  do {                                                                               \
    cudnnStatus_t ts_st_ = (call);                                                   \
    if (ts_st_ != CUDNN_STATUS_SUCCESS) ::ts::cuda::throw_cudnn_error(ts_st_, #call, __FILE__, __LINE__); \
  } while (0)
