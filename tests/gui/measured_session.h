// A session with measured GPU metrics for the GUI tests: tests/data/gpu_b128_nw4.tsession (a real
// SimpleCNN b128 run on an H200, ~0.34 s of kernels) with synthetic CUPTI PM sampling series added,
// as the sampler would have written them (1 kHz, every pm.* series, meta pm_sampling.*), or with the
// meta of a run whose counters were refused. Until a session is recorded on the GPU with PM sampling.
#pragma once
#include <QString>

namespace ts::gui::test {

enum class PmKind {
  sampled,  // every pm.* series at 1 kHz; DRAM at ~80 % of the copy ceiling while kernels run
  refused,  // no series; pm_sampling says the counters were refused and why
  sampled_quarter_dram,  // as sampled, DRAM read and write at a quarter (~0.5 TB/s: another unit's range)
};

/// The session read from gpu_b128_nw4.tsession, PM sampling added by `kind`, written to
/// DIR/measured_<kind>.tsession with the session writer; returns the path.
QString write_measured_session(const QString& dir, PmKind kind);

/// The synthetic values, for the tests' checks: kernel-busy share b of a sample gives
/// SM active kSmActive * b %, DRAM read kDramRead * b and write kDramWrite * b bytes/s.
constexpr double kSmActive = 88, kTensorActive = 6, kWarpOccupancy = 42, kDramPeak = 74;
constexpr double kDramRead = 1.3e12, kDramWrite = 0.8e12, kCopyCeiling = 2.6e12;
constexpr double kPcieRx = 22e9, kPcieTx = 0.4e9;  // bytes/s while an H2D copy runs; tx: always
constexpr int kSamplesLost = 12;

}  // namespace ts::gui::test
