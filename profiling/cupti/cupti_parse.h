// Conversion of CUPTI activity records (CUPTI 13 structs: Kernel10, Memcpy6, Memset4, API,
// Synchronization2, Memory4, Overhead3) into the store's records, with session times, demangled
// kernel names and runtime API names. Needs only CUPTI's headers, so synthetic buffers can be
// parsed and tested without a GPU; the live collector (cupti_collector.h) feeds it real buffers.
#pragma once
#include <cupti_activity.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>

#include "profiling/clock.h"
#include "profiling/event_store.h"

namespace ts::prof {

/// abi::__cxa_demangle of `mangled`, or `mangled` itself when it is not a C++ mangled name.
std::string demangle(const char* mangled);

/// Records seen per kind, including kinds that were skipped (unknown).
struct ParseCounts {
  std::int64_t kernels = 0, memcpys = 0, memsets = 0, runtime = 0, syncs = 0, memory = 0, overheads = 0, other = 0;
  std::int64_t graph_replays = 0;  // CUPTI_ACTIVITY_KIND_GRAPH_TRACE records
  /// Graph replays CUPTI could not time (start and end 0): counted, not stored.
  std::int64_t graph_replays_untimed = 0;
};

class CuptiParser {
 public:
  /// Name of a runtime API callback id (cuptiGetCallbackName in the collector; tests pass a fake).
  using ApiNameFn = std::function<std::string(std::uint32_t cbid)>;
  CuptiParser(EventStore& store, SessionClock clock, int rank, ApiNameFn api_name);
  void set_clock(const SessionClock& c) { clock_ = c; }
  /// Converts one record into the store. Unknown kinds are counted in counts().other and skipped.
  void record(const CUpti_Activity* r);
  /// Walks a completed buffer of `valid_bytes` with `next` (cuptiActivityGetNextRecord's signature)
  /// and converts every record. Returns the records seen.
  using NextFn = CUptiResult (*)(std::uint8_t* buffer, std::size_t valid_bytes, CUpti_Activity** record);
  std::int64_t parse_buffer(std::uint8_t* buffer, std::size_t valid_bytes, NextFn next);
  const ParseCounts& counts() const { return counts_; }

 private:
  void kernel(const CUpti_ActivityKernel10& k);
  /// A whole CUDA-graph replay: kept by EventStore::keep_graph_replay (outside per-kernel windows).
  void graph_replay(const CUpti_ActivityGraphTrace2& g);
  /// The profile schedule keeps a kernel, copy or memset when the runtime call that launched it was
  /// kept (host time inside an active window): the host runs ahead of the GPU, so the GPU work of an
  /// active step often starts after the window closed. Records whose launch was not seen (yet) fall
  /// back to their own start time.
  void remember_launch(std::uint32_t correlation, bool keep);
  bool keep_device(std::uint32_t correlation, std::int64_t start) const;
  static constexpr std::size_t kLaunchMemory = 1 << 18;  // launch decisions remembered (FIFO)
  std::unordered_map<std::uint32_t, bool> launch_keep_;
  std::deque<std::uint32_t> launch_order_;
  StringId kernel_name(const char* mangled);
  StringId api_name(std::uint32_t cbid);
  EventStore& store_;
  SessionClock clock_;
  int rank_;
  ApiNameFn api_name_fn_;
  std::unordered_map<const char*, StringId> kernel_names_;  // CUPTI's name pointers are stable per function
  std::unordered_map<std::uint32_t, StringId> api_names_;
  ParseCounts counts_;
};

}  // namespace ts::prof
