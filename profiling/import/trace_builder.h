// The importer's mapping stage: RawEvents (trace_reader.h) become TrainScope records, buffered with
// absolute times (int64 ns from the trace's µs) until the whole trace is read; finish() then makes
// the times relative to the earliest event, links and checks, sorts each table by start and moves
// it into the EventStore, and writes the session metadata. Mapping: trace_builder.cpp; finishing:
// trace_finish.cpp. Tolerated problems are counted per class (Warn) with the first offset.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profiling/event_store.h"
#include "profiling/steps/step_rule.h"
#include "profiling/import/trace_import.h"
#include "profiling/import/trace_reader.h"

namespace ts::prof::import {

enum class Warn : int {
  not_object, missing_field, wrong_type, bad_time, negative_dur, out_of_order, unknown_phase,
  end_without_begin, unclosed_begin, flow_without_start, clock_skew, out_of_range, conflicting_meta,
  control_chars, nan_inf, truncated, count
};

class TraceBuilder final : public EventSink {
 public:
  explicit TraceBuilder(EventStore& store);
  void event(const RawEvent& ev) override;
  void not_an_object(std::int64_t offset) override;
  std::int64_t events_read() const { return events_read_; }
  /// Events of the file that became records (a matched B/E or b/e pair counts both), and records the
  /// importer made beside them (step rows of ProfilerStep ranges, allocated/reserved samples of
  /// [memory] events).
  std::int64_t events_kept() const { return kept_; }
  std::int64_t derived_records() const { return derived_; }
  void warn(Warn w, std::int64_t offset, std::string_view detail = {});
  void warn_count(Warn w, std::int64_t count, std::int64_t offset, std::string_view detail);
  /// Moves everything into the store and fills `summary` (trace_finish.cpp); a trace without
  /// ProfilerStep#N gets its steps by the step rule (profiling/steps/step_rule.h) with `step_range`.
  void finish(const TopLevel& top, const std::string& path, ImportSummary& summary, const StepRangePattern& step_range);

 private:
  struct WarnState {
    std::int64_t count = 0, first_offset = -1;
    std::string detail;
  };
  struct Open {  // a B event waiting for its E
    std::int64_t start;
    StringId name;
    std::int64_t offset;
  };
  struct AsyncOpen {  // a b event waiting for its e
    std::int64_t start;
    StringId name;
    std::int64_t offset;
    std::uint32_t lane;
  };
  struct HostExtra {  // parse-time facts about a host range, parallel to host_
    std::uint32_t lane;
  };

  // Mapping (trace_builder.cpp).
  bool times(const RawEvent& ev, bool need_dur, std::int64_t& start, std::int64_t& end);
  std::uint32_t lane(const Scalar& pid, const Scalar& tid);
  StringId name_id(const Scalar& s);
  void complete(const RawEvent& ev, std::int64_t start, std::int64_t end);
  void kernel(const RawEvent& ev, std::int64_t start, std::int64_t end);
  void memcpy_event(const RawEvent& ev, std::int64_t start, std::int64_t end, bool memset);
  void runtime_call(const RawEvent& ev, std::int64_t start, std::int64_t end);
  void sync(const RawEvent& ev, std::int64_t start, std::int64_t end);
  void host_range(std::uint32_t lane, std::int64_t start, std::int64_t end, StringId name, bool cpu_side,
                  std::int32_t device);
  void instant(const RawEvent& ev, std::int64_t t);
  void memory(const RawEvent& ev, std::int64_t t);
  void counter(const RawEvent& ev, std::int64_t t);
  void metadata(const RawEvent& ev);
  void flow(const RawEvent& ev);
  void begin_end(const RawEvent& ev, std::int64_t t, bool begin);
  void async(const RawEvent& ev, std::int64_t t, char ph);
  std::uint32_t u32_arg(const RawEvent& ev, Arg a, std::uint32_t dflt);
  std::int64_t i64_arg(const RawEvent& ev, Arg a, std::int64_t dflt);
  void gpu_order(const RawEvent& ev, std::int32_t device, std::uint32_t stream, std::int64_t start);
  void set_meta(const std::string& key, const std::string& value, std::int64_t offset);
  std::uint32_t series_id(const std::string& name, const char* unit);

  // Finishing (trace_finish.cpp).
  void link_and_check();
  void assign_steps();
  void apply_step_rule(const StepRangePattern& step_range);
  void write_tables(std::int64_t origin, std::int32_t rank);
  void write_meta(const TopLevel& top, const std::string& path, std::int64_t origin);
  std::string device_meta(const TopLevel& top);

  EventStore& store_;
  std::vector<KernelRecord> kernels_;
  std::vector<MemcpyRecord> memcpys_;
  std::vector<MemsetRecord> memsets_;
  std::vector<RuntimeRecord> runtime_;
  std::vector<SyncRecord> syncs_;
  std::vector<MemoryRecord> memory_;
  std::vector<HostRangeRecord> host_;
  std::vector<StepRecord> steps_;
  std::vector<std::uint32_t> step_lanes_;  // parallel to steps_
  std::vector<SampleRecord> samples_;
  std::vector<SeriesRecord> series_;
  std::unordered_map<std::string, std::uint32_t> series_ids_;
  std::vector<std::uint64_t> flow_starts_, flow_ends_;

  struct SvHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, StringId, SvHash, std::equal_to<>> names_;
  std::unordered_map<std::string, std::uint32_t, SvHash, std::equal_to<>> string_lanes_;
  std::map<std::uint32_t, std::string> lane_names_;    // lanes in use (host ranges, runtime calls)
  std::unordered_map<std::uint32_t, std::string> synthetic_labels_;  // the tid text of a synthetic lane
  std::map<std::uint32_t, std::string> thread_names_;  // M thread_name
  std::unordered_map<std::uint32_t, std::vector<Open>> open_;
  std::map<std::string, std::vector<AsyncOpen>> async_open_;  // by category, id (and pid for local ids)
  std::unordered_map<std::uint64_t, std::int64_t> gpu_last_start_;
  std::vector<std::int8_t> comm_kernel_;  // per name id: -1 unknown, 0/1
  std::map<std::string, std::string> meta_;
  std::map<std::string, std::int64_t> skipped_phases_;
  std::array<WarnState, static_cast<std::size_t>(Warn::count)> warns_{};
  std::map<int, std::int64_t> kernel_devices_;
  std::string dataloader_;
  std::string scratch_;
  std::int64_t min_ts_ = INT64_MAX, max_ts_ = INT64_MIN;
  std::int64_t events_read_ = 0, flows_ = 0, comm_kernels_ = 0, gpu_without_correlation_ = 0;
  std::int64_t kept_ = 0, derived_ = 0, metadata_events_ = 0;
  std::uint32_t next_lane_ = 0xF0000000u;  // synthetic lanes for non-numeric tids
  bool kineto_ = false;
  bool mtia_ = false;  // mtia_ccp_events / mtia_runtime seen (Meta's MTIA accelerator)
};

/// A pid/tid as text ("25738", "stream 7").
std::string scalar_label(const Scalar& v);
/// Byte-offset text for messages: "byte 1234".
std::string at_byte(std::int64_t offset);

}  // namespace ts::prof::import
