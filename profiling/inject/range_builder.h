// NVTX ranges on their way into the session, in two halves.
//   RangeQueue: the program's threads (inside nvtxRangePush/Pop...) append events to a buffer of
//     their own (a mutex that only the library's writer thread also takes, once per drain); nothing
//     is interned, matched or written there.
//   RangeBuilder: the writer thread turns the events into host ranges and steps by the shared step
//     rule (profiling/steps/step_rule.h), live: ProfilerStep#N ranges, else the outermost ranges
//     matching --step-range on their thread, else one-second windows while no step range has been
//     seen (replaced, in the file too, by the range steps once they appear). A range named like a data fetch ("data", "data_wait", "enumerate(DataLoader)...") is a
//     data_wait range, and one that ends just before a step on the same thread opens that step (the
//     loader's next() belongs to the iteration, as torch.profiler's ProfilerStep#N counts it).
//     The Python insight's names (profiling/inject/python/PROTOCOL.md) get their kinds: `forward`,
//     `backward`, `optimizer`; its `trainscope:step` marks end steps when no step range was seen
//     (rule 3b, optimizer_steps.cpp).
// Times: steady_clock ns in, session ns out (SessionClock).
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "profiling/clock.h"
#include "profiling/event_store.h"
#include "engine/host_trace.h"
#include "profiling/steps/step_rule.h"

namespace ts::prof::inject {

struct RangeEvent {
  /// call: a finished blocking CUDA call (SYNC_CALLS: CUPTI's callback API), [host_ns, end_ns) on tid.
  enum class Type : std::uint8_t { push, pop, start, end, mark, thread_name, call };
  Type type = Type::push;
  std::uint32_t tid = 0;
  std::int64_t host_ns = 0;  // steady_clock
  std::uint64_t id = 0;      // start/end: the nvtxRangeId_t
  std::string name;          // push, start, mark, thread_name, call
  std::int64_t end_ns = 0;   // call: steady_clock
};

class RangeQueue {
 public:
  /// The calling thread's buffer; events past kMaxPending per thread are dropped and counted.
  void append(RangeEvent&& e);
  /// Moves every buffered event into `out`, thread by thread (each thread's in order).
  void drain(std::vector<RangeEvent>& out);
  std::int64_t dropped() const;
  static constexpr std::size_t kMaxPending = 1u << 20;

 private:
  struct Buffer {
    std::mutex mutex;
    std::vector<RangeEvent> events;
    std::int64_t dropped = 0;
  };
  Buffer& mine();
  static inline std::atomic<std::uint64_t> next_serial_{1};
  const std::uint64_t serial_ = next_serial_.fetch_add(1);
  mutable std::mutex registry_;
  std::vector<std::unique_ptr<Buffer>> buffers_;
};

class RangeBuilder {
 public:
  RangeBuilder(EventStore& store, SessionClock clock, const StepRangePattern& pattern, std::int32_t rank);
  void set_clock(const SessionClock& c) { clock_ = c; }
  /// One event (each thread's in order). Unmatched pops and ends are counted, never fatal.
  void add(const RangeEvent& e);
  /// At the end of the recording: the last optimizer step, held back for the syncs that may follow
  /// it (loss.item() after optimizer.step), is written.
  void finish();
  /// Live rule 4: while no step range was seen, appends the complete one-second windows up to
  /// `now_session_ns` (from session time 0, the library's start).
  void tick(std::int64_t now_session_ns);
  /// Where the steps came from so far (meta steps.rule), and a note when the rule changed mid-run.
  StepRule rule() const { return rule_; }
  std::string rule_text() const;
  std::string note() const { return note_; }
  /// True once after step ranges replaced the one-second windows: the windows already in the file
  /// must go (SessionRecorder::drop_steps_in_next_batch); the range steps are numbered from 1 again.
  bool take_windows_dropped() { return std::exchange(windows_dropped_, false); }
  /// The thread that ran the latest step (0 before any): where sync records without a thread go.
  std::uint32_t step_thread() const { return step_thread_; }
  /// Pops without a push, and range ends whose start never came (an end that arrives before its
  /// start, from another thread's buffer, waits for it: ended_early_).
  std::int64_t unmatched() const { return unmatched_ + static_cast<std::int64_t>(ended_early_.size()); }
  std::int64_t open_ranges() const;

 private:
  enum class Class : std::uint8_t { none, profiler_step, named, optimizer_step };
  /// Rule 3b's state per thread: where the next optimizer step starts, and the one that ended last
  /// (kept back until the next iteration starts: trailing `sync: ...` ranges extend it).
  struct OptThread {
    std::int64_t boundary = INT64_MIN;   // end of the last step (pending or written)
    std::int64_t first = INT64_MAX;      // start of the first Python-insight range since
    std::int64_t data_start = INT64_MAX; // start of the latest data fetch before the first backward
    bool backward = false;
    std::vector<std::pair<std::int64_t, std::int64_t>> data;  // data ranges since the boundary
    std::optional<StepRecord> pending;
  };
  void opt_push(std::uint32_t tid, const std::string& name, std::int64_t t);
  void opt_pop(std::uint32_t tid, const std::string& name, std::int64_t start, std::int64_t end);
  void opt_mark(std::uint32_t tid, std::int64_t t);
  void opt_emit(OptThread& s);
  struct Open {
    std::int64_t start = 0;
    StringId name = kNoString;
    Class cls = Class::none;
    std::int64_t step = -1;  // the global step this range opened (outermost step range) or is inside
    bool is_step = false;
  };
  Class classify(const std::string& name);
  bool accept(Class c);
  void push(const RangeEvent& e);
  void pop(const RangeEvent& e);
  void emit(std::uint32_t tid, const Open& o, std::int64_t end);
  EventStore& store_;
  SessionClock clock_;
  StepRangePattern pattern_;
  std::int32_t rank_;
  std::unordered_map<std::uint32_t, std::vector<Open>> stacks_;
  std::unordered_map<std::uint64_t, std::pair<std::uint32_t, Open>> started_;  // start/end ranges by id
  // Ends read before their start: a start/end range crosses threads (a DDP bucket's future ends
  // on gloo's thread), and each thread's events reach the builder in their own batches.
  std::unordered_map<std::uint64_t, std::int64_t> ended_early_;  // id -> end (host ns)
  std::unordered_map<std::string, Class> class_cache_;
  std::unordered_map<std::uint32_t, std::int64_t> data_since_;  // tid -> start of the data fetch before the next step
  std::unordered_map<std::uint32_t, std::int64_t> data_ns_;     // tid -> data wait since the last step
  std::unordered_map<std::uint32_t, OptThread> opt_;
  StepRule rule_ = StepRule::one_second_windows;
  bool any_step_ = false, windows_dropped_ = false;
  std::int64_t next_step_ = 1, windows_ = 0, first_ns_ = 0, unmatched_ = 0;
  std::uint32_t step_thread_ = 0;
  std::string note_;
};

/// The OS name of thread `tid` of this process ("" when unknown).
std::string os_thread_name(std::uint32_t tid);

/// The host range kind of a range name: data fetches (is_data_range_name) data_wait; the Python
/// insight's phases "forward", "backward", "optimizer" (and "loss") their kinds; anything else other.
trace::RangeKind range_kind_of(const std::string& name);

/// Whether a range name reads as the input pipeline: "data", "data_wait", "dataloader", "data
/// loading", "enumerate(DataLoader)#..." (torch.profiler's name for next() on a DataLoader).
bool is_data_range_name(const std::string& name);

}  // namespace ts::prof::inject
