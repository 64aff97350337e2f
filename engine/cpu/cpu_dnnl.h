// oneDNN 2.6 plumbing shared by the CPU layers: the engine and stream, memory descriptors for
// plain formats, and the translation of dnnl::error into the engine's DeviceError. Included only by
// cpu_layers_*.cpp (dnnl.hpp is slow to compile). v2 API: operation descriptor -> primitive_desc ->
// primitive; the v3 API (no descriptors) does not exist in 2.6.
#pragma once
#include <dnnl.hpp>

#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "base/errors.h"
#include "engine/cpu/cpu_layers.h"

namespace ts::cpu {

struct DnnlContext {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

using dnnl::memory;
using tag = dnnl::memory::format_tag;

/// A plain fp32 memory descriptor of `dims` (batch first) in `t` (nchw, nc, oihw, oi, x).
inline memory::desc plain_md(const memory::dims& dims, tag t) {
  return memory::desc(dims, memory::data_type::f32, t);
}

/// A dense row-major fp32 descriptor of any rank (for element-wise primitives).
inline memory::desc dense_md(const memory::dims& dims) {
  memory::dims strides(dims.size(), 1);
  for (std::size_t i = dims.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * dims[i + 1];
  return memory::desc(dims, memory::data_type::f32, strides);
}

/// The descriptor of a batch of activations as the backend stores them: [C, H, W] samples in NHWC
/// (see cpu_ops.h for why), [F] samples as NC, anything else dense row-major.
inline memory::desc act_md(std::int64_t n, const Shape& per_sample) {
  memory::dims d{n};
  d.insert(d.end(), per_sample.begin(), per_sample.end());
  if (per_sample.size() == 3) return plain_md(d, tag::nhwc);
  if (per_sample.size() == 1) return plain_md(d, tag::nc);
  return dense_md(d);
}

/// Reorders `from` into `to` now (both on ctx's engine) and waits.
inline void reorder_now(DnnlContext& ctx, const dnnl::reorder& r, const memory& from, const memory& to) {
  r.execute(ctx.stream, const_cast<memory&>(from), const_cast<memory&>(to));
}

/// A memory object over existing storage (no copy).
inline memory wrap(const memory::desc& md, DnnlContext& ctx, const void* ptr) {
  return memory(md, ctx.engine, const_cast<void*>(ptr));
}

/// Runs `f`, turning a oneDNN failure into DeviceError naming `where` (the layer and the step).
template <class F>
decltype(auto) dnnl_guard(const std::string& where, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const dnnl::error& e) {
    throw DeviceError("oneDNN failed in " + where + ": " + e.what() + " (status " +
                      std::to_string(static_cast<int>(e.status)) + ")");
  }
}

/// A buffer of max_batch samples of `per_sample` fp32 elements in `category`.
inline Tensor batch_buffer(const LayerBuild& b, const Shape& per_sample, MemoryCategory category) {
  Shape s{b.max_batch};
  s.insert(s.end(), per_sample.begin(), per_sample.end());
  return Tensor(*b.alloc, DType::f32, s, category);
}

/// dims {n, per_sample...} for oneDNN.
inline memory::dims batch_dims(std::int64_t n, const Shape& per_sample) {
  memory::dims d{n};
  d.insert(d.end(), per_sample.begin(), per_sample.end());
  return d;
}

/// The scratch memory a primitive keeps from its forward for its backward (max pooling's argmax,
/// batch norm's mask), when its implementation asks for any (average pooling's does not).
struct DnnlWorkspace {
  memory::desc md;
  Tensor buffer;  // undefined when md is 0 bytes

