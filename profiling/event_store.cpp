// EventStore (see event_store.h).
#include "profiling/event_store.h"

namespace ts::prof {

StoreCounts EventStore::counts() const {
  StoreCounts c;
  // Steps before losses: a loss is applied only to a step that is already visible.
  c.steps = steps.size();
  c.losses = losses.size();
  c.epochs = epochs.size();
  c.kernels = kernels.size();
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
  return c;
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

}  // namespace ts::prof
