// Measured figures of a ladder row (see measured.h).
#include "playground/measured.h"

#include <fmt/core.h>

namespace ts::playground {

Measured measured_from(const prof::range::RangeResult& r) {
  Measured m;
  for (const auto& [metric, why] : r.absent) m.absent += (m.absent.empty() ? "" : "; ") + metric + ": " + why;
  if (r.dropped_ranges > 0)
    m.absent += (m.absent.empty() ? "" : "; ") +
                fmt::format("{} kernel(s) beyond the profiler's capacity not measured", r.dropped_ranges);
  if (!r.ok()) {
    m.why = r.why;
    return m;
  }
  const prof::range::LaunchFigures f = prof::range::launch_figures(r.kernels);
  m.kernels = f.kernels;
  m.occupancy_pct = f.occupancy_pct;
  m.sm_pct = f.sm_pct;
  m.dram_pct = f.dram_pct;
  m.dram_gbps = f.dram_gbps;
  m.duration_ns = f.duration_ns;
  if (!m.occupancy_pct && !m.sm_pct && !m.dram_pct && !m.dram_gbps) m.why = "no metric measured";
  return m;
}

Measured not_measured(const VariantResult& v) {
  Measured m;
  m.why = !v.checked ? "not run" : v.check_passed ? "not timed" : "check failed";
  return m;
}

}  // namespace ts::playground
