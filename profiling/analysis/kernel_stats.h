// Kernel statistics: the recorded kernels grouped by demangled name (calls, total / mean / min / max
// duration, share of the summed kernel time, duration-weighted theoretical occupancy, tensor cores).
// Qt-free; the kernel table (widgets/panels/kernel_table.h) and the session compare's kernel diff
// show it. Reads a consistent prefix of the store (any thread, while a live run keeps appending).
//
// Sources. Durations: CUPTI's CONCURRENT_KERNEL activity records (KernelRecord start/end, ns).
// Occupancy: CUDA's occupancy calculator (theoretical_occupancy in analysis.h) on each launch's
// block size, registers and shared memory with the device of the session meta (device_props).
// Tensor cores: the kernel name against is_tensor_core_kernel's patterns (docs/metrics.md).
// Step membership: kernel -> correlation id -> its runtime call -> the StepRecord whose
// [start, end] holds the call's start (the same rule as analyze()'s step windows). A kernel launched
// through the driver API (cuBLAS launches its CUTLASS kernels with cuLaunchKernel, which CUPTI's
// RUNTIME activity does not record) has no runtime call of its id; CUPTI hands correlation ids out
// in call order across runtime and driver APIs, so the runtime call with the next lower id (made
// just before it, e.g. cuBLAS's cudaDeviceGetAttribute) stands for its launch.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiling/event_store.h"

namespace ts::prof::analysis {

struct KernelStatsOptions {
  /// Time filter: only kernels whose start lies in [from_ns, to_ns) (session ns). Default: all.
  std::int64_t from_ns = INT64_MIN, to_ns = INT64_MAX;
  /// Step filter: only kernels launched during global steps [first_step, last_step] (inclusive,
  /// 1-based as StepRecord::global_step). A kernel whose launching runtime call is unknown, or lies
  /// in no step (evaluation, set-up), is left out while a step filter is set. -1 = no bound.
  std::int64_t first_step = -1, last_step = -1;
  /// Read at most these row counts (a GUI passes PanelHub::counts() so every panel sees the same
  /// prefix); nullptr: each table's size at the time of the call.
  const StoreCounts* limit = nullptr;
};

/// One kernel name's launches. Times are ns (KernelRecord end - start, as CUPTI reported them).
struct KernelGroup {
  std::string name;             // demangled kernel name (the store's string)
  StringId name_id = kNoString; // its id in the store's StringTable
  std::int64_t calls = 0;       // kernel launches (CUPTI kernel records) with this name
  std::int64_t total_ns = 0;    // sum of their durations
  double mean_ns = 0;           // total_ns / calls
  std::int64_t min_ns = 0, max_ns = 0;
  /// total_ns / the summed durations of every kernel that passed the filters (0..1). Concurrent
  /// kernels each count their full duration, so this is a share of kernel time, not of wall time.
  double share_of_gpu_time = 0;
  /// Theoretical occupancy (0..1) weighted by duration over the launches whose configuration the
  /// calculator could evaluate; nullopt when none could (no CUDA device in meta, an imported trace
  /// without launch configurations, or a build without cuda_occupancy.h).
  std::optional<double> mean_occupancy;
  bool tensor_cores = false;    // is_tensor_core_kernel(name)
};

/// Kernels grouped by name, sorted by total_ns (largest first; ties by name). Empty when no kernel
/// passes the filters. Never throws on odd records: a kernel with end < start counts 0 ns, an
/// unknown name id groups under "".
std::vector<KernelGroup> kernel_groups(const EventStore& store, const KernelStatsOptions& options = {});

/// Sum of total_ns over groups (what share_of_gpu_time divides by).
std::int64_t total_kernel_ns(const std::vector<KernelGroup>& groups);

}  // namespace ts::prof::analysis
