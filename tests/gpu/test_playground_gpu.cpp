// The playground on a GPU: every family's variants pass their checks at a small size and are timed
// from CUPTI's kernel records (one per launch), and the occupancy arithmetic agrees with
// cudaOccupancyMaxActiveBlocksPerMultiprocessor. Small sizes keep the test quick; the acceptance
// figures come from `trainscope-run --playground all` at the default sizes (docs/playground.md).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "base/errors.h"
#include "engine/network.h"
#include "playground/playground.h"
#include "playground/session.h"
#include "profiling/event_source.h"
#include "profiling/event_store.h"

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

// --playground ... --session FILE: the run's ladders and its kernel records in one session.
TEST(PlaygroundGpu, ARunRecordedAsASessionOpensWithItsLaddersAndKernels) {
  std::string why;
  if (!cuda_available(&why)) GTEST_SKIP() << why;
  const std::string path =
      (std::filesystem::temp_directory_path() / ("ts_pg_gpu_" + std::to_string(getpid()) + ".tsession")).string();
  Options o;
  o.families = {"copy"};
  o.size = 1 << 20;
  o.session_path = path;
  const RunResult r = run(o);
  const StoredRun back = read_playground_session(path);
  EXPECT_EQ(back.device, r.device_name);
  ASSERT_EQ(back.ladders.size(), 1u);
  ASSERT_EQ(back.ladders[0].variants.size(), r.ladders[0].variants.size());
  EXPECT_DOUBLE_EQ(back.ladders[0].variants[1].median_ns, r.ladders[0].variants[1].median_ns);
  auto src = prof::open_session(path);
  if (r.cupti_status.empty()) {
    EXPECT_GT(src->store().kernels.size(), 0u);
  }
  std::filesystem::remove(path);
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
