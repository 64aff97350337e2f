// The playground on a GPU: every family's variants pass their checks at a small size and are timed
// from CUPTI's kernel records (one per launch), and the occupancy arithmetic agrees with
// cudaOccupancyMaxActiveBlocksPerMultiprocessor. Small sizes keep the test quick; the acceptance
// figures come from `trainscope-run --playground all` at the default sizes (docs/playground.md).
#include <gtest/gtest.h>

#include "engine/errors.h"
#include "engine/network.h"
#include "kernels/playground/playground.h"

namespace ts::playground {
namespace {

RunResult run_one(const std::string& family, std::int64_t size) {
  Options o;
  o.families = {family};
  o.size = size;
  return run(o);
}

void expect_all_checked_and_timed(const std::string& family, std::int64_t size) {
  std::string why;
  if (!cuda_available(&why)) GTEST_SKIP() << why;
  const RunResult r = run_one(family, size);
  ASSERT_EQ(r.ladders.size(), 1u);
  const Ladder& l = r.ladders[0];
  ASSERT_FALSE(l.variants.empty());
  for (const auto& v : l.variants) {
    EXPECT_TRUE(v.checked) << family << " / " << v.name;
    EXPECT_TRUE(v.check_passed) << family << " / " << v.name << ": " << v.check_what << " error " << v.max_error
                                << " tolerance " << v.tolerance << " " << v.note;
    EXPECT_GT(v.median_ns, 0) << v.name;
    EXPECT_GT(v.event_ns, 0) << v.name;
    EXPECT_GT(v.throughput, 0) << v.name;
    if (r.cupti_status.empty()) {
      EXPECT_EQ(v.time_source, "cupti") << v.name;
      EXPECT_GE(v.kernels_per_launch, 1) << v.name;
      if (v.own) {
        EXPECT_EQ(v.kernels_per_launch, 1) << v.name;  // our launches are one kernel each
      }
    }
    if (family == "occupancy") {
      EXPECT_EQ(v.note.find("DIFFERS"), std::string::npos) << v.name << ": " << v.note;
    }
  }
  EXPECT_EQ(l.failed_checks(), 0);
}

TEST(PlaygroundGpu, VectorAdd) {
  expect_all_checked_and_timed("vector_add", 1 << 20);
}
TEST(PlaygroundGpu, Copy) {
  expect_all_checked_and_timed("copy", 1 << 20);
}
TEST(PlaygroundGpu, StridedReads) {
  expect_all_checked_and_timed("stride", 1 << 20);
}
TEST(PlaygroundGpu, Transpose) {
  expect_all_checked_and_timed("transpose", 512);
}
TEST(PlaygroundGpu, Reduction) {
  expect_all_checked_and_timed("reduction", 1 << 22);
}
TEST(PlaygroundGpu, SgemmLadder) {
  expect_all_checked_and_timed("sgemm", 512);
}
TEST(PlaygroundGpu, TensorCores) {
  expect_all_checked_and_timed("tensor", 512);
}
TEST(PlaygroundGpu, Divergence) {
  expect_all_checked_and_timed("divergence", 1 << 20);
}
TEST(PlaygroundGpu, Occupancy) {
  expect_all_checked_and_timed("occupancy", 1 << 22);
}

// Checked before the device is touched: a bad size is exit 2 on any machine.
TEST(PlaygroundGpu, ABadSizeIsAnInputErrorBeforeAnyDeviceWork) {
  Options o;
  o.families = {"sgemm"};
  o.size = 100;
  EXPECT_THROW(run(o), ts::InputError);
}

}  // namespace
}  // namespace ts::playground
