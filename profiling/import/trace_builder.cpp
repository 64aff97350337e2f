// Mapping of trace events to TrainScope records (see trace_builder.h, trace_import.h).
// Times: ts and dur are microseconds in every trace writer we know (Kineto, Chrome, HTA), whatever
// displayTimeUnit says (it only sets the viewer's display unit: Trace Event Format spec), possibly
// fractional; they become int64 ns (rounded). Categories compare case-insensitively, so the legacy
// capitalised Kineto ones (Kernel, Runtime, Operator, Memcpy, Memset) map like the current ones.
#include "profiling/import/trace_builder.h"
#include "profiling/analysis/analysis.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

#include "engine/host_trace.h"

namespace ts::prof::import {

namespace {

/// ts beyond ±4e15 µs (year 2096 as Unix µs) cannot be a real time; keeps ns sums inside int64.
constexpr double kMaxMicros = 4e15;

bool iequals(const std::string& a, const char* b) {
  const std::size_t n = std::strlen(b);
  if (a.size() != n) return false;
  for (std::size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  return true;
}

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }
bool ends_with(const std::string& s, const char* p) {
  const std::size_t n = std::strlen(p);
  return s.size() >= n && s.compare(s.size() - n, n, p) == 0;
}

/// A non-negative integer from a number or a string of digits ("25738", "stream 7" -> 7 with
/// trailing digits allowed when `trailing`).
bool whole_number(const Scalar& v, std::int64_t& out, bool trailing = false) {
  if (v.type == Scalar::Type::integer) return out = v.i, true;
  if (v.type == Scalar::Type::real && std::isfinite(v.d) && v.d == std::floor(v.d) && std::fabs(v.d) < 9e15)
    return out = static_cast<std::int64_t>(v.d), true;
  if (v.type != Scalar::Type::string || v.s.empty() || v.s.size() > 18) return false;
  std::size_t i = 0;
  if (trailing) {
    i = v.s.find_last_not_of("0123456789");
    i = i == std::string::npos ? 0 : i + 1;
    if (i == v.s.size()) return false;
  }
  std::int64_t x = 0;
  for (std::size_t k = i; k < v.s.size(); ++k) {
    if (v.s[k] < '0' || v.s[k] > '9') return false;
    x = x * 10 + (v.s[k] - '0');
  }
  return out = x, true;
}

/// CUpti_ActivityMemcpyKind from Kineto's "Memcpy HtoD (Pageable -> Device)".
std::uint8_t copy_kind(const std::string& name) {
  static const char* const kinds[] = {"HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
  for (int i = 0; i < 10; ++i)
    if (name.find(kinds[i]) != std::string::npos) return static_cast<std::uint8_t>(i + 1);
  return 0;
}

/// CUpti_ActivityMemoryKind from Kineto's memoryKindString ("Pageable", "Pinned", "Device", ...).
std::uint8_t memory_kind(std::string_view s) {
  auto trim = [](std::string_view v) {
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
    while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
    return v;
  };
  s = trim(s);
  if (s == "Pageable") return 1;
  if (s == "Pinned") return 2;
  if (s == "Device") return 3;
  if (s == "Array") return 4;
  if (s == "Managed") return 5;
  if (s == "Device Static") return 6;
  if (s == "Managed Static") return 7;
  return 0;
}

/// The "(Src -> Dst)" or "(Kind)" part of a copy/memset name.
void paren_kinds(const std::string& name, std::uint8_t& src, std::uint8_t& dst) {
  const auto open = name.find('('), close = name.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return;
  const std::string_view inner(name.data() + open + 1, close - open - 1);
  const auto arrow = inner.find("->");
  if (arrow == std::string_view::npos) {
    src = dst = memory_kind(inner);
  } else {
    src = memory_kind(inner.substr(0, arrow));
    dst = memory_kind(inner.substr(arrow + 2));
  }
}

std::uint32_t sync_type(const std::string& kind) {
  if (kind == "Event Sync") return 1;
  if (kind == "Stream Wait Event") return 2;
  if (kind == "Stream Sync") return 3;
  if (kind == "Context Sync") return 4;
  return 0;
}

/// A double as int64 without undefined behaviour: NaN -> 0, beyond the range -> the nearest end.
std::int64_t to_i64(double d) {
  if (!(d == d)) return 0;
  if (d >= 9.2e18) return INT64_MAX;
  if (d <= -9.2e18) return INT64_MIN;
  return static_cast<std::int64_t>(d);
}

std::uint64_t flow_id(const Scalar& v) {
  std::int64_t n = 0;
  if (whole_number(v, n)) return static_cast<std::uint64_t>(n);
  if (v.type == Scalar::Type::string) {
    const char* s = v.s.c_str();
    char* end = nullptr;
    const unsigned long long x = std::strtoull(s, &end, 0);  // "0x1f" and decimal strings
    if (end && *end == '\0' && end != s) return x;
    return std::hash<std::string>{}(v.s) | (1ull << 63);
  }
  return static_cast<std::uint64_t>(to_i64(v.number()));
}

}  // namespace

std::string scalar_label(const Scalar& v) {
  if (v.type == Scalar::Type::string) return v.s;
  return v.is_number() ? std::to_string(to_i64(v.number())) : std::string();
}

std::string at_byte(std::int64_t offset) { return "byte " + std::to_string(offset); }

bool is_communication_kernel(std::string_view n) { return analysis::is_communication_kernel(n); }

TraceBuilder::TraceBuilder(EventStore& store) : store_(store) {}

void TraceBuilder::warn(Warn w, std::int64_t offset, std::string_view detail) { warn_count(w, 1, offset, detail); }

void TraceBuilder::warn_count(Warn w, std::int64_t count, std::int64_t offset, std::string_view detail) {
  if (count <= 0) return;
  auto& s = warns_[static_cast<std::size_t>(w)];
  if (s.count == 0) s.first_offset = offset, s.detail = std::string(detail.substr(0, 120));
  s.count += count;
}

void TraceBuilder::not_an_object(std::int64_t offset) {
  ++events_read_;
  warn(Warn::not_object, offset);
}

StringId TraceBuilder::name_id(const Scalar& s) {
  std::string_view v;
  if (s.type == Scalar::Type::string) {
    v = s.s;
  } else if (s.is_number()) {
    scratch_ = std::to_string(s.type == Scalar::Type::integer ? s.i : to_i64(s.d));
    v = scratch_;
  }
  if (v.empty()) return kNoString;
  auto it = names_.find(v);
  if (it != names_.end()) return it->second;
  const StringId id = store_.strings.intern(v);
  names_.emplace(std::string(v), id);
  return id;
}

/// A lane (the `thread` of host ranges and runtime calls): a numeric tid is the thread itself
/// (string "25738" and number 25738 are one thread); other tids ("stream 7", "PyTorch Profiler")
/// get a synthetic id from 0xF0000000 up, labelled with the tid in the threads table.
std::uint32_t TraceBuilder::lane(const Scalar& pid, const Scalar& tid) {
  std::int64_t n = 0;
  if (tid.present() && whole_number(tid, n) && n >= 0 && n < 0xF0000000ll) return static_cast<std::uint32_t>(n);
  scratch_.clear();
  if (pid.type == Scalar::Type::string) scratch_ = pid.s;
  else if (pid.is_number()) scratch_ = std::to_string(to_i64(pid.number()));
  scratch_ += '/';
  if (tid.type == Scalar::Type::string) scratch_ += tid.s;
  else if (tid.is_number()) scratch_ += std::to_string(to_i64(tid.number()));
  auto it = string_lanes_.find(std::string_view(scratch_));
  if (it != string_lanes_.end()) return it->second;
  const std::uint32_t id = next_lane_ < 0xFFFFFFF0u ? next_lane_++ : next_lane_;
  string_lanes_.emplace(scratch_, id);
  std::string label = tid.type == Scalar::Type::string && !tid.s.empty() ? tid.s : scratch_;
  synthetic_labels_.emplace(id, label);
  return id;
}

bool TraceBuilder::times(const RawEvent& ev, bool need_dur, std::int64_t& start, std::int64_t& end) {
  auto ns = [](const Scalar& v, std::int64_t& out) {
    if (v.type == Scalar::Type::integer) {
      if (std::fabs(static_cast<double>(v.i)) > kMaxMicros) return false;
      out = v.i * 1000;
      return true;
    }
    if (v.type != Scalar::Type::real || !std::isfinite(v.d) || std::fabs(v.d) > kMaxMicros) return false;
    out = std::llround(v.d * 1000.0);
    return true;
  };
  if (!ev.ts.present()) return warn(Warn::missing_field, ev.offset, "ts"), false;
  if (!ev.ts.is_number()) return warn(Warn::wrong_type, ev.offset, "ts"), false;
  if (!ns(ev.ts, start)) return warn(Warn::bad_time, ev.offset, "ts"), false;
  end = start;
  if (need_dur) {
    std::int64_t d = 0;
    if (!ev.dur.present()) {
      warn(Warn::missing_field, ev.offset, "dur (taken as 0)");
    } else if (!ev.dur.is_number()) {
      return warn(Warn::wrong_type, ev.offset, "dur"), false;
    } else if (!ns(ev.dur, d)) {
      return warn(Warn::bad_time, ev.offset, "dur"), false;
    } else if (d < 0) {
      return warn(Warn::negative_dur, ev.offset), false;
    }
    end = start + d;
  }
  min_ts_ = std::min(min_ts_, start);
  max_ts_ = std::max(max_ts_, end);
  return true;
}

void TraceBuilder::event(const RawEvent& ev) {
  ++events_read_;
  if (ev.wrong_type) warn(Warn::wrong_type, ev.offset, ev.wrong_type);
  if (!ev.ph.present()) return warn(Warn::missing_field, ev.offset, "ph");
  if (ev.ph.type != Scalar::Type::string || ev.ph.s.size() != 1) return warn(Warn::wrong_type, ev.offset, "ph");
  const char ph = ev.ph.s[0];
  std::int64_t start = 0, end = 0;
  switch (ph) {
    case 'X':
      if (times(ev, true, start, end)) complete(ev, start, end);
      return;
    case 'B':
    case 'E':
      if (times(ev, false, start, end)) begin_end(ev, start, ph == 'B');
      return;
    case 'i':
    case 'I':
      if (times(ev, false, start, end)) instant(ev, start);
      return;
    case 'C':
      if (times(ev, false, start, end)) counter(ev, start);
      return;
    case 's':
    case 't':
    case 'f':
      return flow(ev);
    case 'M':
      return metadata(ev);
    case 'b':
    case 'e':
    case 'n':
      if (times(ev, false, start, end)) async(ev, start, ph);
      return;
    default:
      ++skipped_phases_[std::string(1, ph)];
      warn(Warn::unknown_phase, ev.offset, ev.ph.s);
  }
}

std::uint32_t TraceBuilder::u32_arg(const RawEvent& ev, Arg a, std::uint32_t dflt) {
  const Scalar& v = ev.arg(a);
  if (!v.present()) return dflt;
  std::int64_t n = 0;
  if (!whole_number(v, n)) {
    if (v.type == Scalar::Type::big) warn(Warn::out_of_range, ev.offset, "an integer beyond int64");
    else if (v.type != Scalar::Type::real && v.type != Scalar::Type::null) warn(Warn::wrong_type, ev.offset, "args");
    return dflt;
  }
  if (n < 0) return dflt;  // -1: unknown (Kineto writes it for streams of cuda_sync events)
  if (n > UINT32_MAX) return warn(Warn::out_of_range, ev.offset, "a 32-bit arg"), dflt;
  return static_cast<std::uint32_t>(n);
}

std::int64_t TraceBuilder::i64_arg(const RawEvent& ev, Arg a, std::int64_t dflt) {
  const Scalar& v = ev.arg(a);
  if (!v.present()) return dflt;
  if (v.type == Scalar::Type::big) return warn(Warn::out_of_range, ev.offset, "an integer beyond int64"), dflt;
  std::int64_t n = 0;
  if (whole_number(v, n)) return n;
  if (v.type == Scalar::Type::real) {
    if (std::isfinite(v.d) && std::fabs(v.d) < 9e18) return static_cast<std::int64_t>(v.d);
    warn(Warn::out_of_range, ev.offset, "a number beyond int64");
    return dflt;
  }
  if (v.type != Scalar::Type::null) warn(Warn::wrong_type, ev.offset, "args");
  return dflt;
}

void TraceBuilder::complete(const RawEvent& ev, std::int64_t start, std::int64_t end) {
  ++kept_;  // every X event with valid times becomes one record below
  const std::string& cat = ev.cat.s;
  if (ev.cat.type == Scalar::Type::string) {
    if (iequals(cat, "kernel")) return kernel(ev, start, end);
    // Meta's MTIA accelerator: Kineto writes its device activity as mtia_ccp_events (the command
    // processor's kernels) and its host API calls as mtia_runtime; they map like CUDA's.
    if (iequals(cat, "mtia_ccp_events")) {
      mtia_ = true;
      return kernel(ev, start, end);
    }
    if (iequals(cat, "mtia_runtime")) {
      mtia_ = true;
      return runtime_call(ev, start, end);
    }
    if (iequals(cat, "gpu_memcpy") || iequals(cat, "memcpy")) return memcpy_event(ev, start, end, false);
    if (iequals(cat, "gpu_memset") || iequals(cat, "memset")) return memcpy_event(ev, start, end, true);
    if (iequals(cat, "cuda_runtime") || iequals(cat, "runtime") || iequals(cat, "cuda_driver"))
      return runtime_call(ev, start, end);
    if (iequals(cat, "cuda_sync")) return sync(ev, start, end);
    if (iequals(cat, "gpu_user_annotation")) {
      kineto_ = true;
      std::int64_t dev = 0;
      whole_number(ev.pid, dev);
      scratch_ = "GPU " + std::to_string(dev) + " annotations";
      Scalar p, t;
      p.type = t.type = Scalar::Type::string;
      p.s = "gpu_user_annotation";
      t.s = scratch_;
      return host_range(lane(p, t), start, end, name_id(ev.name), false, static_cast<std::int32_t>(dev));
    }
    if (iequals(cat, "cpu_op") || iequals(cat, "operator") || iequals(cat, "user_annotation") ||
        iequals(cat, "python_function"))
      kineto_ = true;
  }
  host_range(lane(ev.pid, ev.tid), start, end, name_id(ev.name), true, -1);
}

void TraceBuilder::gpu_order(const RawEvent& ev, std::int32_t device, std::uint32_t stream, std::int64_t start) {
  const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(device)) << 32) | stream;
  auto [it, fresh] = gpu_last_start_.try_emplace(key, start);
  if (!fresh) {  // counts descents: an activity that starts before the previous one on its stream
    if (start < it->second) warn(Warn::out_of_order, ev.offset, ev.name.s);
    it->second = start;
  }
}

