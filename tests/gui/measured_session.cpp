// Synthetic PM sampling series over a real session's kernels (see measured_session.h).
#include "gui/measured_session.h"

#include <QDir>
#include <algorithm>
#include <string>
#include <vector>

#include "profiling/event_store.h"
#include "profiling/session/session_file.h"

namespace ts::gui::test {

namespace {

constexpr std::int64_t kIntervalNs = 1'000'000;  // 1 kHz

/// Share of each sample interval [t0 + i*kIntervalNs, +kIntervalNs) covered by the union of `spans`.
std::vector<double> busy_share(std::vector<std::pair<std::int64_t, std::int64_t>> spans, std::int64_t t0, std::size_t n) {
  std::sort(spans.begin(), spans.end());
  std::vector<double> share(n, 0);
  std::int64_t reach = INT64_MIN;  // end of the union so far: overlapping records count once
  for (auto [a, b] : spans) {
    a = std::max(a, reach);
    if (b <= a) continue;
    reach = b;
    for (std::int64_t t = a; t < b;) {
      const std::int64_t i = (t - t0) / kIntervalNs;
      const std::int64_t end = std::min(b, t0 + (i + 1) * kIntervalNs);
      if (i >= 0 && i < static_cast<std::int64_t>(n)) share[static_cast<std::size_t>(i)] += double(end - t) / kIntervalNs;
      t = end;
    }
  }
  return share;
}

void add_sampled(prof::EventStore& s, double dram_scale) {
  std::vector<std::pair<std::int64_t, std::int64_t>> kernels, h2d;
  std::int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (std::size_t i = 0; i < s.kernels.size(); ++i) {
    kernels.push_back({s.kernels[i].start, s.kernels[i].end});
    lo = std::min(lo, s.kernels[i].start), hi = std::max(hi, s.kernels[i].end);
  }
  for (std::size_t i = 0; i < s.memcpys.size(); ++i)
    if (s.memcpys[i].copy_kind == 1) h2d.push_back({s.memcpys[i].start, s.memcpys[i].end});
  // The sampler starts with CUDA, a little before the first kernel, and stops after the last.
  const std::int64_t t0 = (lo - 40 * kIntervalNs) / kIntervalNs * kIntervalNs;
  const auto n = static_cast<std::size_t>((hi + 10 * kIntervalNs - t0) / kIntervalNs);
  const std::vector<double> busy = busy_share(kernels, t0, n), copying = busy_share(h2d, t0, n);
  const char* names[] = {"pm.sm_active", "pm.tensor_active", "pm.warp_occupancy", "pm.dram_read",
                         "pm.dram_write", "pm.dram_peak", "pm.pcie_rx", "pm.pcie_tx"};
  const char* units[] = {"%", "%", "%", "bytes/s", "bytes/s", "%", "bytes/s", "bytes/s"};
  for (std::uint32_t k = 0; k < 8; ++k)
    s.append(s.metric_series, prof::SeriesRecord{k + 1, s.strings.intern(names[k]), s.strings.intern(units[k])});
  std::uint32_t noise = 12345;  // a small deterministic ripple, as real counters have
  auto ripple = [&] {
    noise = noise * 1103515245u + 12345u;
    return 0.95 + 0.1 * static_cast<double>((noise >> 16) & 0x7fff) / 32767.0;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t t = t0 + static_cast<std::int64_t>(i) * kIntervalNs;
    const double b = std::min(1.0, busy[i]), c = std::min(1.0, copying[i]);
    const double v[] = {kSmActive * b * ripple(), kTensorActive * b * ripple(), kWarpOccupancy * b * ripple(),
                        kDramRead * dram_scale * b * ripple(), kDramWrite * dram_scale * b * ripple(),  kDramPeak * b * ripple(),
                        kPcieRx * c * ripple(),   kPcieTx * ripple()};
    for (std::uint32_t k = 0; k < 8; ++k) s.append(s.metric_samples, prof::SampleRecord{t, k + 1, v[k]});
  }
  s.set_meta("pm_sampling", "sampled at 1000 Hz (" + std::to_string(n) + " samples, samples lost " +
                                std::to_string(kSamplesLost) + "): sm_active, tensor_active, warp_occupancy, "
                                "dram_read, dram_write, dram_peak, pcie_rx, pcie_tx");
  s.set_meta("pm_sampling.interval_ns", std::to_string(kIntervalNs));
  s.set_meta("pm_sampling.samples", std::to_string(n));
  s.set_meta("pm_sampling.samples_lost", std::to_string(kSamplesLost));
  s.set_meta("pm_sampling.copy_ceiling_bytes_per_s", std::to_string(static_cast<std::int64_t>(kCopyCeiling)));
  s.set_meta("pm_sampling.chip", "GH100");
}

void add_refused(prof::EventStore& s) {
  s.set_meta("pm_sampling", "no measured metrics: counters refused: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (the driver "
                            "lets only admin users read GPU performance counters: NVreg_RestrictProfilingOnAdminUsers=0)");
}

}  // namespace

QString write_measured_session(const QString& dir, PmKind kind) {
  prof::EventStore store;
  prof::read_session(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession", store);
  if (kind == PmKind::refused) add_refused(store);
  else add_sampled(store, kind == PmKind::sampled_quarter_dram ? 0.25 : 1.0);
  const char* name = kind == PmKind::sampled   ? "measured_sampled.tsession"
                     : kind == PmKind::refused ? "measured_refused.tsession"
                                               : "measured_sampled_quarter_dram.tsession";
  const QString path = QDir(dir).filePath(name);
  prof::SessionWriter w(path.toStdString(), store);
  w.close();
  return path;
}

}  // namespace ts::gui::test
