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
#include "engine/loss_scaler.h"
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

/// Automatic mixed precision (torch.autocast semantics): off = fp32; fp16 = convolutions and linear
/// layers in fp16 on tensor cores with fp32 accumulation, activations in fp16, dynamic loss scaling
/// (LossScaler / GradScaler semantics); bf16 = the same in bf16, without scaling. In both, master
/// weights, gradients, optimizer state, softmax/loss and BatchNorm statistics stay fp32.
enum class AmpMode : std::uint8_t { off, fp16, bf16 };
/// "off", "fp16", "bf16".
const char* amp_mode_name(AmpMode m);
/// Parses "off" | "fp16" | "bf16" (also "fp32" = off); throws InputError naming the choices.
AmpMode parse_amp_mode(const std::string& s);

struct NetworkOptions {
  OptimizerConfig optimizer;
  Normalization normalization;
  std::uint64_t seed = 0;           // parameter init and dropout masks
  std::int64_t max_batch_size = 128;
  /// Other batch sizes the run will meet, each in [1, max_batch_size) (the epoch's last short batch,
  /// the evaluation's batches): the CUDA backend chooses their convolution algorithms (searched, as
  /// for max_batch_size, unless deterministic) and runs each once while it is built, so no step pays
  /// cuDNN's first use of a shape (2.27 s on the host for the first bf16 convolution at batch 272 in
  /// the mixed_precision lesson's H200 recording, cuDNN 9.19). Sizes outside the range are ignored.
  std::vector<std::int64_t> planned_batch_sizes;
  bool allow_tf32 = true;           // cuDNN convolutions may use TF32 (PyTorch's default); cuBLAS never
  bool deterministic = false;       // deterministic algorithms only (cuDNN heuristics, fixed reductions)
  AmpMode amp = AmpMode::off;       // CUDA: off/fp16/bf16; CPU: off only (see make_cpu_network)
  LossScalerConfig loss_scaler;     // fp16 only (enabled is ignored: fp16 always scales)
  /// Gradient accumulation: train_step calls per optimizer update (>= 1). Each micro-batch's loss
  /// gradient is divided by `accumulate`, the gradients are summed, and every accumulate-th call
  /// applies the optimizer (torch's `loss / N; loss.backward()` loop).
  int accumulate = 1;
  /// CUDA: each training step is one replay of a CUDA graph captured at its first step per batch size
  /// (forward, loss, backward and update; the input copies stay outside), so the host's cost of a step
  /// is one launch instead of every cuDNN/cuBLAS call and kernel launch. Only with accumulate == 1 (else
  /// steps run eagerly). The per-layer host ranges then exist for the captured step alone. CPU: ignored.
  bool cuda_graphs = false;
  /// CUDA: each Conv2d -> ReLU -> MaxPool2d(2, stride 2) on an even height and width runs as one fused
  /// tail (engine/pool_fusion.h, kernels/pool/fused_pool.h) instead of the epilogue and cuDNN's pooling;
  /// the same values bit for bit, less memory traffic. The trainer sets it from TRAINSCOPE_FUSED_POOL
  /// (fused_pool_from_env: =0 for the unfused path). CPU: ignored.
  bool fused_pool = true;
  int cuda_device = 0;
  int cpu_threads = 0;              // 0 = the library's default
  /// Cap on the allocator's reserved bytes, a simulated smaller card (engine/memory.h); 0 = none.
  /// CUDA: the up-front memory plan also sees it (free memory = min(cudaMemGetInfo's, cap left)).
  std::int64_t memory_limit_bytes = 0;
};

/// Optimizer and loss-scaler counters (checkpoints, the runner's summary, the GUI's AMP readout).
struct TrainingCounters {
  std::int64_t train_steps = 0;      // train_step calls (micro-batches)
  std::int64_t optimizer_steps = 0;  // updates applied (Adam's t); < train_steps with skips/accumulation
  float loss_scale = 1.0f;           // the fp16 loss scale the next step uses (1 otherwise)
  std::int64_t growth_tracker = 0;   // clean steps since the scale last changed (fp16)
  std::int64_t skipped_steps = 0;    // optimizer steps skipped for inf/NaN gradients (fp16)
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
  /// Loss scale of each step returned by the latest drain_step_losses(), same order, NEGATED for a
  /// step whose optimizer update was skipped (inf/NaN gradients). Empty unless AMP is fp16; with
  /// accumulation only the last micro-batch of an update carries a value (the others have 0).
  virtual std::vector<float> drained_loss_scales() const { return {}; }
  /// Applies the optimizer to gradients accumulated from fewer than `accumulate` micro-batches (the
  /// trainer calls it at the end of an epoch); no-op when nothing is pending.
  virtual void flush_accumulation() {}
  /// Counters; on CUDA this waits for queued work (read them at log intervals, not every step).
  virtual TrainingCounters counters() = 0;
  /// Restores counters from a checkpoint (step counts and the loss-scaler state).
  virtual void restore_counters(const TrainingCounters& c) = 0;
  /// Optimizer state by name: "<param>.exp_avg", "<param>.exp_avg_sq" (Adam/AdamW),
  /// "<param>.momentum_buffer" (SGD with momentum); PyTorch's state_dict names and layouts.
  virtual std::vector<NamedTensor> optimizer_state() const = 0;
  /// Replaces optimizer state by name; InputError for an unknown name or a wrong shape.
  virtual void set_optimizer_state(const std::vector<NamedTensor>& tensors) = 0;

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
/// True when this build has the CPU backend (oneDNN); `why` gets the reason when false.
bool cpu_backend_available(std::string* why = nullptr);
/// Every usable CUDA device with its name, memory and versions, without creating a network; empty
/// when there is none or the CUDA backend was not built.
std::vector<DeviceInfo> list_cuda_devices();
/// Builds the network on the device. Throws InputError for an invalid spec or an option the backend
/// cannot honour (AMP on the CPU: see cpu_amp_support), DeviceError when the device cannot be used
/// (no GPU: the message suggests --device cpu).
std::unique_ptr<Network> make_network(Device device, const ModelSpec& spec, const NetworkOptions& options);

/// Whether the CPU backend can run `mode`; when not, `why` gets the reason. fp16 AMP is a CUDA
/// feature; bf16 would need oneDNN's bf16 kernels (AVX512-BF16 or AMX, from /proc/cpuinfo) and is not
/// implemented in the CPU backend yet, so it is refused with the reason in either case.
bool cpu_amp_support(AmpMode mode, std::string* why);

// Backend factories (defined only when built; make_network dispatches).
std::unique_ptr<Network> make_cpu_network(const ModelSpec& spec, const NetworkOptions& options);
std::unique_ptr<Network> make_cuda_network(const ModelSpec& spec, const NetworkOptions& options);

}  // namespace ts