void TraceBuilder::kernel(const RawEvent& ev, std::int64_t start, std::int64_t end) {
  kineto_ = true;
  KernelRecord k;
  k.start = start, k.end = end;
  std::int64_t pid = 0, tid = 0;
  k.device = static_cast<std::int32_t>(i64_arg(ev, Arg::device, whole_number(ev.pid, pid) ? pid : 0));
  k.stream = u32_arg(ev, Arg::stream, whole_number(ev.tid, tid, true) && tid >= 0 && tid <= UINT32_MAX ? static_cast<std::uint32_t>(tid) : 0);
  k.context = u32_arg(ev, Arg::context, 0);
  k.correlation = u32_arg(ev, Arg::correlation, 0);
  if (k.correlation == 0) ++gpu_without_correlation_;
  k.name = name_id(ev.name);
  KernelConfig c;
  if (ev.has_grid) std::copy(ev.grid, ev.grid + 3, c.grid);
  if (ev.has_block) std::copy(ev.block, ev.block + 3, c.block);
  c.registers = static_cast<std::int32_t>(std::clamp<std::int64_t>(i64_arg(ev, Arg::registers, 0), 0, INT32_MAX));
  // Kineto's "shared memory" is static + dynamic shared memory per block (bytes).
  c.static_smem = static_cast<std::int32_t>(std::clamp<std::int64_t>(i64_arg(ev, Arg::shared_memory, 0), 0, INT32_MAX));
  for (auto [arg, out] : {std::pair{Arg::blocks_per_sm, &c.kineto_blocks_per_sm}, std::pair{Arg::est_occupancy, &c.kineto_occupancy_pct}}) {
    const Scalar& v = ev.arg(arg);
    if (v.is_number() && std::isfinite(v.number()) && v.number() >= 0 && v.number() < 1e9) *out = static_cast<float>(v.number());
  }
  k.config = store_.intern_config(c);
  if (k.name >= comm_kernel_.size()) comm_kernel_.resize(k.name + 1, -1);
  if (comm_kernel_[k.name] < 0) comm_kernel_[k.name] = is_communication_kernel(store_.strings.get(k.name));
  comm_kernels_ += comm_kernel_[k.name];
  ++kernel_devices_[k.device];
  gpu_order(ev, k.device, k.stream, start);
  kernels_.push_back(k);
}

