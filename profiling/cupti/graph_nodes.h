// Which call created each CUDA-graph node, so a kernel replayed from a graph can be put where its
// capture-time launch was. A replayed kernel's CUPTI record carries its graph node id and the
// correlation id of the cudaGraphLaunch that replayed it, never the id of the launch that was
// captured; layer attribution needs the latter (the layer's host range holds it).
//
// CUPTI tells: while a stream is captured, each launch (cudaLaunchKernel, cuLaunchKernel from cuBLAS,
// cudaMemcpyAsync, ...) creates its node inside the launch call, on the calling thread, and raises
// the resource callback GRAPHNODE_CREATED there; instantiation copies every node into the executable
// graph and raises GRAPHNODE_CLONED (original -> clone). The tracker keeps, per thread, the
// correlation id of the launch in progress (the API callbacks of graph_node_callbacks.h, ENTER and
// EXIT), maps a created node to it and a clone to what its original maps to, and hands the mappings
// to the store's graph_nodes table on the GPU records' writer thread. Runs once per node (a capture,
// an instantiation), never per replay; the per-launch part is two thread-local stores.
//
// Engine- and CUPTI-free (node ids are plain numbers; the callers ask CUPTI for them), so the live
// collector and the injection library share it and tests drive it without a GPU.
#pragma once
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "profiling/event_store.h"

namespace ts::prof {

class GraphNodeTracker {
 public:
  /// The API domain of a launch callback. A runtime call's correlation id wins over a driver call's
  /// on the same thread: the runtime's launches may call the driver inside, and their GPU records
  /// carry the runtime call's id; a driver call alone (cuBLAS's cuLaunchKernel) carries its own.
  enum class Api : std::uint8_t { runtime, driver };
  /// A launch call of `api` starts (ENTER) on the calling thread with CUPTI's `correlation` id.
  static void api_enter(Api api, std::uint32_t correlation);
  /// ... and ends (EXIT).
  static void api_exit(Api api);
  /// The correlation id of the launch call in progress on the calling thread (0: none).
  static std::uint32_t call_in_progress();

  /// GRAPHNODE_CREATED for `node` on the calling thread: the launch call in progress created it.
  /// With none in progress (instantiation's copies, or a call that is not followed) nothing is kept:
  /// a copy is mapped by node_cloned.
  void node_created(std::uint64_t node);
  /// GRAPHNODE_CLONED: `clone` maps to what `original` maps to (nothing when `original` is unknown:
  /// counted in unmapped_clones()).
  void node_cloned(std::uint64_t clone, std::uint64_t original);

  /// Appends the mappings made since the previous call to store.graph_nodes. Call it on the thread
  /// that writes the store's GPU records, before it appends the records of the buffers it parses
  /// (a node precedes its kernels). Returns the rows appended.
  std::size_t drain(EventStore& store);
  /// Clones whose original had no known creating call: nodes made by calls that are not followed
  /// (event records, host functions, cudaMemcpy2DAsync captured; a graph built node by node with
  /// cudaGraphAddKernelNode) or captured before the tracker started.
  std::int64_t unmapped_clones() const;
  /// Nodes mapped so far (originals and clones).
  std::size_t nodes() const;

 private:
  void map(std::uint64_t node, std::uint32_t correlation);
  mutable std::mutex mutex_;
  std::unordered_map<std::uint64_t, std::uint32_t> correlation_of_;  // every node mapped so far
  std::vector<GraphNodeRecord> pending_;                             // not yet in the store
  std::int64_t unmapped_clones_ = 0;
};

/// Graph node id -> the capture-time correlation id, from store.graph_nodes rows [0, rows) (a later
/// row of the same node wins). Empty for a store without graph nodes (sessions recorded before
/// them, imports).
std::unordered_map<std::uint64_t, std::uint32_t> graph_node_correlations(const EventStore& store, std::size_t rows);

/// The capture-time correlation id of `node` in store.graph_nodes (a linear scan from the end: for
/// one lookup, e.g. the timeline's details of one kernel); 0 when `node` is 0 or not there.
std::uint32_t graph_node_correlation(const EventStore& store, std::uint64_t node);

}  // namespace ts::prof
