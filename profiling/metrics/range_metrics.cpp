// Range-profiler metrics and a launch's figures (see range_metrics.h).
#include "profiling/metrics/range_metrics.h"

namespace ts::prof::range {

const std::vector<RangeMetricSpec>& metric_specs() {
  // The names Nsight Compute reports in its Speed Of Light and Occupancy sections (ncu --query-metrics
  // lists them for a chip); CUPTI's range profiler evaluates the same metric expressions.
  static const std::vector<RangeMetricSpec> specs = {
      {"occupancy", "%", {"sm__warps_active.avg.pct_of_peak_sustained_active"},
       "achieved occupancy: resident warps, % of the warp slots of SMs while active"},
      {"sm_throughput", "%", {"sm__throughput.avg.pct_of_peak_sustained_elapsed"},
       "SM throughput: the busiest SM unit, % of its peak over elapsed cycles"},
      {"dram_throughput", "%", {"dram__throughput.avg.pct_of_peak_sustained_elapsed"},
       "DRAM throughput: % of the DRAM interface's peak over elapsed cycles"},
      {"dram_read", "bytes", {"dram__bytes_read.sum"}, "bytes read from DRAM"},
      {"dram_write", "bytes", {"dram__bytes_write.sum"}, "bytes written to DRAM"},
      {"duration", "ns", {"gpu__time_duration.sum"}, "kernel duration on the GPU"},
  };
  return specs;
}

const RangeMetricSpec* find_metric(const std::string& name) {
  for (const RangeMetricSpec& s : metric_specs())
    if (name == s.name) return &s;
  return nullptr;
}

std::optional<double> KernelMetrics::value(const std::string& metric) const {
  auto it = values.find(metric);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

std::string short_reason(pm::Refusal kind) {
  switch (kind) {
    case pm::Refusal::privileges: return "GPU counters need root or RmProfilingAdminOnly=0";
    case pm::Refusal::busy: return "another profiler holds the GPU counters";
    case pm::Refusal::unsupported: return "GPU counters not supported on this GPU or setup";
    case pm::Refusal::other: break;
  }
  return "the range profiler failed";
}

namespace {

/// Sum of `metric` over the kernels, nullopt when one lacks it.
std::optional<double> sum_of(const std::vector<KernelMetrics>& ks, const char* metric) {
  double sum = 0;
  for (const KernelMetrics& k : ks) {
    const auto v = k.value(metric);
    if (!v) return std::nullopt;
    sum += *v;
  }
  return sum;
}

/// Mean of `metric` weighted by duration; one kernel needs no duration.
std::optional<double> weighted_mean(const std::vector<KernelMetrics>& ks, const char* metric) {
  if (ks.size() == 1) return ks.front().value(metric);
  double sum = 0, weight = 0;
  for (const KernelMetrics& k : ks) {
    const auto v = k.value(metric), d = k.value("duration");
    if (!v || !d) return std::nullopt;
    sum += *v * *d, weight += *d;
  }
  if (weight <= 0) return std::nullopt;
  return sum / weight;
}

}  // namespace

LaunchFigures launch_figures(const std::vector<KernelMetrics>& kernels) {
  LaunchFigures f;
  f.kernels = static_cast<int>(kernels.size());
  if (kernels.empty()) return f;
  f.duration_ns = sum_of(kernels, "duration");
  f.occupancy_pct = weighted_mean(kernels, "occupancy");
  f.sm_pct = weighted_mean(kernels, "sm_throughput");
  f.dram_pct = weighted_mean(kernels, "dram_throughput");
  f.dram_read_bytes = sum_of(kernels, "dram_read");
  f.dram_write_bytes = sum_of(kernels, "dram_write");
  if (f.dram_read_bytes && f.dram_write_bytes && f.duration_ns && *f.duration_ns > 0)
    f.dram_gbps = (*f.dram_read_bytes + *f.dram_write_bytes) / *f.duration_ns;  // bytes/ns = GB/s
  return f;
}

}  // namespace ts::prof::range
