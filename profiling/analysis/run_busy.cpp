// RunGpuBusy (see analysis.h): the analysed steps' GPU busy joined with that of the steps a hybrid
// recording timed only as whole CUDA-graph replays (profiler.h), so a session recorded in windows
// still says how busy the GPU was over the run.
#include <algorithm>
#include <set>

#include "profiling/analysis/internal.h"

namespace ts::prof::analysis::detail {

namespace {

/// The graph replays of the store's first `n` rows, as merged spans by start.
std::vector<Span> replay_spans(const EventStore& store, std::size_t n) {
  std::vector<Span> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i) v.push_back({store.graph_replays[i].start, store.graph_replays[i].end});
  merge(v);
  return v;
}

}  // namespace

void run_gpu_busy(const EventStore& store, const std::vector<StepMetrics>& analysed, std::int64_t warmup_steps,
                  Report& r) {
  const std::size_t n_replays = store.graph_replays.size();
  if (n_replays == 0) return;
  const std::vector<Span> replays = replay_spans(store, n_replays);
  std::set<std::int64_t> read;
  for (const StepMetrics& s : analysed) read.insert(s.global_step);
  RunGpuBusy b;
  b.kernel_steps = static_cast<std::int64_t>(analysed.size());
  b.wall_ns = r.wall_ns, b.busy_ns = r.gpu_busy_ns.value_or(0);
  const std::size_t n_steps = store.steps.size();
  std::size_t k = 0;  // covered()'s forward cursor
  for (std::size_t i = static_cast<std::size_t>(std::max<std::int64_t>(warmup_steps, 0)); i < n_steps; ++i) {
    const StepRecord& s = store.steps[i];
    if (read.count(s.global_step)) continue;
    // A step's span runs to the next step's start: its GPU work runs after its host step ends.
    const std::int64_t end = i + 1 < n_steps ? std::max(s.end, store.steps[i + 1].start) : s.end;
    if (end <= s.start) continue;
    const std::size_t before = k;
    const std::int64_t busy = covered(replays, k, s.start, end);
    if (busy <= 0) {
      k = before;
      continue;  // no graph replay: an untraced step
    }
    ++b.replay_steps;
    b.replay_wall_ns += end - s.start, b.replay_busy_ns += busy;
  }
  if (b.replay_steps == 0) return;
  b.wall_ns += b.replay_wall_ns, b.busy_ns += b.replay_busy_ns;
  r.run_gpu_busy = b;
}

}  // namespace ts::prof::analysis::detail