void TraceBuilder::memcpy_event(const RawEvent& ev, std::int64_t start, std::int64_t end, bool memset) {
  kineto_ = true;
  std::int64_t pid = 0, tid = 0;
  const std::int32_t device = static_cast<std::int32_t>(i64_arg(ev, Arg::device, whole_number(ev.pid, pid) ? pid : 0));
  const std::uint32_t stream =
      u32_arg(ev, Arg::stream, whole_number(ev.tid, tid, true) && tid >= 0 && tid <= UINT32_MAX ? static_cast<std::uint32_t>(tid) : 0);
  const std::uint32_t context = u32_arg(ev, Arg::context, 0), corr = u32_arg(ev, Arg::correlation, 0);
  const std::int64_t bytes = std::max<std::int64_t>(0, i64_arg(ev, Arg::bytes, 0));
  if (corr == 0) ++gpu_without_correlation_;
  std::uint8_t src = 0, dst = 0;
  const std::string name = ev.name.type == Scalar::Type::string ? ev.name.s : std::string();
  paren_kinds(name, src, dst);
  gpu_order(ev, device, stream, start);
  if (memset) {
    MemsetRecord m;
    m.start = start, m.end = end, m.device = device, m.stream = stream, m.context = context, m.correlation = corr;
    m.bytes = bytes, m.memory_kind = dst;
    memsets_.push_back(m);
  } else {
    MemcpyRecord m;
    m.start = start, m.end = end, m.device = device, m.stream = stream, m.context = context, m.correlation = corr;
    m.bytes = bytes, m.copy_kind = copy_kind(name), m.src_kind = src, m.dst_kind = dst;
    memcpys_.push_back(m);
  }
}

