// Export of a session to the Chrome trace event format (JSON) that ui.perfetto.dev and
// chrome://tracing open, laid out as the PyTorch profiler (Kineto) writes its traces so that tools
// reading PyTorch traces read this one back. Streaming: events go straight from the store to the
// output (RapidJSON Writer over OutputStream; gzip when the file name ends in .gz).
//
// Layout (docs/compare.md, "Export"):
// - Processes: the host (pid kHostPid, "TrainScope host") and one per CUDA device (pid = ordinal,
//   "GPU N"), named with M process_name / process_labels / process_sort_index events.
// - Tracks: host threads (tid = Linux tid, thread_name from the threads table: trainer, loader-0 ...)
//   and CUDA streams (tid = stream id, "stream N"), M thread_name / thread_sort_index. Runtime calls
//   whose thread id matches no host thread (older sessions: a CUPTI thread id) get their own track.
// - X events, categories as Kineto's: "user_annotation" (host ranges; each step as ProfilerStep#N from
//   the steps table), "cuda_runtime", "kernel", "gpu_memcpy", "gpu_memset", "cuda_sync". Args use
//   Kineto's names (correlation, device, context, stream, grid, block, registers per thread, shared
//   memory, bytes, memory bandwidth (GB/s) ...) plus TrainScope's (layer, step, copy kind, kind ...).
// - Flows: each launch call to its GPU op, "s" at the call and "f" (bp "e") at the op, cat/name
//   "ac2g", id = the correlation id (a unique id above 2^32 for further ops of one correlation).
// - Counters (C): every sample series (name = series name, one arg named by its unit) and the bytes
//   held through CUPTI's cudaMalloc/cudaFree records ("cuda.malloc.held", per device).
// - Times: "ts"/"dur" in µs with three decimals (exact ns); "baseTimeNanoseconds" = session start
//   (Unix ns) when recorded. Events on one track must nest (the format's rule; Perfetto drops or
//   splits overlaps): an event that would cross a parent's end moves to an extra track of that thread
//   ("... (overlapping)") and is counted in ChromeTraceStats::overflow_events.
#pragma once
#include <cstdint>
#include <string>

#include "profiling/event_store.h"
#include "profiling/export/output_stream.h"

namespace ts::prof::exporter {

/// The host process id in the trace (the session does not record the trainer's pid).
constexpr std::int64_t kHostPid = 100000;

/// What an export wrote, per kind (X events unless said otherwise).
struct ChromeTraceStats {
  std::int64_t steps = 0;         // ProfilerStep#N (steps table)
  std::int64_t host_ranges = 0;   // user_annotation: host ranges (a step's own range is its ProfilerStep)
  std::int64_t runtime_calls = 0, kernels = 0, memcpys = 0, memsets = 0, syncs = 0;
  std::int64_t flows = 0;           // launch -> GPU op pairs (one "s" and one "f" each)
  std::int64_t counter_events = 0;  // "C" events
  std::int64_t tracks = 0;          // named thread / stream tracks (thread_name events)
  std::int64_t overflow_events = 0;     // moved to an "(overlapping)" track: they did not nest
  std::int64_t negative_durations = 0;  // end < start in the store: written with dur 0
  std::size_t bytes = 0;                // JSON bytes written (before compression)
};

/// Writes the whole trace to `out` and flushes it (the caller closes). Throws ts::Error when a write
/// failed. Reads a consistent prefix of every table (a live store may keep growing).
ChromeTraceStats write_chrome_trace(const EventStore& store, OutputStream& out);
/// Opens `path` ("-" = stdout, "*.gz" = gzip), writes, closes. Throws InputError (cannot create) or
/// ts::Error (a write failed).
ChromeTraceStats export_chrome_trace(const EventStore& store, const std::string& path);

/// "HtoD", "DtoH", "DtoD", ... (CUpti_ActivityMemcpyKind), "Unknown" otherwise.
const char* memcpy_kind_name(int copy_kind);
/// "Pageable", "Pinned", "Device", ... (CUpti_ActivityMemoryKind), "Unknown" otherwise.
const char* memory_kind_name(int memory_kind);

}  // namespace ts::prof::exporter
