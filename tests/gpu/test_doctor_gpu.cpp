// The environment doctor's real probe on a GPU machine (label gpu; skipped without a device): every
// GPU is listed with its CUDA facts, NVML's facts are read or say why not, the PCIe link is read
// under the copy load, and the driver is found (no "no_driver" finding).
#include <gtest/gtest.h>

#include "doctor/findings.h"
#include "doctor/probe.h"
#include "doctor/report.h"
#include "gpu_test_util.h"

namespace ts::doctor {
namespace {

TEST(DoctorGpu, RealProbeReadsEveryGpuUnderLoad) {
  TS_SKIP_WITHOUT_GPU();
  auto probe = make_real_probe({0.3});
  const Report r = make_report(*probe);
  ASSERT_FALSE(r.env.gpus.empty()) << r.env.gpus_why;
  EXPECT_TRUE(r.env.cuda.driver_version && *r.env.cuda.driver_version > 0);
  for (const auto& f : r.findings) EXPECT_NE(f.id, "no_driver");
  for (const auto& g : r.env.gpus) {
    ASSERT_TRUE(g.name) << g.name.why;
    EXPECT_GT(*g.sms, 0);
    EXPECT_GT(*g.memory_bytes, 0u);
    if (!r.env.nvml.status.empty()) {  // no NVML: said, not invented
      EXPECT_FALSE(g.temperature_c);
      EXPECT_FALSE(g.temperature_c.why.empty());
      continue;
    }
    EXPECT_TRUE(g.under_load) << g.load_note;
    EXPECT_NE(g.load_note.find("copy load"), std::string::npos) << g.load_note;
    EXPECT_TRUE(g.pcie_width || !g.pcie_width.why.empty());
    EXPECT_TRUE(g.clock_event_reasons || !g.clock_event_reasons.why.empty());
  }
  const std::string text = format_text(r);
  EXPECT_NE(text.find("GPU 0"), std::string::npos) << text;
  std::printf("%s", text.c_str());
}

}  // namespace
}  // namespace ts::doctor
