// Profiler: one recording session. Starts the host collector (the engine's trace sink, NVTX on),
// CUPTI collection (when the run is on a GPU and CUPTI agrees), the samplers, and a pump thread that
// moves host ranges into the store every 20 ms and writes a batch to the session file every 250 ms
// (the issue bounds batches at 500 ms). stop() flushes everything and closes the file; the runner
// calls it on normal ends, on errors and after SIGINT/SIGTERM stopped the trainer.
//
// Schedule (the PyTorch profiler's torch.profiler.schedule): cycles of `wait` steps not recorded,
// `warmup` steps traced but discarded, `active` steps recorded, `repeat` cycles (0 = until the end).
// The session keeps what the analysis reads, the analysed steps (analysed_step: a window's active
// steps but its first when it has more than one): their host ranges, and the GPU records that start
// between the end of the step before them (once the GPU ran everything queued so far) and the end of
// their last step's GPU work (the profiler waits for it). Step rows are always kept. CUPTI
// is paused during `wait` steps but the last before a traced one, so a scheduled run does not pay
// CUPTI's per-step cost there; the analysis reads the schedule back (meta session.schedule) and
// analyses the active steps alone (analysis/timeline.cpp).
//
// Hybrid (graph_replays_between_windows): between the windows CUPTI records each replayed CUDA graph
// as one record (GraphReplayRecord, the graph_replays table) instead of nothing, so every step's GPU
// time is known at ~1 % of a b128 step where tracing every kernel of every replay costs 4-5 %. The
// kernels of the windows' analysed steps are kept; graph replays outside the windows (EventStore::
// keep_graph_replay). trainscope-run records so by default when its steps are CUDA-graph replays.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "engine/memory.h"
#include "engine/network.h"
#include "engine/trainer.h"
#include "profiling/cupti/cupti_collector.h"
#include "profiling/event_store.h"
#include "profiling/schedule.h"

namespace ts::prof {


/// The parts of a recording, each of which can be left out to measure what it costs on the host
/// (bench/profile_cost.sh). A session without a part lacks what needs it: not for users' runs.
struct ProfileParts {
  CuptiKinds cupti_kinds;  // kernels, copies (memcpy + memset), runtime, syncs, memory, graph_nodes
  bool cupti = true;       // false: no CUPTI at all
  bool samplers = true;    // the sampler thread (allocator, NVML, /proc)
  bool host = true;        // host ranges (and NVTX)
  bool writer = true;      // batches written during the run (false: everything at stop())
  bool pm = true;          // measured GPU metrics by CUPTI PM sampling (profiling/metrics/pm_sampler.h)
};
/// The parts named in TRAINSCOPE_PROFILE_SKIP (comma-separated: kernels, copies, runtime, syncs,
/// memory, graph_nodes, cupti, samplers, host, writer, pm) left out; unset or empty: everything. Throws InputError
/// naming an unknown part.
ProfileParts profile_parts_from_env();

struct ProfilerOptions {
  std::string session_path;
  ProfileSchedule schedule;
  /// With a schedule: whole CUDA-graph replays recorded between its windows (the hybrid above).
  bool graph_replays_between_windows = false;
  int cuda_device = -1;  // -1: a CPU run (no CUPTI, no device memory, no NVML)
  int rank = 0;
  std::chrono::milliseconds write_period{250};
  std::chrono::milliseconds sample_period{50};
  /// PM sampling interval (ns): 1 ms = 1 kHz (pm_sampler.h).
  std::int64_t pm_interval_ns = 1'000'000;
  bool nvtx = true;
  ProfileParts parts = profile_parts_from_env();
};

struct ProfilerSummary {
  std::string path;
  std::int64_t events = 0;      // StoreCounts::events() written to the file
  std::int64_t file_bytes = 0;
  double bytes_per_event = 0;
  std::int64_t steps = 0;        // step rows the file holds (fewer than steps_taken when a write failed)
  std::int64_t steps_taken = 0;  // steps the run recorded into its store
  StoreCounts counts;           // what the run recorded (the file holds `events` of them)
  DroppedCounts dropped;
  std::string gpu_status;       // "" when CUPTI collected, else why GPU activity is missing
  std::string pm_status;        // the meta pm_sampling: rate, samples, samples lost, metrics; or why none
  std::string error;            // "" or why recording stopped early (disk full)
};

class Profiler {
 public:
  /// Creates the session file and starts collecting. Throws SessionError when the file cannot be
  /// created; CUPTI refusals are not errors (summary().gpu_status).
  explicit Profiler(ProfilerOptions options);
  ~Profiler();
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  /// Session metadata (the run config, versions): key -> text, written with the next batch.
  void set_meta(const std::string& key, const std::string& value);
  /// Device, versions, CPU model and cores, OS into the metadata.
  void set_hardware(const DeviceInfo& device);
  void set_memory_stats(std::function<MemoryStats()> fn);
  /// A finished epoch (the trainer's on_epoch): a row of the `epochs` table, written with the next batch.
  /// Call from one thread (the trainer's).
  void record_epoch(const EpochResult& e);
  const EventStore& store() const;
  /// The same store, shared: viewers (the GUI's panels) keep reading it after the Profiler is gone.
  std::shared_ptr<const EventStore> shared_store() const;
  /// Stops collection, writes the last batch, closes the file; idempotent.
  ProfilerSummary stop();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// "<cwd>/trainscope-YYYYmmdd-HHMMSS.tsession".
std::string default_session_path();

/// An epoch as the session stores it (seconds as ns) and, for a replayed session, back as the
/// trainer reported it (images, steps, data wait and checkpoint are not stored: left 0 / "").
EpochRecord epoch_record(const EpochResult& e);
EpochResult epoch_result(const EpochRecord& r);

}  // namespace ts::prof
