// Per-kernel measured metrics from CUPTI's range profiler (range_profiler.h collects them): the
// metrics TrainScope asks for, the result of one profiled launch, and the short reasons a figure is
// missing. CUPTI-free, so the results' arithmetic and the reasons are tested without a GPU.
//
// The counter names are Nsight Compute's (its "GPU Speed Of Light" and "Occupancy" sections), so a
// figure can be held against `ncu --clock-control none --cache-control all --metrics NAME` of the same
// kernel (docs/playground.md, "Measured metrics"). A metric has candidate counter names tried in
// order, as PM sampling's do (pm_metrics.h); the first one the chip accepts is used.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "profiling/metrics/pm_metrics.h"

namespace ts::prof::range {

/// One metric the range profiler measures per kernel: TrainScope's name, unit, counter names by
/// preference, and one line on what it is.
struct RangeMetricSpec {
  const char* name;
  const char* unit;  // "%" (0..100), "bytes" or "ns"
  std::vector<const char*> counters;
  const char* what;
};

/// The metrics, in display order:
///   occupancy       sm__warps_active.avg.pct_of_peak_sustained_active (achieved occupancy, %)
///   sm_throughput   sm__throughput.avg.pct_of_peak_sustained_elapsed (SM "speed of light", %)
///   dram_throughput dram__throughput.avg.pct_of_peak_sustained_elapsed (DRAM "speed of light", %)
///   dram_read       dram__bytes_read.sum (bytes)      dram_write  dram__bytes_write.sum (bytes)
///   duration        gpu__time_duration.sum (ns)
const std::vector<RangeMetricSpec>& metric_specs();
/// The spec named `name`, or null.
const RangeMetricSpec* find_metric(const std::string& name);

/// One kernel (one auto range) of a profiled launch: its range name as CUPTI gave it (in auto-range
/// mode the range's index, "0", "1", ..., as measured on an H100 with CUDA 13's CUPTI: the kernels
/// are in launch order, so the caller, which knows what it launched, names them) and a value per
/// measured metric (metric_specs() names, their units).
struct KernelMetrics {
  std::string name;
  std::map<std::string, double> values;
  /// The value of `metric`, or nullopt when it was not measured for this kernel.
  std::optional<double> value(const std::string& metric) const;
};

/// What one profiled launch gave.
struct RangeResult {
  std::vector<KernelMetrics> kernels;  // in launch order
  /// Metrics not measured, each with why (the chip lacks its counters, evaluation failed, ...);
  /// the others are kept.
  std::map<std::string, std::string> absent;
  /// "" when the launch was profiled; else one short phrase on why nothing was measured
  /// (short_reason(), or "built without CUDA", "no kernel launched", ...).
  std::string why;
  /// The longer story behind `why`: the step that failed and CUPTI's own error name and text.
  std::string detail;
  std::int64_t dropped_ranges = 0;  // kernels beyond the counter-data image's capacity (not measured)
  int launches = 0;                 // times the launch function was called (one per replay pass)
  bool ok() const { return why.empty(); }
};

/// The one short phrase a ladder row or a table cell shows for a refusal:
///   privileges  "GPU counters need root or RmProfilingAdminOnly=0"
///   busy        "another profiler holds the GPU counters"
///   unsupported "GPU counters not supported on this GPU or setup"
///   other       "the range profiler failed"
/// (NVIDIA's "ERR_NVGPUCTRPERM" page names the driver setting, RmProfilingAdminOnly, which Linux's
/// nvidia module takes as NVreg_RestrictProfilingToAdminUsers.)
std::string short_reason(pm::Refusal kind);

/// The figures of a whole launch from its kernels (a launch may run several: cuBLAS, a reduction's
/// two passes). Duration: the kernels' sum (ns). Occupancy, SM and DRAM throughput: the means
/// weighted by each kernel's duration, which is what the percentages of one kernel spanning the
/// same time would be. DRAM bytes: sums; DRAM GB/s = (read + write bytes) / duration. A figure is
/// nullopt when any kernel lacks the metric it needs (or durations are missing for a weighted mean
/// over more than one kernel).
struct LaunchFigures {
  std::optional<double> occupancy_pct, sm_pct, dram_pct, dram_gbps, duration_ns;
  std::optional<double> dram_read_bytes, dram_write_bytes;
  int kernels = 0;
};
LaunchFigures launch_figures(const std::vector<KernelMetrics>& kernels);

}  // namespace ts::prof::range
