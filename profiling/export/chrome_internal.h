// Internals of the Chrome trace export (not for other callers): which track every event goes on
// (chrome_layout.cpp) and the launch context of runtime calls (their layer and step).
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "profiling/event_store.h"

namespace ts::prof::exporter::detail {

enum class EvKind : std::uint8_t { step, host_range, runtime, kernel, memcpy, memset, sync };

/// One X event to write: [start, end] session ns and its row in the table of its kind.
struct Ev {
  std::int64_t start = 0, end = 0;
  std::uint32_t index = 0;
  EvKind kind = EvKind::host_range;
};

/// A track: (pid, tid) with its name and sort index; after layout() its events nest and are sorted.
struct Lane {
  std::int64_t pid = 0, tid = 0;
  std::string name;
  std::int64_t sort = 0;
  std::vector<Ev> events;
};

struct Layout {
  std::vector<Lane> lanes;
  std::vector<std::int64_t> gpu_pids;  // one process per device seen
  /// The final track (tid) of each row, for flows; -1 for rows not written.
  std::vector<std::int64_t> runtime_tid, kernel_tid, memcpy_tid, memset_tid;
  std::int64_t overflow_events = 0;
  std::int64_t negative_durations = 0;
  /// The global steps whose host step range is written as the ProfilerStep#N of the step row.
  std::vector<std::int64_t> steps_with_rows;  // sorted
};

/// Assigns every event of the prefix `n` to a track and splits tracks so events nest.
Layout layout(const EventStore& store, const StoreCounts& n);

/// Where a launch call happened: the innermost host range with a layer around it on its thread (the
/// trainer's for runtime calls whose thread matches no host thread), and the step row whose
/// [start, end] holds it (kernel_stats' rule).
class LaunchContext {
 public:
  LaunchContext(const EventStore& store, const StoreCounts& n);
  /// The layer string id (kNoString when none) and global step (-1) of a call on `tid` at `t`.
  StringId layer_at(std::uint32_t tid, std::int64_t t) const;
  std::int64_t step_at(std::int64_t t) const;

 private:
  struct Range {
    std::int64_t start, end;
    StringId layer;
  };
  std::unordered_map<std::uint32_t, std::vector<Range>> layered_;  // by thread, sorted by start
  std::uint32_t trainer_ = 0;
  bool have_trainer_ = false;
  std::vector<std::pair<std::int64_t, std::int64_t>> steps_;  // (start, end) by start
  std::vector<std::int64_t> step_ids_;
};

/// Which threads ran step ranges (the trainer), first by count of step ranges.
std::vector<std::uint32_t> trainer_threads(const EventStore& store, const StoreCounts& n);

}  // namespace ts::prof::exporter::detail
