// Host loops of the CPU backend (see cpu_ops.h). Parallel over OpenMP threads, the same pool that
// oneDNN uses, so they never oversubscribe the cores that the primitives run on.
#include "engine/cpu/cpu_ops.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "base/errors.h"

namespace ts::cpu {

void nchw_to_nhwc(const float* src, float* dst, std::int64_t n, std::int64_t c, std::int64_t hw) {
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t ch = 0; ch < c; ++ch)
      for (std::int64_t i = 0; i < hw; ++i) dst[(b * hw + i) * c + ch] = src[(b * c + ch) * hw + i];
}

void nhwc_to_nchw(const float* src, float* dst, std::int64_t n, std::int64_t c, std::int64_t hw) {
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t ch = 0; ch < c; ++ch)
      for (std::int64_t i = 0; i < hw; ++i) dst[(b * c + ch) * hw + i] = src[(b * hw + i) * c + ch];
}

void normalize_images(const std::uint8_t* images, std::int64_t n, const Normalization& norm, float* out) {
  constexpr std::int64_t plane = kImageHeight * kImageWidth, C = kImageChannels;
  float scale[C], shift[C];
  for (std::size_t c = 0; c < C; ++c) {
    scale[c] = 1.0f / (255.0f * norm.std[c]);
    shift[c] = -norm.mean[c] / norm.std[c];
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < n; ++b) {
    const std::uint8_t* src = images + b * C * plane;
    float* dst = out + b * C * plane;
    for (std::int64_t i = 0; i < plane; ++i)
      for (std::int64_t c = 0; c < C; ++c) dst[i * C + c] = static_cast<float>(src[c * plane + i]) * scale[c] + shift[c];
  }
}

CrossEntropyResult cross_entropy(const float* logits, const std::int32_t* labels, std::int64_t n, std::int64_t k,
                                 float* grad) {
  for (std::int64_t i = 0; i < n; ++i)
    if (labels[i] < 0 || labels[i] >= k)
      throw InputError("label " + std::to_string(labels[i]) + " of sample " + std::to_string(i) +
                       " is outside [0, " + std::to_string(k) + ")");
  CrossEntropyResult r;
  double loss_sum = 0;
  std::int64_t correct = 0;
#pragma omp parallel for schedule(static) reduction(+ : loss_sum, correct)
  for (std::int64_t i = 0; i < n; ++i) {
    const float* z = logits + i * k;
    const std::int64_t arg = std::max_element(z, z + k) - z;  // first maximum
    const double mx = z[arg];
    double se = 0;
    for (std::int64_t j = 0; j < k; ++j) se += std::exp(static_cast<double>(z[j]) - mx);
    const double lse = mx + std::log(se);
    loss_sum += lse - z[labels[i]];
    correct += arg == labels[i] ? 1 : 0;
    if (grad)
      for (std::int64_t j = 0; j < k; ++j)
        grad[i * k + j] = static_cast<float>((std::exp(z[j] - lse) - (j == labels[i] ? 1.0 : 0.0)) /
                                             static_cast<double>(n));
  }
  r.loss_sum = loss_sum;
  r.correct = correct;
  return r;
}

void optimizer_update(const OptimizerConfig& c, std::int64_t step, float* param, const float* grad, float* state0,
                      float* state1, std::int64_t n) {
  constexpr std::int64_t kChunk = 1 << 15;
  const std::int64_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (std::int64_t ch = 0; ch < chunks; ++ch) {
    const std::int64_t off = ch * kChunk, len = std::min(kChunk, n - off);
    if (c.type == OptimizerType::sgd)
      sgd_update_host(c, step, param + off, grad + off, state0 ? state0 + off : nullptr, len);
    else
      adam_update_host(c, step, param + off, grad + off, state0 + off, state1 + off, len);
  }
}

std::string cpu_model_name() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) break;
    const auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string("unknown CPU") : line.substr(start);
  }
  return "unknown CPU";
}

int compute_threads() { return omp_get_max_threads(); }

void set_compute_threads(int threads) {
  if (threads > 0) omp_set_num_threads(threads);
}

}  // namespace ts::cpu
