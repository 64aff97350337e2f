// EventStore (see event_store.h).
#include "profiling/event_store.h"

#include <algorithm>
#include <bit>

namespace ts::prof {

StoreCounts EventStore::counts() const {
  StoreCounts c;
  // Steps before losses: a loss is applied only to a step that is already visible.
  c.steps = steps.size();
  c.losses = losses.size();
  c.epochs = epochs.size();
  c.kernels = kernels.size();
  // Kernels before graph nodes: a graph node is appended before its kernels, so every counted
  // kernel's node is counted too.
  c.graph_nodes = graph_nodes.size();
  c.graph_replays = graph_replays.size();
  c.memcpys = memcpys.size();
  c.memsets = memsets.size();
  c.runtime = runtime.size();
  c.syncs = syncs.size();
  c.memory = memory.size();
  c.overheads = overheads.size();
  c.threads = threads.size();
  c.host_ranges = host_ranges.size();
  c.series = series.size();
  c.samples = samples.size();
  c.clock = clock.size();
  // Frames before stacks before samples: a sample's stack and a stack's frame are already visible.
  c.py_frames = py_frames.size();
  c.py_stacks = py_stacks.size();
  c.py_samples = py_samples.size();
  c.metric_series = metric_series.size();  // series before samples: a sample's series is visible
  c.metric_samples = metric_samples.size();
  return c;
}

EventStore::EventStore() { intern_config(KernelConfig{}); }

std::uint32_t EventStore::intern_config(const KernelConfig& c) {
  const std::array<std::int32_t, 11> key{c.grid[0],   c.grid[1],     c.grid[2],      c.block[0],
                                         c.block[1],  c.block[2],    c.registers,    c.static_smem,
                                         c.dynamic_smem, std::bit_cast<std::int32_t>(c.kineto_blocks_per_sm),
                                         std::bit_cast<std::int32_t>(c.kineto_occupancy_pct)};
  auto [it, added] = config_ids_.try_emplace(key, static_cast<std::uint32_t>(kernel_configs.size()));
  if (added && !kernel_configs.push(c)) {
    config_ids_.erase(it);
    return 0;
  }
  return it->second;
}

void EventStore::set_meta(const std::string& key, const std::string& value) {
  std::lock_guard lock(meta_mutex_);
  meta_[key] = value;
  meta_version_.fetch_add(1);
}

std::map<std::string, std::string> EventStore::meta() const {
  std::lock_guard lock(meta_mutex_);
  return meta_;
}

void EventStore::set_overview(std::shared_ptr<const SessionOverview> overview) {
  std::lock_guard lock(meta_mutex_);
  overview_ = std::move(overview);
}

std::shared_ptr<const SessionOverview> EventStore::overview() const {
  std::lock_guard lock(meta_mutex_);
  return overview_;
}

void GpuKeepWindows::set_none() {
  std::lock_guard lock(mutex_);
  all_ = false;
  windows_.clear();
}

void GpuKeepWindows::open(std::int64_t from) {
  std::lock_guard lock(mutex_);
  all_ = false;
  if (!windows_.empty() && windows_.back().second == INT64_MAX) return;  // already open
  windows_.emplace_back(from, INT64_MAX);
}

void GpuKeepWindows::close(std::int64_t until) {
  std::lock_guard lock(mutex_);
  if (!windows_.empty() && windows_.back().second == INT64_MAX) windows_.back().second = std::max(until, windows_.back().first);
}

bool GpuKeepWindows::keep(std::int64_t t) const {
  if (all_.load(std::memory_order_acquire)) return true;
  std::lock_guard lock(mutex_);
  // The last window starting at or before t.
  auto it = std::upper_bound(windows_.begin(), windows_.end(), t,
                             [](std::int64_t v, const std::pair<std::int64_t, std::int64_t>& w) { return v < w.first; });
  return it != windows_.begin() && t < std::prev(it)->second;
}

bool GpuKeepWindows::keep_replay(std::int64_t t) const {
  if (all_.load(std::memory_order_acquire)) return true;
  return !keep(t);
}

}  // namespace ts::prof
