// Conv2d and Linear on oneDNN: convolution_forward / backward_data / backward_weights and
// inner_product_forward / backward_data / backward_weights, created once per batch size and cached.
// Parameters stay in PyTorch's plain layouts (oihw, oi) so that parameters()/set_parameters() and
// the optimizer see them as they are; convolutions reorder them to the format their kernels chose
// (and weight gradients back). Activations are NHWC / NC (cpu_ops.h says why).
#include <map>

#include "engine/cpu/cpu_dnnl.h"

namespace ts::cpu {
namespace {

using dnnl::algorithm;
using dnnl::prop_kind;

LayerTensor make_param(const LayerBuild& b, const std::string& suffix, const Shape& shape) {
  LayerTensor t;
  t.name = b.name + suffix;
  t.value = Tensor(*b.alloc, DType::f32, shape, MemoryCategory::weights);
  t.grad = Tensor(*b.alloc, DType::f32, shape, MemoryCategory::gradients);
  return t;
}

/// A layer's parameters: its weight, and its bias when it has one.
std::vector<LayerTensor*> weight_and_bias(LayerTensor& weight, LayerTensor& bias) {
  if (bias.value.defined()) return {&weight, &bias};
  return {&weight};
}

// ---- Conv2d -------------------------------------------------------------------------------------

// Weights in the format a convolution primitive chose (format_tag::any, usually blocked for the
// AVX2 JIT kernels), with the reorder from or to the parameter's plain oihw; direct when equal.
struct WeightSlot {
  memory::desc md;
  Tensor buf;          // defined when md differs from the plain layout
  dnnl::reorder re;    // plain -> md (weights) or md -> plain (weight gradients)
  bool direct() const { return !buf.defined(); }
};

WeightSlot weight_slot(const memory::desc& impl, const memory::desc& plain, bool plain_to_impl, const LayerBuild& b,
                       MemoryCategory category) {
  WeightSlot s;
  s.md = impl;
  if (impl == plain) return s;
  s.buf = Tensor(*b.alloc, DType::u8, {static_cast<std::int64_t>(impl.get_size())}, category);
  const dnnl::engine& eng = b.dnnl->engine;
  s.re = plain_to_impl ? dnnl::reorder(dnnl::reorder::primitive_desc(eng, plain, eng, impl))
                       : dnnl::reorder(dnnl::reorder::primitive_desc(eng, impl, eng, plain));
  return s;
}

struct ConvPrims {
  memory::desc src, plain_wei, bias, dst;
  WeightSlot fwd_wei, bwd_d_wei, bwd_w_wei;
  dnnl::convolution_forward fwd;
  dnnl::convolution_backward_data bwd_data;
  dnnl::convolution_backward_weights bwd_weights;
};

class Conv2dLayer final : public DnnlLayer<ConvPrims> {
 public:
  explicit Conv2dLayer(const LayerBuild& b) : DnnlLayer(b) {
    const LayerSpec& l = *b.spec;
    weight_ = make_param(b, ".weight", {l.out_channels, l.in_channels, l.kernel_size[0], l.kernel_size[1]});
    if (l.bias) bias_ = make_param(b, ".bias", {l.out_channels});
    allocate_batch_buffers();
  }

  float* forward(float* x, std::int64_t n, bool /*training*/) override {
    return dnnl_guard(b_.name + " forward", [&] {
      auto& p = prims(n);
      return forward_weighted(p, x, weights_for(p.fwd_wei), bias_);
    });
  }

  float* backward(float* dy, std::int64_t n, bool need_dx) override {
    return dnnl_guard(b_.name + " backward", [&]() -> float* {
      auto& p = prims(n);
      memory dy_m = wrap(p.dst, ctx_, dy);
      memory grad_plain = wrap(p.plain_wei, ctx_, weight_.grad.data());
      memory grad = p.bwd_w_wei.direct() ? grad_plain : wrap(p.bwd_w_wei.md, ctx_, p.bwd_w_wei.buf.data());
      backward_weights(p, dy_m, grad, bias_);
      if (!p.bwd_w_wei.direct()) reorder_now(ctx_, p.bwd_w_wei.re, grad, grad_plain);
      return backward_data(p, dy_m, need_dx, [&] { return weights_for(p.bwd_d_wei); });
    });
  }

  std::vector<LayerTensor*> params() override { return weight_and_bias(weight_, bias_); }

 private:
  /// The current weights in slot's format (reordered from the oihw parameter when needed).
  memory weights_for(WeightSlot& slot) {
    memory plain = wrap(prims_plain_wei_, ctx_, weight_.value.data());
    if (slot.direct()) return plain;
    memory m = wrap(slot.md, ctx_, slot.buf.data());
    reorder_now(ctx_, slot.re, plain, m);
    return m;
  }

