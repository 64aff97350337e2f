// The injection library's settings, read from the environment that trainscope-run (or a user)
// gives the profiled program: where the session goes, which mode, the step-range pattern, and the
// process's rank. Pure functions of an environment lookup, so they are tested without a process.
//   TRAINSCOPE_SESSION       the session file (trainscope-run's --session); default trainscope-<pid>.tsession
//   TRAINSCOPE_INJECT_MODE   lean (default) | full | nvtx (no CUPTI: NVTX ranges only)
//   TRAINSCOPE_INJECT_KINDS  comma-separated CUPTI activity kinds instead of the mode's (cost measurements)
//   TRAINSCOPE_STEP_RANGE    --step-range PATTERN (default "step")
//   TRAINSCOPE_INJECT_PM     on | off: measured GPU metrics by CUPTI PM sampling (profiling/metrics/);
//                            default on in full mode, off in lean and nvtx (trainscope-run --inject-pm)
//   TRAINSCOPE_INJECT_FLUSH_MS   how often buffers are parsed and one WAL batch is written (default
//                                250: the window follows a live session within about half a second)
//   TRAINSCOPE_INJECT_SAMPLE_MS  sampler period (default 100; 0 = no samplers)
//   TRAINSCOPE_INJECT_BUFFER_KB  CUPTI activity buffer size (default 1024)
//   (the last three exist for cost measurements: scripts/inject-check.sh, part cost)
//   TRAINSCOPE_ROOT_PID      the pid trainscope-run started; other processes get their own file
//   RANK / OMPI_COMM_WORLD_RANK / SLURM_PROCID, WORLD_SIZE / OMPI_COMM_WORLD_SIZE / SLURM_NTASKS
//   TORCHELASTIC_RUN_ID (torchrun's --rdzv-id) / SLURM_JOB_ID: which job the rank belongs to
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ts::prof::inject {

enum class Mode : std::uint8_t { lean, full, nvtx };

/// "lean", "full", "nvtx".
const char* mode_name(Mode m);

/// What one process records and where.
struct InjectConfig {
  std::string session;          // the file this process writes
  Mode mode = Mode::lean;
  std::vector<std::string> kinds;  // CUPTI activity kind names (kind_names()), in enable order
  std::string step_range = "step";
  bool pm = false;                // PM sampling (TRAINSCOPE_INJECT_PM; default: full mode only)
  int flush_ms = 250;             // writer period (Recorder::start_thread)
  int sample_ms = 100;            // sampler period; 0 = no samplers
  std::size_t buffer_bytes = 1u << 20;  // one CUPTI activity buffer (a kernel record is ~300 bytes)
  /// TRAINSCOPE_INJECT_DISCARD=1, for measuring only: completed CUPTI buffers go back to the pool
  /// unread (no parsing, no rows), so scripts/inject_cost.py can tell CUPTI's own cost from the library's.
  bool discard_buffers = false;
  std::int32_t rank = -1, world_size = -1;  // -1: not a distributed job
  std::string rank_source;      // "RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID" or ""
  /// The job's id: TORCHELASTIC_RUN_ID (torchrun's --rdzv-id; its default "none" names no job and is
  /// left out), else SLURM_JOB_ID; "" when neither. Meta distributed.run_id (profiling/job groups ranks by it).
  std::string run_id;
  std::int64_t root_pid = -1;   // TRAINSCOPE_ROOT_PID: the recording (meta inject.root_pid); -1 absent
  std::vector<std::string> warnings;  // bad values that were replaced by defaults, one line each
};

using EnvFn = std::function<const char*(const char* name)>;

/// The activity kinds of a mode: lean = CONCURRENT_KERNEL, MEMCPY, SYNC_CALLS (the kinds that cost
/// no more than kernels alone on the H200: docs/profile-a-program.md, "Modes and their cost"); full =
/// CONCURRENT_KERNEL, MEMCPY, MEMSET, SYNCHRONIZATION, MEMORY2, OVERHEAD, RUNTIME (every runtime call:
/// launches, copies, syncs, allocations), GRAPH_NODES (each CUDA-graph node's capture-time launch,
/// which only runtime records make usable); nvtx = none.
std::vector<std::string> mode_kinds(Mode m);
/// Every kind name TRAINSCOPE_INJECT_KINDS accepts: CUPTI's activity kinds, RUNTIME_SYNC (runtime
/// records of the synchronising, copying and allocating calls only: cuptiActivityEnableRuntimeApi per
/// call), RUNTIME_LAUNCH (runtime records of the kernel and graph launches only), SYNC_CALLS (the
/// blocking calls timed by the library through CUPTI's callback API for those calls alone: sync
/// ranges with their thread) and GRAPH_NODES (CUPTI callbacks on the launch calls and on CUDA-graph
/// node creation and cloning: the graph_nodes table, profiling/cupti/graph_nodes.h).
const std::vector<std::string>& kind_names();

/// The session file of a process: `base` as given (default "trainscope-<root pid>.tsession") for
/// the process trainscope-run started; with a rank, "<stem>-rank<R><ext>"; any other process (a
/// subprocess that initialised CUDA itself) "<stem>-pid<PID><ext>".
std::string session_path(const std::string& base, std::int32_t rank, std::int64_t pid, bool is_root);

/// Reads the configuration from `env` for the process `pid`. Never throws: a bad value becomes the
/// default and a line in warnings.
InjectConfig read_config(const EnvFn& env, std::int64_t pid);

}  // namespace ts::prof::inject
