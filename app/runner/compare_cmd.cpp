// --compare A B [C...] [--json]: two or more sessions side by side (profiling/compare): config diff,
// throughput and accuracy, step-time breakdown, verdicts, kernel diff against A. Text tables, or one
// JSON object with --json (docs/compare.md). A missing or unreadable session is an InputError
// (SessionError) naming the file: exit 2 with one line.
#include <fmt/core.h>

#include <cstdio>
#include <memory>

#include "app/runner/runner.h"
#include "engine/errors.h"
#include "profiling/compare/compare.h"
#include "profiling/event_source.h"

namespace ts {

int run_compare(const RunnerOptions& o) {
  if (o.compare.size() < 2) throw InputError("--compare needs two or more sessions");
  std::vector<std::unique_ptr<prof::EventSource>> sources;
  std::vector<const prof::EventStore*> stores;
  for (const auto& path : o.compare) {
    sources.push_back(prof::open_session(path));
    stores.push_back(&sources.back()->store());
  }
  prof::compare::Options options;
  options.warmup_steps = o.analyze_warmup;
  const auto c = prof::compare::compare(stores, o.compare, options);
  if (o.json) fmt::print("{}\n", prof::compare::to_json(c));
  else fmt::print("{}", prof::compare::to_text(c));
  std::fflush(stdout);
  return 0;
}

}  // namespace ts