void TraceBuilder::runtime_call(const RawEvent& ev, std::int64_t start, std::int64_t end) {
  kineto_ = true;
  RuntimeRecord r;
  r.start = start, r.end = end;
  r.thread = lane(ev.pid, ev.tid);
  r.correlation = u32_arg(ev, Arg::correlation, 0);
  r.cbid = static_cast<std::uint16_t>(std::min<std::uint32_t>(u32_arg(ev, Arg::cbid, 0), UINT16_MAX));
  r.name = name_id(ev.name);
  runtime_.push_back(r);
  lane_names_.try_emplace(r.thread, std::string());
}

void TraceBuilder::sync(const RawEvent& ev, std::int64_t start, std::int64_t end) {
  SyncRecord s;
  s.start = start, s.end = end;
  std::int64_t pid = 0;
  s.device = static_cast<std::int32_t>(i64_arg(ev, Arg::device, whole_number(ev.pid, pid) ? pid : 0));
  s.stream = u32_arg(ev, Arg::stream, 0);
  s.context = u32_arg(ev, Arg::context, 0);
  s.correlation = u32_arg(ev, Arg::correlation, 0);
  s.event = u32_arg(ev, Arg::wait_event, 0);
  const Scalar& kind = ev.arg(Arg::sync_kind);
  s.type = sync_type(kind.type == Scalar::Type::string ? kind.s : ev.name.s);
  gpu_order(ev, s.device, s.stream == 0 ? 0xFFFFFFFFu : s.stream, start);
  syncs_.push_back(s);
}

