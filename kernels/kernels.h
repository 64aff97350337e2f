// Host launchers of TrainScope's own training kernels (the .cu files beside this header, one per
// family). Every launcher enqueues on `stream`, never synchronises, never allocates, and checks the
// launch (ts::DeviceError on failure). Pointers are device pointers; shapes are NCHW. Activations
// are of an ElemType (fp32, or fp16/bf16 under AMP: loads widen to fp32, all maths in fp32, stores
// round to nearest even); parameters, gradients, optimizer state and losses are always fp32.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

namespace ts::kernels {

/// Element type of activation tensors (and of the low-precision weight copy under AMP).
enum class ElemType : int { f32 = 0, f16 = 1, bf16 = 2 };
inline int elem_bytes(ElemType t) { return t == ElemType::f32 ? 4 : 2; }

// ---- normalize.cu -------------------------------------------------------------------------------
/// y = (x/255 - mean[c]) / std[c] for uint8 images x [n, channels, hw] (channels <= 4).
struct NormalizeParams {
  float mean[4] = {0, 0, 0, 0};
  float std[4] = {1, 1, 1, 1};
};
/// y is of type `yt`.
void normalize_u8(const std::uint8_t* x, void* y, ElemType yt, std::int64_t n, int channels, std::int64_t hw,
                  const NormalizeParams& p, cudaStream_t stream);

// ---- epilogue.cu --------------------------------------------------------------------------------
/// The pointwise tail fused after a convolution or linear layer (or standing alone):
/// y = x + bias[c] (when bias), then max(y, 0) (when relu), then dropout (when dropout: keep element
/// i when dropout_uniform(dropout_key, i) >= p, scale 1/(1-p); i is the flat index in [n, c, hw]).
struct Epilogue {
  const float* bias = nullptr;  // [channels] or null
  bool relu = false;
  bool dropout = false;
  float dropout_p = 0.0f;
  std::uint64_t dropout_key = 0;
  /// CUDA-graph replays: when set, the key is dropout_key(dropout_seed, *dropout_step, dropout_layer)
  /// read on the device at each launch (the step changes between replays; dropout_key is ignored).
  const long long* dropout_step = nullptr;
  std::uint64_t dropout_seed = 0, dropout_layer = 0;
};
/// In place on y [n, channels, hw] of type t (bias is fp32; maths in fp32).
void epilogue_forward(void* y, ElemType t, std::int64_t n, std::int64_t channels, std::int64_t hw, const Epilogue& e,
                      cudaStream_t stream);
/// Backward of epilogue_forward, in place on dy: dy *= dropout scale (recomputed from the hash),
/// dy = 0 where y <= 0 (relu; y is the forward output). When e.bias is set, grad_bias [channels] is
/// overwritten with dy summed over n and hw, deterministically: per-block partial sums in `partials`
/// (epilogue_partials_count floats) and the last block of each channel adds them in a fixed order,
/// using `counters` [channels] (zero before the first call; left zero after each).
/// dy and y are of type t; grad_bias and partials fp32 (the bias gradient is summed in fp32).
void epilogue_backward(void* dy, const void* y, ElemType t, std::int64_t n, std::int64_t channels, std::int64_t hw,
                       const Epilogue& e, float* grad_bias, float* partials, unsigned* counters,
                       cudaStream_t stream);
std::int64_t epilogue_partials_count(std::int64_t n, std::int64_t channels, std::int64_t hw);

// ---- cross_entropy.cu -----------------------------------------------------------------------------
/// Mean softmax cross-entropy of logits [n, classes] against labels [n] written to *loss (one float,
/// e.g. the step's slot of the loss ring); when grad is not null, grad = (softmax - onehot)/n.
/// One block, fixed reduction order (deterministic). A label outside [0, classes) gives a NaN loss.
/// Logits and grad are of type t (autocast: fp16/bf16 logits, softmax and loss in fp32). The
/// gradient is multiplied by grad_mult (1/N under gradient accumulation) and, when grad_scale is not
/// null, by *grad_scale (the device's fp16 loss scale); *loss is the unscaled mean loss.
void cross_entropy_forward_backward(const void* logits, ElemType t, const std::int32_t* labels, std::int64_t n,
                                    std::int64_t classes, void* grad, float* loss, cudaStream_t stream,
                                    float grad_mult = 1.0f, const float* grad_scale = nullptr);
/// Evaluation counters: *correct += number of rows whose argmax (first maximum) equals the label;
/// *loss_sum += sum of per-sample cross-entropy losses (atomics; zero them before a pass).
void eval_accumulate(const void* logits, ElemType t, const std::int32_t* labels, std::int64_t n, std::int64_t classes,
                     unsigned long long* correct, double* loss_sum, cudaStream_t stream);

// ---- optimizer.cu ----------------------------------------------------------------------------------
/// One update over a flat parameter buffer, with engine/optim.h's maths. Host-computed per step:
/// Adam/AdamW step_size = lr/(1-beta1^t) and bias_correction2_sqrt = sqrt(1-beta2^t).
struct OptimizerArgs {
  enum Kind : int { sgd = 0, adam = 1, adamw = 2 } kind = adam;
  float lr = 1e-3f, weight_decay = 0.0f;
  float momentum = 0.0f, dampening = 0.0f;  // SGD
  bool nesterov = false, first_step = true;   // SGD: the momentum buffer starts as g
  float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
  float step_size = 1e-3f, bias_correction2_sqrt = 1.0f;
  /// CUDA-graph replays: when set, the updates applied so far are read on the device at each launch
  /// (Adam's t = *device_t + 1, bias corrections in double as the host computes them; SGD's first step
  /// is *device_t == 0), and step_size / bias_correction2_sqrt / first_step are ignored.
  const long long* device_t = nullptr;
};
/// state1: SGD momentum buffer (may be null when momentum == 0) or Adam m; state2: Adam v.
/// accum (may be null): gradients of earlier micro-batches, added to grad (gradient accumulation).
/// lp (may be null): the low-precision copy of the parameters (type lpt) rewritten from the updated
/// fp32 master weights in the same pass (AMP).
void optimizer_update(const OptimizerArgs& a, float* param, const float* grad, float* state1, float* state2,
                      std::int64_t n, cudaStream_t stream, const float* accum = nullptr, void* lp = nullptr,
                      ElemType lpt = ElemType::f32);

/// The step counters a captured CUDA graph keeps on the device: counters[0] (train steps, the dropout
/// step) += 1 and, when `update`, counters[1] (updates applied) += 1. One thread.
void advance_step_counters(long long* counters, bool update, cudaStream_t stream);

// ---- amp.cu ------------------------------------------------------------------------------------------
/// fp32 <-> fp16/bf16 casts (round to nearest even, as __float2half_rn / __float2bfloat16_rn).
void cast_from_float(const float* x, void* y, ElemType yt, std::int64_t n, cudaStream_t stream);
void cast_to_float(const void* x, ElemType xt, float* y, std::int64_t n, cudaStream_t stream);
/// Gradient accumulation: acc = first ? g : acc + g (n floats).
void grad_accumulate(float* acc, const float* g, std::int64_t n, bool first, cudaStream_t stream);

/// Loss-scaler state on the device (fp16 AMP), GradScaler's semantics (engine/loss_scaler.h).
struct AmpDeviceState {
  float scale;                  // current loss scale
  int growth_tracker;           // clean steps since the last change
  unsigned found_inf;           // set during a step's check, cleared by the same launch
  long long optimizer_steps;    // updates applied (Adam's t of the next update is this + 1)
  long long skipped_steps;      // steps skipped for inf/NaN gradients
};
struct AmpScalerArgs {
  float growth_factor = 2.0f, backoff_factor = 0.5f;
  int growth_interval = 2000;
};
/// fp16 AMP optimizer step in ONE cooperative launch, with no host sync: (1) every (grad + accum) is
/// checked for inf/NaN (scaled values), grid barrier; (2) when any was found the update is skipped,
/// else grad*(1/scale) goes through the OptimizerArgs maths (Adam's bias corrections from the device's
/// t = optimizer_steps + 1, in double, as torch computes them) and the fp32 master weights and the fp16
/// copy lp are written; (3) the state is advanced as torch._amp_update_scale_ does (skip: scale *=
/// backoff, tracker = 0; clean: tracker += 1, scale *= growth when it reaches growth_interval). The
/// scale used by this step is written to *scale_out, negated when the step was skipped.
/// a.step_size / a.bias_correction2_sqrt / a.first_step are ignored (computed on the device).
void amp_optimizer_update(const OptimizerArgs& a, const AmpScalerArgs& s, AmpDeviceState* state, float* scale_out,
                          float* param, const float* grad, const float* accum, float* state1, float* state2,
                          void* lp, ElemType lpt, std::int64_t n, cudaStream_t stream);

}  // namespace ts::kernels
