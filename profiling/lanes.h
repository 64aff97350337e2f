// The timeline's lanes and colour categories, Qt-free: which lane an event of the store belongs to
// (its key), and which colour category it has. The GUI's timeline (widgets/timeline) builds its lanes
// from these, and the session writer builds the file's whole-session overview (profiling/overview.h)
// from the same functions, so an overview painted before the events are loaded shows the lanes the
// full timeline will show. Colours and labels of the categories stay in widgets/timeline/categories.h.
#pragma once
#include <cstdint>
#include <string>

#include "profiling/records.h"

namespace ts::prof::timeline {

/// Colour categories (widgets/timeline/categories.h has their colours and the palettes' sources).
enum class Category : std::uint8_t {
  gemm_conv, elementwise, reduction_loss, optimizer, pooling, batchnorm, other_kernel,
  copy_h2d, copy_d2h, copy_other, memset, sync, data_wait, host_forward, host_backward, host_other,
  runtime, step, count
};
constexpr int kCategoryCount = static_cast<int>(Category::count);

bool is_kernel_category(Category c);
/// Kernel family of a demangled kernel name, by substrings (case-insensitive; first match wins):
/// optimizer (adam, sgd, momentum, optimizer, lamb), BatchNorm (batch_norm, batchnorm, bn_fw, bn_bw),
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
enum class Source : std::uint8_t { kernel, memcpy, memset, runtime, host_range, sync };
Source lane_source(LaneKind kind);

/// Lane keys (unique per lane): "stream:D:S", "runtime:TID", "copy:h2d" / "copy:d2h" / "copy:other",
/// "memset", "sync"; host threads: "thread:NAME" for a named thread, else "tid:TID".
std::string stream_lane_key(std::int32_t device, std::uint32_t stream);
std::string runtime_lane_key(std::uint32_t tid);
std::string host_lane_key(std::uint32_t tid, const std::string& thread_name);
/// The copy lane of a memcpy (by its copy kind).
LaneKind copy_lane_kind(std::uint8_t copy_kind);
const char* copy_lane_key(LaneKind copy_kind);

}  // namespace ts::prof::timeline
