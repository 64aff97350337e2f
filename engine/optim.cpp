// Host implementations of the optimizer updates (torch.optim.SGD / Adam / AdamW, single-tensor
// path). The CPU backend uses them; the CUDA kernels are tested against them.
#include "engine/optim.h"

#include <cmath>

#include "base/enum_names.h"
#include "base/errors.h"

namespace ts {

namespace {
constexpr EnumName<OptimizerType> kOptimizers[] = {
    {OptimizerType::sgd, "sgd"},   {OptimizerType::adam, "adam"}, {OptimizerType::adamw, "adamw"},
    {OptimizerType::sgd, "SGD"},   {OptimizerType::adam, "Adam"}, {OptimizerType::adamw, "AdamW"}};
}  // namespace

const char* optimizer_name(OptimizerType t) { return enum_name(kOptimizers, t); }

OptimizerType parse_optimizer(const std::string& s) {
  if (const auto t = enum_value(kOptimizers, s)) return *t;
  throw InputError("unknown optimizer '" + s + "' (expected sgd, adam or adamw)");
}

void sgd_update_host(const OptimizerConfig& c, std::int64_t step, float* param, const float* grad,
                     float* momentum_buf, std::int64_t n) {
  const float wd = c.effective_weight_decay();
  for (std::int64_t i = 0; i < n; ++i) {
    float g = grad[i];
    if (wd != 0.0f) g += wd * param[i];
    if (c.momentum != 0.0f) {
      float b = step <= 1 ? g : c.momentum * momentum_buf[i] + (1.0f - c.dampening) * g;
      momentum_buf[i] = b;
      g = c.nesterov ? g + c.momentum * b : b;
    }
    param[i] -= c.lr * g;
  }
}

void adam_update_host(const OptimizerConfig& c, std::int64_t step, float* param, const float* grad,
                      float* m, float* v, std::int64_t n) {
  const float wd = c.effective_weight_decay();
  const bool decoupled = c.type == OptimizerType::adamw;
  const double bc1 = 1.0 - std::pow(static_cast<double>(c.beta1), static_cast<double>(step));
  const double bc2 = 1.0 - std::pow(static_cast<double>(c.beta2), static_cast<double>(step));
  const float step_size = static_cast<float>(c.lr / bc1);
  const float bc2_sqrt = static_cast<float>(std::sqrt(bc2));
  for (std::int64_t i = 0; i < n; ++i) {
    float g = grad[i];
    if (wd != 0.0f) {
      if (decoupled) param[i] *= 1.0f - c.lr * wd;
      else g += wd * param[i];
    }
    m[i] = c.beta1 * m[i] + (1.0f - c.beta1) * g;
    v[i] = c.beta2 * v[i] + (1.0f - c.beta2) * g * g;
    const float denom = std::sqrt(v[i]) / bc2_sqrt + c.eps;
    param[i] -= step_size * m[i] / denom;
  }
}

}  // namespace ts
