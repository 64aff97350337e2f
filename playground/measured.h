// A ladder row's measured figures from CUPTI's range profiler (profiling/metrics/range_profiler.h):
// the profiler's per-kernel result turned into the row's Measured (ladder.h), and the reasons a row
// carries when it was not measured. Qt-free, CUDA-free (the unit tests build it without a GPU).
#pragma once
#include <string>

#include "playground/ladder.h"
#include "profiling/metrics/range_metrics.h"

namespace ts::playground {

/// The row's figures from one profiled launch: the launch's figures over its kernels
/// (range::launch_figures: durations summed, percentages weighted by duration, GB/s from the DRAM
/// bytes over the duration). Not measured (why set) when the profiler refused or found no kernel, or
/// when it measured none of the four figures; metrics it could not measure, and kernels beyond its
/// capacity, are listed in `absent`.
Measured measured_from(const prof::range::RangeResult& result);

/// A row that was not measured because it was never timed: "check failed" (a wrong result is not
/// worth counting) or "not run" (skipped: e.g. bf16 on a card before compute capability 8.0).
Measured not_measured(const VariantResult& v);

}  // namespace ts::playground
