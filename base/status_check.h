// What every library check macro shares (TS_CUDA_CHECK, TS_KERNEL_CHECK, TS_CUBLAS_CHECK,
// TS_CUDNN_CHECK): evaluate the call once, compare its status with the library's success value and,
// when they differ, hand the status, the call's text, the file and the line to a [[noreturn]]
// thrower that builds the typed error. Library-free, so base/ stays free of CUDA headers.
#pragma once
#include <string>

namespace ts {

/// "<what> in <call> at <file>:<line>": the message of a failed library call, `what` being the
/// library's own words ("CUDA error cudaErrorInvalidValue (invalid argument)").
inline std::string failed_call_message(const std::string& what, const char* call, const char* file, int line) {
  return what + " in " + call + " at " + file + ":" + std::to_string(line);
}

}  // namespace ts

/// Evaluates `call` once into a `status_type`; when it is not `ok`, calls
/// thrower(status, call_text, __FILE__, __LINE__). call_text is stringized by the caller's macro,
/// so it names the call as written.
#define TS_CHECK_STATUS(status_type, ok, thrower, call, call_text)                   \
  do {                                                                               \
    status_type ts_status_ = (call);                                                 \
    if (ts_status_ != (ok)) thrower(ts_status_, call_text, __FILE__, __LINE__);      \
  } while (0)
