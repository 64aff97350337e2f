// The analysis of an imported PyTorch profiler trace: analysis::analyze() with two settings that
// suit torch.profiler's recordings:
//   - it holds only the schedule's active steps: torch.profiler.schedule(wait, warmup, active)
//     records nothing during wait and warmup, so no further warm-up step is left out;
//   - it is short: the schedule's customary active=3..6 steps, so verdicts come from
//     kMinImportedSteps steps on (TrainScope's own recordings need 10, analysis.h).
#pragma once
#include <cstdint>

#include "profiling/analysis/analysis.h"

namespace ts::prof::import {

/// Fewest recorded steps for verdicts on an imported trace: torch.profiler.schedule's examples and
/// the TensorBoard plugin's samples record 3 to 6 active steps.
constexpr std::int64_t kMinImportedSteps = 3;

/// analysis::analyze with options.warmup_steps = 0 and verdicts from kMinImportedSteps steps.
analysis::Report analyze_imported(const EventStore& store, analysis::Options options = {});

/// Whether `store` holds an imported trace or a session converted from one (meta "import.format").
bool is_imported(const EventStore& store);
/// Leading steps the analysis of `store` leaves out as warm-up: none for an imported trace (its profiler's
/// schedule already did), analysis::kDefaultWarmupSteps otherwise. What every view that counts the
/// analysed steps (Verdicts, Step breakdown, Python lines, the timeline's first view) uses.
std::int64_t warmup_steps_for(const EventStore& store);
/// The analysis a store's origin calls for: analyze_imported for an imported trace (its profiler
/// recorded only active steps), else analysis::analyze. What --analyze, --compare and the Compare
/// window use, so the same file gets the same verdicts in each.
analysis::Report analyze_session(const EventStore& store, analysis::Options options = {});

}  // namespace ts::prof::import
