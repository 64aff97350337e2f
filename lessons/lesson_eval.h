// What a lesson's runs showed: each run's figures and verdicts, measured from its recorded session,
// and each expectation met or not, with the numbers. A lesson folder (what `trainscope-run --lesson`
// writes, and what resources/lessons/recorded/NAME holds) is manifest.json plus one session per run.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lessons/lesson.h"
#include "profiling/compare/compare.h"

namespace ts::lessons {

/// The manifest's schema ("trainscope_lesson_record": 1).
inline constexpr int kRecordSchema = 1;

/// One run as the manifest records it.
///   outcome: "completes", "out_of_memory" (the run stopped at an out-of-memory error), "failed"
///            (another error), "stopped" (Ctrl-C) or "missing" (not run yet in this folder).
struct RecordedRun {
  RecordedRun() = default;
  explicit RecordedRun(std::string run_id) : id(std::move(run_id)) {}
  std::string id;
  std::string session;      // file name inside the folder ("" when the run recorded none)
  std::string outcome = "missing";
  std::string error;        // the run's one-line error (outcome out_of_memory / failed)
  std::string device_name;  // "NVIDIA H200", "CPU (2 threads)"...
  std::string recorded_at;  // YYYY-MM-DD
  std::string summary_json; // trainscope-run's JSON summary of the run ("" without one)
};

struct LessonRecord {
  Lesson lesson;
  std::vector<RecordedRun> runs;  // in the lesson's run order
};

/// Reads DIR/manifest.json. Throws InputError naming the file and field for a damaged manifest.
LessonRecord read_record(const std::string& dir);
/// Writes DIR/manifest.json (creating DIR), replacing it whole (written to a temporary, then renamed).
void write_record(const std::string& dir, const LessonRecord& record);

/// A run's measured figures (figure_names()), each from the function Compare shows it from
/// (profiling/compare/compare.h), so that the lesson and Compare give one number per quantity:
///   images_per_s: images per second of training time (compare::training_throughput: every epoch's
///                 images over its training time, evaluation excluded, as the trainer reports it; the
///                 warm-up step is in it). Host step times are no throughput: without a sync per step the
///                 host runs ahead of the GPU, and with gradient accumulation a step row is a micro-batch;
///   step_ms: the mean host step time of the steps after the first `warmup` ones (compare::throughput's
///                 mean_step_ns: cuDNN's algorithm search and first allocations are not the lesson);
///   slowest_step_ms: the longest of those steps, ms;
///   activation_bytes / peak_memory_bytes: the largest sample of the allocator's activations
///                 category / of all categories summed (samplers.cpp's memory.allocated.* series);
///   h2d_copy_ms: host-to-device copy time (CUPTI memcpy kind 1) per analysed step, ms;
///   data_wait_ms: the trainer's raw data-loader wait per analysed step, ms (compare::data_wait_ns_per_step);
///   gpu_utilization_pct: the analysis' GPU busy / wall, %.
/// A figure the session cannot give (no GPU records, no samples) is absent.
struct RunResult {
  RecordedRun run;
  bool analysed = false;
  std::string analysis_error;               // the session could not be opened / analysed
  std::map<std::string, double> figures;
  std::vector<std::string> verdicts;        // verdict ids that fired
  /// Verdict id -> its title as the analysis gave it (analysis::Verdict::title, the line the window's
  /// verdict banner shows), for each verdict that fired: what a window names it by, never its id.
  std::map<std::string, std::string> verdict_titles;
  std::map<std::string, double> measures;   // verdict id -> its measure (analysis::verdict_measure)
  std::int64_t steps = 0;                   // analysed steps
  double median_step_ms = 0;                // the median wall time of the analysed steps, ms
  /// Analysed steps longer than kOutlierTimesMedian x the median: (global step, wall ms). They
  /// count in step_ms and images_per_s; the text, JSON and window name them so that a figure
  /// moved by one stall says so.
  std::vector<std::pair<std::int64_t, double>> outliers;
  /// The wall time of the steps the step figures leave out (the first: the convolution algorithm
  /// search, the first allocations, a CUDA-graph capture), ms; 0 when none. images_per_s counts them (training
  /// time), so where they outweigh kOutlierTimesMedian x the median step the lesson says so.
  double first_steps_ms = 0;
};
/// A step is an outlier past this many times the run's median step (compare.h, the one rule).
using prof::compare::kOutlierTimesMedian;
/// "step 20: 2,300 ms (1,564x the median 1.47 ms)", the first three; "" without outliers.
std::string describe_outliers(const RunResult& r);
/// compare::describe_first_steps() of `r`'s first_steps_ms and median_step_ms: the note Compare's
/// images/s cell shows for the same session.
std::string describe_first_steps(const RunResult& r);

/// One expectation judged.
struct Check {
  std::string what;   // "input_bound fires on before and not on after"
  bool met = false;
  std::string detail; // the numbers: "before: data_loader_wait_pct 62.1 (threshold 5, 12.4x); after: 0.8"
  std::string change; // what changed, short: "fired → gone", "5200 img/s → 354028 img/s (×68.1)", "out of memory"
};

struct LessonResult {
  LessonRecord record;
  std::vector<RunResult> runs;
  std::vector<Check> checks;
  bool showed() const;  // every expectation met
};

/// Opens each run's session in `dir`, measures it and judges every expectation. `warmup`: leading
/// steps left out of each run (the runner's --analyze-warmup, default 1). Never throws for one bad
/// session: that run's analysis_error says why and the checks that need it are not met.
LessonResult evaluate(const std::string& dir, const LessonRecord& record, std::int64_t warmup = 1);

/// The session file of each run of `record` in `dir` ("" for a run that recorded none or was not run).
std::vector<std::string> session_paths(const std::string& dir, const LessonRecord& record);
/// As evaluate, with run i's session at `paths[i]` ("" = none): for a caller that holds plain copies
/// of compressed sessions (session_pack.h) and opens them again afterwards.
LessonResult evaluate_sessions(const LessonRecord& record, const std::vector<std::string>& paths,
                               std::int64_t warmup = 1);

/// The figures of one session file (RunResult without the run); for tests and the window.
RunResult measure_session(const std::string& path, std::int64_t warmup = 1);

/// A figure's value for people: "267.4 MB" (bytes, as 1e6), "5,200 img/s" (grouped as Compare writes
/// it, base/format_number.h), "85.8 %", "1.39 ms" (3 significant digits, whole ms from 100 ms).
std::string format_figure(const std::string& name, double v);
/// One row of figure `name` (a run each; nullopt: "-"), written alike: the times with one number of
/// decimals, enough for 3 significant digits of the row's smallest ("0.930 ms" beside "0.816 ms",
/// never "0.93 ms"); the other figures as format_figure().
std::vector<std::string> format_figure_row(const std::string& name, const std::vector<std::optional<double>>& values);

/// Text for people (figures side by side, each check with its numbers) and one JSON object.
std::string to_text(const LessonResult& r);
/// `recording`: the folder of the shipped recording the result was read from ("" for runs made here):
/// the JSON's "recording" (null for runs made here).
std::string to_json(const LessonResult& r, const std::string& recording = "");

}  // namespace ts::lessons
