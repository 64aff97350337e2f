// GraphNodeTracker (see graph_nodes.h).
#include "profiling/cupti/graph_nodes.h"

#include <algorithm>

namespace ts::prof {
namespace {

// The outermost launch call in progress on this thread, per API (0: none), and how deep calls of
// that API are nested (a launch that calls another followed launch inside keeps the outer one: it is
// the call the program made, and the one a runtime record holds).
struct InProgress {
  std::uint32_t correlation = 0;
  std::uint32_t depth = 0;
};
thread_local InProgress t_runtime_call, t_driver_call;

InProgress& in_progress(GraphNodeTracker::Api api) {
  return api == GraphNodeTracker::Api::runtime ? t_runtime_call : t_driver_call;
}

}  // namespace

void GraphNodeTracker::api_enter(Api api, std::uint32_t correlation) {
  InProgress& c = in_progress(api);
  if (c.depth++ == 0) c.correlation = correlation;
}

void GraphNodeTracker::api_exit(Api api) {
  InProgress& c = in_progress(api);
  if (c.depth > 0 && --c.depth == 0) c.correlation = 0;
}

std::uint32_t GraphNodeTracker::call_in_progress() {
  return t_runtime_call.correlation ? t_runtime_call.correlation : t_driver_call.correlation;
}

void GraphNodeTracker::map(std::uint64_t node, std::uint32_t correlation) {
  correlation_of_[node] = correlation;
  pending_.push_back({node, correlation});
}

void GraphNodeTracker::node_created(std::uint64_t node) {
  const std::uint32_t corr = call_in_progress();
  if (node == 0 || corr == 0) return;
  std::lock_guard lock(mutex_);
  map(node, corr);
}

void GraphNodeTracker::node_cloned(std::uint64_t clone, std::uint64_t original) {
  if (clone == 0) return;
  std::lock_guard lock(mutex_);
  const auto it = correlation_of_.find(original);
  if (it == correlation_of_.end()) {
    ++unmapped_clones_;
    return;
  }
  map(clone, it->second);
}

std::size_t GraphNodeTracker::drain(EventStore& store) {
  std::vector<GraphNodeRecord> rows;
  {
    std::lock_guard lock(mutex_);
    rows.swap(pending_);
  }
  for (const GraphNodeRecord& r : rows) store.append(store.graph_nodes, r);
  return rows.size();
}

std::int64_t GraphNodeTracker::unmapped_clones() const {
  std::lock_guard lock(mutex_);
  return unmapped_clones_;
}

std::size_t GraphNodeTracker::nodes() const {
  std::lock_guard lock(mutex_);
  return correlation_of_.size();
}

std::unordered_map<std::uint64_t, std::uint32_t> graph_node_correlations(const EventStore& store, std::size_t rows) {
  std::unordered_map<std::uint64_t, std::uint32_t> m;
  rows = std::min(rows, store.graph_nodes.size());
  m.reserve(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    const GraphNodeRecord& g = store.graph_nodes[i];
    if (g.node != 0 && g.correlation != 0) m[g.node] = g.correlation;
  }
  return m;
}

std::uint32_t graph_node_correlation(const EventStore& store, std::uint64_t node) {
  if (node == 0) return 0;
  for (std::size_t i = store.graph_nodes.size(); i-- > 0;) {
    const GraphNodeRecord& g = store.graph_nodes[i];
    if (g.node == node && g.correlation != 0) return g.correlation;
  }
  return 0;
}

}  // namespace ts::prof
