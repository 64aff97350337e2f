// GradScaler semantics of the loss scaler: growth, backoff, skip, and the disabled (bf16) mode.
#include <gtest/gtest.h>

#include "engine/loss_scaler.h"

namespace ts {
namespace {

TEST(LossScaler, StartsAt2To16) { EXPECT_FLOAT_EQ(LossScaler().scale(), 65536.0f); }

TEST(LossScaler, GrowsAfter2000CleanSteps) {
  LossScaler s;
  for (int i = 0; i < 1999; ++i) EXPECT_FALSE(s.update(false));
  EXPECT_FLOAT_EQ(s.scale(), 65536.0f);
  EXPECT_EQ(s.growth_tracker(), 1999);
  EXPECT_FALSE(s.update(false));
  EXPECT_FLOAT_EQ(s.scale(), 131072.0f);
  EXPECT_EQ(s.growth_tracker(), 0);
}

TEST(LossScaler, InfHalvesScaleSkipsStepAndResetsTracker) {
  LossScaler s;
  for (int i = 0; i < 1500; ++i) s.update(false);
  EXPECT_TRUE(s.update(true));  // injected inf: skip
  EXPECT_FLOAT_EQ(s.scale(), 32768.0f);
  EXPECT_EQ(s.growth_tracker(), 0);
  EXPECT_EQ(s.skipped_steps(), 1);
  for (int i = 0; i < 1999; ++i) s.update(false);
  EXPECT_FLOAT_EQ(s.scale(), 32768.0f);  // the 1500 clean steps before the inf do not count
  s.update(false);
  EXPECT_FLOAT_EQ(s.scale(), 65536.0f);
}

TEST(LossScaler, RepeatedOverflowKeepsBackingOff) {
  LossScaler s;
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(s.update(true));
  EXPECT_FLOAT_EQ(s.scale(), 65536.0f / 1024.0f);
  EXPECT_EQ(s.skipped_steps(), 10);
}

TEST(LossScaler, GrowthStopsBeforeInfinity) {
  LossScaler s(LossScalerConfig{3e38f, 2.0f, 0.5f, 1, true});
  s.update(false);
  EXPECT_FLOAT_EQ(s.scale(), 3e38f);
}

TEST(LossScaler, DisabledForBf16) {
  LossScaler s(LossScalerConfig{65536.0f, 2.0f, 0.5f, 2000, false});
  EXPECT_FLOAT_EQ(s.scale(), 1.0f);
  EXPECT_FALSE(s.update(true));
  EXPECT_EQ(s.skipped_steps(), 0);
}

TEST(LossScaler, RestoreRoundTrip) {
  LossScaler s;
  s.restore(1024.0f, 17, 3);
  EXPECT_FLOAT_EQ(s.scale(), 1024.0f);
  EXPECT_EQ(s.growth_tracker(), 17);
  EXPECT_EQ(s.skipped_steps(), 3);
}

}  // namespace
}  // namespace ts
