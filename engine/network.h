// The backend interface: a model built from a ModelSpec on one device, with its parameters,
// gradients and optimizer state, that trains on Batches. The CPU backend (oneDNN) and the CUDA
// backend (cuDNN, cuBLAS, kernels/) implement it; the trainer, the runner and the tests use only
// this interface. Calls are made from one thread (the trainer's).
//
// Hot path:  train_step(batch) -> enqueues normalise, forward, cross-entropy, backward and the
//            optimizer update; the step's loss stays on the device (no sync) unless read.
// Test path: forward / backward / gradients / optimizer_step on HostTensors.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/batch.h"
#include "engine/memory.h"
#include "engine/model_spec.h"
#include "engine/optim.h"
#include "engine/tensor.h"

namespace ts {

/// What a backend runs on; reported by the runner and stored in sessions.
struct DeviceInfo {
  Device device = Device::cpu;
  std::string name;                 // "NVIDIA H200" or the CPU model
  int ordinal = 0;                  // CUDA device index
  int compute_capability_major = 0, compute_capability_minor = 0;
  int multiprocessors = 0;          // SMs
  std::int64_t total_memory_bytes = 0;
  int driver_version = 0, runtime_version = 0;  // CUDA, as 13000 = 13.0
  std::int64_t cudnn_version = 0;   // cudnnGetVersion() at run time, e.g. 91400
  std::int64_t cublas_version = 0;
  int cpu_threads = 0;              // threads the CPU backend computes with
  std::string library_versions;     // free text, e.g. "oneDNN 2.6.3"
};

struct NetworkOptions {
  OptimizerConfig optimizer;
  Normalization normalization;
  std::uint64_t seed = 0;           // parameter init and dropout masks
  std::int64_t max_batch_size = 128;
  bool allow_tf32 = true;           // cuDNN convolutions may use TF32 (PyTorch's default); cuBLAS never
  bool deterministic = false;       // deterministic algorithms only
  int cuda_device = 0;
  int cpu_threads = 0;              // 0 = the library's default
};

/// Result of one evaluation pass (see begin_eval).
struct EvalResult {
  std::int64_t correct = 0, total = 0;
  double loss_sum = 0;  // sum of per-sample cross-entropy losses
};

/// Callback to obtain host memory for batches: pinned (page-locked) when `pinned` and the backend
/// can, otherwise plain. The deleter frees it.
using HostBuffer = std::unique_ptr<std::uint8_t, std::function<void(std::uint8_t*)>>;

class Network {
 public:
  virtual ~Network() = default;
  virtual DeviceInfo device_info() const = 0;
  virtual const ModelSpec& spec() const = 0;

  // ---- hot path -------------------------------------------------------------------------
  /// One training step on `batch` (size <= max_batch_size): normalise, forward (train mode),
  /// mean cross-entropy, backward, optimizer update. Asynchronous on CUDA; `batch` memory may be
  /// reused once the call returns. Throws DeviceError / OutOfMemoryError.
  virtual void train_step(const Batch& batch) = 0;
  /// Loss of the most recent train_step; waits for it (a device sync on CUDA, what loss.item() does).
  virtual float last_loss() = 0;
  /// Losses of every train_step since the previous call, in order; waits for them.
  virtual std::vector<float> drain_step_losses() = 0;

  /// Evaluation: begin_eval(), eval_batch() for each test batch (eval mode: no dropout, BatchNorm
  /// running statistics), end_eval() waits and returns the counts.
  virtual void begin_eval() = 0;
  virtual void eval_batch(const Batch& batch) = 0;
  virtual EvalResult end_eval() = 0;

  /// Host memory for the loader's batch buffers (pinned where the backend supports it).
  virtual HostBuffer allocate_host(std::size_t bytes, bool pinned) = 0;
  virtual MemoryStats memory_stats() const = 0;
  /// Waits for all queued work.
  virtual void synchronize() = 0;

  // ---- test path (fp32 host tensors, shapes include the batch dimension) ------------------
  /// Forward of already-normalised input x [N, ...spec.input] -> output of the last layer.
  virtual HostTensor forward(const HostTensor& x, bool training) = 0;
  /// Backward from dL/d(output) of the last forward(training=true); returns dL/dx and leaves the
  /// parameter gradients (overwritten, not accumulated) for gradients().
  virtual HostTensor backward(const HostTensor& grad_output) = 0;
  /// Forward, mean cross-entropy against `labels`, backward. Returns the loss; logits in *logits.
  virtual float forward_backward_loss(const HostTensor& x, const std::vector<std::int32_t>& labels,
                                      HostTensor* logits) = 0;
  /// One optimizer update with the current gradients.
  virtual void optimizer_step() = 0;
  /// Learnable parameters in PyTorch's order (named_parameters()), their gradients, and buffers
  /// (BatchNorm running_mean / running_var).
  virtual std::vector<NamedTensor> parameters() const = 0;
  virtual std::vector<NamedTensor> gradients() const = 0;
  virtual std::vector<NamedTensor> buffers() const = 0;
  /// Replaces parameters (and buffers, when given) by name; shapes must match (InputError if not).
  virtual void set_parameters(const std::vector<NamedTensor>& tensors) = 0;
  /// Dropout layers act as identity even in training mode when disabled (reference tests).
  virtual void set_dropout_enabled(bool enabled) = 0;
};

/// PyTorch's default initialisation for the spec's parameters, on the host: Conv2d and Linear
/// weights kaiming_uniform_(a=sqrt(5)) i.e. U(-1/sqrt(fan_in), 1/sqrt(fan_in)), biases
/// U(-1/sqrt(fan_in), 1/sqrt(fan_in)); BatchNorm weight 1, bias 0, running_mean 0, running_var 1.
/// Deterministic in `seed` (not PyTorch's RNG stream). Learnable parameters only, in
/// Network::parameters() order (layer order; weight then bias).
std::vector<NamedTensor> initial_parameters(const ModelSpec& spec, std::uint64_t seed);
/// Buffers only (BatchNorm running statistics), initial values.
std::vector<NamedTensor> initial_buffers(const ModelSpec& spec);

/// True when the CUDA backend was built and a usable GPU is present (any error from
/// cudaGetDeviceCount counts as none). `why` gets the reason when false.
bool cuda_available(std::string* why = nullptr);
/// Every usable CUDA device with its name, memory and versions, without creating a network; empty
/// when there is none or the CUDA backend was not built.
std::vector<DeviceInfo> list_cuda_devices();
/// Builds the network on the device. Throws InputError for an invalid spec, DeviceError when the
/// device cannot be used (no GPU: the message suggests --device cpu).
std::unique_ptr<Network> make_network(Device device, const ModelSpec& spec, const NetworkOptions& options);

// Backend factories (defined only when built; make_network dispatches).
std::unique_ptr<Network> make_cpu_network(const ModelSpec& spec, const NetworkOptions& options);
std::unique_ptr<Network> make_cuda_network(const ModelSpec& spec, const NetworkOptions& options);

}  // namespace ts
