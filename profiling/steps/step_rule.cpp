// The shared step rule (profiling/steps/step_rule.h; docs/metrics.md, "Steps").
#include "profiling/steps/step_rule.h"

#include <algorithm>

#include "base/errors.h"

namespace ts::prof {

namespace {
constexpr const char* kWholeTrace = "the whole trace (one step: no ProfilerStep# or step ranges)";
constexpr const char* kWindows = "one-second windows (a live run without step ranges)";
constexpr const char* kProfilerStep = "ProfilerStep#N ranges";
constexpr const char* kRangesHead = "ranges matching '";
}  // namespace

std::string step_rule_text(StepRule rule, const std::string& pattern) {
  switch (rule) {
    case StepRule::trainscope: return "TrainScope's step ranges";
    case StepRule::profiler_step: return kProfilerStep;
    case StepRule::named_ranges: return kRangesHead + pattern + "'";
    case StepRule::whole_trace: return kWholeTrace;
    case StepRule::one_second_windows: return kWindows;
  }
  return {};
}

StepRule step_rule_of(const std::string& v) {
  if (v == kProfilerStep) return StepRule::profiler_step;
  if (v.starts_with(kRangesHead)) return StepRule::named_ranges;
  if (v == kWholeTrace) return StepRule::whole_trace;
  if (v == kWindows) return StepRule::one_second_windows;
  return StepRule::trainscope;
}

StepRangePattern::StepRangePattern(const std::string& pattern) : text_(pattern) {
  if (pattern.empty()) throw InputError("--step-range: the pattern is empty (default: step)");
  try {
    // The whole name, then an optional step number: "step 12", "step#3", "Step_4".
    re_ = std::regex("(?:" + pattern + ")(?:[ #:_.-]*[0-9]+)?", std::regex::ECMAScript | std::regex::icase);
  } catch (const std::regex_error& e) {
    throw InputError("--step-range " + pattern + ": not a regular expression (" + e.what() + ")");
  }
}

bool StepRangePattern::matches(std::string_view name) const {
  return std::regex_match(name.begin(), name.end(), re_);
}

StepChoice choose_steps(const StepRuleInput& in, const StepRangePattern& pattern) {
  StepChoice c;
  if (in.own_steps > 0) return c.rule = StepRule::trainscope, c;
  if (in.profiler_steps > 0) return c.rule = StepRule::profiler_step, c;
  // Rule 3: matching ranges, the outermost of each thread (a "step" inside a "step" is not another step).
  std::vector<std::size_t> hits;
  for (std::size_t i = 0; i < in.ranges.size(); ++i)
    if (in.ranges[i].end > in.ranges[i].start && pattern.matches(in.ranges[i].name)) hits.push_back(i);
  std::sort(hits.begin(), hits.end(), [&](std::size_t a, std::size_t b) {
    const NamedRange &x = in.ranges[a], &y = in.ranges[b];
    return x.thread != y.thread ? x.thread < y.thread : x.start != y.start ? x.start < y.start : x.end > y.end;
  });
  std::vector<std::size_t> outer;
  for (std::size_t i : hits) {
    const NamedRange& r = in.ranges[i];
    if (!outer.empty() && in.ranges[outer.back()].thread == r.thread && r.start < in.ranges[outer.back()].end) continue;
    outer.push_back(i);
  }
  if (!outer.empty()) {
    std::stable_sort(outer.begin(), outer.end(), [&](std::size_t a, std::size_t b) { return in.ranges[a].start < in.ranges[b].start; });
    c.rule = StepRule::named_ranges;
    std::int64_t n = 0;
    for (std::size_t i : outer) {
      StepRecord s;
      s.global_step = s.step = ++n;
      s.start = in.ranges[i].start, s.end = in.ranges[i].end;
      c.steps.push_back(s);
      c.threads.push_back(in.ranges[i].thread);
      c.range_index.push_back(i);
    }
    return c;
  }
  // Rule 4.
  if (in.span_end <= in.span_start) return c.rule = in.live ? StepRule::one_second_windows : StepRule::whole_trace, c;
  if (in.live) {
    c.rule = StepRule::one_second_windows;
    for (std::int64_t t = in.span_start, n = 1; t + kLiveStepWindowNs <= in.span_end; t += kLiveStepWindowNs, ++n) {
      StepRecord s;
      s.global_step = s.step = n;
      s.start = t, s.end = t + kLiveStepWindowNs;
      c.steps.push_back(s);
      c.threads.push_back(0);
    }
    return c;
  }
  c.rule = StepRule::whole_trace;
  StepRecord s;
  s.start = in.span_start, s.end = in.span_end;
  c.steps.push_back(s);
  c.threads.push_back(0);
  return c;
}

}  // namespace ts::prof
