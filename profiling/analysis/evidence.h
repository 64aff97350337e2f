// The evidence behind each verdict as time intervals (Qt-free), for the timeline's highlight when a
// verdict is clicked. Computed over the same steps as analyze(store, options), from the same
// flattened timeline (profiling/analysis/internal.h), so the intervals are what the numbers counted.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "profiling/analysis/analysis.h"

namespace ts::prof::analysis {

struct EvidenceSpan {
  std::int64_t start = 0, end = 0;  // session ns, [start, end)
  bool operator==(const EvidenceSpan&) const = default;
};

/// Intervals per verdict id, sorted by start and merged (touching intervals joined):
///  - input_bound: the trainer's data_wait host ranges;
///  - sync_bound: the trainer's sync ranges and sync runtime calls (cudaStreamSynchronize, blocking
///    cudaMemcpy, copy calls from pageable memory: the syncs analyze() counts);
///  - launch_bound: GPU idle gaps whose next op was launched after the gap began (host wait) while the
///    trainer neither waited for data nor synced (docs/metrics.md "Host wait while launching");
///  - low_utilization: every GPU idle gap inside the step windows;
///  - pageable_memcpy: the copies from/to pageable host memory;
///  - memory_pressure: from the peak device.memory.used sample to the next sample of that series
///    (a simulated card, run.config memory_limit_bytes > 0: the peak of the allocator's reserved total);
///  - amp_eligible: the GEMM/convolution kernels;
///  - any other id (amp_overflow, unknown): no intervals.
/// Everything but memory_pressure is clipped to the analysed step windows.
std::map<std::string, std::vector<EvidenceSpan>> verdict_evidence(const EventStore& store,
                                                                  const std::vector<std::string>& ids,
                                                                  const Options& options);

}  // namespace ts::prof::analysis
