// A distributed job: the ranks' sessions (or PyTorch traces) of one torchrun / mpirun / srun job
// opened together, their clocks aligned by their step starts, per-rank figures over each rank's step
// periods, and the job's verdicts (straggler, communication_bound, input_imbalance). Qt-free; the
// runner's --analyze DIR / --compare JOB_A JOB_B print it (job_report.cpp). Thresholds and their
// sources: docs/metrics.md, "Jobs".
//
// Why step periods: in synchronous data parallelism every rank waits for the others in the
// collectives, so each rank's step period (one step start to the next) is the job's pace, and host
// work between two steps (logging, a checkpoint, a sleep) is inside it; a step window that ends at
// optimizer.step would leave that work out and show the slow rank as the fastest.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/errors.h"
#include "profiling/event_store.h"

namespace ts::prof::job {

/// One opened file of a job.
struct RankFile {
  std::string path;
  std::string kind;        // "session file" / "PyTorch trace"
  std::int32_t rank = -1;  // meta distributed.rank, else the file name's rankN; -1 none
  std::int32_t world_size = -1;
  std::string rank_source;  // "meta" / "file name"
  std::string program;      // meta inject.program ("" for a trace)
  std::string run_id;       // meta distributed.run_id (TORCHELASTIC_RUN_ID), "" when absent or "none"
  std::string root_pid;     // "HOST:PID" from meta inject.host and inject.root_pid (the recording), "" when absent
  std::int64_t start_unix_ns = 0;    // meta session.start_unix_ns (0 unknown)
  std::int64_t start_steady_ns = 0;  // meta session.start_steady_ns: CLOCK_MONOTONIC (0 unknown)
  std::shared_ptr<const EventStore> store;
};

/// Ranks of one job, and what could not be taken in: one line per problem, naming the file.
struct Job {
  std::vector<RankFile> ranks;       // by rank, distinct ranks only
  std::optional<RankFile> launcher;  // torchrun's own process (a session without a rank)
  std::int32_t world_size = -1;      // the ranks' world size (-1 unknown)
  std::vector<std::int32_t> missing_ranks;
  std::vector<std::string> problems;  // "FILE: why", one line each
};

/// Two ranks' files belong to different jobs when their start times differ by more than this:
/// torchrun's rendezvous waits at most its join timeout for every node (600 s, the default of
/// --rdzv-conf join_timeout), so the ranks of one job start within it.
constexpr std::int64_t kJobStartWindowNs = 600'000'000'000;

/// load_job's progress, for a caller that shows it and may stop the load: on_file(files_done,
/// files_total) before each file is opened and once when all are (files: what the paths name, a
/// folder's rank files counted one by one). Returning false stops the load: LoadCancelled.
struct LoadProgress {
  std::function<bool(std::size_t files_done, std::size_t files_total)> on_file;
};

/// load_job was stopped by its LoadProgress; nothing of the job is kept.
class LoadCancelled : public Error {
 public:
  LoadCancelled() : Error("opening the job was cancelled") {}
};

/// Opens `paths`: each a folder (its *.tsession and *.pt.trace.json[.gz] files, not recursive) or a
/// file (a session or any trace). A file's rank: meta distributed.rank, else its name's rankN; a
/// session with neither is the launcher (torchrun's own process). What makes two files one job:
/// the same world size; the same run id where both have one (meta distributed.run_id); else not
/// two recordings of one host (inject.host + inject.root_pid), the same program (inject.program)
/// and started within kJobStartWindowNs. Never throws for a bad file: an unreadable or damaged
/// file, a second file of a rank already present, a file of another job and ranks missing from
/// 0..world_size-1 each add one line to Job::problems; the job is the largest group of files that
/// agree. Throws InputError when no path names a readable rank at all, LoadCancelled when `progress`
/// said stop. Reads every file whole (seconds for large ranks): the window calls it on a worker thread.
Job load_job(const std::vector<std::string>& paths, const LoadProgress& progress = {});

/// A file's description from its store's meta (rank, world size, job identity) and its path.
RankFile rank_file(std::shared_ptr<const EventStore> store, const std::string& path, const std::string& kind);

/// Stores already open (not owned: they must outlive the Job; labels[i] names stores[i]) as one job's
/// ranks, by rank; nullopt when one has no rank or two have the same (no grouping, no problems:
/// compare's "ranks of one job").
std::optional<Job> job_of(const std::vector<const EventStore*>& stores, const std::vector<std::string>& labels);

/// The rank a file name says: "ddp-rank3.tsession" -> 3 ("rank3", "rank-3", "rank_3",
/// case-insensitive); -1 when none.
std::int32_t rank_from_file_name(std::string_view path);

/// One rank's figures, medians over its matched steps' periods (ns per step).
struct RankFigures {
  std::int32_t rank = -1;
  std::string path;
  std::int64_t steps = 0;  // step periods used
  /// The step-start offset: added to this rank's times on the job's common clock (JobReport::clock) to
  /// line its step starts up with the lowest rank's; the median over matched steps of (the lowest
  /// rank's step start - this rank's). On one host's clock it is when this rank begins its steps, not
  /// clock skew. 0 for the lowest rank.
  std::int64_t step_start_offset_ns = 0;
  /// This rank's session start (its time 0) on the common clock, less the lowest rank's: how much later
  /// its recording began. 0 on session clocks (no common clock known) and for the lowest rank.
  std::int64_t session_start_ns = 0;
  /// Added to this rank's session times to draw them on the job's time axis, the lowest rank's
  /// session clock with every rank's step starts lined up: session_start_ns + step_start_offset_ns.
  std::int64_t axis_shift_ns() const { return session_start_ns + step_start_offset_ns; }
  std::int64_t step_period_ns = 0;    // start of step k to start of step k+1
  std::int64_t compute_ns = 0;        // union of computation kernels (all but collective kernels)
  /// Union of collective kernels and communication host ranges, and its part while no computation
  /// kernel runs (HTA): profiling/analysis/communication.h, the definition a session's analysis uses.
  std::int64_t communication_ns = 0;
  std::int64_t exposed_comm_ns = 0;
  /// Per step max(0, exposed - wait): the exposed communication that is not waiting for other ranks
  /// (what communication_bound judges; a straggler's delay is the straggler verdict's).
  std::int64_t exposed_transfer_ns = 0;
  std::int64_t idle_ns = 0;       // no kernel, copy or memset on the GPU
  std::int64_t data_wait_ns = 0;  // stepping thread in data ranges (DataLoader next)
  std::int64_t blocking_ns = 0;   // stepping thread where it can wait for other ranks (see wait_ns)
  /// Own work: the median over the steps of (period - wait), where a step's wait for the other ranks
  /// (docs/metrics.md, "Jobs") is the larger of this rank's blocking time and its collective kernels'
  /// time above the least of any rank in that step. The figure the straggler verdict compares.
  std::int64_t own_work_ns = 0;
  /// Waiting for the other ranks: step_period_ns - own_work_ns, so that the period's two parts add up
  /// (medians of parts do not: the median of the per-step waits differs by up to a few tenths of a ms).
  std::int64_t wait_ns = 0;
  std::int64_t host_other_ns = 0;  // stepping thread outside data/forward/backward/optimizer/sync/comm
  std::int64_t optimizer_ns = 0;   // stepping thread in optimizer ranges
  std::int64_t sync_ns = 0;        // stepping thread in `sync: ...` ranges (.item(), .cpu())
};

struct JobVerdict {
  std::string id;          // "straggler", "communication_bound", "input_imbalance"
  std::string severity;    // "high" / "moderate"
  std::int32_t rank = -1;  // the rank it names; -1: the whole job
  std::string title, fix;
  std::vector<std::pair<std::string, double>> evidence;  // name (units in it) -> number
};

struct JobReport {
  std::vector<RankFigures> ranks;
  std::int32_t world_size = -1;
  std::int64_t matched_steps = 0;  // step numbers every rank recorded (after the warm-up)
  /// Residual skew after alignment: per matched step, the spread (max - min) of the aligned step
  /// starts; its median and maximum (ns). nullopt with one rank.
  std::optional<std::int64_t> skew_median_ns, skew_max_ns;
  /// The clock the offsets are on: "one host's monotonic clock" (every rank's session.start_steady_ns
  /// and start_unix_ns differ from rank 0's by the same to within kOneHostToleranceNs: one machine's
  /// CLOCK_MONOTONIC, exact across its processes), "wall clock" (session.start_unix_ns), or "session
  /// clocks" (neither known). On one host an offset is when a rank starts its steps, not clock skew.
  std::string clock;
  /// Where a rank can wait for the others: "forward, backward and blocking communication ranges"
  /// (the Python insight's collective ranges were recorded) or "forward and backward (no
  /// communication ranges)"; the wait is the excess over the job's least (docs/metrics.md, "Jobs").
  std::string wait_source;
  std::vector<JobVerdict> verdicts;
  std::vector<std::string> notes;  // what the data could not tell
};

/// Two ranks' monotonic and wall clocks advance together on one host; on two hosts their monotonic
/// clocks differ by the hosts' uptimes (seconds at least), so 0.5 s tells them apart (TrainScope's choice).
constexpr std::int64_t kOneHostToleranceNs = 500'000'000;

struct Options {
  std::int64_t warmup_steps = 1;  // leading steps left out (as --analyze-warmup)
};

/// Aligns and analyses `job` (two or more ranks for verdicts; one rank gives its table only).
JobReport analyze(const Job& job, const Options& options = {});

/// The verdicts' thresholds (sources: docs/metrics.md, "Jobs").
/// Each rank is held against the median of the OTHER ranks (with two ranks, the other one; with many,
/// the median rank), so one slow rank does not move its own reference.
/// straggler: a rank's own work per step >= 1.10 x the others' median (TrainScope's choice: balanced
/// ranks of the sample jobs differ by <= 2.2 %, their stragglers by 2.7x; 10 % leaves room for the
/// noise of ranks sharing a GPU and a CPU).
constexpr double kStragglerRatio = 1.10;
/// communication_bound: exposed communication less the wait for other ranks (exposed_transfer_ns)
/// >= 10 % of the step period, high at 30 % (the per-session verdict's thresholds,
/// profiling/analysis/verdicts.cpp: the TensorBoard plugin's 10 % applied to the exposed part).
constexpr double kCommBoundShare = 0.10;
constexpr double kCommBoundHighShare = 0.30;
/// input_imbalance: the largest rank's data wait per step exceeds the others' median by >= 5 % of the
/// step period (input_bound's moderate threshold of the per-session verdicts) and is >= 2x it.
constexpr double kInputImbalanceShare = 0.05;
constexpr double kInputImbalanceRatio = 2.0;

/// A rank's step period and its two parts as shown (ms, rounded to `decimals`): the period and own work
/// each rounded, waiting the difference of the two rounded values, so the three shown add up exactly.
struct PeriodParts {
  double period_ms = 0, own_work_ms = 0, wait_ms = 0;
};
PeriodParts period_parts(const RankFigures& f, int decimals = 2);

std::string to_text(const Job& job, const JobReport& r);
std::string to_json(const Job& job, const JobReport& r);
/// Two jobs side by side: per-rank step period and own work, verdicts of each.
std::string compare_text(const Job& a, const JobReport& ra, const Job& b, const JobReport& rb);
std::string compare_json(const Job& a, const JobReport& ra, const Job& b, const JobReport& rb);

}  // namespace ts::prof::job
