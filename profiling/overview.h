// SessionOverview: the timeline of a whole session in a few hundred kilobytes, so a viewer paints
// every lane over the full time range before it has read the events (the budget: first overview
// paint of a 1M-event session <= 0.5 s). The session writer builds it when the recording closes and stores
// it in the file's `overview_lanes` table (format 2, docs/session-format.md); read_session reads it
// before the event tables. Files without it (format 1, or a recording that was killed before it
// closed) get one built from their events once they are read (the in-memory migration).
//
// The lanes are the timeline's (profiling/lanes.h: same keys, kinds, ids, stacking into rows), each
// row cut into `bins` equal bins over [t0, t1]: per non-empty bin the busy ns of the row's events
// inside it (clipped to the bin) and the colour category of the first event that touches it — the
// same density and colour the timeline's level-of-detail walk gives a block of sub-pixel events.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "profiling/lanes.h"

namespace ts::prof {

class EventStore;

/// Bins per row: about one per pixel of a full-HD timeline.
constexpr std::uint32_t kOverviewBins = 2048;

/// One row (nesting depth) of an overview lane: its non-empty bins, ascending.
struct OverviewRow {
  std::vector<std::uint32_t> bin;
  std::vector<std::int64_t> busy_ns;   // 0 <= busy <= bin width
  std::vector<std::uint8_t> category;  // timeline::Category
  bool operator==(const OverviewRow&) const = default;
};

struct OverviewLane {
  timeline::LaneKind kind = timeline::LaneKind::host_thread;
  std::string key;                  // profiling/lanes.h
  std::uint32_t id = 0;             // tid (host threads by tid, runtime) or stream id
  std::int32_t device = 0;
  bool has_steps = false;           // a host lane that ran step ranges (the trainer)
  std::int64_t launches = 0;        // runtime lanes: kernel launch calls
  std::int64_t events = 0;
  std::vector<std::uint32_t> tids;  // host lanes: the thread ids whose ranges it holds
  std::vector<OverviewRow> rows;    // rows[0] = outermost
  bool operator==(const OverviewLane&) const = default;
};

struct SessionOverview {
  std::int64_t t0 = 0, t1 = 0;  // earliest start, latest end of the timeline's events (session ns)
  std::uint32_t bins = 0;
  std::int64_t events = 0;      // timeline events summarised (kernels, copies, memsets, syncs, runtime calls, host ranges)
  std::vector<OverviewLane> lanes;
  /// Width of a bin, ns (>= 1).
  std::int64_t bin_ns() const;
  std::int64_t bin_start(std::uint32_t b) const { return t0 + static_cast<std::int64_t>(b) * bin_ns(); }
  bool operator==(const SessionOverview&) const = default;
};

/// Builds the overview of every timeline event in `store` (reads rows [0, size) of each table; the
/// store may still grow). Cost: one sort per lane, O(n log n); transient memory 24 bytes per event.
SessionOverview build_overview(const EventStore& store, std::uint32_t bins = kOverviewBins);

/// The rows of a lane as the file stores them: zlib-compressed little-endian records, per row
/// [u32 n][n x (u32 bin, u8 category, i64 busy_ns)]. `raw_bytes` receives the uncompressed size.
std::string encode_overview_rows(const std::vector<OverviewRow>& rows, std::int64_t* raw_bytes);
/// Inverse of encode_overview_rows. Throws std::runtime_error naming what is wrong (bad zlib data,
/// a count beyond the blob, bins not ascending or >= `bins`, busy outside [0, bin_ns], an unknown
/// category).
std::vector<OverviewRow> decode_overview_rows(const void* blob, std::size_t size, std::int64_t raw_bytes,
                                              std::uint32_t bins, std::int64_t bin_ns);

}  // namespace ts::prof
