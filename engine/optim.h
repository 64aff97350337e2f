// Optimizers with PyTorch's defaults and update rules (torch.optim.SGD, Adam, AdamW, 2.x docs:
// https://pytorch.org/docs/stable/generated/torch.optim.Adam.html and friends). The host functions
// here are the CPU backend's implementation and the reference the CUDA kernels are tested against.
#pragma once
#include <cstdint>
#include <string>

namespace ts {

enum class OptimizerType : std::uint8_t { sgd, adam, adamw };
const char* optimizer_name(OptimizerType t);
/// "sgd" | "adam" | "adamw"; throws InputError otherwise.
OptimizerType parse_optimizer(const std::string& s);

struct OptimizerConfig {
  OptimizerType type = OptimizerType::adam;
  float lr = 1e-3f;
  // SGD
  float momentum = 0.0f, dampening = 0.0f;
  bool nesterov = false;
  // Adam / AdamW
  float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
  /// L2 penalty (SGD, Adam) or decoupled decay (AdamW). PyTorch's default: 0, and 0.01 for AdamW;
  /// negative means "the optimizer's default".
  float weight_decay = -1.0f;
  float effective_weight_decay() const {
    return weight_decay >= 0 ? weight_decay : (type == OptimizerType::adamw ? 0.01f : 0.0f);
  }
};

/// One SGD step over n parameters (torch.optim.SGD): g += wd*p; buf = momentum*buf + (1-dampening)*g
/// (buf = g on the first step); g = nesterov ? g + momentum*buf : buf; p -= lr*g.
/// `momentum_buf` may be null when momentum == 0. `step` is 1 on the first step.
void sgd_update_host(const OptimizerConfig& c, std::int64_t step, float* param, const float* grad,
                     float* momentum_buf, std::int64_t n);

/// One Adam/AdamW step over n parameters (torch.optim.Adam/AdamW, non-amsgrad, non-foreach maths):
/// Adam: g += wd*p.  AdamW: p *= 1 - lr*wd.  m = b1*m + (1-b1)*g; v = b2*v + (1-b2)*g^2;
/// p -= lr/(1-b1^t) * m / (sqrt(v)/sqrt(1-b2^t) + eps), t = `step` (1 on the first step).
void adam_update_host(const OptimizerConfig& c, std::int64_t step, float* param, const float* grad,
                      float* m, float* v, std::int64_t n);

}  // namespace ts
