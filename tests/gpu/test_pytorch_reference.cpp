// The CUDA backend against the PyTorch reference state of the seed's SimpleCNN (logits, loss,
// every gradient, parameters after one Adam step), written by tests/reference/make_reference.py in
// the same run on the GPU machine. Skips without a GPU or without TRAINSCOPE_REFERENCE_FILE.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "common/reference_file.h"

namespace ts {
namespace {

TEST(PyTorchReference, CudaSimpleCnnMatchesPyTorch) {
  std::string why;
  if (!cuda_available(&why)) GTEST_SKIP() << "no usable GPU: " << why;
  const char* path = std::getenv("TRAINSCOPE_REFERENCE_FILE");
  if (!path || !std::filesystem::exists(path)) GTEST_SKIP() << "TRAINSCOPE_REFERENCE_FILE not set or missing";
  const auto ref = test::read_reference_file(path);
  NetworkOptions opt;
  opt.allow_tf32 = false;
  opt.max_batch_size = ref.get("input").shape[0];
  auto net = make_network(Device::cuda, simple_cnn_spec(), opt);
  const auto checks = test::check_against_reference(*net, ref);
  ASSERT_EQ(checks.size(), 2u + 8u + 8u);
  for (const auto& c : checks) {
    std::printf("reference %-24s rel_err %.3e  tolerance %.0e\n", c.name.c_str(), c.error, c.tolerance);
    EXPECT_TRUE(c.passed()) << c.name << " rel_err " << c.error << " > " << c.tolerance;
  }
}

}  // namespace
}  // namespace ts
