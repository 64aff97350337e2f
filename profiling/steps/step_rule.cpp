// The shared step rule (profiling/steps/step_rule.h; docs/metrics.md, "Steps").
#include "profiling/steps/step_rule.h"

#include <algorithm>
#include <map>

#include <re2/re2.h>

#include "base/errors.h"

namespace ts::prof {

namespace {
constexpr const char* kWholeTrace = "the whole trace (one step: no ProfilerStep# or step ranges)";
constexpr const char* kWindows = "one-second windows (a live run without step ranges)";
constexpr const char* kProfilerStep = "ProfilerStep#N ranges";
constexpr const char* kRangesHead = "ranges matching '";
constexpr const char* kOptimizerSteps = "optimizer.step calls (Python insight)";
}  // namespace

std::string step_rule_text(StepRule rule, const std::string& pattern) {
  switch (rule) {
    case StepRule::trainscope: return "TrainScope's step ranges";
    case StepRule::profiler_step: return kProfilerStep;
    case StepRule::named_ranges: return kRangesHead + pattern + "'";
    case StepRule::whole_trace: return kWholeTrace;
    case StepRule::one_second_windows: return kWindows;
    case StepRule::optimizer_steps: return kOptimizerSteps;
  }
  return {};
}

StepRule step_rule_of(const std::string& v) {
  if (v == kProfilerStep) return StepRule::profiler_step;
  if (v.starts_with(kRangesHead)) return StepRule::named_ranges;
  if (v == kWholeTrace) return StepRule::whole_trace;
  if (v == kWindows) return StepRule::one_second_windows;
  if (v == kOptimizerSteps) return StepRule::optimizer_steps;
  return StepRule::trainscope;
}

StepRangePattern::StepRangePattern(const std::string& pattern) : text_(pattern) {
  if (pattern.empty()) throw InputError("--step-range: the pattern is empty (default: step)");
  RE2::Options opt;
  opt.set_case_sensitive(false);
  opt.set_encoding(RE2::Options::EncodingLatin1);  // bytes, as names come (not always UTF-8)
  opt.set_log_errors(false);                       // the error goes into the InputError, not to stderr
  // The whole name (FullMatch), then an optional step number: "step 12", "step#3", "Step_4".
  auto re = std::make_shared<const RE2>("(?:" + pattern + ")(?:[ #:_.-]*[0-9]+)?", opt);
  if (!re->ok()) throw InputError("--step-range " + pattern + ": not a regular expression (" + re->error() + ")");
  re_ = std::move(re);
}

bool StepRangePattern::matches(std::string_view name) const {
  return RE2::FullMatch(re2::StringPiece(name.data(), name.size()), *re_);
}

namespace {
/// An optimizer step's host range: torch.optim's record_function ("Optimizer.step#Adam.step") or the
/// Python insight's "optimizer".
bool is_optimizer_step_range(std::string_view n) {
  return (n.starts_with("Optimizer.step#") && n.ends_with(".step")) || n == "optimizer";
}
}  // namespace

/// Rule 3b for a whole trace: each outermost optimizer step range of a thread ends a step; steps are
/// contiguous from the previous one's end (the first from the trace's start: the analysis leaves it
/// out as warm-up). The thread with the most optimizer steps is the stepping thread.
bool optimizer_steps(const StepRuleInput& in, StepChoice& c) {
  std::map<std::uint32_t, std::vector<std::pair<std::int64_t, std::int64_t>>> by_thread;
  for (const NamedRange& r : in.ranges)
    if (r.end > r.start && is_optimizer_step_range(r.name)) by_thread[r.thread].emplace_back(r.start, r.end);
  std::uint32_t tid = 0;
  std::size_t most = 0;
  for (const auto& [t, v] : by_thread)
    if (v.size() > most) most = v.size(), tid = t;
  if (most == 0) return false;
  auto& v = by_thread[tid];
  std::sort(v.begin(), v.end());
  c.rule = StepRule::optimizer_steps;
  std::int64_t from = in.span_start, last_end = INT64_MIN, n = 0;
  for (const auto& [a, b] : v) {
    if (a < last_end) continue;  // nested in the previous one (an inner optimizer's step)
    StepRecord s;
    s.global_step = s.step = ++n;
    s.start = std::min(from, a), s.end = b;
    c.steps.push_back(s);
    c.threads.push_back(tid);
    from = last_end = b;
  }
  return true;
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
  if (optimizer_steps(in, c)) return c;
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
