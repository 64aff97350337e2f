// Dynamic loss scaling for fp16 autocast, with torch.cuda.amp.GradScaler's semantics
// (torch/amp/grad_scaler.py, PyTorch 2.x): the loss is multiplied by `scale` before backward; the
// gradients are unscaled before the optimizer; a step whose gradients hold an inf or NaN is skipped
// and the scale multiplied by backoff_factor (0.5); after growth_interval (2000) consecutive clean
// steps the scale is multiplied by growth_factor (2.0). Initial scale 2^16. bf16 needs no scaling
// (its exponent range is fp32's), so the scaler is disabled there and update() only counts steps.
#pragma once
#include <cstdint>

namespace ts {

struct LossScalerConfig {
  float init_scale = 65536.0f;     // 2^16
  float growth_factor = 2.0f;
  float backoff_factor = 0.5f;
  std::int64_t growth_interval = 2000;
  bool enabled = true;
};

/// Host-side state machine; backends keep the scale on the device as well and call update() with
/// the result of their inf/NaN check once per optimizer step.
class LossScaler {
 public:
  explicit LossScaler(LossScalerConfig config = {});
  /// The factor the loss is multiplied by (1 when disabled).
  float scale() const { return config_.enabled ? scale_ : 1.0f; }
  bool enabled() const { return config_.enabled; }
  /// Records one step. `found_inf`: any gradient was inf or NaN after unscaling. Returns true when
  /// the optimizer step must be skipped (found_inf with scaling enabled).
  bool update(bool found_inf);
  std::int64_t growth_tracker() const { return growth_tracker_; }  // clean steps since the last change
  std::int64_t skipped_steps() const { return skipped_; }
  /// Restores a state (checkpoints).
  void restore(float scale, std::int64_t growth_tracker, std::int64_t skipped);

 private:
  LossScalerConfig config_;
  float scale_;
  std::int64_t growth_tracker_ = 0;
  std::int64_t skipped_ = 0;
};

}  // namespace ts