  ConvPrims make_prims(std::int64_t n) override {
    const LayerSpec& l = *b_.spec;
    ConvPrims p;
    p.src = act_md(n, b_.input);
    p.dst = act_md(n, b_.output);
    p.plain_wei = prims_plain_wei_ = plain_md(weight_.value.shape(), tag::oihw);
    const memory::desc any_wei(p.plain_wei.dims(), memory::data_type::f32, tag::any);
    p.bias = plain_md({l.out_channels}, tag::x);
    const memory::desc no_bias;
    const memory::desc& bias = bias_.value.defined() ? p.bias : no_bias;
    const memory::dims strides{l.stride[0], l.stride[1]}, pad{l.padding[0], l.padding[1]};
    const auto alg = algorithm::convolution_direct;
    dnnl::convolution_forward::primitive_desc fwd_pd(
        dnnl::convolution_forward::desc(prop_kind::forward_training, alg, p.src, any_wei, bias, p.dst, strides, pad, pad),
        ctx_.engine);
    dnnl::convolution_backward_data::primitive_desc bd_pd(
        dnnl::convolution_backward_data::desc(alg, p.src, any_wei, p.dst, strides, pad, pad), ctx_.engine, fwd_pd);
    dnnl::convolution_backward_weights::primitive_desc bw_pd(
        dnnl::convolution_backward_weights::desc(alg, p.src, any_wei, bias, p.dst, strides, pad, pad), ctx_.engine,
        fwd_pd);
    p.fwd_wei = weight_slot(fwd_pd.weights_desc(), p.plain_wei, true, b_, MemoryCategory::workspace);
    p.bwd_d_wei = weight_slot(bd_pd.weights_desc(), p.plain_wei, true, b_, MemoryCategory::workspace);
    p.bwd_w_wei = weight_slot(bw_pd.diff_weights_desc(), p.plain_wei, false, b_, MemoryCategory::workspace);
    p.fwd = dnnl::convolution_forward(fwd_pd);
    p.bwd_data = dnnl::convolution_backward_data(bd_pd);
    p.bwd_weights = dnnl::convolution_backward_weights(bw_pd);
    return p;
  }

  LayerTensor weight_, bias_;
  memory::desc prims_plain_wei_;
};

// ---- Linear -------------------------------------------------------------------------------------

struct LinearPrims {
  memory::desc src, wei, bias, dst;
  dnnl::inner_product_forward fwd;
  dnnl::inner_product_backward_data bwd_data;
  dnnl::inner_product_backward_weights bwd_weights;
};

class LinearLayer final : public DnnlLayer<LinearPrims> {
 public:
  explicit LinearLayer(const LayerBuild& b) : DnnlLayer(b) {
    const LayerSpec& l = *b.spec;
    weight_ = make_param(b, ".weight", {l.out_features, l.in_features});
    weight_.transposed = true;  // stored [in, out]: oneDNN's "io" format
    if (l.bias) bias_ = make_param(b, ".bias", {l.out_features});
    allocate_batch_buffers();
  }

  float* forward(float* x, std::int64_t n, bool /*training*/) override {
    return dnnl_guard(b_.name + " forward", [&] {
      auto& p = prims(n);
      return forward_weighted(p, x, wrap(p.wei, ctx_, weight_.value.data()), bias_);
    });
  }

  float* backward(float* dy, std::int64_t n, bool need_dx) override {
    return dnnl_guard(b_.name + " backward", [&]() -> float* {
      auto& p = prims(n);
      memory dy_m = wrap(p.dst, ctx_, dy);
      backward_weights(p, dy_m, wrap(p.wei, ctx_, weight_.grad.data()), bias_);
      return backward_data(p, dy_m, need_dx, [&] { return wrap(p.wei, ctx_, weight_.value.data()); });
    });
  }

  std::vector<LayerTensor*> params() override { return weight_and_bias(weight_, bias_); }

 private:
  LinearPrims make_prims(std::int64_t n) override {
    const LayerSpec& l = *b_.spec;
    LinearPrims p;
    p.src = plain_md({n, l.in_features}, tag::nc);
    p.dst = plain_md({n, l.out_features}, tag::nc);
    p.wei = plain_md({l.out_features, l.in_features}, tag::io);
    p.bias = plain_md({l.out_features}, tag::x);
    const bool has_bias = bias_.value.defined();
    auto fwd_d = has_bias ? dnnl::inner_product_forward::desc(prop_kind::forward_training, p.src, p.wei, p.bias, p.dst)
                          : dnnl::inner_product_forward::desc(prop_kind::forward_training, p.src, p.wei, p.dst);
    dnnl::inner_product_forward::primitive_desc fwd_pd(fwd_d, ctx_.engine);
    dnnl::inner_product_backward_data::desc bd_d(p.src, p.wei, p.dst);
    dnnl::inner_product_backward_data::primitive_desc bd_pd(bd_d, ctx_.engine, fwd_pd);
    auto bw_d = has_bias ? dnnl::inner_product_backward_weights::desc(p.src, p.wei, p.bias, p.dst)
                         : dnnl::inner_product_backward_weights::desc(p.src, p.wei, p.dst);
    dnnl::inner_product_backward_weights::primitive_desc bw_pd(bw_d, ctx_.engine, fwd_pd);
    p.fwd = dnnl::inner_product_forward(fwd_pd);
    p.bwd_data = dnnl::inner_product_backward_data(bd_pd);
    p.bwd_weights = dnnl::inner_product_backward_weights(bw_pd);
    return p;
  }

  LayerTensor weight_, bias_;
};

}  // namespace

std::unique_ptr<CpuLayer> make_conv2d_layer(const LayerBuild& b) { return std::make_unique<Conv2dLayer>(b); }
std::unique_ptr<CpuLayer> make_linear_layer(const LayerBuild& b) { return std::make_unique<LinearLayer>(b); }

}  // namespace ts::cpu
