// analyze_imported(): see trace_analysis.h.
#include "profiling/import/trace_analysis.h"


namespace ts::prof::import {

analysis::Report analyze_imported(const EventStore& store, analysis::Options options) {
  options.warmup_steps = 0;  // the profiler's schedule already left its warm-up out
  options.min_steps_for_verdicts = kMinImportedSteps;
  return analysis::analyze(store, options);
}

bool is_imported(const EventStore& store) { return store.meta().count("import.format") > 0; }

std::int64_t warmup_steps_for(const EventStore& store) {
  return is_imported(store) ? 0 : analysis::kDefaultWarmupSteps;
}

analysis::Report analyze_session(const EventStore& store, analysis::Options options) {
  return is_imported(store) ? analyze_imported(store, options) : analysis::analyze(store, options);
}

}  // namespace ts::prof::import
