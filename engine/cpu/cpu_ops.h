// Host loops of the CPU backend where oneDNN has no primitive: uint8 normalisation, cross-entropy with its
// gradient and argmax accuracy, and the threaded optimizer update over engine/optim.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/batch.h"
#include "engine/optim.h"

namespace ts::cpu {

// Layouts: the backend keeps image activations ([C, H, W] per sample) in NHWC, the layout in
// which oneDNN 2.6 has AVX2 JIT kernels for convolution and pooling with a plain, unpadded buffer
// (its NCHW paths fall back to gemm convolution and a slow reference pooling, ~3x slower here).
// The API (HostTensor), Flatten's output and dropout masks use NCHW order; these convert.
void nchw_to_nhwc(const float* src, float* dst, std::int64_t n, std::int64_t c, std::int64_t hw);
void nhwc_to_nchw(const float* src, float* dst, std::int64_t n, std::int64_t c, std::int64_t hw);

/// x' = (x/255 - mean[c]) / std[c] for n images of [3, 32, 32] uint8 (NCHW) into fp32 NHWC.
void normalize_images(const std::uint8_t* images, std::int64_t n, const Normalization& norm, float* out);

struct CrossEntropyResult {
  double loss_sum = 0;        // sum over the batch of -log softmax(logits)[label]
  std::int64_t correct = 0;   // argmax(logits) == label (first maximum on ties)
};
/// logits [n, k]; labels in [0, k) (InputError otherwise). When `grad` is not null it receives
/// dL/dlogits of the mean loss: (softmax - onehot) / n.
CrossEntropyResult cross_entropy(const float* logits, const std::int32_t* labels, std::int64_t n, std::int64_t k,
                                 float* grad);

/// One optimizer update of n elements, split into chunks over the OpenMP threads (the update is
/// element-wise, so the result equals one sgd_update_host / adam_update_host call).
/// `state0` is the momentum buffer (SGD, may be null) or Adam's m; `state1` Adam's v.
void optimizer_update(const OptimizerConfig& c, std::int64_t step, float* param, const float* grad, float* state0,
                      float* state1, std::int64_t n);

/// The CPU model name from /proc/cpuinfo ("unknown CPU" when absent).
std::string cpu_model_name();
/// Threads the backend computes with (OpenMP's maximum).
int compute_threads();
/// Sets OpenMP's (and so oneDNN's) thread count when threads > 0.
void set_compute_threads(int threads);

}  // namespace ts::cpu
