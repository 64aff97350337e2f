#include "widgets/panels/traced_buckets.h"

#include <algorithm>
#include <limits>

#include "profiling/schedule.h"

namespace ts::gui {

namespace {
/// Whether a whole CUDA-graph replay starts in [a, b) (`starts` sorted).
bool replay_in(const std::vector<std::int64_t>& starts, std::int64_t a, std::int64_t b) {
  const auto it = std::lower_bound(starts.begin(), starts.end(), a);
  return it != starts.end() && *it < b;
}
}  // namespace

std::vector<bool> traced_buckets(const prof::EventStore& store, const prof::StoreCounts& counts, std::int64_t from,
                                 std::int64_t bucket_ns, std::size_t n) {
  if (bucket_ns <= 0 || n == 0) return {};
  const auto schedule = prof::schedule_from_meta(store.meta());
  if (!schedule) return {};
  std::vector<std::int64_t> replays(std::min(counts.graph_replays, store.graph_replays.size()));
  for (std::size_t i = 0; i < replays.size(); ++i) replays[i] = store.graph_replays[i].start;
  std::sort(replays.begin(), replays.end());
  std::vector<bool> traced(n, false);
  const std::size_t steps = std::min(counts.steps, store.steps.size());
  for (std::size_t k = 0; k < steps; ++k) {
    const auto& st = store.steps[k];
    const std::int64_t end = k + 1 < steps ? std::max(st.end, store.steps[k + 1].start) : st.end;
    if (!prof::analysed_step(*schedule, st.global_step) && !replay_in(replays, st.start, end)) continue;
    const std::int64_t a = std::max<std::int64_t>(0, (st.start - from - bucket_ns / 2 + bucket_ns - 1) / bucket_ns);
    for (std::int64_t b = a; b < static_cast<std::int64_t>(n) && from + b * bucket_ns + bucket_ns / 2 < end; ++b)
      if (from + b * bucket_ns + bucket_ns / 2 >= st.start) traced[static_cast<std::size_t>(b)] = true;
  }
  return traced;
}

std::vector<double> untraced_as_gaps(const std::vector<double>& v, const std::vector<bool>& traced) {
  if (traced.empty()) return v;
  std::vector<double> out(v);
  for (std::size_t i = 0; i < out.size() && i < traced.size(); ++i)
    if (!traced[i]) out[i] = std::numeric_limits<double>::quiet_NaN();
  return out;
}

}  // namespace ts::gui
