// The timeline's lanes and colour categories, Qt-free: which lane an event of the store belongs to
// (its key), and which colour category it has. The GUI's timeline (widgets/timeline) builds its lanes
// from these, and the session writer builds the file's whole-session overview (profiling/overview.h)
// from the same functions, so an overview painted before the events are loaded shows the lanes the
// full timeline will show. Colours and labels of the categories stay in widgets/timeline/categories.h.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "profiling/records.h"

namespace ts::prof::timeline {

/// Colour categories (widgets/timeline/categories.h has their colours and the palettes' sources).
enum class Category : std::uint8_t {
  gemm_conv, elementwise, reduction_loss, optimizer, pooling, batchnorm, communication, other_kernel,
  copy_h2d, copy_d2h, copy_other, memset, sync, data_wait, host_forward, host_backward, host_other,
  runtime, step,
  graph_replay,  // a whole CUDA-graph replay (GraphReplayRecord), drawn in its stream's lane
  count
};
constexpr int kCategoryCount = static_cast<int>(Category::count);

bool is_kernel_category(Category c);
/// Kernel family of a demangled kernel name, by substrings (case-insensitive; first match wins):
/// communication (prof::analysis::is_communication_kernel: NCCL / RCCL), optimizer (adam, sgd,
/// momentum, optimizer, lamb), BatchNorm (batch_norm, batchnorm, bn_fw, bn_bw),
/// pooling (pool), GEMM/conv (prof::analysis::is_matmul_kernel, sgemm, winograd, fft, gemv,
/// splitkreduce, implicit, cudnn::cnn), reduction/loss (reduce, cross_entropy, loss, softmax, nll,
/// eval_kernel, argmax), elementwise/epilogue (elementwise, epilogue, normalize, relu, dropout,
/// scale, cast, add, mul, copy, fill, transform, nchwtonhwc, nhwctonchw, pointwise, unscale), else other.
Category kernel_category(const std::string& demangled_name);
/// CUpti_ActivityMemcpyKind: 1 HtoD, 2 DtoH, else other.
Category copy_category(std::uint8_t copy_kind);
/// trace::RangeKind of a host range.
Category host_range_category(std::uint8_t range_kind);
/// Runtime call by name: *Synchronize* -> sync, else runtime.
Category runtime_category(const std::string& api_name);
/// Whether a runtime API name is a kernel launch ("cudaLaunchKernel", "cuLaunchKernelEx", ...).
bool is_launch_call(const std::string& api_name);
/// The demangled form of `name` (itself when it is not a mangled C++ name).
std::string demangle(const std::string& name);

/// Lanes: one per host thread (named threads share a lane), one per thread of CUDA runtime calls,
/// one per CUDA stream (kernels), one each for copies H2D / D2H / other, memsets and CUPTI
/// synchronisation records. Each lane holds events of one store table (lane_source).
enum class LaneKind : std::uint8_t { host_thread, runtime, stream, copy_h2d, copy_d2h, copy_other, memset, sync };

/// Which store table an event's row index refers to.
/// graph_replay: EventStore::graph_replays (in a stream lane, beside that stream's kernels).
enum class Source : std::uint8_t { kernel, memcpy, memset, runtime, host_range, sync, graph_replay };
Source lane_source(LaneKind kind);

/// Lane keys (unique per lane): "stream:D:S", "runtime:TID", "copy:h2d" / "copy:d2h" / "copy:other",
/// "memset", "sync"; host threads: "thread:NAME" for a named thread, else "tid:TID".
std::string stream_lane_key(std::int32_t device, std::uint32_t stream);
std::string runtime_lane_key(std::uint32_t tid);
std::string host_lane_key(std::uint32_t tid, const std::string& thread_name);
/// The copy lane of a memcpy (by its copy kind).
LaneKind copy_lane_kind(std::uint8_t copy_kind);
const char* copy_lane_key(LaneKind copy_kind);

/// The lane a GPU record or runtime call goes to (host ranges go by their thread's name:
/// host_lane_key). `id`: stream id or tid; `device`: -1 for host lanes.
struct LaneId {
  LaneKind kind = LaneKind::host_thread;
  std::string key;
  std::uint32_t id = 0;
  std::int32_t device = 0;
};
LaneId lane_of(const KernelRecord& k);
/// A whole CUDA-graph replay: the lane of the stream it was launched on (its kernels' lane).
LaneId lane_of(const GraphReplayRecord& g);
LaneId lane_of(const MemcpyRecord& m);
LaneId lane_of(const MemsetRecord& m);
LaneId lane_of(const SyncRecord& s);
LaneId lane_of(const RuntimeRecord& r);

/// Colour categories of kernel and runtime API names, classified once per string id of one store
/// (the timeline and the overview classify the same names millions of times).
class NameCategories {
 public:
  /// kernel_category of the demangled name `name` (a string of `strings`).
  template <class Strings>
  Category kernel(const Strings& strings, StringId name) {
    std::uint8_t& c = slot(kernel_, name, strings.size());
    if (c == kUnknown) c = static_cast<std::uint8_t>(kernel_category(demangle(strings.get(name))));
    return static_cast<Category>(c);
  }
  /// runtime_category of an API name; *launch: whether it launches a kernel (is_launch_call).
  template <class Strings>
  Category runtime(const Strings& strings, StringId name, bool* launch) {
    std::uint8_t& c = slot(runtime_, name, strings.size());
    if (c == kUnknown) {
      const std::string& s = strings.get(name);
      c = static_cast<std::uint8_t>(static_cast<int>(runtime_category(s)) | (is_launch_call(s) ? kLaunch : 0));
    }
    *launch = (c & kLaunch) != 0;
    return static_cast<Category>(c & ~kLaunch);
  }

 private:
  static constexpr std::uint8_t kUnknown = 255, kLaunch = 0x80;
  static std::uint8_t& slot(std::vector<std::uint8_t>& v, StringId id, std::size_t n) {
    if (id >= v.size()) v.resize(std::max<std::size_t>(id + 1, n), kUnknown);
    return v[id];
  }
  std::vector<std::uint8_t> kernel_, runtime_;
};

}  // namespace ts::prof::timeline
