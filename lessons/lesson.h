// A lesson: a short story a teacher reads aloud, two or more training runs given as knobs, what the
// runs are expected to show (a verdict that fires on one run and not on the other, a figure that moves
// by a stated factor, a run that runs out of memory) and what to show in the window. Qt-free; the
// file format is docs/lessons.md. Built-in lessons are resources/lessons/*.json, embedded at build time.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ts::lessons {

/// The newest lesson schema this TrainScope reads ("trainscope_lesson": 1).
inline constexpr int kLessonSchema = 1;

/// One knob of a run: trainscope-run's option name without "--" and with "_" (batch_size,
/// num_workers, ...; the table is knob_names()), its value as the JSON had it, kept as text:
/// integers and numbers in their shortest form, booleans "true"/"false", strings as they are.
struct Knob {
  std::string name, value;
  bool operator==(const Knob&) const = default;
};

/// One run of a lesson: an id the expectations name ("before"), a label for people, and its knobs
/// (the lesson's base knobs, then the run's own on top; see Lesson::knobs_of).
struct LessonRun {
  std::string id, label;
  std::vector<Knob> knobs;
  bool operator==(const LessonRun&) const = default;
};

/// What a lesson promises. kind:
///   "verdict": `verdict` (an analysis verdict id, docs/metrics.md) fires on run `fires_on` and not
///              on `gone_on`; with `min_margin` > 1 the "before" run's measure must also be at least
///              that many times its threshold (profiling/analysis: verdict_rule).
///   "figure":  `figure` (figure_names()) of run `to` divided by that of run `from` is >= `at_least`
///              or <= `at_most` (one of the two, > 0).
///   "outcome": run `run` ends in `outcome`: "out_of_memory" or "completes".
struct Expectation {
  std::string kind;
  std::string verdict, fires_on, gone_on;
  double min_margin = 1.0;
  std::string figure, from, to;
  std::optional<double> at_least, at_most;
  std::string run, outcome;
  bool operator==(const Expectation&) const = default;
};

struct Lesson {
  int schema = kLessonSchema;
  std::string name;                // id: lowercase letters, digits, '_' (the built-in's file stem)
  std::string title;
  std::vector<std::string> story;  // paragraphs
  std::vector<Knob> base;          // knobs every run starts from
  std::vector<LessonRun> runs;     // two or more, ids unique
  std::vector<Expectation> expect; // one or more
  std::int64_t align_step = 0;     // show: the step to align the timelines at (0 = the first analysed)
  std::string panel = "timeline";  // show: timeline, memory, utilization, verdicts, kernels, compare
  bool operator==(const Lesson&) const = default;

  /// The knobs of run `i`: base, then the run's own (a run's knob replaces the base's of that name).
  std::vector<Knob> knobs_of(std::size_t i) const;
  /// The value of knob `name` in run `i`, or "" when neither the base nor the run sets it.
  std::string knob(std::size_t i, const std::string& name) const;
  /// The index of the run with this id, or -1.
  int run_index(const std::string& id) const;
  /// The devices the runs use ("cuda", "cpu"; a run without a device knob counts as "cuda").
  std::vector<std::string> devices() const;
};

/// Every knob a lesson may set, in the order docs/lessons.md lists them.
const std::vector<std::string>& knob_names();
/// The JSON type a knob's value has: 'i' integer, 'b' boolean, 'n' number, 's' string ('s' for an
/// unknown name). What to_json writes each Knob::value as.
char knob_json_type(const std::string& name);
/// Every figure an expectation may name (lessons/lesson_eval.h says how each is measured).
const std::vector<std::string>& figure_names();

/// Parses and validates a lesson. Throws ts::InputError naming `source` and the field
/// ("lesson dataloader.json: runs[1].knobs.batch_size: must be an integer > 0, got \"big\"").
/// A lesson from a newer TrainScope (schema > kLessonSchema) is refused saying so.
Lesson parse_lesson(const std::string& json, const std::string& source);
/// Reads and parses a lesson file (InputError when unreadable, as parse_lesson otherwise).
Lesson load_lesson_file(const std::string& path);
/// The lesson as JSON (compact when `pretty` is false); parse_lesson(to_json(l)) == l.
std::string to_json(const Lesson& lesson, bool pretty = true);

/// The built-in lessons (resources/lessons/*.json), in their order (the file names' numbers).
const std::vector<Lesson>& builtin_lessons();
/// A built-in lesson by name, or a lesson file by path. InputError when neither (the message lists
/// the built-in names).
Lesson resolve_lesson(const std::string& name_or_path);

}  // namespace ts::lessons
