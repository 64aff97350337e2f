// The one rule for steps: where a session's steps come from when a trace or a
// profiled program brings no TrainScope step ranges. In order:
//   1. TrainScope's own step ranges (the trainer's; sessions TrainScope records);
//   2. ProfilerStep#N ranges (torch.profiler with a schedule, or prof.step());
//   3. host ranges (NVTX, record_function, user annotations) whose name matches --step-range PATTERN
//      (default "step"; the outermost on their thread);
//   3b. optimizer steps: a recorded Python program's optimizer.step calls (the Python insight's
//      `trainscope:step` marks, profiling/inject/python/PROTOCOL.md; live, range_builder.h), or in a
//      trace torch.optim's own "Optimizer.step#Adam.step" ranges: each ends a step;
//   4. otherwise the whole trace is one step (as the PyTorch profiler's TensorBoard plugin does), or,
//      for a live run whose end is not known yet, windows of one second.
// The analysis says which rule was used (meta "steps.rule", Report::step_rule). Qt-free.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "profiling/records.h"

namespace re2 {
class RE2;
}

namespace ts::prof {

enum class StepRule : std::uint8_t { trainscope, profiler_step, named_ranges, whole_trace, one_second_windows, optimizer_steps };

/// The NVTX mark the Python insight makes right after each outermost optimizer.step / GradScaler.step.
inline constexpr const char* kOptimizerStepMark = "trainscope:step";
/// The NVTX mark the Python insight makes once its hooks are in: "trainscope:python lean" / "... full".
inline constexpr const char* kPythonInsightMark = "trainscope:python ";

/// The default --step-range pattern.
inline constexpr const char* kDefaultStepRange = "step";
/// A live run's step windows when it has no step ranges of any kind (ns).
inline constexpr std::int64_t kLiveStepWindowNs = 1'000'000'000;

/// The session meta value of a rule ("ProfilerStep#N ranges", "ranges matching 'step'", ...): what
/// the analysis prints after "steps:".
std::string step_rule_text(StepRule rule, const std::string& pattern);
/// The rule a session's meta names; trainscope when it names none (TrainScope's own sessions).
StepRule step_rule_of(const std::string& meta_value);

/// A compiled --step-range pattern: an RE2 regular expression (the ECMAScript / Perl syntax without
/// backreferences and lookaround), case-insensitive, that must match a range's whole name, a step
/// number after it allowed ("step", "Step 12", "step#3", "step_4" all match "step";
/// "Optimizer.step#Adam.step" and "train_step" do not: pass "train_step" or ".*step.*" for those).
/// RE2 matches in time linear in the name and bounded stack, whatever the pattern (std::regex, used
/// before, recursed once per character and crashed on a 50,000-character name, and took minutes on
/// '((((.*)*)*)*)*y'). Names and pattern are read as bytes (Latin-1), as std::regex did, so a name
/// that is not valid UTF-8 still matches ".*". Throws ts::InputError "--step-range PATTERN: ..." for
/// a pattern RE2 refuses or an empty one. Copies share the compiled pattern (RE2 is thread-safe).
class StepRangePattern {
 public:
  explicit StepRangePattern(const std::string& pattern = kDefaultStepRange);
  bool matches(std::string_view name) const;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::shared_ptr<const re2::RE2> re_;
};

/// A named host range, as the rule sees it (start < end, ns; any time base).
struct NamedRange {
  std::string_view name;
  std::uint32_t thread = 0;
  std::int64_t start = 0, end = 0;
};

/// What the rule chose: the steps in time order (global_step 1, 2, ... for named ranges and
/// windows; 0 for the whole trace), and for each the thread whose range made it (0 otherwise).
struct StepChoice {
  StepRule rule = StepRule::whole_trace;
  std::vector<StepRecord> steps;
  std::vector<std::uint32_t> threads;
  /// For rule named_ranges: the indexes into `ranges` that became steps.
  std::vector<std::size_t> range_index;
};

struct StepRuleInput {
  std::size_t own_steps = 0;       // TrainScope step ranges present (rule 1 when > 0)
  std::size_t profiler_steps = 0;  // ProfilerStep#N ranges present (rule 2 when > 0)
  std::vector<NamedRange> ranges;  // host ranges that are neither (for rule 3)
  std::int64_t span_start = 0, span_end = 0;  // the earliest and latest event of the trace (ns)
  bool live = false;               // the run is still going: one-second windows instead of one step
};

/// Applies the rule. For rules 1 and 2 the steps are the caller's (`steps` empty); for rule 3 the
/// outermost matching ranges of each thread, in time order; for rule 3b the optimizer step ranges
/// ("Optimizer.step#NAME.step", "optimizer") of the thread with the most, each ending a step that
/// starts where the previous one ended (the first at span_start); for rule 4 one step over [span_start,
/// span_end] (none when the span is empty) or, live, the complete one-second windows from span_start.
StepChoice choose_steps(const StepRuleInput& in, const StepRangePattern& pattern);

}  // namespace ts::prof
