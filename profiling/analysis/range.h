// The step-time breakdown of any time range (what the timeline shows for a selected range):
// the same categories and priority as a step window (docs/metrics.md: kernel > memcpy > memset >
// communication > runtime > data_loader_wait > sync_wait > cpu_exec > other), over [start, end) instead
// of a step. GPU work counts wherever it runs (no step attribution: a range need not hold whole steps);
// communication is the collective kernels (by name) and the `comm: ...` host ranges of any thread, as
// a step window counts them (communication.h); the other host categories come from the trainer thread (the thread of the step ranges; runtime calls of the
// thread with the most kernel launches when their thread ids match no host range, as analyze() does).
// Qt-free.
#pragma once
#include <cstdint>

#include "profiling/analysis/analysis.h"

namespace ts::prof::analysis {

/// Breakdown of [start, end) (session ns) from rows [0, counts) of each table; total() == end - start
/// (0 when end <= start). Reads the store without locks (EventStore's reader contract).
Breakdown range_breakdown(const EventStore& store, const StoreCounts& counts, std::int64_t start, std::int64_t end);

}  // namespace ts::prof::analysis
