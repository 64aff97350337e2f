// Chrome trace export (chrome_trace.h): the writer. Tracks come from layout() (chrome_layout.cpp);
// this file writes the header, the M/X events with Kineto's categories and arg names, the launch
// flows and the counters.
#include "profiling/export/chrome_trace.h"
#include "profiling/block_threads.h"

#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "engine/host_trace.h"
#include "profiling/analysis/analysis.h"
#include "profiling/export/chrome_internal.h"

namespace ts::prof::exporter {

const char* memcpy_kind_name(int k) {
  static const char* const names[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
  return k >= 0 && k < 11 ? names[k] : "Unknown";
}

const char* memory_kind_name(int k) {
  static const char* const names[] = {"Unknown", "Pageable", "Pinned", "Device", "Array", "Managed", "Device Static", "Managed Static"};
  return k >= 0 && k < 8 ? names[k] : "Unknown";
}

namespace {

using detail::Ev;
using detail::EvKind;
using JsonWriter = rapidjson::Writer<OutputStream>;

const char* sync_name(std::uint32_t type) {
  switch (type) {
    case 1: return "Event Sync";
    case 2: return "Stream Wait Event";
    case 3: return "Stream Sync";
    case 4: return "Context Sync";
    default: return "Unknown Sync";
  }
}

class ChromeWriter {
 public:
  ChromeWriter(const EventStore& store, OutputStream& out)
      : s_(store), out_(out), w_(out), n_(store.counts()), meta_(store.meta()), ctx_(store, n_),
        dev_(analysis::device_props(meta_)) {}

  ChromeTraceStats run() {
    const detail::Layout layout = detail::layout(s_, n_);
    stats_.overflow_events = layout.overflow_events;
    stats_.negative_durations = layout.negative_durations;
    header();
    w_.Key("traceEvents");
    w_.StartArray();
    processes(layout);
    for (const auto& lane : layout.lanes) thread_meta(lane);
    for (const auto& lane : layout.lanes)
      for (const Ev& e : lane.events) event(lane, e);
    flows(layout);
    counters(layout);
    w_.EndArray();
    w_.EndObject();  // flushes the stream (throws on a write error)
    out_.Flush();
    stats_.bytes = out_.bytes();
    return stats_;
  }

 private:
  void str(const std::string& v) { w_.String(v.data(), static_cast<rapidjson::SizeType>(v.size())); }
  void key_str(const char* k, const std::string& v) { w_.Key(k); str(v); }
  void key_int(const char* k, std::int64_t v) { w_.Key(k); w_.Int64(v); }
  /// A time in µs with exactly three decimals: ns precision, no binary rounding.
  void time(const char* k, std::int64_t ns) {
    char buf[40];
    const std::uint64_t a = ns < 0 ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
    const int len = std::snprintf(buf, sizeof buf, "%s%llu.%03llu", ns < 0 ? "-" : "",
                                  static_cast<unsigned long long>(a / 1000), static_cast<unsigned long long>(a % 1000));
    w_.Key(k);
    w_.RawValue(buf, static_cast<std::size_t>(len), rapidjson::kNumberType);
  }
  std::string meta(const std::string& k) const {
    const auto it = meta_.find(k);
    return it == meta_.end() ? std::string() : it->second;
  }

  void header() {
    w_.StartObject();
    key_int("schemaVersion", 1);
    key_str("displayTimeUnit", "ms");
    const std::string base = meta("session.start_unix_ns");
    if (!base.empty() && base.find_first_not_of("0123456789") == std::string::npos) {
      w_.Key("baseTimeNanoseconds");
      w_.RawValue(base.data(), base.size(), rapidjson::kNumberType);
    }
    w_.Key("deviceProperties");
    w_.StartArray();
    if (dev_.known) {
      w_.StartObject();
      key_int("id", std::max(0, std::atoi(meta("device.ordinal").c_str())));
      key_str("name", meta("device.name"));
      key_int("totalGlobalMem", dev_.total_memory);
      key_int("computeMajor", dev_.cc_major);
      key_int("computeMinor", dev_.cc_minor);
      key_int("numSms", dev_.sms);
      key_int("maxThreadsPerMultiProcessor", dev_.max_threads_per_sm);
      key_int("regsPerMultiprocessor", dev_.regs_per_sm);
      key_int("sharedMemPerMultiprocessor", dev_.smem_per_sm);
      key_int("warpSize", dev_.warp_size);
      w_.EndObject();
    }
    w_.EndArray();
    key_str("traceName", "TrainScope session");
    w_.Key("trainscope_meta");  // the session's metadata (run.config, device, versions ...), as text
    w_.StartObject();
    for (const auto& [k, v] : meta_) key_str(k.c_str(), v);
    w_.EndObject();
  }

  void m_event(const char* name, std::int64_t pid, std::int64_t tid, const char* arg, const std::string* text,
               std::int64_t number) {
    w_.StartObject();
    key_str("name", name);
    key_str("ph", "M");
    time("ts", 0);
    key_int("pid", pid);
    key_int("tid", tid);
    w_.Key("args");
    w_.StartObject();
    w_.Key(arg);
    if (text) str(*text);
    else w_.Int64(number);
    w_.EndObject();
    w_.EndObject();
  }

  void processes(const detail::Layout& layout) {
    const std::string host = "TrainScope host", cpu = "CPU";
    m_event("process_name", kHostPid, 0, "name", &host, 0);
    m_event("process_labels", kHostPid, 0, "labels", &cpu, 0);
    m_event("process_sort_index", kHostPid, 0, "sort_index", nullptr, 0);
    const std::string device_name = meta("device.name");
    for (const std::int64_t pid : layout.gpu_pids) {
      const std::string name = "GPU " + std::to_string(pid);
      const std::string label = device_name.empty() ? name : device_name;
      m_event("process_name", pid, 0, "name", &name, 0);
      m_event("process_labels", pid, 0, "labels", &label, 0);
      m_event("process_sort_index", pid, 0, "sort_index", nullptr, 1 + pid);
    }
  }

  void thread_meta(const detail::Lane& l) {
    if (l.events.empty()) return;
    m_event("thread_name", l.pid, l.tid, "name", &l.name, 0);
    m_event("thread_sort_index", l.pid, l.tid, "sort_index", nullptr, l.sort);
    ++stats_.tracks;
  }

  void x_begin(const detail::Lane& l, const Ev& e, const char* cat, const std::string& name) {
    w_.StartObject();
    key_str("ph", "X");
    key_str("cat", cat);
    key_str("name", name);
    key_int("pid", l.pid);
    key_int("tid", l.tid);
    time("ts", e.start);
    time("dur", e.end - e.start);
    w_.Key("args");
    w_.StartObject();
  }
  void x_end() {
    w_.EndObject();
    w_.EndObject();
  }
  void launch_args(std::uint32_t correlation) {
    const auto it = launch_.find(correlation);
    if (it == launch_.end()) return;
    const RuntimeRecord& r = s_.runtime[it->second];
    const StringId layer = ctx_.layer_at(r.thread, r.start);
    if (layer != kNoString) key_str("layer", s_.strings.get(layer));
    const std::int64_t step = ctx_.step_at(r.start);
    if (step >= 0) key_int("step", step);
  }
  void gpu_common(std::int32_t device, std::uint32_t context, std::uint32_t stream, std::uint32_t correlation) {
    key_int("device", device);
    key_int("context", context);
    key_int("stream", stream);
    key_int("correlation", correlation);
  }
  static double bandwidth_gb_s(std::int64_t bytes, std::int64_t ns) { return ns > 0 ? static_cast<double>(bytes) / ns : 0; }
  /// A copy's or a memset's first args: gpu_common's, the bytes and the bandwidth.
  template <class R>
  void transfer_args(const R& r) {
    gpu_common(r.device, r.context, r.stream, r.correlation);
    key_int("bytes", r.bytes);
    w_.Key("memory bandwidth (GB/s)");
    w_.Double(bandwidth_gb_s(r.bytes, r.end - r.start));
  }
  /// A device activity's last args (its CUDA graph, the layer and step of its launch) and its end.
  template <class R>
  void device_end(const R& r) {
    if (r.graph_id) key_int("graph id", r.graph_id);
    launch_args(r.correlation);
    x_end();
  }

  void event(const detail::Lane& l, const Ev& e) {
    switch (e.kind) {
      case EvKind::step: return step(l, e);
      case EvKind::host_range: return host_range(l, e);
      case EvKind::runtime: return runtime(l, e);
      case EvKind::kernel: return kernel(l, e);
      case EvKind::memcpy: return memcpy(l, e);
      case EvKind::memset: return memset(l, e);
      case EvKind::sync: return sync(l, e);
    }
  }

  void step(const detail::Lane& l, const Ev& e) {
    const StepRecord& r = s_.steps[e.index];
    x_begin(l, e, "user_annotation", "ProfilerStep#" + std::to_string(r.global_step));
    key_int("global step", r.global_step);
    key_int("epoch", r.epoch);
    key_int("step in epoch", r.step);
    key_int("images", r.images);
    key_int("data wait ns", r.data_wait_ns);
    if (const auto it = loss_.find(r.global_step); it != loss_.end()) { w_.Key("loss"); w_.Double(it->second); }
    x_end();
    ++stats_.steps;
  }

  void host_range(const detail::Lane& l, const Ev& e) {
    const HostRangeRecord& r = s_.host_ranges[e.index];
    const auto kind = static_cast<trace::RangeKind>(r.kind);
    const char* kind_name = r.kind < static_cast<std::uint8_t>(trace::RangeKind::count) ? trace::range_kind_name(kind) : "other";
    const std::string& name = s_.strings.get(r.name);
    x_begin(l, e, "user_annotation", name.empty() ? std::string(kind_name) : name);
    key_str("kind", kind_name);
    if (r.layer != kNoString) key_str("layer", s_.strings.get(r.layer));
    if (r.step >= 0) key_int("step", r.step);
    if (r.device >= 0) key_int("device", r.device);
    x_end();
    ++stats_.host_ranges;
  }

  void runtime(const detail::Lane& l, const Ev& e) {
    const RuntimeRecord& r = s_.runtime[e.index];
    x_begin(l, e, "cuda_runtime", s_.strings.get(r.name));
    key_int("cbid", r.cbid);
    key_int("correlation", r.correlation);
    key_int("result", r.result);
    if (l.tid != static_cast<std::int64_t>(r.thread)) key_int("thread", r.thread);
    x_end();
    ++stats_.runtime_calls;
  }

  void kernel(const detail::Lane& l, const Ev& e) {
    const KernelRecord& r = s_.kernels[e.index];
    const KernelConfig& rc = s_.config(r);
    x_begin(l, e, "kernel", s_.strings.get(r.name));
    gpu_common(r.device, r.context, r.stream, r.correlation);
    key_int("registers per thread", rc.registers);
    key_int("shared memory", static_cast<std::int64_t>(rc.static_smem) + rc.dynamic_smem);
    key_int("static shared memory", rc.static_smem);
    key_int("dynamic shared memory", rc.dynamic_smem);
    const double blocks = static_cast<double>(rc.grid[0]) * rc.grid[1] * rc.grid[2];
    const int threads = block_threads(rc);
    if (dev_.known && dev_.sms > 0) {
      w_.Key("blocks per SM");
      w_.Double(blocks / dev_.sms);
      w_.Key("warps per SM");
      w_.Double(blocks * ((threads + dev_.warp_size - 1) / dev_.warp_size) / dev_.sms);
      if (const auto occ = achieved_occupancy(rc, blocks / dev_.sms, threads)) key_int("est. achieved occupancy %", *occ);
    }
    w_.Key("grid");
    w_.StartArray();
    for (const int g : rc.grid) w_.Int(g);
    w_.EndArray();
    w_.Key("block");
    w_.StartArray();
    for (const int b : rc.block) w_.Int(b);
    w_.EndArray();
    device_end(r);
    ++stats_.kernels;
  }

  /// Kineto's estimate (analysis/metrics.cpp): min(blocks/SM, active blocks/SM) x threads / max
  /// threads per SM, in % rounded; the occupancy calculator's answer cached per configuration.
  std::optional<std::int64_t> achieved_occupancy(const KernelConfig& rc, double blocks_per_sm, int threads) {
    const std::uint64_t key = (static_cast<std::uint64_t>(threads) << 48) ^ (static_cast<std::uint64_t>(rc.registers) << 40) ^
                              (static_cast<std::uint64_t>(rc.static_smem) << 20) ^ static_cast<std::uint64_t>(rc.dynamic_smem);
    auto it = occupancy_.find(key);
    if (it == occupancy_.end()) {
      int active = 0;
      const bool ok = analysis::theoretical_occupancy(dev_, threads, rc.registers, rc.static_smem, rc.dynamic_smem, &active).has_value();
      it = occupancy_.emplace(key, ok ? active : -1).first;
    }
    if (it->second < 0 || dev_.max_threads_per_sm <= 0) return std::nullopt;
    const double occ = std::min(1.0, std::min(blocks_per_sm, static_cast<double>(it->second)) * threads / dev_.max_threads_per_sm);
    return static_cast<std::int64_t>(0.5 + 100 * occ);
  }

  void memcpy(const detail::Lane& l, const Ev& e) {
    const MemcpyRecord& r = s_.memcpys[e.index];
    const std::string name = std::string("Memcpy ") + memcpy_kind_name(r.copy_kind) + " (" + memory_kind_name(r.src_kind) +
                             " -> " + memory_kind_name(r.dst_kind) + ")";
    x_begin(l, e, "gpu_memcpy", name);
    transfer_args(r);
    key_str("copy kind", memcpy_kind_name(r.copy_kind));
    key_str("src kind", memory_kind_name(r.src_kind));
    key_str("dst kind", memory_kind_name(r.dst_kind));
    device_end(r);
    ++stats_.memcpys;
  }

  void memset(const detail::Lane& l, const Ev& e) {
    const MemsetRecord& r = s_.memsets[e.index];
    x_begin(l, e, "gpu_memset", std::string("Memset (") + memory_kind_name(r.memory_kind) + ")");
    transfer_args(r);
    key_int("value", r.value);
    device_end(r);
    ++stats_.memsets;
  }

  void sync(const detail::Lane& l, const Ev& e) {
    const SyncRecord& r = s_.syncs[e.index];
    x_begin(l, e, "cuda_sync", sync_name(r.type));
    key_str("cuda_sync_kind", sync_name(r.type));
    key_int("device", r.device);
    key_int("context", r.context);
    key_int("stream", r.stream == 0xFFFFFFFFu ? -1 : static_cast<std::int64_t>(r.stream));
    key_int("correlation", r.correlation);
    if (r.type == 1 || r.type == 2) key_int("wait_on_cuda_event_id", r.event);
    x_end();
    ++stats_.syncs;
  }

  void flow_point(char ph, std::uint64_t id, std::int64_t pid, std::int64_t tid, std::int64_t ts) {
    w_.StartObject();
    key_str("ph", std::string(1, ph));
    w_.Key("id");
    w_.Uint64(id);
    key_int("pid", pid);
    key_int("tid", tid);
    time("ts", ts);
    key_str("cat", "ac2g");
    key_str("name", "ac2g");
    if (ph == 'f') key_str("bp", "e");
    w_.EndObject();
  }

  /// One s/f pair per GPU op with a known launch call; the first op of a correlation id uses it as
  /// the flow id, further ops (graph launches) get ids above 2^32.
  void flows(const detail::Layout& layout) {
    std::unordered_set<std::uint32_t> used;
    std::uint64_t extra = std::uint64_t{1} << 32;
    auto link = [&](std::uint32_t corr, std::int32_t device, std::int64_t tid, std::int64_t start) {
      const auto it = launch_.find(corr);
      if (corr == 0 || it == launch_.end() || tid < 0 || layout.runtime_tid[it->second] < 0) return;
      const std::uint64_t id = used.insert(corr).second ? corr : extra++;
      flow_point('s', id, kHostPid, layout.runtime_tid[it->second], s_.runtime[it->second].start);
      flow_point('f', id, device < 0 ? 0 : device, tid, start);
      ++stats_.flows;
    };
    for (std::size_t i = 0; i < n_.kernels; ++i) link(s_.kernels[i].correlation, s_.kernels[i].device, layout.kernel_tid[i], s_.kernels[i].start);
    for (std::size_t i = 0; i < n_.memcpys; ++i) link(s_.memcpys[i].correlation, s_.memcpys[i].device, layout.memcpy_tid[i], s_.memcpys[i].start);
    for (std::size_t i = 0; i < n_.memsets; ++i) link(s_.memsets[i].correlation, s_.memsets[i].device, layout.memset_tid[i], s_.memsets[i].start);
  }

  void counter(const std::string& name, std::int64_t pid, std::int64_t ts, const std::string& unit, double v) {
    w_.StartObject();
    key_str("ph", "C");
    key_str("name", name);
    key_int("pid", pid);
    key_int("tid", 0);
    time("ts", ts);
    w_.Key("args");
    w_.StartObject();
    w_.Key(unit.empty() ? "value" : unit.c_str());
    w_.Double(v);
    w_.EndObject();
    w_.EndObject();
    ++stats_.counter_events;
  }

  /// Samples: cpu.* on the host process, the rest on the (first) GPU when there is one. CUPTI
  /// memory records: bytes held through cudaMalloc/cudaFree, per device.
  void counters(const detail::Layout& layout) {
    const std::int64_t gpu = layout.gpu_pids.empty() ? kHostPid : layout.gpu_pids.front();
    std::unordered_map<std::uint32_t, std::pair<std::string, std::string>> series;
    for (std::size_t i = 0; i < n_.series; ++i)
      series[s_.series[i].id] = {s_.strings.get(s_.series[i].name), s_.strings.get(s_.series[i].unit)};
    for (std::size_t i = 0; i < n_.samples; ++i) {
      const SampleRecord& r = s_.samples[i];
      const auto it = series.find(r.series);
      const std::string name = it == series.end() ? "series " + std::to_string(r.series) : it->second.first;
      const std::string unit = it == series.end() ? std::string() : it->second.second;
      counter(name, name.rfind("cpu.", 0) == 0 ? kHostPid : gpu, r.time, unit, r.value);
    }
    std::map<std::int32_t, std::int64_t> held;
    for (std::size_t i = 0; i < n_.memory; ++i) {
      const MemoryRecord& r = s_.memory[i];
      if (r.op != 1 && r.op != 2) continue;
      std::int64_t& h = held[r.device];
      h += r.op == 1 ? r.bytes : -r.bytes;
      counter("cuda.malloc.held", r.device < 0 ? gpu : r.device, r.time, "bytes", static_cast<double>(h));
    }
  }

  const EventStore& s_;
  OutputStream& out_;
  JsonWriter w_;
  StoreCounts n_;
  std::map<std::string, std::string> meta_;
  detail::LaunchContext ctx_;
  analysis::DeviceProps dev_;
  ChromeTraceStats stats_;
  std::unordered_map<std::uint64_t, int> occupancy_;
  std::unordered_map<std::uint32_t, std::size_t> launch_ = launches();
  std::unordered_map<std::int64_t, float> loss_ = losses();

  std::unordered_map<std::uint32_t, std::size_t> launches() const {
    std::unordered_map<std::uint32_t, std::size_t> m;
    for (std::size_t i = 0; i < n_.runtime; ++i)
      if (s_.runtime[i].correlation != 0) m.emplace(s_.runtime[i].correlation, i);
    return m;
  }
  std::unordered_map<std::int64_t, float> losses() const {
    std::unordered_map<std::int64_t, float> m;
    for (std::size_t i = 0; i < n_.losses; ++i) m[s_.losses[i].global_step] = s_.losses[i].loss;
    return m;
  }
};

}  // namespace

ChromeTraceStats write_chrome_trace(const EventStore& store, OutputStream& out) {
  return ChromeWriter(store, out).run();
}

ChromeTraceStats export_chrome_trace(const EventStore& store, const std::string& path) {
  OutputStream out(path);
  ChromeTraceStats stats = write_chrome_trace(store, out);
  out.close();
  return stats;
}

}  // namespace ts::prof::exporter
