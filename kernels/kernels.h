// Host launchers of TrainScope's own training kernels (the .cu files beside this header, one per
// family). Every launcher enqueues on `stream`, never synchronises, never allocates, and checks the
// launch (ts::DeviceError on failure). Pointers are device pointers; shapes are NCHW, fp32.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

namespace ts::kernels {

// ---- normalize.cu -------------------------------------------------------------------------------
/// y = (x/255 - mean[c]) / std[c] for uint8 images x [n, channels, hw] (channels <= 4).
struct NormalizeParams {
  float mean[4] = {0, 0, 0, 0};
  float std[4] = {1, 1, 1, 1};
};
void normalize_u8(const std::uint8_t* x, float* y, std::int64_t n, int channels, std::int64_t hw,
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
};
/// In place on y [n, channels, hw].
void epilogue_forward(float* y, std::int64_t n, std::int64_t channels, std::int64_t hw, const Epilogue& e,
                      cudaStream_t stream);
/// Backward of epilogue_forward, in place on dy: dy *= dropout scale (recomputed from the hash),
/// dy = 0 where y <= 0 (relu; y is the forward output). When e.bias is set, grad_bias [channels] is
/// overwritten with dy summed over n and hw, deterministically: per-block partial sums in `partials`
/// (epilogue_partials_count floats) and the last block of each channel adds them in a fixed order,
/// using `counters` [channels] (zero before the first call; left zero after each).
void epilogue_backward(float* dy, const float* y, std::int64_t n, std::int64_t channels, std::int64_t hw,
                       const Epilogue& e, float* grad_bias, float* partials, unsigned* counters,
                       cudaStream_t stream);
std::int64_t epilogue_partials_count(std::int64_t n, std::int64_t channels, std::int64_t hw);

// ---- cross_entropy.cu -----------------------------------------------------------------------------
/// Mean softmax cross-entropy of logits [n, classes] against labels [n] written to *loss (one float,
/// e.g. the step's slot of the loss ring); when grad is not null, grad = (softmax - onehot)/n.
/// One block, fixed reduction order (deterministic). A label outside [0, classes) gives a NaN loss.
void cross_entropy_forward_backward(const float* logits, const std::int32_t* labels, std::int64_t n,
                                    std::int64_t classes, float* grad, float* loss, cudaStream_t stream);
/// Evaluation counters: *correct += number of rows whose argmax (first maximum) equals the label;
/// *loss_sum += sum of per-sample cross-entropy losses (atomics; zero them before a pass).
void eval_accumulate(const float* logits, const std::int32_t* labels, std::int64_t n, std::int64_t classes,
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
};
/// state1: SGD momentum buffer (may be null when momentum == 0) or Adam m; state2: Adam v.
void optimizer_update(const OptimizerArgs& a, float* param, const float* grad, float* state1, float* state2,
                      std::int64_t n, cudaStream_t stream);

}  // namespace ts::kernels