/// Host ranges; ProfilerStep#N (the PyTorch profiler's step annotation) also makes a step, and
/// enumerate(DataLoader)#..._next__ (the DataLoader iterator's record_function) is data wait.
void TraceBuilder::host_range(std::uint32_t lane, std::int64_t start, std::int64_t end, StringId name, bool cpu_side,
                              std::int32_t device) {
  using K = trace::RangeKind;
  HostRangeRecord h;
  h.start = start, h.end = end, h.thread = lane, h.name = name, h.device = device;
  h.kind = static_cast<std::uint8_t>(K::other);
  const std::string& s = store_.strings.get(name);
  if (cpu_side && starts_with(s, "ProfilerStep#")) {
    kineto_ = true;
    h.kind = static_cast<std::uint8_t>(K::step);
    StepRecord st;
    st.global_step = st.step = std::strtoll(s.c_str() + 13, nullptr, 10);
    st.start = start, st.end = end;
    h.step = st.global_step;
    steps_.push_back(st);
    ++derived_;  // the step row beside the range
    step_lanes_.push_back(lane);
  } else if (cpu_side && starts_with(s, "enumerate(DataLoader)#") && ends_with(s, "__next__")) {
    h.kind = static_cast<std::uint8_t>(K::data_wait);
    if (dataloader_.empty()) dataloader_ = s.substr(22);
  }
  host_.push_back(h);
  lane_names_.try_emplace(lane, std::string());
}

