// Finishing an import (see trace_builder.h): flow and correlation checks, steps, times made relative
// to the earliest event, tables sorted and moved into the store, session metadata and the summary.
#include <algorithm>
#include <cstdio>

#include "engine/host_trace.h"
#include "profiling/import/trace_builder.h"

namespace ts::prof::import {

namespace {

const char* warn_text(Warn w) {
  static const char* const texts[] = {
      "traceEvents elements that are not objects (skipped)",
      "events missing a field (skipped; a missing dur is taken as 0)",
      "fields of the wrong JSON type (ignored, or the event skipped)",
      "non-finite or out-of-range times or values (skipped)",
      "negative durations (event skipped)",
      "GPU activities out of time order on their stream (kept, sorted)",
      "events of unknown or unsupported phases (skipped)",
      "E events without a matching B (skipped)",
      "B events never closed (closed at the trace's end)",
      "flow ends (f) without a flow start (s)",
      "GPU activities that start before their launch call (clock skew; linked by correlation id anyway)",
      "arg values out of range of the record's field (read as unknown)",
      "metadata events that redefine a value (the last one kept)",
      "raw control characters in the text (replaced by spaces)",
      "bare nan/inf tokens (read as non-finite numbers)",
      "the trace ends early (events before the cut kept)",
  };
  return texts[static_cast<int>(w)];
}

template <class T>
void sort_by_start(std::vector<T>& v) {
  std::stable_sort(v.begin(), v.end(), [](const T& a, const T& b) { return a.start < b.start; });
}

/// Moves `v` into `log` with times shifted by -origin and the rank set, then frees `v`.
template <class T>
void move_into(EventStore& store, AppendLog<T>& log, std::vector<T>& v, std::int64_t origin, std::int32_t rank) {
  sort_by_start(v);
  for (T& r : v) {
    r.start -= origin, r.end -= origin;
    if constexpr (requires { r.rank; }) r.rank = rank;
    store.append(log, r);
  }
  std::vector<T>().swap(v);
}

std::string field(const std::map<std::string, std::string>& m, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    auto it = m.find(k);
    if (it != m.end()) return it->second;
  }
  return "";
}

struct Accelerator {
  const char* kind;    // device.kind: "cuda", "hip", "mtia"; nullptr: none found
  const char* vendor;  // device.vendor
};

bool contains_any(const std::string& s, std::initializer_list<const char*> parts) {
  for (const char* p : parts)
    if (s.find(p) != std::string::npos) return true;
  return false;
}

/// The accelerator's maker from the trace itself. Meta's MTIA writes its own categories
/// (mtia_ccp_events, mtia_runtime). AMD's ROCm build of Kineto reuses CUDA's categories (kernel,
/// gpu_memcpy, cuda_runtime) and writes hip_* / roctracer_* top-level keys and deviceProperties from
/// hipDeviceProp_t (gcnArchName; AMD / Instinct / Radeon names). NVIDIA otherwise, when there is
/// device activity or a device list.
Accelerator accelerator(const TopLevel& top, bool mtia, bool gpu) {
  if (mtia) return {"mtia", "Meta MTIA"};
  bool amd = false;
  for (const auto& [key, value] : top.scalars)
    if (key.rfind("hip_", 0) == 0 || key.rfind("roctracer", 0) == 0 || key.rfind("rocm", 0) == 0) amd = true;
  for (const auto& dev : top.devices) {
    if (dev.count("gcnArchName")) amd = true;
    auto name = dev.find("name");
    if (name != dev.end() && contains_any(name->second, {"AMD", "Instinct", "Radeon"})) amd = true;
  }
  if (amd) return {"hip", "AMD"};
  if (gpu || !top.devices.empty()) return {"cuda", "NVIDIA"};
  return {nullptr, nullptr};
}

}  // namespace

