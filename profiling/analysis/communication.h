// Communication and computation time: one definition for a session's analysis (Report::communication,
// the communication_bound verdict) and a distributed job's per-rank figures (profiling/job), so
// `trainscope-run --analyze RANK.tsession` and `--analyze JOB_DIR` count the same time. Definitions:
// docs/metrics.md, "Communication".
//
// Communication is the union of the collective kernels (NCCL, RCCL) and the communication host ranges
// (`comm: ...`, the Python insight's torch.distributed collectives, on any thread): with gloo the
// collectives run on the host and no kernel shows them; with NCCL the ranges and the kernels overlap
// and count once. Computation is the union of every other kernel. Exposed communication is
// communication while no computation kernel runs (Holistic Trace Analysis).
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "profiling/event_store.h"

namespace ts::prof::analysis {

/// A host range that is a collective recorded by the Python insight (`comm: all_reduce train.py:57`,
/// `comm: async ddp all_reduce bucket 0`; profiling/inject/python/PROTOCOL.md): communication time.
bool is_communication_range(std::string_view name);
/// A communication range in flight (`comm: async ...`: an async_op=True collective until its wait,
/// a DDP bucket until its future completes): the recording thread did not block in it. The other
/// communication ranges block their thread (waiting for the other ranks counts there).
bool is_async_communication_range(std::string_view name);

/// [start, end) in session ns.
struct TimeInterval {
  std::int64_t start = 0, end = 0;
};

/// A session's communication and computation as merged interval lists (sorted, disjoint; session ns).
struct CommunicationSpans {
  std::vector<TimeInterval> communication;       // collective kernels ∪ communication host ranges
  std::vector<TimeInterval> computation;         // every other kernel
  std::vector<TimeInterval> overlap;             // communication ∩ computation
  std::vector<TimeInterval> collective_kernels;  // the collective kernels alone
  std::int64_t collective_kernel_count = 0;
  std::int64_t host_range_count = 0;  // communication host ranges
  bool empty() const { return collective_kernel_count == 0 && host_range_count == 0; }
};

/// The store's communication and computation over the whole session. `collective[i]` says whether
/// store.kernels[i] is a collective kernel (the session analysis also counts kernels launched inside a
/// collective op, timeline.cpp); empty: by name (is_communication_kernel), as a job's ranks are read.
CommunicationSpans communication_spans(const EventStore& store, const std::vector<bool>& collective = {});

/// Communication figures over [a, b) (ns; windows of one session sum to its figures).
struct CommunicationTime {
  std::int64_t communication_ns = 0, computation_ns = 0, overlap_ns = 0;
  std::int64_t collective_kernel_ns = 0;
  std::int64_t exposed_ns() const { return communication_ns - overlap_ns; }
};
CommunicationTime communication_time(const CommunicationSpans& s, std::int64_t a, std::int64_t b);

/// Length of [a, b) covered by the merged list `v` (binary search, then the spans inside).
std::int64_t covered_length(const std::vector<TimeInterval>& v, std::int64_t a, std::int64_t b);

}  // namespace ts::prof::analysis