void TraceBuilder::begin_end(const RawEvent& ev, std::int64_t t, bool begin) {
  const std::uint32_t l = lane(ev.pid, ev.tid);
  auto& stack = open_[l];
  if (begin) {
    stack.push_back({t, name_id(ev.name), ev.offset});
    return;
  }
  if (stack.empty()) return warn(Warn::end_without_begin, ev.offset, ev.name.s);
  const Open o = stack.back();
  stack.pop_back();
  if (t < o.start) return warn(Warn::negative_dur, ev.offset, ev.name.s);
  kept_ += 2;
  host_range(l, o.start, t, o.name, true, -1);
}

/// Chrome async events (b / e / n with id or id2): host ranges in lanes of their own, one lane per
/// process and name of the outermost b of an async id ("async: PipelineReporter"): the events of one
/// operation (its nested b/e stages and n instants, same category and id) share its lane and nest
/// there; operations of the same name share one lane, as Chrome's viewer groups async slices by name
/// (one lane per id would make a lane per network request or frame). An e closes the innermost open
/// b of its category and id with its name (or the innermost when it has none).
void TraceBuilder::async(const RawEvent& ev, std::int64_t t, char ph) {
  std::string key = ev.cat.type == Scalar::Type::string ? ev.cat.s : std::string();
  key += '\x1f';
  key += scalar_label(ev.id);
  if (ev.id_local) key += '\x1f' + scalar_label(ev.pid);
  auto& stack = async_open_[key];
  const std::string name = ev.name.type == Scalar::Type::string ? ev.name.s : scalar_label(ev.name);
  auto own_lane = [&]() {
    if (!stack.empty()) return stack.front().lane;
    Scalar tid;
    tid.type = Scalar::Type::string;
    tid.s = "async: " + name;
    return lane(ev.pid, tid);
  };
  if (ph == 'b') {
    const std::uint32_t l = own_lane();
    stack.push_back({t, name_id(ev.name), ev.offset, l});
    return;
  }
  if (ph == 'n') {
    ++kept_;
    return host_range(own_lane(), t, t, name_id(ev.name), false, -1);
  }
  if (stack.empty()) return warn(Warn::end_without_begin, ev.offset, name);
  auto it = stack.end() - 1;
  if (!name.empty())
    for (auto k = stack.rbegin(); k != stack.rend(); ++k)
      if (store_.strings.get(k->name) == name) {
        it = std::next(k).base();
        break;
      }
  const AsyncOpen o = *it;
  stack.erase(it);
  if (t < o.start) return warn(Warn::negative_dur, ev.offset, name);
  kept_ += 2;
  host_range(o.lane, o.start, t, o.name, false, -1);
}

void TraceBuilder::instant(const RawEvent& ev, std::int64_t t) {
  ++kept_;
  if (ev.name.type == Scalar::Type::string && ev.name.s == "[memory]") return memory(ev, t);
  // Global (s:"g") and process (s:"p") instants sit on their process' lane.
  const bool thread_scope = ev.scope.type != Scalar::Type::string || ev.scope.s == "t";
  Scalar none;
  host_range(lane(ev.pid, thread_scope ? ev.tid : none), t, t, name_id(ev.name), true, -1);
}

/// [memory]: the PyTorch profiler's allocator events. Old args {Device Type, Device Id, Bytes};
/// newer ones add Addr, Total Allocated, Total Reserved. Device Type 0 is the CPU (Device Id -1),
/// 1 CUDA. Bytes > 0 allocates, < 0 frees.
void TraceBuilder::memory(const RawEvent& ev, std::int64_t t) {
  kineto_ = true;
  MemoryRecord m;
  m.time = t;
  const std::int64_t type = i64_arg(ev, Arg::mem_device_type, 0);
  const std::int64_t id = i64_arg(ev, Arg::mem_device_id, -1);
  m.device = type == 0 ? -1 : static_cast<std::int32_t>(std::clamp<std::int64_t>(id, -1, INT32_MAX));
  const std::int64_t bytes = i64_arg(ev, Arg::mem_bytes, 0);
  m.op = bytes >= 0 ? 1 : 2;
  m.bytes = bytes == INT64_MIN ? INT64_MAX : std::abs(bytes);
  m.memory_kind = type == 0 ? 0 : 3;  // CUDA allocations are device memory; the CPU's kind is unknown
  const Scalar& addr = ev.arg(Arg::mem_addr);
  if (addr.type == Scalar::Type::integer) m.address = static_cast<std::uint64_t>(addr.i);
  else if (addr.type == Scalar::Type::big) m.address = addr.d >= 18446744073709551615.0 ? UINT64_MAX : static_cast<std::uint64_t>(addr.d);
  memory_.push_back(m);
  const std::string dev = m.device < 0 ? "cpu" : "cuda:" + std::to_string(m.device);
  if (ev.arg(Arg::total_allocated).is_number()) {
    samples_.push_back({t, series_id("torch.allocated." + dev, "bytes"), ev.arg(Arg::total_allocated).number()});
    ++derived_;
  }
  if (ev.arg(Arg::total_reserved).is_number()) {
    samples_.push_back({t, series_id("torch.reserved." + dev, "bytes"), ev.arg(Arg::total_reserved).number()});
    ++derived_;
  }
}

