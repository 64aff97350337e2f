// The profiler's record types: plain values, one struct per event kind, as they sit in the event
// store and in the session file's tables (docs/session-format.md). All times are int64 ns since
// session start (one clock: profiling/clock.h). Strings are ids into the store's StringTable.
// `device` is the CUDA ordinal (-1: the host); `rank` is the data-parallel rank (0 until multi-GPU).
// Records compare equal field by field (a session read back is compared with the store it was written from).
#pragma once
#include <cstdint>

namespace ts::prof {

using StringId = std::uint32_t;
constexpr StringId kNoString = 0;  // id 0 is the empty string

/// A kernel's launch configuration, kept once per distinct configuration (EventStore::kernel_configs;
/// a training step launches the same few dozen configurations over and over).
struct KernelConfig {
  std::int32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  std::int32_t registers = 0;                      // per thread
  std::int32_t static_smem = 0, dynamic_smem = 0;  // bytes per block
  /// A Kineto trace's own per-kernel estimates ("blocks per SM", "est. achieved occupancy %"; < 0:
  /// absent). Kept in memory only: the session file stores the launch configuration, from which the
  /// analysis computes both when a saved import is opened again.
  float kineto_blocks_per_sm = -1, kineto_occupancy_pct = -1;
  bool operator==(const KernelConfig&) const = default;
};

/// 56 bytes; the launch configuration is EventStore::config(k).
struct KernelRecord {
  std::int64_t start = 0, end = 0;
  std::int32_t device = 0, rank = 0;
  std::uint32_t context = 0, stream = 0, correlation = 0;
  StringId name = kNoString;  // demangled
  std::uint32_t config = 0;   // row of EventStore::kernel_configs (0: all zero)
  std::uint32_t graph_id = 0; // 0: not launched from a CUDA graph
  std::uint64_t graph_node = 0;
  bool operator==(const KernelRecord&) const = default;
};
static_assert(sizeof(KernelRecord) == 56);

/// A CUDA-graph node and the API call that created it. A kernel, copy or memset replayed from a graph
/// carries its node (KernelRecord::graph_node) but the correlation id of the cudaGraphLaunch that
/// replayed it; this row gives the node's capture-time call: the launch (cudaLaunchKernel,
/// cuLaunchKernel, cudaMemcpyAsync, ...) made while the stream was captured, followed through the
/// clones that instantiation makes (an executable graph's node maps where its original does).
struct GraphNodeRecord {
  std::uint64_t node = 0;         // CUPTI's graph node id (cuptiGetGraphNodeId)
  std::uint32_t correlation = 0;  // the creating call's correlation id (never 0 in a stored row)
  bool operator==(const GraphNodeRecord&) const = default;
};

/// One replay of a CUDA graph as a whole (CUPTI_ACTIVITY_KIND_GRAPH_TRACE, CUpti_ActivityGraphTrace2):
/// from its first node's start to its last node's end, with the correlation id of the cudaGraphLaunch
/// that replayed it. Recorded between a schedule's per-kernel windows (profiler.h, "hybrid"), where
/// CUPTI traces each graph once instead of every node: ~1 % of a b128 step against ~4-5 % (RESULTS.md).
struct GraphReplayRecord {
  std::int64_t start = 0, end = 0;
  std::int32_t device = 0, rank = 0;
  std::uint32_t context = 0, stream = 0, correlation = 0;
  std::uint32_t graph_id = 0;
  bool operator==(const GraphReplayRecord&) const = default;
};

/// copy_kind: CUpti_ActivityMemcpyKind (1 HtoD, 2 DtoH, 8 DtoD, ...); src/dst: CUpti_ActivityMemoryKind.
struct MemcpyRecord {
  std::int64_t start = 0, end = 0;
  std::int32_t device = 0, rank = 0;
  std::uint32_t context = 0, stream = 0, correlation = 0;
  std::int64_t bytes = 0;
  std::uint8_t copy_kind = 0, src_kind = 0, dst_kind = 0;
  std::uint32_t graph_id = 0;
  std::uint64_t graph_node = 0;
  bool operator==(const MemcpyRecord&) const = default;
};

struct MemsetRecord {
  std::int64_t start = 0, end = 0;
  std::int32_t device = 0, rank = 0;
  std::uint32_t context = 0, stream = 0, correlation = 0;
  std::int64_t bytes = 0;
  std::uint32_t value = 0;
  std::uint16_t memory_kind = 0;
  std::uint32_t graph_id = 0;
  std::uint64_t graph_node = 0;
  bool operator==(const MemsetRecord&) const = default;
};

/// A CUDA runtime API call (cudaLaunchKernel, cudaMemcpyAsync, ...) on a host thread. 32 bytes: the
/// most frequent record (about 60 % of a profiled step's events), so it carries no rank of its own —
/// a store holds one process, whose rank is EventStore::process_rank.
struct RuntimeRecord {
  std::int64_t start = 0, end = 0;
  std::uint32_t thread = 0;   // Linux tid
  std::uint32_t correlation = 0;
  StringId name = kNoString;  // "cudaLaunchKernel"
  std::uint16_t cbid = 0;     // CUpti_runtime_api_trace_cbid (CUDA 13: < 1,000)
  std::uint16_t result = 0;   // cudaError_t returned (CUDA's largest code: 10,000)
  bool operator==(const RuntimeRecord&) const = default;
};
static_assert(sizeof(RuntimeRecord) == 32);

/// type: CUpti_ActivitySynchronizationType (1 event sync, 2 stream wait event, 3 stream sync, 4 context sync).
struct SyncRecord {
  std::int64_t start = 0, end = 0;
  std::int32_t device = 0, rank = 0;
  std::uint32_t context = 0, stream = 0, correlation = 0;
  std::uint32_t type = 0, event = 0;
  bool operator==(const SyncRecord&) const = default;
};

/// op: CUpti_ActivityMemoryOperationType (1 allocation, 2 release); memory_kind: CUpti_ActivityMemoryKind.
struct MemoryRecord {
  std::int64_t time = 0;
  std::int32_t device = 0, rank = 0;
  std::uint32_t context = 0, stream = 0, correlation = 0;
  std::uint8_t op = 0;
  std::uint16_t memory_kind = 0;
  std::uint64_t address = 0;
  std::int64_t bytes = 0;
  bool operator==(const MemoryRecord&) const = default;
};

/// kind: CUpti_ActivityOverheadKind; object_kind: CUpti_ActivityObjectKind; object_id: thread or device id.
struct OverheadRecord {
  std::int64_t start = 0, end = 0;
  std::int32_t rank = 0;
  std::uint32_t kind = 0, object_kind = 0, object_id = 0;
  bool operator==(const OverheadRecord&) const = default;
};

/// A host range (engine/host_trace.h): kind = trace::RangeKind.
struct HostRangeRecord {
  std::int64_t start = 0, end = 0;
  std::int32_t device = 0, rank = 0;
  std::uint32_t thread = 0;
  std::uint8_t kind = 0;
  StringId name = kNoString, layer = kNoString;
  std::int64_t step = -1;
  bool operator==(const HostRangeRecord&) const = default;
};

struct ThreadRecord {
  std::uint32_t tid = 0;
  StringId name = kNoString;
  bool operator==(const ThreadRecord&) const = default;
};

struct StepRecord {
  std::int64_t global_step = 0;
  std::int32_t epoch = 0;
  std::int64_t step = 0;
  std::int64_t start = 0, end = 0;
  std::int64_t images = 0, data_wait_ns = 0;
  bool operator==(const StepRecord&) const = default;
};

/// One finished epoch as the trainer reported it (EpochResult), for the accuracy curve of a saved run.
struct EpochRecord {
  std::int32_t epoch = 0;  // 1-based
  double train_loss = 0, test_accuracy = 0, test_loss = 0, images_per_s = 0;
  std::int64_t train_ns = 0, eval_ns = 0;
  float loss_scale = 1.0f;
  std::int64_t skipped_steps = 0;
  bool operator==(const EpochRecord&) const = default;
};

struct LossRecord {
  std::int64_t global_step = 0;
  float loss = 0;
  bool operator==(const LossRecord&) const = default;
};

struct SeriesRecord {
  std::uint32_t id = 0;
  StringId name = kNoString, unit = kNoString;
  bool operator==(const SeriesRecord&) const = default;
};

struct SampleRecord {
  std::int64_t time = 0;
  std::uint32_t series = 0;
  double value = 0;
  bool operator==(const SampleRecord&) const = default;
};

/// Python insight (profiling/inject/python): one interned Python frame. `function` and `file` are
/// string ids; `line` the line number being executed when sampled (1-based; 0 unknown).
struct PyFrameRecord {
  std::uint32_t id = 0;  // 1-based; 0 is "no frame"
  StringId function = kNoString, file = kNoString;
  std::int32_t line = 0;
  bool operator==(const PyFrameRecord&) const = default;
};

/// A Python call stack as a tree node: `frame` is its innermost frame, `parent` the stack of its
/// callers (0: `frame` is the outermost). Stacks are interned: a node is written once.
struct PyStackRecord {
  std::uint32_t id = 0, parent = 0, frame = 0;
  bool operator==(const PyStackRecord&) const = default;
};

/// One sample of a thread's Python stack (the sampler thread of the Python insight, >= 100 Hz).
struct PySampleRecord {
  std::int64_t time = 0;     // session ns
  std::uint32_t thread = 0;  // Linux tid of the sampled thread
  std::uint32_t stack = 0;   // PyStackRecord id
  bool operator==(const PySampleRecord&) const = default;
};

/// A clock check: CUPTI timestamp minus host steady clock at `time`, and its change since the start.
struct ClockRecord {
  std::int64_t time = 0;
  std::int64_t offset_ns = 0, drift_ns = 0;
  bool operator==(const ClockRecord&) const = default;
};

}  // namespace ts::prof
