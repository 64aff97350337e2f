// Measured GPU metrics (Report::measured) from the PM sampling series, and the finding that needs
// them (memory_bound_kernels). Sources and definitions: docs/metrics.md, "Measured metrics".
#include <fmt/format.h>

#include <cstdlib>

#include "profiling/analysis/internal.h"

namespace ts::prof::analysis::detail {

namespace {

/// The kernels' busy time as merged spans (kernels and collective kernels; copies are not kernels).
std::vector<Span> kernel_spans(const Timeline& tl) {
  std::vector<Span> spans;
  for (const GpuOp& g : tl.gpu)
    if (g.c == Category::kernel || g.c == Category::communication) spans.push_back({g.start, g.end});
  merge(spans);
  return spans;
}

/// Weighted mean of one series' samples in [lo, hi): weights are the kernel-busy share of each
/// sample's interval, or 1 when `spans` is empty.
struct Mean {
  double sum = 0, weight = 0;
  std::int64_t samples = 0;
  std::optional<double> value() const { return weight > 0 ? std::optional<double>(sum / weight) : std::nullopt; }
};

std::int64_t meta_int(const std::map<std::string, std::string>& meta, const std::string& key) {
  auto it = meta.find(key);
  return it == meta.end() ? 0 : std::strtoll(it->second.c_str(), nullptr, 10);
}

void add_memory_bound_finding(Report& r) {
  Measured& m = *r.measured;
  if (!m.dram_bytes_per_s) return;  // no DRAM series: nothing to judge (its absence is said with the metrics)
  if (!m.dram_ceiling_share) {
    m.memory_bound = "not judged: no measured copy ceiling (" +
                     (m.copy_ceiling_absent.empty() ? std::string("not recorded") : m.copy_ceiling_absent) + ")";
    return;
  }
  const std::string share = fmt::format("DRAM {:.0f} % of the copy ceiling while kernels ran (the finding needs >= {:.0f} %)",
                                        100 * *m.dram_ceiling_share, 100 * kMemoryBoundShare);
  if (*m.dram_ceiling_share < kMemoryBoundShare) {
    m.memory_bound = "not memory-bound: " + share;
    return;
  }
  m.memory_bound = "memory-bound: " + share;
  Verdict f;
  f.id = "memory_bound_kernels";
  f.severity = "moderate";
  f.title = fmt::format("kernels are memory-bound: DRAM moved {:.0f} GB/s while they ran, {:.0f} % of the {:.0f} GB/s "
                        "a device-to-device copy reaches on this GPU",
                        *m.dram_bytes_per_s / 1e9, 100 * *m.dram_ceiling_share, *m.copy_ceiling_bytes_per_s / 1e9);
  f.fix = "move fewer bytes per step: fuse element-wise layers, keep activations in bf16/fp16 (AMP), larger tiles "
          "for GEMMs; a faster kernel schedule alone will not help";
  f.evidence = {{"dram_bytes_per_s", *m.dram_bytes_per_s},
                {"copy_ceiling_bytes_per_s", *m.copy_ceiling_bytes_per_s},
                {"dram_ceiling_share", *m.dram_ceiling_share},
                {"threshold_share", kMemoryBoundShare}};
  r.findings.push_back(std::move(f));
}

}  // namespace

void measured_metrics(const EventStore& store, const Timeline& tl, const std::map<std::string, std::string>& meta,
                      Report& r) {
  const std::size_t nseries = store.metric_series.size();
  const auto status = meta.find("pm_sampling");
  if ((status == meta.end() && nseries == 0) || tl.steps.empty()) return;  // a session from before PM sampling
  Measured m;
  if (status != meta.end()) m.status = status->second;
  for (const auto& [k, v] : meta)
    if (k.rfind("pm_sampling.absent.", 0) == 0) m.absent[k.substr(19)] = v;
  m.samples_lost = meta_int(meta, "pm_sampling.samples_lost");
  m.interval_ns = meta_int(meta, "pm_sampling.interval_ns");
  if (m.interval_ns <= 0) m.interval_ns = 1'000'000;
  if (const std::int64_t c = meta_int(meta, "pm_sampling.copy_ceiling_bytes_per_s"); c > 0)
    m.copy_ceiling_bytes_per_s = static_cast<double>(c);
  else if (auto why = meta.find("pm_sampling.copy_ceiling"); why != meta.end())
    m.copy_ceiling_absent = why->second;  // e.g. "not measured: a recorded program's device memory is not ..."
  if (nseries == 0) {
    r.measured = std::move(m);
    return;
  }
  std::map<std::uint32_t, std::string> names;
  for (std::size_t i = 0; i < nseries; ++i)
    names[store.metric_series[i].id] = std::string(store.strings.get(store.metric_series[i].name));
  const std::vector<Span> spans = kernel_spans(tl);
  m.kernel_weighted = !spans.empty();
  const std::int64_t lo = tl.steps.front().start, hi = tl.steps.back().end;
  std::map<std::string, Mean> means;
  const std::size_t n = store.metric_samples.size();
  std::size_t cursor = 0;
  std::int64_t last_t = INT64_MIN;
  for (std::size_t i = 0; i < n; ++i) {
    const SampleRecord& s = store.metric_samples[i];
    if (s.time < lo || s.time >= hi) continue;
    if (s.time < last_t) cursor = 0;  // samples are in time order per decode; restart the cursor otherwise
    last_t = s.time;
    double w = 1;
    if (m.kernel_weighted)
      w = static_cast<double>(covered(spans, cursor, s.time, s.time + m.interval_ns)) / static_cast<double>(m.interval_ns);
    Mean& mean = means[names[s.series]];
    mean.sum += w * s.value, mean.weight += w, ++mean.samples;
  }
  auto value = [&](const char* name) -> std::optional<double> {
    auto it = means.find(name);
    return it == means.end() ? std::nullopt : it->second.value();
  };
  for (const auto& [name, mean] : means) m.samples = std::max(m.samples, mean.samples);
  m.sm_active_pct = value("pm.sm_active");
  m.tensor_active_pct = value("pm.tensor_active");
  m.warp_occupancy_pct = value("pm.warp_occupancy");
  m.dram_peak_pct = value("pm.dram_peak");
  m.pcie_rx_bytes_per_s = value("pm.pcie_rx");
  m.pcie_tx_bytes_per_s = value("pm.pcie_tx");
  const auto rd = value("pm.dram_read"), wr = value("pm.dram_write");
  if (rd || wr) m.dram_bytes_per_s = rd.value_or(0) + wr.value_or(0);
  if (m.dram_bytes_per_s && m.copy_ceiling_bytes_per_s) m.dram_ceiling_share = *m.dram_bytes_per_s / *m.copy_ceiling_bytes_per_s;
  r.measured = std::move(m);
  add_memory_bound_finding(r);
}

}  // namespace ts::prof::analysis::detail
