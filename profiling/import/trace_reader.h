// The importer's SAX stage: RapidJSON reads the trace (array form `[ev, ...]` or object form
// `{"traceEvents": [...], "deviceProperties": [...], ...}`) and this reader hands each trace event,
// flattened into a RawEvent that is reused for the next one, to an EventSink. Only the fields and
// args the importer maps are kept; everything else (call stacks, input shapes) is skipped as it
// streams by. Top-level keys (device lists, distributedInfo, versions) are collected in TopLevel.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "profiling/import/json_input.h"

namespace ts::prof::import {

/// A JSON scalar as the trace wrote it (pid/tid/id may be numbers or strings).
struct Scalar {
  enum class Type : std::uint8_t { none, null, boolean, integer, big, real, string } type = Type::none;
  std::int64_t i = 0;  // integer (and boolean 0/1)
  double d = 0;        // real, and big (an integer beyond int64)
  std::string s;       // string
  bool present() const { return type != Type::none; }
  bool is_number() const { return type == Type::integer || type == Type::real || type == Type::big; }
  double number() const { return type == Type::integer ? static_cast<double>(i) : d; }
  void clear() { type = Type::none; }
};

/// Args the importer maps (Kineto's names); anything else numeric goes to RawEvent::numeric_args.
enum class Arg : std::uint8_t {
  device, context, stream, correlation, registers, shared_memory, bytes, cbid,  // GPU activity, runtime
  blocks_per_sm, est_occupancy,  // Kineto's per-kernel estimates ("blocks per SM", "est. achieved occupancy %")
  mem_device_type, mem_device_id, mem_bytes, mem_addr, total_allocated, total_reserved,  // [memory]
  name, labels, sort_index,                                                      // M
  sync_kind, wait_event,                                                         // cuda_sync
  count
};
constexpr int kArgCount = static_cast<int>(Arg::count);

struct RawEvent {
  std::int64_t offset = 0;  // byte offset of the event's '{' in the JSON text
  Scalar ph, cat, name, pid, tid, ts, dur, id, scope, bp;  // id: "id", or the value inside "id2"
  bool id_local = false;  // id2 {"local": ...}: the id is scoped to the process
  Scalar args[kArgCount];
  std::int32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  bool has_grid = false, has_block = false;
  /// Numeric args in order (counters of C events); only the first numeric_n are this event's.
  std::vector<std::pair<std::string, double>> numeric_args;
  std::size_t numeric_n = 0;
  const char* wrong_type = nullptr;  // the first mapped field with the wrong JSON type
  const Scalar& arg(Arg a) const { return args[static_cast<int>(a)]; }
  void reset(std::int64_t at);
};

/// What the object form carries besides traceEvents.
struct TopLevel {
  bool object_form = false;
  bool has_trace_events = false;
  std::string device_key;  // "deviceProperties" or "computeProperties" (the older Kineto name)
  std::vector<std::map<std::string, std::string>> devices;  // scalar fields of each device
  std::map<std::string, std::string> distributed;           // scalar fields of distributedInfo
  std::map<std::string, std::string> scalars;               // other top-level scalars
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void event(const RawEvent& ev) = 0;
  /// An element of traceEvents that is not an object.
  virtual void not_an_object(std::int64_t offset) = 0;
};

struct ParseOutcome {
  bool ok = false;
  bool truncated = false;       // the text ended inside the document (events before it delivered)
  bool cancelled = false;
  std::string error;            // one line, without the file name
  std::int64_t error_offset = -1;
};

/// Reads the whole document from `in`, calling `sink` per event and filling `top`.
ParseOutcome parse_trace(JsonInput& in, EventSink& sink, TopLevel& top);

}  // namespace ts::prof::import