  /// Allocates what `asked` (the forward primitive_desc's workspace_desc()) says, in bytes.
  void allocate(const memory::desc& asked, const LayerBuild& b) {
    md = asked;
    if (md.get_size() > 0)
      buffer = Tensor(*b.alloc, DType::u8, {static_cast<std::int64_t>(md.get_size())}, MemoryCategory::workspace);
  }
  /// Adds DNNL_ARG_WORKSPACE to `args` when there is a workspace.
  void add_to(std::unordered_map<int, memory>& args, DnnlContext& ctx) {
    if (buffer.defined()) args.emplace(DNNL_ARG_WORKSPACE, wrap(md, ctx, buffer.data()));
  }
};

/// What the oneDNN layers share: their build and context, the output (y_) and input-gradient (dx_)
/// buffers of max_batch samples, the input of the last forward (x_), and their primitives, built by
/// make_prims(n) the first time a batch of n samples comes and cached by n.
template <class Prims>
class DnnlLayer : public CpuLayer {
 protected:
  explicit DnnlLayer(const LayerBuild& b) : b_(b), ctx_(*b.dnnl) {}
  /// Allocates y_ and dx_; layers call it after allocating their parameters, in that order.
  void allocate_batch_buffers() {
    y_ = batch_buffer(b_, b_.output, MemoryCategory::activations);
    dx_ = batch_buffer(b_, b_.input, MemoryCategory::activations);
  }
  virtual Prims make_prims(std::int64_t n) = 0;
  Prims& prims(std::int64_t n) {
    auto it = cache_.find(n);
    if (it != cache_.end()) return it->second;
    return cache_.emplace(n, make_prims(n)).first->second;
  }
  /// Executes `primitive` with `args` on the context's stream and waits for it.
  void run(const dnnl::primitive& primitive, const std::unordered_map<int, memory>& args) {
    primitive.execute(ctx_.stream, args);
    ctx_.stream.wait();
  }

  // A layer with weights and an optional bias (Conv2d, Linear): Prims has src, dst and bias
  // descriptors and the fwd, bwd_weights and bwd_data primitives.

  /// y_ = fwd(x, weights, bias when defined); x is kept for backward. Returns y_.
  float* forward_weighted(Prims& p, float* x, const memory& weights, const LayerTensor& bias) {
    x_ = x;
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, wrap(p.src, ctx_, x)},
                                         {DNNL_ARG_WEIGHTS, weights},
                                         {DNNL_ARG_DST, wrap(p.dst, ctx_, y_.data())}};
    if (bias.value.defined()) args.emplace(DNNL_ARG_BIAS, wrap(p.bias, ctx_, bias.value.data()));
    run(p.fwd, args);
    return y_.data_as<float>();
  }
  /// The weight gradient into `grad` and the bias gradient (when the bias has one) from the last
  /// forward's input and dy; queued on the stream, not waited for.
  void backward_weights(Prims& p, const memory& dy, const memory& grad, LayerTensor& bias) {
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, wrap(p.src, ctx_, x_)}, {DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_DIFF_WEIGHTS, grad}};
    if (bias.grad.defined()) args.emplace(DNNL_ARG_DIFF_BIAS, wrap(p.bias, ctx_, bias.grad.data()));
    p.bwd_weights.execute(ctx_.stream, args);
  }
  /// When need_dx, dx_ from dy and weights() (called only then); waits for the stream either way.
  /// Returns dx_, or null without need_dx.
  template <class Weights>
  float* backward_data(Prims& p, const memory& dy, bool need_dx, Weights weights) {
    if (need_dx)
      p.bwd_data.execute(ctx_.stream, {{DNNL_ARG_DIFF_DST, dy},
                                       {DNNL_ARG_WEIGHTS, weights()},
                                       {DNNL_ARG_DIFF_SRC, wrap(p.src, ctx_, dx_.data())}});
    ctx_.stream.wait();
    return need_dx ? dx_.data_as<float>() : nullptr;
  }

  LayerBuild b_;
  DnnlContext& ctx_;
  Tensor y_, dx_;
  float* x_ = nullptr;
  std::map<std::int64_t, Prims> cache_;
};

}  // namespace ts::cpu
