// analyze_imported(): see trace_analysis.h.
#include "profiling/import/trace_analysis.h"

#include <string_view>

namespace ts::prof::import {

analysis::Report analyze_imported(const EventStore& store, analysis::Options options) {
  const bool verdicts = options.verdicts;
  options.warmup_steps = 0;
  options.verdicts = false;
  analysis::Report r = analysis::analyze(store, options);
  if (!verdicts) return r;
  const std::int64_t need = analysis::min_steps_for_verdicts(), steps = r.steps;
  if (steps < kMinImportedSteps || steps >= need) {
    analysis::add_verdicts(r);
    return r;
  }
  // add_verdicts() gives none below `need` steps; it reads r.steps only for that guard and for the
  // input-bound evidence per step (data_loader_wait_ms_per_step, step_ms: total / r.steps).
  r.steps = need;
  analysis::add_verdicts(r);
  r.steps = steps;
  const double scale = static_cast<double>(need) / static_cast<double>(steps);
  for (auto& v : r.verdicts)
    for (auto& [name, value] : v.evidence)
      if (name == std::string_view("data_loader_wait_ms_per_step") || name == std::string_view("step_ms")) value *= scale;
  return r;
}

}  // namespace ts::prof::import
