// Step rule 3b (profiling/steps/step_rule.h): a recorded Python program's optimizer.step calls end
// its steps. The Python insight (profiling/inject/python/PROTOCOL.md) wraps the outermost
// Optimizer.step / GradScaler.step in an `optimizer` range and marks `trainscope:step` right after;
// the DataLoader's next() is a `data` range, the model's forward a `forward` range, backward() a
// `backward` range, a blocking call on a CUDA tensor a `sync: ...` range.
//
// Where a step starts: at the latest data fetch before the step's first backward (so an evaluation
// loop between epochs, which fetches and runs forward but never backward, stays outside the steps),
// else at the first Python-insight range after the previous step, never before the previous step's
// end. Where it ends: at the mark, extended over the `sync: ...` ranges that follow it before the
// next iteration's first range (`running_loss += loss.item()` after optimizer.step belongs to the
// step whose loss it reads). So a step is written when the next iteration starts, or at finish().
// Its data wait is the time of its data fetches inside it.
#include <algorithm>

#include "profiling/inject/range_builder.h"

namespace ts::prof::inject {

namespace {
bool is_sync_site(const std::string& name) { return name.rfind("sync: ", 0) == 0; }
/// The Python insight's ranges that begin an iteration's work (a `module: ...` range is inside a forward).
bool is_phase(const std::string& name) {
  return name == "forward" || name == "backward" || name == "optimizer" || is_data_range_name(name);
}
}  // namespace

void RangeBuilder::opt_push(std::uint32_t tid, const std::string& name, std::int64_t t) {
  const bool sync = is_sync_site(name);
  if (!sync && !is_phase(name)) return;
  OptThread& s = opt_[tid];
  if (s.pending) {
    if (sync) return;  // trailing: its pop extends the pending step
    opt_emit(s);       // the next iteration began
  }
  s.first = std::min(s.first, t);
  if (is_data_range_name(name) && !s.backward) s.data_start = t;
  if (name == "backward") s.backward = true;
}

void RangeBuilder::opt_pop(std::uint32_t tid, const std::string& name, std::int64_t start, std::int64_t end) {
  auto it = opt_.find(tid);
  if (is_data_range_name(name)) {
    OptThread& s = it != opt_.end() ? it->second : opt_[tid];
    s.data.emplace_back(start, end);
    if (s.data.size() > 4096) s.data.erase(s.data.begin(), s.data.begin() + 2048);  // an evaluation loop's
    return;
  }
  if (it == opt_.end() || !it->second.pending || !is_sync_site(name)) return;
  OptThread& s = it->second;
  if (start >= s.pending->end - 1) s.pending->end = std::max(s.pending->end, end), s.boundary = s.pending->end;
}

void RangeBuilder::opt_mark(std::uint32_t tid, std::int64_t t) {
  OptThread& s = opt_[tid];
  if (s.pending) opt_emit(s);
  std::int64_t start = s.data_start != INT64_MAX ? s.data_start : s.first != INT64_MAX ? s.first : t;
  if (s.boundary != INT64_MIN) start = std::max(start, s.boundary);
  start = std::min(start, t);
  StepRecord step;
  step.global_step = step.step = next_step_++;
  step.start = start, step.end = t;
  for (const auto& [a, b] : s.data) step.data_wait_ns += std::max<std::int64_t>(0, std::min(b, t) - std::max(a, start));
  s.pending = step;
  s.boundary = t;
  s.first = s.data_start = INT64_MAX;
  s.backward = false;
  s.data.clear();
  step_thread_ = tid;
}

void RangeBuilder::opt_emit(OptThread& s) {
  if (!s.pending) return;
  store_.append(store_.steps, *s.pending);
  s.pending.reset();
}

void RangeBuilder::finish() {
  for (auto& [tid, s] : opt_) opt_emit(s);
}

}  // namespace ts::prof::inject
