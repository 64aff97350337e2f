// Internals of the analysis (not for views): the flattened timeline the sweeps run over.
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "profiling/analysis/analysis.h"

namespace ts::prof::analysis::detail {

struct StepWindow {
  std::int64_t global_step;
  std::int64_t host_start, host_end;  // the host step range
  std::int64_t start, end;            // the window (end first collects the GPU end)
};
struct Launch {
  std::uint32_t correlation;
  std::int64_t start, dur;
  int step;  // index into Timeline::steps, -1 outside every step
  std::uint32_t thread = 0;  // the calling thread
};
struct HostIv {
  std::int64_t start, end;
  Category c;
  int step;
};
struct GpuOp {
  std::int64_t start, end;
  std::int64_t launch_start;  // the launching runtime call's start; INT64_MIN unknown
  Category c;
  int step;
  std::uint32_t index;  // row in its table
};
struct Span {
  std::int64_t start, end;
};

struct Timeline {
  std::vector<StepWindow> steps;
  std::vector<std::uint32_t> trainer_tids;
  std::vector<Launch> launches;            // every runtime call, by correlation
  std::vector<std::int64_t> launch_durations;  // kernel launch calls
  /// Trainer thread: runtime calls, data wait, sync, CPU exec; any thread: communication host ranges
  /// (`comm: ...`, communication.h), which count as communication but not as GPU busy.
  std::vector<HostIv> host;
  std::vector<GpuOp> gpu;                  // by start
  std::vector<Span> syncs;                 // merged: sync ranges and sync runtime calls of the trainer
  std::vector<Span> blocked;               // merged: syncs and data waits
  /// Merged: the trainer's blocking communication ranges (`comm: ...` but not `comm: async ...`), where
  /// it waits for the other ranks and for the transfer.
  std::vector<Span> collectives;
  /// Merged: every communication range of any thread (in flight: DDP's buckets under backward too).
  std::vector<Span> communication;
  int step_at(std::int64_t t) const;
  const Launch* launch_of(std::uint32_t corr) const;
  bool is_trainer(std::uint32_t tid) const;
};

/// The last `last_steps` (0: all) of the store's steps after the warm-up (capped so one step remains),
/// counting only a scheduled session's active steps but the first of each window (meta session.schedule;
/// the others in *untraced).
/// live: leave out trailing steps ending after the newest GPU record (counted in *pending).
Timeline build_timeline(const EventStore& store, std::int64_t last_steps, std::int64_t warmup_steps,
                        std::int64_t* skipped, bool live = false, std::int64_t* pending = nullptr,
                        std::int64_t* untraced = nullptr);
void add_gpu_ops(const EventStore& store, Timeline& tl, std::int64_t span_lo);
void make_windows(Timeline& tl);
/// Sorts `v` by start and joins intervals that overlap or touch; empty ones are dropped. Any
/// interval type with `start` and `end` (Span, EvidenceSpan).
template <class S>
void merge(std::vector<S>& v) {
  std::sort(v.begin(), v.end(), [](const S& a, const S& b) { return a.start < b.start; });
  std::size_t out = 0;
  for (const S& s : v) {
    if (s.end <= s.start) continue;
    if (out > 0 && s.start <= v[out - 1].end) v[out - 1].end = std::max(v[out - 1].end, s.end);
    else v[out++] = s;
  }
  v.resize(out);
}
void sweep(const Timeline& tl, std::vector<StepMetrics>& out);
void idle_gaps(const Timeline& tl, std::int64_t launch_cost, std::vector<StepMetrics>& out);
std::int64_t median(std::vector<std::int64_t>& v);  // nth_element; 0 when empty
/// Length of [a, b) covered by the merged list v; k is a forward-only cursor.
std::int64_t covered(const std::vector<Span>& v, std::size_t& k, std::int64_t a, std::int64_t b);
/// Report::run_gpu_busy: the analysed steps' busy (r.wall_ns, r.gpu_busy_ns, `analysed`) joined with the
/// other steps' CUDA-graph replays (store steps from `warmup_steps` on; run_busy.cpp).
void run_gpu_busy(const EventStore& store, const std::vector<StepMetrics>& analysed, std::int64_t warmup_steps,
                  Report& r);
/// What the host did while the GPU idled (Report::idle_by_host), the launch gaps, the stepping
/// thread's CPU, the Python frames by cause and the sync call sites (host_idle.cpp).
void host_idle(const EventStore& store, const Timeline& tl, const std::map<std::string, std::string>& meta, Report& r);
/// Report::measured from the store's pm.* metric series over the steps of `tl`, and the findings that
/// need them (measured.cpp).
void measured_metrics(const EventStore& store, const Timeline& tl, const std::map<std::string, std::string>& meta,
                      Report& r);
/// A host<->device copy whose host side is pageable memory (CUpti_ActivityMemoryKind 1).
inline bool is_pageable_copy(const MemcpyRecord& m) {
  return (m.copy_kind == 1 && m.src_kind == 1) || (m.copy_kind == 2 && m.dst_kind == 1);
}

/// Whether the op that ends a GPU idle gap beginning at `a` was launched before the gap began (its
/// launch known: INT64_MIN is unknown, INT64_MAX no op): the GPU had that work queued and waited on
/// itself or on another dependency (an event, another stream, another rank), not on the host.
inline bool queued_before(std::int64_t a, std::int64_t next_launch) {
  return next_launch != INT64_MIN && next_launch != INT64_MAX && next_launch < a;
}

/// Calls gap(from, to, next_launch_start) for each stretch of [lo, hi) in which no op of tl.gpu (by
/// start) runs; next_launch_start is the launching call's start of the op that ends the stretch
/// (INT64_MIN unknown), INT64_MAX for a stretch that runs to hi. A gap taking a fourth argument also
/// gets the start of the op whose end began the stretch (lo for the first stretch).
template <class Gap>
void for_each_gpu_gap(const Timeline& tl, std::int64_t lo, std::int64_t hi, Gap&& gap) {
  std::int64_t busy_end = lo, busy_from = lo;
  auto call = [&](std::int64_t a, std::int64_t b, std::int64_t next_launch) {
    if constexpr (std::is_invocable_v<Gap, std::int64_t, std::int64_t, std::int64_t, std::int64_t>)
      gap(a, b, next_launch, busy_from);
    else
      gap(a, b, next_launch);
  };
  for (const GpuOp& g : tl.gpu) {
    if (g.end <= lo) continue;
    if (g.start >= hi) break;
    if (g.start > busy_end) call(busy_end, g.start, g.launch_start);
    if (g.end > busy_end) busy_end = g.end, busy_from = g.start;
  }
  if (busy_end < hi) call(busy_end, hi, INT64_MAX);
}

}  // namespace ts::prof::analysis::detail
