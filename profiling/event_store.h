// EventStore: the profiler's in-memory, append-only store. One table (AppendLog) per record kind,
// interned strings, and the session's metadata. Each table has one writer thread (CUPTI's
// processing thread for GPU records, the host collector's pump for host ranges and threads, the
// trainer thread for steps and losses, the sampler thread for samples); readers (the session
// writer, the GUI, analysis) read rows [0, size) at any time without blocking the writers.
// snapshot() gives the row counts at one instant, so a reader sees a consistent prefix.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "profiling/append_log.h"
#include "profiling/records.h"
#include "profiling/string_table.h"

namespace ts::prof {

struct SessionOverview;

/// Row counts of every table at one instant.
struct StoreCounts {
  std::size_t kernels = 0, memcpys = 0, memsets = 0, runtime = 0, syncs = 0, memory = 0, overheads = 0;
  std::size_t host_ranges = 0, threads = 0, steps = 0, losses = 0, series = 0, samples = 0, clock = 0;
  std::size_t epochs = 0;
  std::size_t py_frames = 0, py_stacks = 0, py_samples = 0;
  std::size_t metric_series = 0, metric_samples = 0;
  std::size_t graph_nodes = 0;
  std::size_t graph_replays = 0;
  /// Events as the size budget counts them: kernels, copies, memsets, runtime calls, sync records,
  /// memory records, host ranges and CUDA-graph replays (not samples, steps or overhead records).
  std::size_t events() const {
    return kernels + memcpys + memsets + runtime + syncs + memory + host_ranges + graph_replays;
  }
};

/// Records lost on the way in, by source; kept and shown, never only asserted.
struct DroppedCounts {
  std::int64_t cupti = 0;        // cuptiActivityGetNumDroppedRecords, summed over buffers
  std::int64_t host_ranges = 0;  // a thread's range buffer was full
  std::int64_t store_full = 0;   // a table reached its capacity
};

/// The profile schedule's windows of GPU records, in session ns: [from, until) each, in time order.
/// Until set_none() or open() it keeps everything (no schedule). Thread-safe: the profiler opens and
/// closes windows on the trainer's thread, the CUPTI parser asks on the collector's.
class GpuKeepWindows {
 public:
  /// Keep nothing until a window opens (a schedule whose first step is not traced).
  void set_none();
  /// A window from `from` (INT64_MIN: from the start), open until close().
  void open(std::int64_t from);
  /// The open window ends at `until` (no-op when none is open).
  void close(std::int64_t until);
  /// Asked for every GPU record CUPTI hands over: without a schedule it takes no lock.
  bool keep(std::int64_t t) const;
  /// Whether a whole-graph replay starting at `t` is kept: without a schedule always; with one, when
  /// it starts in no window (graph replays stand for the steps between the per-kernel windows, whose
  /// own kernels are kept).
  bool keep_replay(std::int64_t t) const;

 private:
  mutable std::mutex mutex_;
  std::atomic<bool> all_{true};
  std::vector<std::pair<std::int64_t, std::int64_t>> windows_;
};

class EventStore {
 public:
  StringTable strings;
  AppendLog<KernelRecord> kernels;
  AppendLog<KernelConfig> kernel_configs;  // row 0: the all-zero configuration
  AppendLog<MemcpyRecord> memcpys;
  AppendLog<MemsetRecord> memsets;
  AppendLog<RuntimeRecord> runtime;
  AppendLog<SyncRecord> syncs;
  AppendLog<MemoryRecord> memory;
  AppendLog<OverheadRecord> overheads;
  AppendLog<HostRangeRecord> host_ranges;
  AppendLog<ThreadRecord> threads;
  AppendLog<StepRecord> steps;
  AppendLog<LossRecord> losses;
  AppendLog<EpochRecord> epochs;
  AppendLog<SeriesRecord> series;
  AppendLog<SampleRecord> samples;
  AppendLog<ClockRecord> clock;
  /// Python insight: frames, stacks (a tree) and the stepping thread's stack samples.
  AppendLog<PyFrameRecord> py_frames;
  AppendLog<PyStackRecord> py_stacks;
  AppendLog<PySampleRecord> py_samples;
  /// Hardware-counter metrics (CUPTI PM sampling, profiling/metrics/): their series and samples, one
  /// writer (the PM sampler's decode thread), apart from the samplers' tables so each keeps one writer.
  AppendLog<SeriesRecord> metric_series;
  AppendLog<SampleRecord> metric_samples;
  /// CUDA-graph nodes with the correlation id of the call that created them (GraphNodeRecord): the
  /// GPU records' writer (the CUPTI collector's thread) appends a node before any record of it.
  AppendLog<GraphNodeRecord> graph_nodes;
  /// Whole CUDA-graph replays (GraphReplayRecord), recorded where kernels are not: between the
  /// per-kernel windows of a hybrid recording. The GPU records' writer thread appends them.
  AppendLog<GraphReplayRecord> graph_replays;

  EventStore();
  StoreCounts counts() const;

  /// The row of `c` in kernel_configs, appended when new. The kernels' writer thread only.
  std::uint32_t intern_config(const KernelConfig& c);
  /// The launch configuration of `k` (any thread; the all-zero one for an unknown row).
  const KernelConfig& config(const KernelRecord& k) const {
    return k.config < kernel_configs.size() ? kernel_configs[k.config] : kernel_configs[0];
  }

  std::atomic<std::int64_t> dropped_cupti{0}, dropped_host_ranges{0}, dropped_store_full{0};
  /// The data-parallel rank of the process whose events these are (the rank of its runtime calls;
  /// the other records also carry it per row).
  std::atomic<std::int32_t> process_rank{0};
  DroppedCounts dropped() const {
    return {dropped_cupti.load(), dropped_host_ranges.load(), dropped_store_full.load()};
  }

  /// Session metadata (run config JSON, hardware, versions, clock, why GPU activity is missing):
  /// key -> text. Guarded by a mutex (written a few times per run).
  void set_meta(const std::string& key, const std::string& value);
  std::map<std::string, std::string> meta() const;
  /// Increments each time meta changes (the session writer rewrites meta when it moved).
  std::uint64_t meta_version() const { return meta_version_.load(); }

  /// The timeline's whole-session overview (profiling/overview.h) of an opened session file: set by
  /// read_session before it reads any event, so a viewer can paint every lane while the events load.
  /// Null for a live run and an imported trace. Guarded by the meta mutex.
  void set_overview(std::shared_ptr<const SessionOverview> overview);
  std::shared_ptr<const SessionOverview> overview() const;

  /// The profile schedule's windows: GPU records that start in none of them are not kept (default:
  /// everything). Records are parsed up to ~100 ms after they happen, often after the next window
  /// opened, so each record is judged by every window the run had, not by the current one.
  GpuKeepWindows gpu_windows;
  bool keep_gpu(std::int64_t t) const { return gpu_windows.keep(t); }
  bool keep_graph_replay(std::int64_t t) const { return gpu_windows.keep_replay(t); }

  /// Appends, counting a full table in dropped_store_full.
  template <class T>
  void append(AppendLog<T>& log, const T& v) {
    if (!log.push(v)) dropped_store_full.fetch_add(1, std::memory_order_relaxed);
  }

 private:
  mutable std::mutex meta_mutex_;
  std::map<std::string, std::string> meta_;
  std::shared_ptr<const SessionOverview> overview_;
  std::map<std::array<std::int32_t, 11>, std::uint32_t> config_ids_;  // intern_config's (writer thread)
  std::atomic<std::uint64_t> meta_version_{0};
};

}  // namespace ts::prof