std::uint32_t TraceBuilder::series_id(const std::string& name, const char* unit) {
  auto it = series_ids_.find(name);
  if (it != series_ids_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(series_.size() + 1);
  series_.push_back({id, store_.strings.intern(name), store_.strings.intern(unit)});
  series_ids_.emplace(name, id);
  return id;
}

/// C: each numeric arg is one series "<event name>.<arg>" (Chrome draws one stacked track per name).
void TraceBuilder::counter(const RawEvent& ev, std::int64_t t) {
  const std::string base = ev.name.type == Scalar::Type::string ? ev.name.s : "counter";
  const std::size_t before = samples_.size();
  for (std::size_t i = 0; i < ev.numeric_n; ++i) {
    const auto& [key, value] = ev.numeric_args[i];
    if (!std::isfinite(value)) {
      warn(Warn::bad_time, ev.offset, "non-finite counter value");
      continue;
    }
    samples_.push_back({t, series_id(base + "." + key, ""), value});
  }
  if (samples_.size() > before) ++kept_;
}

void TraceBuilder::flow(const RawEvent& ev) {
  ++flows_;
  if (!ev.id.present()) return warn(Warn::missing_field, ev.offset, "id of a flow event");
  const char ph = ev.ph.s[0];
  if (ph == 's') flow_starts_.push_back(flow_id(ev.id));
  else if (ph == 'f') flow_ends_.push_back(flow_id(ev.id));
}

void TraceBuilder::set_meta(const std::string& key, const std::string& value, std::int64_t offset) {
  auto [it, fresh] = meta_.try_emplace(key, value);
  if (!fresh && it->second != value) {
    warn(Warn::conflicting_meta, offset, key);
    it->second = value;  // the last one wins, as in chrome://tracing
  }
}

/// M: process_name / process_labels / process_sort_index -> meta import.process.<pid>.*;
/// thread_name -> the lane's name (threads table); thread_sort_index -> meta import.thread.<tid>.sort_index.
void TraceBuilder::metadata(const RawEvent& ev) {
  ++metadata_events_;
  if (ev.name.type != Scalar::Type::string) return warn(Warn::missing_field, ev.offset, "name of a metadata event");
  const std::string& what = ev.name.s;
  const std::string pid = scalar_label(ev.pid);
  auto text = [&](Arg a) {
    const Scalar& v = ev.arg(a);
    return v.type == Scalar::Type::string ? v.s : v.is_number() ? std::to_string(to_i64(v.number())) : std::string();
  };
  if (what == "process_name") set_meta("import.process." + pid + ".name", text(Arg::name), ev.offset);
  else if (what == "process_labels") set_meta("import.process." + pid + ".labels", text(Arg::labels), ev.offset);
  else if (what == "process_sort_index") set_meta("import.process." + pid + ".sort_index", text(Arg::sort_index), ev.offset);
  else if (what == "thread_sort_index")
    set_meta("import.thread." + pid + "/" + scalar_label(ev.tid) + ".sort_index", text(Arg::sort_index), ev.offset);
  else if (what == "thread_name") {
    const std::uint32_t l = lane(ev.pid, ev.tid);
    const std::string name = text(Arg::name);
    set_meta("import.thread." + pid + "/" + scalar_label(ev.tid) + ".name", name, ev.offset);
    if (!name.empty()) thread_names_.try_emplace(l, name);  // GPU rows of several pids share numeric tids
  }
}

}  // namespace ts::prof::import
