// GPU health over a run, from the samplers' NVML series (profiling/samplers.h):
// clock-event reasons, SM clock vs its maximum, other processes on the card, ECC counts. The
// verdicts "throttled" and "shared_gpu" (verdicts.cpp) judge it.
#pragma once
#include <optional>

#include "profiling/analysis/analysis.h"
#include "profiling/analysis/series.h"

namespace ts::prof::analysis {

/// Share of the gpu.clock_event_reasons samples with a throttle reason at or above which the
/// "throttled" verdict fires: 10 %: a reason active for >= 10 % of the run (TrainScope's choice: one sample in ten, not a blip).
inline constexpr double kThrottledShare = 0.10;
/// Above this share "throttled" is "high" (half the run's samples), else "moderate".
inline constexpr double kThrottledHighShare = 0.50;

/// The health figures of every sample in `set`; nullopt when neither gpu.clock_event_reasons nor
/// gpu.other_processes was sampled (no NVML: absent, never "healthy"). A reasons value that is not
/// a whole non-negative number is skipped, not trusted.
std::optional<GpuHealth> gpu_health(const SeriesSet& set);
/// The same over all of `store`'s samples.
std::optional<GpuHealth> gpu_health(const EventStore& store);

}  // namespace ts::prof::analysis
