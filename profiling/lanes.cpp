// Lane keys and colour categories of the timeline (see lanes.h).
#include "profiling/lanes.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "engine/host_trace.h"
#include "profiling/analysis/analysis.h"

namespace ts::prof::timeline {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool has_any(const std::string& s, std::initializer_list<const char*> subs) {
  for (const char* w : subs)
    if (s.find(w) != std::string::npos) return true;
  return false;
}

}  // namespace

bool is_kernel_category(Category c) { return static_cast<int>(c) <= static_cast<int>(Category::other_kernel); }

Category kernel_category(const std::string& demangled_name) {
  const std::string s = lower(demangled_name);
  if (analysis::is_communication_kernel(demangled_name)) return Category::communication;  // NCCL / RCCL collectives
  if (has_any(s, {"adam", "sgd", "momentum", "optimizer", "lamb"})) return Category::optimizer;
  if (has_any(s, {"batch_norm", "batchnorm", "bn_fw", "bn_bw"})) return Category::batchnorm;
  if (has_any(s, {"pool"})) return Category::pooling;
  if (analysis::is_matmul_kernel(demangled_name) ||
      has_any(s, {"sgemm", "winograd", "fft", "gemv", "splitkreduce", "implicit", "cudnn::cnn"}))
    return Category::gemm_conv;
  if (has_any(s, {"reduce", "cross_entropy", "loss", "softmax", "nll", "eval_kernel", "argmax"}))
    return Category::reduction_loss;
  if (has_any(s, {"elementwise", "epilogue", "normalize", "relu", "dropout", "scale", "cast", "add", "mul", "copy",
                  "fill", "transform", "nchwtonhwc", "nhwctonchw", "pointwise", "unscale"}))
    return Category::elementwise;
  return Category::other_kernel;
}

Category copy_category(std::uint8_t copy_kind) {
  return copy_kind == 1 ? Category::copy_h2d : copy_kind == 2 ? Category::copy_d2h : Category::copy_other;
}

Category host_range_category(std::uint8_t range_kind) {
  using K = trace::RangeKind;
  switch (static_cast<K>(range_kind)) {
    case K::step: return Category::step;
    case K::data_wait: return Category::data_wait;
    case K::h2d_copy: return Category::copy_h2d;
    case K::forward: return Category::host_forward;
    case K::backward: return Category::host_backward;
    case K::loss: return Category::reduction_loss;
    case K::optimizer: return Category::optimizer;
    case K::sync: return Category::sync;
    default: return Category::host_other;
  }
}

Category runtime_category(const std::string& api_name) {
  return api_name.find("Synchronize") != std::string::npos ? Category::sync : Category::runtime;
}

bool is_launch_call(const std::string& api_name) { return api_name.find("Launch") != std::string::npos; }

std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

Source lane_source(LaneKind kind) {
  switch (kind) {
    case LaneKind::host_thread: return Source::host_range;
    case LaneKind::runtime: return Source::runtime;
    case LaneKind::stream: return Source::kernel;
    case LaneKind::copy_h2d:
    case LaneKind::copy_d2h:
    case LaneKind::copy_other: return Source::memcpy;
    case LaneKind::memset: return Source::memset;
    case LaneKind::sync: return Source::sync;
  }
  return Source::kernel;
}

std::string stream_lane_key(std::int32_t device, std::uint32_t stream) {
  return "stream:" + std::to_string(device) + ":" + std::to_string(stream);
}

std::string runtime_lane_key(std::uint32_t tid) { return "runtime:" + std::to_string(tid); }

std::string host_lane_key(std::uint32_t tid, const std::string& thread_name) {
  return thread_name.empty() ? "tid:" + std::to_string(tid) : "thread:" + thread_name;
}

LaneKind copy_lane_kind(std::uint8_t copy_kind) {
  const Category c = copy_category(copy_kind);
  return c == Category::copy_h2d ? LaneKind::copy_h2d : c == Category::copy_d2h ? LaneKind::copy_d2h : LaneKind::copy_other;
}

const char* copy_lane_key(LaneKind copy_kind) {
  return copy_kind == LaneKind::copy_h2d ? "copy:h2d" : copy_kind == LaneKind::copy_d2h ? "copy:d2h" : "copy:other";
}

LaneId lane_of(const KernelRecord& k) { return {LaneKind::stream, stream_lane_key(k.device, k.stream), k.stream, k.device}; }
LaneId lane_of(const GraphReplayRecord& g) { return {LaneKind::stream, stream_lane_key(g.device, g.stream), g.stream, g.device}; }

LaneId lane_of(const MemcpyRecord& m) {
  const LaneKind kind = copy_lane_kind(m.copy_kind);
  return {kind, copy_lane_key(kind), 0, m.device};
}

LaneId lane_of(const MemsetRecord& m) { return {LaneKind::memset, "memset", 0, m.device}; }
LaneId lane_of(const SyncRecord& s) { return {LaneKind::sync, "sync", 0, s.device}; }
LaneId lane_of(const RuntimeRecord& r) { return {LaneKind::runtime, runtime_lane_key(r.thread), r.thread, -1}; }

}  // namespace ts::prof::timeline
