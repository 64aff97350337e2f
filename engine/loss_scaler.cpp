// See loss_scaler.h. Mirrors torch._amp_update_scale_ (aten/src/ATen/native/cuda/AmpKernels.cu):
// on inf: scale *= backoff, tracker = 0; else tracker += 1 and when tracker == growth_interval:
// scale *= growth (if the result stays finite), tracker = 0.
#include "engine/loss_scaler.h"

#include <cmath>

namespace ts {

LossScaler::LossScaler(LossScalerConfig config) : config_(config), scale_(config.init_scale) {}

bool LossScaler::update(bool found_inf) {
  if (!config_.enabled) return false;
  if (found_inf) {
    scale_ *= config_.backoff_factor;
    growth_tracker_ = 0;
    ++skipped_;
    return true;
  }
  if (++growth_tracker_ == config_.growth_interval) {
    const float grown = scale_ * config_.growth_factor;
    if (std::isfinite(grown)) scale_ = grown;
    growth_tracker_ = 0;
  }
  return false;
}

void LossScaler::restore(float scale, std::int64_t growth_tracker, std::int64_t skipped) {
  scale_ = scale;
  growth_tracker_ = growth_tracker;
  skipped_ = skipped;
}

}  // namespace ts