void TraceBuilder::link_and_check() {
  // Flows: Kineto's ac2g/async flow id is the correlation id, so the link itself is the id; here
  // only one-sided flows are counted. A cudaGraphLaunch fans out to many f with one id.
  std::sort(flow_starts_.begin(), flow_starts_.end());
  std::sort(flow_ends_.begin(), flow_ends_.end());
  std::int64_t orphan_ends = 0, fanout = 0, run = 0;
  for (std::size_t i = 0; i < flow_ends_.size(); ++i) {
    run = i > 0 && flow_ends_[i] == flow_ends_[i - 1] ? run + 1 : 1;
    fanout = std::max(fanout, run);
    if (!std::binary_search(flow_starts_.begin(), flow_starts_.end(), flow_ends_[i])) ++orphan_ends;
  }
  warn_count(Warn::flow_without_start, orphan_ends, -1, "");
  meta_["import.flows"] = std::to_string(flow_starts_.size()) + " starts, " + std::to_string(flow_ends_.size()) +
                          " ends, " + std::to_string(orphan_ends) + " ends without a start, at most " +
                          std::to_string(fanout) + " ends per id";
  std::vector<std::uint64_t>().swap(flow_starts_);
  std::vector<std::uint64_t>().swap(flow_ends_);
  // GPU activity -> runtime call by correlation id; a GPU op that starts before its call is clock skew.
  std::vector<std::pair<std::uint32_t, std::int64_t>> calls;
  calls.reserve(runtime_.size());
  for (const auto& r : runtime_)
    if (r.correlation != 0) calls.emplace_back(r.correlation, r.start);
  std::sort(calls.begin(), calls.end());
  std::int64_t skew = 0, unlinked = 0;
  std::uint32_t first_skew = 0;
  auto check = [&](std::uint32_t corr, std::int64_t start) {
    if (corr == 0) return;
    auto it = std::lower_bound(calls.begin(), calls.end(), std::make_pair(corr, INT64_MIN));
    if (it == calls.end() || it->first != corr) return void(++unlinked);
    if (start < it->second && skew++ == 0) first_skew = corr;
  };
  for (const auto& k : kernels_) check(k.correlation, k.start);
  for (const auto& m : memcpys_) check(m.correlation, m.start);
  for (const auto& m : memsets_) check(m.correlation, m.start);
  warn_count(Warn::clock_skew, skew, -1, "first: correlation id " + std::to_string(first_skew));
  meta_["import.gpu_ops_without_launch_call"] = std::to_string(unlinked);
  meta_["import.gpu_ops_without_correlation"] = std::to_string(gpu_without_correlation_);
}

/// Steps by start; a host range gets the step whose time contains its start; data wait ranges on
/// the step's thread add to the step's data_wait_ns.
void TraceBuilder::assign_steps() {
  std::vector<std::size_t> order(steps_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return steps_[a].start < steps_[b].start; });
  std::vector<StepRecord> steps;
  std::vector<std::uint32_t> lanes;
  for (std::size_t i : order) steps.push_back(steps_[i]), lanes.push_back(step_lanes_[i]);
  steps_.swap(steps), step_lanes_.swap(lanes);
  if (steps_.empty()) return;
  const auto data_wait = static_cast<std::uint8_t>(trace::RangeKind::data_wait);
  for (auto& h : host_) {
    if (h.kind == static_cast<std::uint8_t>(trace::RangeKind::step)) continue;
    auto it = std::upper_bound(steps_.begin(), steps_.end(), h.start,
                               [](std::int64_t t, const StepRecord& s) { return t < s.start; });
    if (it == steps_.begin()) continue;
    --it;
    if (h.start >= it->end && !(h.start == it->start)) continue;
    h.step = it->global_step;
    if (h.kind == data_wait && h.thread == step_lanes_[static_cast<std::size_t>(it - steps_.begin())])
      it->data_wait_ns += h.end - h.start;
  }
}

