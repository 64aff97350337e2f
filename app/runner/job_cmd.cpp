// --analyze DIR (or several files) and --compare JOB_A JOB_B: a distributed job's ranks as one job
// (profiling/job/job.h; docs/profile-a-program.md, "Distributed jobs").
#include <fmt/core.h>

#include <cstdio>

#include "app/runner/runner.h"
#include "profiling/job/job.h"

namespace ts {

namespace {

prof::job::Options job_options(const RunnerOptions& o) {
  prof::job::Options options;
  options.warmup_steps = o.analyze_warmup;
  return options;
}

/// What could not be taken in, one line each on stderr (the report repeats them).
void say_problems(const prof::job::Job& job) {
  for (const auto& p : job.problems) fmt::print(stderr, "warning: {}\n", p);
}

}  // namespace

int run_job_analysis(const RunnerOptions& o) {
  const auto job = prof::job::load_job(o.analyze_paths.empty() ? std::vector<std::string>{o.analyze} : o.analyze_paths);
  say_problems(job);
  const auto report = prof::job::analyze(job, job_options(o));
  if (o.json)
    fmt::print("{}\n", prof::job::to_json(job, report));
  else
    fmt::print("{}", prof::job::to_text(job, report));
  std::fflush(stdout);
  return 0;
}

int run_job_compare(const RunnerOptions& o) {
  const auto a = prof::job::load_job({o.compare[0]});
  const auto b = prof::job::load_job({o.compare[1]});
  say_problems(a);
  say_problems(b);
  const auto ra = prof::job::analyze(a, job_options(o)), rb = prof::job::analyze(b, job_options(o));
  if (o.json)
    fmt::print("{}\n", prof::job::compare_json(a, ra, b, rb));
  else
    fmt::print("{}", prof::job::compare_text(a, ra, b, rb));
  std::fflush(stdout);
  return 0;
}

}  // namespace ts
