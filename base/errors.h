// TrainScope's typed errors, in base/ because every module throws them (kernels/ and engine/ through
// cuda_check.h). Everything below app/ throws one of these; the front ends catch them, show the
// one-line message and map them to exit codes (runner: InputError -> 2, DeviceError -> 3).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ts {

/// Base of all TrainScope errors; what() is a single line meant for the user.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad user input: a missing or malformed file, an invalid model spec, a bad option value.
class InputError : public Error {
 public:
  using Error::Error;
};

/// The model spec does not type-check. `layer_index` is 0-based; -1 when the error is not about
/// one layer (e.g. an empty spec).
class ModelSpecError : public InputError {
 public:
  ModelSpecError(int layer_index, std::string layer_type, const std::string& message)
      : InputError(message), layer_index(layer_index), layer_type(std::move(layer_type)) {}
  int layer_index;
  std::string layer_type;
};

/// A device could not be used: no GPU or driver, a CUDA/cuDNN/cuBLAS failure.
class DeviceError : public Error {
 public:
  using Error::Error;
};

/// The device ran out of memory, or an allocation would have taken the allocator past its cap (a
/// simulated smaller card, --memory-limit: memory_limit_bytes > 0, the message says "simulated").
/// Carries what was asked and what was free (bytes; under a cap, the cap minus what was reserved),
/// the phase or layer that asked, and the advice: a batch size that would fit and the accumulation
/// that keeps the effective batch (0 when unknown).
class OutOfMemoryError : public DeviceError {
 public:
  OutOfMemoryError(const std::string& message, std::int64_t requested_bytes, std::int64_t free_bytes,
                   std::string phase)
      : DeviceError(message), requested_bytes(requested_bytes), free_bytes(free_bytes),
        phase(std::move(phase)) {}
  std::int64_t requested_bytes;
  std::int64_t free_bytes;
  std::string phase;
  std::int64_t suggested_batch_size = 0;
  /// --accumulate with suggested_batch_size for the same effective batch (batch size x accumulate); 0: none.
  int suggested_accumulate = 0;
  std::int64_t memory_limit_bytes = 0;  // the allocator's cap (bytes) when it was hit; 0: a real OOM
};

}  // namespace ts