/// A trace without ProfilerStep#N: steps from host ranges matching the pattern, else the whole
/// trace as one step (profiling/steps/step_rule.h). Meta "steps.rule" says which.
void TraceBuilder::apply_step_rule(const StepRangePattern& step_range) {
  StepRuleInput in;
  in.profiler_steps = steps_.size();
  std::vector<std::size_t> host_of;  // in.ranges[i] is host_[host_of[i]]
  std::int64_t lo = INT64_MAX, hi = INT64_MIN;
  auto span = [&](const auto& v) {
    for (const auto& r : v) lo = std::min(lo, r.start), hi = std::max(hi, r.end);
  };
  span(kernels_), span(memcpys_), span(memsets_), span(runtime_), span(syncs_), span(host_);
  if (steps_.empty()) {
    for (std::size_t i = 0; i < host_.size(); ++i) {
      const HostRangeRecord& h = host_[i];
      if (h.device >= 0 || h.kind != static_cast<std::uint8_t>(trace::RangeKind::other)) continue;  // host side only
      in.ranges.push_back({store_.strings.get(h.name), h.thread, h.start, h.end});
      host_of.push_back(i);
    }
  }
  in.span_start = lo == INT64_MAX ? 0 : lo;
  in.span_end = hi == INT64_MIN ? 0 : hi;
  const StepChoice c = choose_steps(in, step_range);
  meta_["steps.rule"] = step_rule_text(c.rule, step_range.text());
  if (c.rule == StepRule::profiler_step) return;
  derived_ += static_cast<std::int64_t>(c.steps.size());  // step rows the file does not hold as such
  steps_ = c.steps;
  step_lanes_ = c.threads;
  for (std::size_t k = 0; k < c.range_index.size(); ++k) {
    HostRangeRecord& h = host_[host_of[c.range_index[k]]];
    h.kind = static_cast<std::uint8_t>(trace::RangeKind::step);
    h.step = c.steps[k].global_step;
  }
  if (c.rule == StepRule::whole_trace && !steps_.empty()) {
    // The thread that waited for data, if any, is the trainer's (the step's data wait counts there).
    for (const auto& h : host_)
      if (h.kind == static_cast<std::uint8_t>(trace::RangeKind::data_wait)) {
        step_lanes_.front() = h.thread;
        break;
      }
  }
}

void TraceBuilder::write_tables(std::int64_t origin, std::int32_t rank) {
  store_.process_rank = rank;
  move_into(store_, store_.kernels, kernels_, origin, rank);
  move_into(store_, store_.memcpys, memcpys_, origin, rank);
  move_into(store_, store_.memsets, memsets_, origin, rank);
  move_into(store_, store_.runtime, runtime_, origin, rank);
  move_into(store_, store_.syncs, syncs_, origin, rank);
  move_into(store_, store_.host_ranges, host_, origin, rank);
  move_into(store_, store_.steps, steps_, origin, rank);
  std::stable_sort(memory_.begin(), memory_.end(), [](const MemoryRecord& a, const MemoryRecord& b) { return a.time < b.time; });
  for (auto& m : memory_) m.time -= origin, m.rank = rank, store_.append(store_.memory, m);
  std::vector<MemoryRecord>().swap(memory_);
  for (const auto& s : series_) store_.append(store_.series, s);
  std::stable_sort(samples_.begin(), samples_.end(), [](const SampleRecord& a, const SampleRecord& b) { return a.time < b.time; });
  for (auto& s : samples_) s.time -= origin, store_.append(store_.samples, s);
  std::vector<SampleRecord>().swap(samples_);
  for (const auto& [tid, unused] : lane_names_) {
    auto named = thread_names_.find(tid);
    auto synthetic = synthetic_labels_.find(tid);
    std::string label = named != thread_names_.end() ? named->second
                        : synthetic != synthetic_labels_.end() ? synthetic->second : std::string();
    if (label.empty()) label = "thread " + std::to_string(tid);
    store_.append(store_.threads, ThreadRecord{tid, store_.strings.intern(label)});
  }
}

