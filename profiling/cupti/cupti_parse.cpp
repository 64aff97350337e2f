// CUPTI record conversion (see cupti_parse.h).
#include "profiling/cupti/cupti_parse.h"

#include <cxxabi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

namespace ts::prof {
namespace {

/// What a kernel, copy or memset record takes from its CUPTI record alike: its span on the session
/// clock, the device, context, stream and correlation ids, this process's rank, and the CUDA graph
/// it was launched from (0: none).
template <class Activity, class Record>
void device_activity(const Activity& m, const SessionClock& clock, int rank, Record& r) {
  r.start = clock.from_gpu(m.start), r.end = clock.from_gpu(m.end);
  r.device = static_cast<std::int32_t>(m.deviceId), r.rank = rank;
  r.context = m.contextId, r.stream = m.streamId, r.correlation = m.correlationId;
  r.graph_id = m.graphId, r.graph_node = m.graphNodeId;
}

}  // namespace

std::string demangle(const char* mangled) {
  if (!mangled) return {};
  int status = 0;
  char* out = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string s = status == 0 && out ? std::string(out) : std::string(mangled);
  std::free(out);
  return s;
}

CuptiParser::CuptiParser(EventStore& store, SessionClock clock, int rank, ApiNameFn api_name)
    : store_(store), clock_(clock), rank_(rank), api_name_fn_(std::move(api_name)) {}

StringId CuptiParser::kernel_name(const char* mangled) {
  auto it = kernel_names_.find(mangled);
  if (it != kernel_names_.end()) return it->second;
  const StringId id = store_.strings.intern(demangle(mangled));
  kernel_names_.emplace(mangled, id);
  return id;
}

StringId CuptiParser::api_name(std::uint32_t cbid) {
  auto it = api_names_.find(cbid);
  if (it != api_names_.end()) return it->second;
  const StringId id = store_.strings.intern(api_name_fn_ ? api_name_fn_(cbid) : "cbid " + std::to_string(cbid));
  api_names_.emplace(cbid, id);
  return id;
}

void CuptiParser::kernel(const CUpti_ActivityKernel10& k) {
  KernelRecord r;
  device_activity(k, clock_, rank_, r);
  r.name = kernel_name(k.name);
  KernelConfig c;
  c.grid[0] = k.gridX, c.grid[1] = k.gridY, c.grid[2] = k.gridZ;
  c.block[0] = k.blockX, c.block[1] = k.blockY, c.block[2] = k.blockZ;
  c.registers = k.registersPerThread;
  c.static_smem = static_cast<std::int32_t>(k.staticSharedMemory);
  c.dynamic_smem = static_cast<std::int32_t>(k.dynamicSharedMemory);
  r.config = store_.intern_config(c);
  if (keep_device(r.correlation, r.start)) store_.append(store_.kernels, r);
  ++counts_.kernels;
}

void CuptiParser::graph_replay(const CUpti_ActivityGraphTrace2& g) {
  ++counts_.graph_replays;
  if (g.start == 0 && g.end == 0) {  // CUPTI: "timestamp information could not be collected"
    ++counts_.graph_replays_untimed;
    return;
  }
  GraphReplayRecord r;
  r.start = clock_.from_gpu(g.start), r.end = clock_.from_gpu(g.end);
  // deviceId INT_MAX: the graph's first node runs on the host (a host node); -1 is the host here.
  r.device = g.deviceId == INT_MAX ? -1 : static_cast<std::int32_t>(g.deviceId), r.rank = rank_;
  r.context = g.contextId, r.stream = g.streamId, r.correlation = g.correlationId, r.graph_id = g.graphId;
  if (store_.keep_graph_replay(r.start)) store_.append(store_.graph_replays, r);
}

void CuptiParser::record(const CUpti_Activity* a) {
  switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      kernel(*reinterpret_cast<const CUpti_ActivityKernel10*>(a));
      return;
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto& m = *reinterpret_cast<const CUpti_ActivityMemcpy6*>(a);
      MemcpyRecord r;
      device_activity(m, clock_, rank_, r);
      r.bytes = static_cast<std::int64_t>(m.bytes);
      r.copy_kind = m.copyKind, r.src_kind = m.srcKind, r.dst_kind = m.dstKind;
      if (keep_device(r.correlation, r.start)) store_.append(store_.memcpys, r);
      ++counts_.memcpys;
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto& m = *reinterpret_cast<const CUpti_ActivityMemset4*>(a);
      MemsetRecord r;
      device_activity(m, clock_, rank_, r);
      r.bytes = static_cast<std::int64_t>(m.bytes), r.value = m.value, r.memory_kind = m.memoryKind;
      if (keep_device(r.correlation, r.start)) store_.append(store_.memsets, r);
      ++counts_.memsets;
      return;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME: {
      const auto& m = *reinterpret_cast<const CUpti_ActivityAPI*>(a);
      RuntimeRecord r;
      r.start = clock_.from_gpu(m.start), r.end = clock_.from_gpu(m.end);
      r.thread = m.threadId, r.correlation = m.correlationId;
      r.cbid = static_cast<std::uint16_t>(m.cbid), r.name = api_name(m.cbid);
      r.result = static_cast<std::uint16_t>(std::min<std::uint32_t>(m.returnValue, UINT16_MAX));
      const bool keep = store_.keep_gpu(r.start);
      remember_launch(r.correlation, keep);
      if (keep) store_.append(store_.runtime, r);
      ++counts_.runtime;
      return;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto& m = *reinterpret_cast<const CUpti_ActivitySynchronization2*>(a);
      SyncRecord r;
      r.start = clock_.from_gpu(m.start), r.end = clock_.from_gpu(m.end);
      r.rank = rank_, r.context = m.contextId, r.stream = m.streamId, r.correlation = m.correlationId;
      r.type = static_cast<std::uint32_t>(m.type), r.event = m.cudaEventId;
      r.device = -1;  // not in the record; the context says which device
      if (store_.keep_gpu(r.start)) store_.append(store_.syncs, r);
      ++counts_.syncs;
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMORY2: {
      const auto& m = *reinterpret_cast<const CUpti_ActivityMemory4*>(a);
      MemoryRecord r;
      r.time = clock_.from_gpu(m.timestamp);
      r.device = static_cast<std::int32_t>(m.deviceId), r.rank = rank_;
      r.context = m.contextId, r.stream = m.streamId, r.correlation = m.correlationId;
      r.op = static_cast<std::uint8_t>(m.memoryOperationType), r.memory_kind = static_cast<std::uint16_t>(m.memoryKind);
      r.address = m.address, r.bytes = static_cast<std::int64_t>(m.bytes);
      if (store_.keep_gpu(r.time)) store_.append(store_.memory, r);
      ++counts_.memory;
      return;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
      const auto& m = *reinterpret_cast<const CUpti_ActivityOverhead3*>(a);
      OverheadRecord r;
      r.start = clock_.from_gpu(m.start), r.end = clock_.from_gpu(m.end), r.rank = rank_;
      r.kind = static_cast<std::uint32_t>(m.overheadKind), r.object_kind = static_cast<std::uint32_t>(m.objectKind);
      r.object_id = m.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m.objectId.pt.threadId : m.objectId.dcs.deviceId;
      if (store_.keep_gpu(r.start)) store_.append(store_.overheads, r);
      ++counts_.overheads;
      return;
    }
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
      graph_replay(*reinterpret_cast<const CUpti_ActivityGraphTrace2*>(a));
      return;
    default:
      ++counts_.other;
      return;
  }
}

void CuptiParser::remember_launch(std::uint32_t correlation, bool keep) {
  if (correlation == 0) return;
  if (launch_keep_.emplace(correlation, keep).second) launch_order_.push_back(correlation);
  while (launch_order_.size() > kLaunchMemory) {
    launch_keep_.erase(launch_order_.front());
    launch_order_.pop_front();
  }
}

bool CuptiParser::keep_device(std::uint32_t correlation, std::int64_t start) const {
  const auto it = launch_keep_.find(correlation);
  return it != launch_keep_.end() ? it->second : store_.keep_gpu(start);
}

std::int64_t CuptiParser::parse_buffer(std::uint8_t* buffer, std::size_t valid_bytes, NextFn next) {
  std::int64_t n = 0;
  CUpti_Activity* r = nullptr;
  while (next(buffer, valid_bytes, &r) == CUPTI_SUCCESS) {
    record(r);
    ++n;
  }
  return n;
}

}  // namespace ts::prof
