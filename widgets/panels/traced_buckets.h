// Which of the Utilization track's GPU buckets lie in traced steps, for sessions recorded on a profile
// schedule (kernels in windows; a hybrid recording's whole CUDA-graph replays between them).
#pragma once
#include <cstdint>
#include <vector>

#include "profiling/event_store.h"

namespace ts::gui {

/// Per bucket [from + i * bucket_ns, + bucket_ns), i < n, whether its middle lies in a traced step: one
/// the analysis reads (prof::analysed_step: the profiler keeps records of those alone), or one a hybrid
/// recording timed as a whole CUDA-graph replay; from the step's start to the next step's start, where
/// its GPU work still runs. Reads the first `counts.steps` steps and `counts.graph_replays` replays (a live
/// store grows meanwhile). Empty for a session without a schedule: everything is traced. Runs on the
/// panel's worker thread, beside the bucketing.
std::vector<bool> traced_buckets(const prof::EventStore& store, const prof::StoreCounts& counts, std::int64_t from,
                                 std::int64_t bucket_ns, std::size_t n);

/// `v` with the untraced buckets as NaN (QCustomPlot leaves a gap): an untraced step is not an idle GPU.
std::vector<double> untraced_as_gaps(const std::vector<double>& v, const std::vector<bool>& traced);

}  // namespace ts::gui