/// device.* as profiling/profiler.cpp writes them, from the device the kernels ran on (the most
/// kernels), else the first listed. deviceProperties uses computeMajor/computeMinor/numSms; the
/// older computeProperties major/minor/multiProcessorCount.
std::string TraceBuilder::device_meta(const TopLevel& top) {
  if (top.devices.empty()) return "absent";
  std::int64_t want = -1, most = 0;
  for (const auto& [dev, n] : kernel_devices_)
    if (n > most) want = dev, most = n;
  const std::map<std::string, std::string>* d = &top.devices.front();
  for (const auto& dev : top.devices)
    if (want >= 0 && field(dev, {"id"}) == std::to_string(want)) d = &dev;
  const std::string major = field(*d, {"computeMajor", "major"}), minor = field(*d, {"computeMinor", "minor"});
  meta_["device.count"] = std::to_string(top.devices.size());
  auto put = [&](const char* key, std::initializer_list<const char*> names) {
    const std::string v = field(*d, names);
    if (!v.empty()) meta_[key] = v;
  };
  put("device.name", {"name"});
  put("device.ordinal", {"id"});
  if (!major.empty() && !minor.empty()) meta_["device.compute_capability"] = major + "." + minor;
  put("device.multiprocessors", {"numSms", "multiProcessorCount"});
  put("device.total_memory_bytes", {"totalGlobalMem"});
  put("device.max_threads_per_sm", {"maxThreadsPerMultiprocessor", "maxThreadsPerMultiProcessor"});
  put("device.regs_per_sm", {"regsPerMultiprocessor"});
  put("device.shared_mem_per_sm", {"sharedMemPerMultiprocessor"});
  put("device.shared_mem_per_block_optin", {"sharedMemPerBlockOptin"});
  return top.device_key;
}

void TraceBuilder::write_meta(const TopLevel& top, const std::string& path, std::int64_t origin) {
  const std::string devices = device_meta(top);
  const bool gpu = !kernels_.empty() || !memcpys_.empty() || !memsets_.empty();
  const Accelerator acc = accelerator(top, mtia_, gpu);
  meta_["device.kind"] = acc.kind ? acc.kind : "cpu";  // hip/mtia: no CUDA occupancy calculator
  if (acc.vendor) meta_["device.vendor"] = acc.vendor;
  meta_["import.device_properties"] = devices;
  meta_["gpu_activity"] = gpu ? "collected (PyTorch profiler trace)" : "none in the imported trace";
  auto scalar = [&](const char* key) {
    auto it = top.scalars.find(key);
    return it == top.scalars.end() ? std::string() : it->second;
  };
  const struct { const char* from; const char* to; } copies[] = {
      {"schemaVersion", "import.schema_version"}, {"displayTimeUnit", "import.display_time_unit"},
      {"baseTimeNanoseconds", "import.base_time_ns"}, {"cuda_runtime_version", "versions.cuda_runtime"},
      {"cuda_driver_version", "versions.cuda_driver"}, {"cupti_version", "versions.cupti"},
      {"hip_runtime_version", "versions.hip_runtime"}, {"hip_driver_version", "versions.hip_driver"},
      {"roctracer_version", "versions.roctracer"},
      {"profile_memory", "import.profile_memory"}, {"record_shapes", "import.record_shapes"},
      {"with_stack", "import.with_stack"}, {"with_flops", "import.with_flops"}, {"with_modules", "import.with_modules"}};
  for (const auto& c : copies)
    if (!scalar(c.from).empty()) meta_[c.to] = scalar(c.from);
  for (const char* k : {"backend", "rank", "world_size", "pg_count"}) {
    auto it = top.distributed.find(k);
    if (it != top.distributed.end()) meta_[std::string("distributed.") + k] = it->second;
  }
  // Wall-clock start: Kineto's newer traces give ts relative to baseTimeNanoseconds; older ones
  // and Chrome's use Unix µs (> 1e15 µs: after 2001) or a monotonic clock (no wall time then).
  const std::string base = scalar("baseTimeNanoseconds");
  if (!base.empty() && min_ts_ != INT64_MAX) {
    meta_["session.start_unix_ns"] = std::to_string(std::strtoll(base.c_str(), nullptr, 10) + origin);
  } else if (origin > 1'000'000'000'000'000'000ll) {
    meta_["session.start_unix_ns"] = std::to_string(origin);
  }
  if (!dataloader_.empty()) meta_["import.dataloader"] = dataloader_;
  meta_["import.source_path"] = path;
  meta_["import.origin_ns"] = std::to_string(origin);
  meta_["import.communication_kernels"] = std::to_string(comm_kernels_);
}

