// PyStackQueue (see py_stacks.h).
#include "profiling/inject/py_stacks.h"

#include <algorithm>

namespace ts::prof::inject {

bool PyStackQueue::frame(std::uint32_t id, const char* function, const char* file, std::int32_t line) {
  if (id == 0) return false;
  std::lock_guard lock(mutex_);
  if (frames_.size() >= kMaxPending) return ++dropped_, false;
  frames_.push_back({id, function ? function : "", file ? file : "", std::max(0, line)});
  return true;
}

bool PyStackQueue::stack(std::uint32_t id, const std::uint32_t* frames, std::uint32_t n) {
  if (id == 0 || (n > 0 && !frames)) return false;
  Stack s{id, std::vector<std::uint32_t>(frames, frames + std::min(n, kMaxFrames))};
  std::lock_guard lock(mutex_);
  if (stacks_.size() >= kMaxPending) return ++dropped_, false;
  stacks_.push_back(std::move(s));
  return true;
}

bool PyStackQueue::sample(std::uint32_t tid, std::int64_t steady_ns, std::uint32_t stack) {
  if (stack == 0) return false;
  std::lock_guard lock(mutex_);
  ++samples_total_;
  if (samples_.size() >= kMaxPending) return ++dropped_, false;
  samples_.push_back({tid, steady_ns, stack});
  return true;
}

void PyStackQueue::drain(EventStore& store, const SessionClock& clock) {
  std::vector<Frame> frames;
  std::vector<Stack> stacks;
  std::vector<Sample> samples;
  {
    std::lock_guard lock(mutex_);
    frames.swap(frames_), stacks.swap(stacks_), samples.swap(samples_);
  }
  for (const Frame& f : frames) {
    if (frame_ids_.count(f.id)) continue;  // defined once; a redefinition is ignored
    const auto mine = static_cast<std::uint32_t>(frame_ids_.size() + 1);
    frame_ids_.emplace(f.id, mine);
    store.append(store.py_frames,
                 PyFrameRecord{mine, store.strings.intern(f.function), store.strings.intern(f.file), f.line});
  }
  for (const Stack& s : stacks) {
    if (stack_ids_.count(s.id)) continue;
    // Outermost first: each node is (its callers' node, its frame).
    std::uint32_t node = 0;
    for (auto it = s.frames.rbegin(); it != s.frames.rend(); ++it) {
      auto f = frame_ids_.find(*it);
      if (f == frame_ids_.end()) continue;  // an undefined frame is left out of the stack
      auto [n, fresh] = nodes_.try_emplace({node, f->second}, static_cast<std::uint32_t>(nodes_.size() + 1));
      if (fresh) store.append(store.py_stacks, PyStackRecord{n->second, node, f->second});
      node = n->second;
    }
    if (node != 0) stack_ids_.emplace(s.id, node);
  }
  for (const Sample& x : samples) {
    auto st = stack_ids_.find(x.stack);
    if (st == stack_ids_.end()) {
      std::lock_guard lock(mutex_);
      ++dropped_;
      continue;
    }
    store.append(store.py_samples, PySampleRecord{clock.from_host(x.ns), x.tid, st->second});
  }
}

std::int64_t PyStackQueue::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

std::int64_t PyStackQueue::samples() const {
  std::lock_guard lock(mutex_);
  return samples_total_;
}

}  // namespace ts::prof::inject
