// Live GPU activity through CUPTI's Activity API: CONCURRENT_KERNEL (never the serialising KERNEL
// kind), MEMCPY, MEMSET, RUNTIME, SYNCHRONIZATION, MEMORY2 and OVERHEAD. CUPTI asks for buffers and
// hands completed ones back on its own thread; the callbacks only take/return buffers from a pool
// and queue completed ones, so nothing is parsed on CUPTI's or the trainer's threads. The
// collector's own thread parses queued buffers into the EventStore, calls cuptiActivityFlushAll
// every 100 ms (the bound), and checks CUPTI's clock against the host clock every second
// (clock table: offset and drift). Dropped records are summed from cuptiActivityGetNumDroppedRecords
// per buffer into EventStore::dropped_cupti.
//
// Between a hybrid recording's windows (profiler.h) it records GRAPH_TRACE instead, one record per replayed
// CUDA graph (set_mode), which CUPTI does not allow beside CONCURRENT_KERNEL.
//
// CUDA graphs: the collector also subscribes to CUPTI's callbacks (graph_node_callbacks.h) so the
// graph_nodes table says which capture-time launch each graph node came from; the mappings reach the
// store on the collector's thread, before the kernels of the buffers it parses next.
//
// Refusals are not errors: with no GPU, CUPTI missing or refused (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES,
// another subscriber such as Nsight attached), active() is false and why() says so; training goes on.
// One collector at a time per process (CUPTI's buffer callbacks carry no user pointer).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "profiling/clock.h"
#include "profiling/event_store.h"

namespace ts::prof {

/// Which activity kinds to collect (all by default). Turning one off is for measuring what each
/// costs (bench/profile_cost.sh); a session without one of them lacks the verdicts that need it.
/// graph_nodes (with kernels only): which launch created each CUDA-graph node (graph_nodes.h), through
/// CUPTI callbacks on the launch calls and on graph node creation and cloning; without it kernels
/// replayed from a CUDA graph are attributed to no layer.
struct CuptiKinds {
  bool kernels = true, copies = true, runtime = true, syncs = true, memory = true, graph_nodes = true;
};

/// What CUPTI records: every enabled kind (`kinds`), whole CUDA-graph replays instead of kernels
/// (`graph_replays`: CUPTI_ACTIVITY_KIND_GRAPH_TRACE, one record per replayed graph instead of one per
/// node, alone: CUPTI refuses it beside CONCURRENT_KERNEL, and outside the kernel windows the parser
/// would keep no other record), or nothing (`off`).
enum class CuptiMode { kinds, graph_replays, off };

class CuptiCollector {
 public:
  /// `start_host_ns`: the session's start on the steady clock. Never throws for CUPTI refusals.
  CuptiCollector(EventStore& store, std::int64_t start_host_ns, int rank, CuptiKinds kinds = {});
  ~CuptiCollector();
  CuptiCollector(const CuptiCollector&) = delete;
  CuptiCollector& operator=(const CuptiCollector&) = delete;

  bool active() const;
  /// Why GPU activity is missing ("" when active).
  const std::string& why() const;
  /// Switches what CUPTI records (starts in `kinds`). For the engine's timing of candidates
  /// (trace::Sink::on_measuring: off) and a profile schedule's gaps (off, or graph_replays in a hybrid
  /// recording). Leaving a mode that recorded anything first waits for the work queued on the device
  /// (drain_device) and flushes CUPTI's buffers: a kind disabled while CUPTI still held a finished
  /// record gave it the end time of a later flush (an H100 b128 run: 108 kernel records of ~21 ms, at
  /// most 62 ms, in one 0.45 ms step). When CUPTI refuses GRAPH_TRACE it records nothing instead and
  /// meta `graph_replays` says why.
  void set_mode(CuptiMode mode);
  CuptiMode mode() const;
  /// Waits until the calling thread's device has finished all queued work (cudaDeviceSynchronize);
  /// nothing when collection is off. An error of the program's own work is left for it to see.
  void drain_device();
  /// Flushes every buffer (forced), parses it and stops the thread; idempotent.
  void stop();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// True when this build has CUPTI collection (the CUDA backend was built).
bool cupti_built();

}  // namespace ts::prof