void TraceBuilder::finish(const TopLevel& top, const std::string& path, ImportSummary& summary,
                          const StepRangePattern& step_range) {
  for (auto& [l, stack] : open_) {
    for (const Open& o : stack) {
      warn(Warn::unclosed_begin, o.offset, store_.strings.get(o.name));
      ++kept_;
      host_range(l, o.start, std::max(max_ts_, o.start), o.name, true, -1);
    }
  }
  open_.clear();
  for (auto& [key, stack] : async_open_) {
    for (const AsyncOpen& o : stack) {
      warn(Warn::unclosed_begin, o.offset, store_.strings.get(o.name));
      ++kept_;
      host_range(o.lane, o.start, std::max(max_ts_, o.start), o.name, false, -1);
    }
  }
  async_open_.clear();
  const std::int64_t origin = min_ts_ == INT64_MAX ? 0 : min_ts_;
  std::int32_t rank = 0;
  if (auto it = top.distributed.find("rank"); it != top.distributed.end()) rank = std::atoi(it->second.c_str());
  summary.kind = kineto_ || !top.device_key.empty() || top.scalars.count("schemaVersion") ? "PyTorch trace" : "Chrome trace";
  summary.format = top.object_form ? "object form" : "array form";
  if (auto it = top.scalars.find("schemaVersion"); it != top.scalars.end()) summary.format += ", schemaVersion " + it->second;
  summary.events_read = events_read_;
  summary.events_kept = kept_;
  summary.metadata_events = metadata_events_;
  summary.flows = flows_;
  summary.communication_kernels = comm_kernels_;
  link_and_check();
  apply_step_rule(step_range);
  summary.derived_records = derived_;
  summary.steps = static_cast<std::int64_t>(steps_.size());
  summary.step_rule = meta_["steps.rule"];
  assign_steps();
  write_meta(top, path, origin);
  write_tables(origin, rank);
  if (!skipped_phases_.empty()) {
    std::string d;
    for (const auto& [ph, n] : skipped_phases_) d += (d.empty() ? "" : ", ") + ph + " " + std::to_string(n);
    warns_[static_cast<std::size_t>(Warn::unknown_phase)].detail = d;
  }
  for (int w = 0; w < static_cast<int>(Warn::count); ++w) {
    const auto& s = warns_[static_cast<std::size_t>(w)];
    if (s.count > 0) summary.warnings.push_back({warn_text(static_cast<Warn>(w)), s.count, s.first_offset, s.detail});
  }
  meta_["import.kind"] = summary.kind;
  meta_["import.format"] = summary.format;
  meta_["import.events_read"] = std::to_string(events_read_);
  meta_["import.events_kept"] = std::to_string(kept_);
  meta_["import.derived_records"] = std::to_string(derived_);
  meta_["import.warnings"] = summary.warnings_text();
  meta_["import.truncated"] = summary.truncated ? "yes" : "no";
  for (const auto& [k, v] : meta_) store_.set_meta(k, v);
}

}  // namespace ts::prof::import
