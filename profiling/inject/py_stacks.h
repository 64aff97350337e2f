// The Python insight's stack samples on their way into the session (profiling/inject/python/
// PROTOCOL.md): the sampler thread of the recorded program calls the library's trainscope_py_*
// entry points, which only append to this queue under a mutex; the writer thread drains it into the
// store. The program's stacks (a list of frame ids, innermost first, under the program's own id)
// become nodes of one tree (PyStackRecord: frame + the stack of its callers), each written once.
#pragma once
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "profiling/clock.h"
#include "profiling/event_store.h"

namespace ts::prof::inject {

class PyStackQueue {
 public:
  /// The most frames a stack keeps (the innermost ones) and the most queued items before the
  /// writer drains them (past it they are dropped and counted: meta python.dropped_samples).
  static constexpr std::uint32_t kMaxFrames = 128;
  static constexpr std::size_t kMaxPending = 1u << 18;

  /// Any thread. Ids are the program's (>= 1); false when one is out of range or undefined.
  bool frame(std::uint32_t id, const char* function, const char* file, std::int32_t line);
  bool stack(std::uint32_t id, const std::uint32_t* frames, std::uint32_t n);
  bool sample(std::uint32_t tid, std::int64_t steady_ns, std::uint32_t stack);

  /// Writer thread: moves what was queued into the store (session ns by `clock`).
  void drain(EventStore& store, const SessionClock& clock);
  std::int64_t dropped() const;
  std::int64_t samples() const;

 private:
  struct Frame { std::uint32_t id; std::string function, file; std::int32_t line; };
  struct Stack { std::uint32_t id; std::vector<std::uint32_t> frames; };
  struct Sample { std::uint32_t tid; std::int64_t ns; std::uint32_t stack; };
  mutable std::mutex mutex_;
  std::vector<Frame> frames_;
  std::vector<Stack> stacks_;
  std::vector<Sample> samples_;
  std::int64_t dropped_ = 0, samples_total_ = 0;
  // Writer thread only: the program's ids -> the store's.
  std::unordered_map<std::uint32_t, std::uint32_t> frame_ids_, stack_ids_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> nodes_;  // (parent, frame) -> node
};

}  // namespace ts::prof::inject
