// NVTX events to host ranges and steps (see range_builder.h).
#include "profiling/inject/range_builder.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "engine/host_trace.h"

namespace ts::prof::inject {

namespace {
constexpr std::size_t kClassCacheMax = 1 << 14;  // names with step numbers in them never repeat

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool is_profiler_step(const std::string& n) {
  if (n.rfind("ProfilerStep#", 0) != 0 || n.size() == 13) return false;
  return std::all_of(n.begin() + 13, n.end(), [](char c) { return c >= '0' && c <= '9'; });
}
}  // namespace

bool is_data_range_name(const std::string& name) {
  const std::string n = lower(name);
  return n == "data" || n == "data_wait" || n == "data wait" || n == "dataloader" || n == "data loading" ||
         n == "data_loading" || n.rfind("enumerate(dataloader)", 0) == 0;
}

trace::RangeKind range_kind_of(const std::string& name) {
  using K = trace::RangeKind;
  if (name == "forward") return K::forward;
  if (name == "backward") return K::backward;
  if (name == "optimizer") return K::optimizer;
  if (name == "loss") return K::loss;
  return is_data_range_name(name) ? K::data_wait : K::other;
}

// ---- RangeQueue -----------------------------------------------------------------------------

RangeQueue::Buffer& RangeQueue::mine() {
  // One queue per process (the library's), so a plain thread_local pointer is enough; buffers of
  // threads that ended stay registered (one per thread that ever made an NVTX call).
  // The queue's serial, not its address: a later queue may sit where a destroyed one was (tests).
  thread_local Buffer* b = nullptr;
  thread_local std::uint64_t owner = 0;
  if (!b || owner != serial_) {
    auto fresh = std::make_unique<Buffer>();
    b = fresh.get(), owner = serial_;
    std::lock_guard lock(registry_);
    buffers_.push_back(std::move(fresh));
  }
  return *b;
}

void RangeQueue::append(RangeEvent&& e) {
  Buffer& b = mine();
  std::lock_guard lock(b.mutex);
  if (b.events.size() >= kMaxPending) {
    ++b.dropped;
    return;
  }
  b.events.push_back(std::move(e));
}

void RangeQueue::drain(std::vector<RangeEvent>& out) {
  std::lock_guard lock(registry_);
  for (auto& b : buffers_) {
    std::vector<RangeEvent> got;
    {
      std::lock_guard l(b->mutex);
      got.swap(b->events);
    }
    for (auto& e : got) out.push_back(std::move(e));
  }
}

std::int64_t RangeQueue::dropped() const {
  std::lock_guard lock(registry_);
  std::int64_t n = 0;
  for (const auto& b : buffers_) {
    std::lock_guard l(b->mutex);
    n += b->dropped;
  }
  return n;
}

// ---- RangeBuilder ---------------------------------------------------------------------------

RangeBuilder::RangeBuilder(EventStore& store, SessionClock clock, const StepRangePattern& pattern, std::int32_t rank)
    : store_(store), clock_(clock), pattern_(pattern), rank_(rank) {}

RangeBuilder::Class RangeBuilder::classify(const std::string& name) {
  if (auto it = class_cache_.find(name); it != class_cache_.end()) return it->second;
  const Class c = is_profiler_step(name)         ? Class::profiler_step
                  : pattern_.matches(name)         ? Class::named
                  : name == kOptimizerStepMark     ? Class::optimizer_step
                                                   : Class::none;
  if (class_cache_.size() >= kClassCacheMax) class_cache_.clear();
  class_cache_.emplace(name, c);
  return c;
}

/// Rule 2 before rule 3: once a ProfilerStep#N range was seen, named ranges no longer make steps.
bool RangeBuilder::accept(Class c) {
  if (c == Class::none) return false;
  const StepRule want = c == Class::profiler_step ? StepRule::profiler_step
                        : c == Class::named       ? StepRule::named_ranges
                                                  : StepRule::optimizer_steps;
  if (rule_ == StepRule::profiler_step && want != StepRule::profiler_step) return false;
  // Rule 3b only while no step range (rules 2 and 3) was seen: a script that names its steps keeps them.
  if (want == StepRule::optimizer_steps && rule_ == StepRule::named_ranges) return false;
  if (rule_ != want) {
    if (windows_ > 0 && !any_step_) {
      note_ = std::to_string(windows_) + " one-second window(s) before the first step range were dropped";
      windows_dropped_ = true;
      next_step_ = 1;
    } else if (any_step_) {
      note_ = step_rule_text(rule_, pattern_.text()) + " made steps until the first " +
              (want == StepRule::profiler_step ? std::string("ProfilerStep#N range")
                                               : "range matching '" + pattern_.text() + "'");
    }
    if (rule_ == StepRule::optimizer_steps)  // a step kept back for trailing syncs is a step all the same
      for (auto& [tid, o] : opt_) opt_emit(o);
    rule_ = want;
  }
  any_step_ = true;
  return true;
}

/// The OS name of a thread of this process (/proc/self/task/<tid>/comm: "python3", "pt_autograd_0"),
/// "" when it has ended or is not ours.
std::string os_thread_name(std::uint32_t tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%u/comm", tid);
  std::FILE* f = std::fopen(path, "r");
  if (!f) return {};
  char buf[64] = {};
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  std::string s(buf, n);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

void RangeBuilder::push(const RangeEvent& e) {
  auto [it, fresh] = stacks_.try_emplace(e.tid);
  if (fresh) {  // a thread's first range: name its lane as the OS does (nvtxNameOsThread may rename it)
    const std::string name = os_thread_name(e.tid);
    if (!name.empty()) store_.append(store_.threads, ThreadRecord{e.tid, store_.strings.intern(name)});
  }
  auto& stack = it->second;
  Open o;
  o.start = clock_.from_host(e.host_ns);
  o.name = store_.strings.intern(e.name);
  o.cls = classify(e.name);
  const bool inside_step_range =
      std::any_of(stack.begin(), stack.end(), [](const Open& a) { return a.cls != Class::none; });
  if (!stack.empty()) o.step = stack.back().step;
  if (!inside_step_range && accept(o.cls)) o.is_step = true, o.step = next_step_++;
  stack.push_back(o);
  if (rule_ != StepRule::named_ranges && rule_ != StepRule::profiler_step) opt_push(e.tid, e.name, o.start);
}

void RangeBuilder::emit(std::uint32_t tid, const Open& o, std::int64_t end) {
  HostRangeRecord r;
  r.start = o.start, r.end = std::max(end, o.start);
  r.device = -1, r.rank = std::max(rank_, 0), r.thread = tid;
  r.name = o.name, r.step = o.step;
  const std::string& name = store_.strings.get(o.name);
  const trace::RangeKind kind = o.is_step ? trace::RangeKind::step : range_kind_of(name);
  const bool data = kind == trace::RangeKind::data_wait;
  r.kind = static_cast<std::uint8_t>(kind);
  store_.append(store_.host_ranges, r);
  if (!o.is_step && rule_ != StepRule::named_ranges && rule_ != StepRule::profiler_step)
    opt_pop(tid, name, r.start, r.end);
  if (data) {
    auto [it, fresh] = data_since_.try_emplace(tid, r.start);
    if (!fresh) it->second = std::min(it->second, r.start);
    data_ns_[tid] += r.end - r.start;
  }
  if (!o.is_step) return;
  StepRecord s;
  s.global_step = s.step = o.step;
  s.start = r.start, s.end = r.end;
  if (auto it = data_since_.find(tid); it != data_since_.end()) {
    s.start = std::min(s.start, it->second);
    s.data_wait_ns = data_ns_[tid];
    data_since_.erase(it);
    data_ns_.erase(tid);
  }
  step_thread_ = tid;
  store_.append(store_.steps, s);
}

void RangeBuilder::pop(const RangeEvent& e) {
  auto it = stacks_.find(e.tid);
  if (it == stacks_.end() || it->second.empty()) {
    ++unmatched_;
    return;
  }
  const Open o = it->second.back();
  it->second.pop_back();
  emit(e.tid, o, clock_.from_host(e.host_ns));
}

void RangeBuilder::add(const RangeEvent& e) {
  using T = RangeEvent::Type;
  switch (e.type) {
    case T::push: push(e); return;
    case T::pop: pop(e); return;
    case T::start: {
      Open o;
      o.start = clock_.from_host(e.host_ns);
      o.name = store_.strings.intern(e.name);
      if (auto early = ended_early_.find(e.id); early != ended_early_.end()) {  // its end came first
        emit(e.tid, o, clock_.from_host(early->second));
        ended_early_.erase(early);
        return;
      }
      started_[e.id] = {e.tid, o};  // start/end ranges may cross threads: never steps (no nesting known)
      return;
    }
    case T::end: {
      auto it = started_.find(e.id);
      if (it == started_.end()) {
        ended_early_[e.id] = e.host_ns;  // its start may still come, from another thread's buffer
        return;
      }
      emit(it->second.first, it->second.second, clock_.from_host(e.host_ns));
      started_.erase(it);
      return;
    }
    case T::mark: {
      if (e.name == kOptimizerStepMark) {  // a step boundary, not a host range
        if (accept(Class::optimizer_step)) opt_mark(e.tid, clock_.from_host(e.host_ns));
        return;
      }
      if (e.name.starts_with(kPythonInsightMark)) {  // the Python insight is on, in this mode
        store_.set_meta("python.insight", e.name.substr(std::string_view(kPythonInsightMark).size()));
        return;
      }
      Open o;
      o.start = clock_.from_host(e.host_ns);
      o.name = store_.strings.intern(e.name);
      emit(e.tid, o, o.start);
      return;
    }
    case T::call: {  // a sync range of its thread, as the engine's sync ranges are (the analysis's sync wait)
      HostRangeRecord r;
      r.start = clock_.from_host(e.host_ns), r.end = std::max(r.start, clock_.from_host(e.end_ns));
      r.device = -1, r.rank = std::max(rank_, 0), r.thread = e.tid;
      r.kind = static_cast<std::uint8_t>(trace::RangeKind::sync);
      r.name = store_.strings.intern(e.name);
      if (auto it = stacks_.find(e.tid); it != stacks_.end() && !it->second.empty()) r.step = it->second.back().step;
      store_.append(store_.host_ranges, r);
      return;
    }
    case T::thread_name:
      if (e.tid != 0) store_.append(store_.threads, ThreadRecord{e.tid, store_.strings.intern(e.name)});
      return;
  }
}

void RangeBuilder::tick(std::int64_t now) {
  if (any_step_) return;
  while (first_ns_ + (windows_ + 1) * kLiveStepWindowNs <= now) {
    StepRecord s;
    s.global_step = s.step = next_step_++;
    s.start = first_ns_ + windows_ * kLiveStepWindowNs;
    s.end = s.start + kLiveStepWindowNs;
    store_.append(store_.steps, s);
    ++windows_;
  }
}

std::string RangeBuilder::rule_text() const { return step_rule_text(rule_, pattern_.text()); }

std::int64_t RangeBuilder::open_ranges() const {
  std::int64_t n = static_cast<std::int64_t>(started_.size());
  for (const auto& [tid, s] : stacks_) n += static_cast<std::int64_t>(s.size());
  return n;
}

}  // namespace ts::prof::inject
