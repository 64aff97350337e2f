// Import of PyTorch profiler (Kineto) traces and generic Chrome Trace Event Format files into an
// EventStore, so a trace recorded by torch.profiler opens, analyses, compares and saves like a
// TrainScope session. Qt-free and streaming: RapidJSON's SAX reader over a zlib stream
// (gzip or plain JSON), never the whole JSON text in memory; records are buffered once and moved
// into the store at the end (times become int64 ns since the earliest event).
//
// What maps where (details: docs in trace_builder.cpp):
//   kernel / Kernel                     -> kernels (stream, correlation id, grid, block, registers,
//                                          shared memory, device)
//   gpu_memcpy / Memcpy, gpu_memset / Memset -> memcpys / memsets (copy kind and memory kinds from
//                                          the name "Memcpy HtoD (Pageable -> Device)", bytes)
//   cuda_runtime / Runtime / cuda_driver -> runtime calls (the analysis classifies *Synchronize* and
//                                          blocking cudaMemcpy by name)
//   cuda_sync                           -> sync records
//   ProfilerStep#N                      -> the steps table and a `step` host range; without any, the
//                                          step rule (steps/step_rule.h): ranges matching
//                                          ImportOptions::step_range, else the whole trace
//   enumerate(DataLoader)#...__next__   -> `data_wait` host ranges
//   other X and B/E (cpu_op, user_annotation, python_function, ...), instants -> host ranges
//   async b/e/n (id or id2)             -> host ranges in "async: NAME" lanes (trace_builder.cpp)
//   mtia_ccp_events / mtia_runtime      -> kernels / runtime calls (Meta's MTIA)
//   [memory] instants                   -> memory records (+ allocated/reserved samples when present)
//   C counters                          -> series and samples; M -> thread names and meta
//   s/t/f flows                         -> checked against correlation ids (the link itself is the id)
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/capped_read.h"
#include "base/errors.h"
#include "profiling/event_source.h"
#include "profiling/event_store.h"

namespace ts::prof::import {

/// The user cancelled an import (ImportOptions::cancel); nothing was kept.
class ImportCancelled : public Error {
 public:
  using Error::Error;
};

struct ImportOptions {
  /// Called from the importing thread as the file is read: (bytes of the file read so far, file
  /// size in bytes); for gzip both count compressed bytes. At most about 200 calls per import.
  std::function<void(std::int64_t done, std::int64_t total)> progress;
  /// Checked about every 256 KiB of JSON; when it turns true the import throws ImportCancelled.
  const std::atomic<bool>* cancel = nullptr;
  /// --step-range: in a trace without ProfilerStep#N, host ranges whose name matches this pattern
  /// are the steps (profiling/steps/step_rule.h); with none, the whole trace is one step.
  std::string step_range = "step";
  /// The most JSON text (bytes, decompressed) and the longest single string (bytes) read; past
  /// either the import stops with an InputError that names the limit (docs/memory-safety.md).
  std::int64_t max_text_bytes = kMaxTraceTextBytes;
  std::int64_t max_string_bytes = kMaxTraceStringBytes;
};

/// A class of tolerated problems: how many events had it and where the first one sits.
struct ImportWarning {
  std::string what;                // "events out of time order on their track"
  std::int64_t count = 0;
  std::int64_t first_offset = -1;  // byte offset in the (decompressed) JSON text; -1: not tied to one event
  std::string first_detail;        // e.g. the first event's name or correlation id
};

struct ImportSummary {
  std::string kind;    // "PyTorch trace" (Kineto markers seen) or "Chrome trace"
  std::string format;  // "object form, schemaVersion 1" / "array form"
  std::int64_t bytes = 0;         // JSON text read (decompressed)
  std::int64_t events_read = 0;   // trace events seen (including metadata and flows)
  std::int64_t events_kept = 0;   // events of the file that became records (a matched B/E pair: 2)
  std::int64_t derived_records = 0;  // records made beside them: step rows, [memory] allocated/reserved samples
  std::int64_t metadata_events = 0;  // M events (thread names, process names: meta, not records)
  std::int64_t steps = 0;
  std::string step_rule;          // where the steps came from (meta steps.rule, profiling/steps/step_rule.h)
  std::int64_t flows = 0;         // s/t/f events
  std::int64_t communication_kernels = 0;  // NCCL kernels (is_communication_kernel)
  bool truncated = false;         // the JSON (or the gzip stream) ended early; events before it kept
  std::vector<ImportWarning> warnings;  // only classes with count > 0
  std::int64_t warning_count() const;
  /// "12 events out of time order on their track (first at byte 1234, Event Sync); ..." or "none".
  std::string warnings_text() const;
};

struct ImportedTrace {
  std::shared_ptr<EventStore> store;
  ImportSummary summary;
};

/// Imports `path` (.json or .json.gz; gzip is detected from the content). Throws InputError with one
/// line naming the file and the byte offset for input that is not a trace (not JSON, a syntax error,
/// no traceEvents, no complete event before the end); ImportCancelled when cancelled. Tolerated
/// problems (bad events, out-of-order events, unknown phases, truncation) become warnings.
/// A SQLite file or a *.sqlite / *.nsys-rep / *.qdrep name goes to the Nsight Systems export reader
/// (profiling/import/nsys/nsys_import.h: its errors and kind "Nsight Systems export").
ImportedTrace import_trace(const std::string& path, const ImportOptions& options = {});

/// The same from memory (the fuzzer, tests); `name` stands for the file in messages.
ImportedTrace import_trace_bytes(const void* data, std::size_t size, const std::string& name,
                                 const ImportOptions& options = {});

/// An imported trace as an EventSource: kind() "PyTorch trace" or "Chrome trace".
std::unique_ptr<EventSource> open_trace(const std::string& path, const ImportOptions& options = {});

/// True for trace files by name: *.json, *.json.gz, *.pt.trace.json(.gz), and Nsight Systems files
/// (*.sqlite exports; *.nsys-rep / *.qdrep reports, which import_trace refuses with the export hint).
bool is_trace_path(const std::string& path);

/// NCCL communication kernels (ncclKernel_*, ncclDevKernel_*, and "void ncclKernel..." forms):
/// GPU time spent in collectives, not compute. Imports count them (summary, meta
/// import.communication_kernels) so views can tag them.
bool is_communication_kernel(std::string_view demangled_name);

}  // namespace ts::prof::import
