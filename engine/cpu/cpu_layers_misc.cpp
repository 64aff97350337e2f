// ReLU and average pooling (count_include_pad, and adaptive 1x1 as a whole-plane window) on oneDNN
// primitives cached per batch size. Also the oneDNN context and the layer factory.
#include <map>

#include "engine/cpu/cpu_dnnl.h"

namespace ts::cpu {

std::shared_ptr<DnnlContext> make_dnnl_context() {
  return dnnl_guard("engine creation", [] { return std::make_shared<DnnlContext>(); });
}

std::string dnnl_version_string() {
  const dnnl_version_t* v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

namespace {

using dnnl::algorithm;
using dnnl::prop_kind;

// ---- ReLU ---------------------------------------------------------------------------------------

struct ReluPrims {
  memory::desc md;
  dnnl::eltwise_forward fwd;
  dnnl::eltwise_backward bwd;
};

class ReluLayer final : public DnnlLayer<ReluPrims> {
 public:
  explicit ReluLayer(const LayerBuild& b) : DnnlLayer(b) { allocate_batch_buffers(); }
  float* forward(float* x, std::int64_t n, bool) override {
    return dnnl_guard(b_.name + " forward", [&] {
      auto& p = prims(n);
      x_ = x;
      run(p.fwd, {{DNNL_ARG_SRC, wrap(p.md, ctx_, x)}, {DNNL_ARG_DST, wrap(p.md, ctx_, y_.data())}});
      return y_.data_as<float>();
    });
  }
  float* backward(float* dy, std::int64_t n, bool need_dx) override {
    if (!need_dx) return nullptr;
    return dnnl_guard(b_.name + " backward", [&] {
      auto& p = prims(n);
      run(p.bwd, {{DNNL_ARG_SRC, wrap(p.md, ctx_, x_)},
                  {DNNL_ARG_DIFF_DST, wrap(p.md, ctx_, dy)},
                  {DNNL_ARG_DIFF_SRC, wrap(p.md, ctx_, dx_.data())}});
      return dx_.data_as<float>();
    });
  }

 private:
  ReluPrims make_prims(std::int64_t n) override {
    ReluPrims p;
    p.md = dense_md(batch_dims(n, b_.input));
    dnnl::eltwise_forward::primitive_desc fwd_pd(
        dnnl::eltwise_forward::desc(prop_kind::forward_training, algorithm::eltwise_relu, p.md, 0.f), ctx_.engine);
    dnnl::eltwise_backward::primitive_desc bwd_pd(
        dnnl::eltwise_backward::desc(algorithm::eltwise_relu, p.md, p.md, 0.f), ctx_.engine, fwd_pd);
    p.fwd = dnnl::eltwise_forward(fwd_pd);
    p.bwd = dnnl::eltwise_backward(bwd_pd);
    return p;
  }
};

// ---- Pooling ------------------------------------------------------------------------------------

struct PoolPrims {
  memory::desc src, dst;
  DnnlWorkspace workspace;
  dnnl::pooling_forward fwd;
  dnnl::pooling_backward bwd;
};

class PoolLayer final : public DnnlLayer<PoolPrims> {
 public:
  explicit PoolLayer(const LayerBuild& b) : DnnlLayer(b) {
    const LayerSpec& l = *b.spec;
    if (l.type == LayerType::AdaptiveAvgPool2d) {
      alg_ = algorithm::pooling_avg_exclude_padding;
      kernel_ = {b.input[1], b.input[2]};
      strides_ = {1, 1};
      pad_ = {0, 0};
    } else {
      alg_ = algorithm::pooling_avg_include_padding;  // PyTorch's count_include_pad=True
      kernel_ = {l.kernel_size[0], l.kernel_size[1]};
      strides_ = {l.stride[0], l.stride[1]};
      pad_ = {l.padding[0], l.padding[1]};
    }
    allocate_batch_buffers();
  }
  float* forward(float* x, std::int64_t n, bool) override {
    return dnnl_guard(b_.name + " forward", [&] {
      auto& p = prims(n);
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, wrap(p.src, ctx_, x)},
                                           {DNNL_ARG_DST, wrap(p.dst, ctx_, y_.data())}};
      p.workspace.add_to(args, ctx_);
      run(p.fwd, args);
      return y_.data_as<float>();
    });
  }
  float* backward(float* dy, std::int64_t n, bool need_dx) override {
    if (!need_dx) return nullptr;
    return dnnl_guard(b_.name + " backward", [&] {
      auto& p = prims(n);
      std::unordered_map<int, memory> args{{DNNL_ARG_DIFF_DST, wrap(p.dst, ctx_, dy)},
                                           {DNNL_ARG_DIFF_SRC, wrap(p.src, ctx_, dx_.data())}};
      p.workspace.add_to(args, ctx_);
      run(p.bwd, args);
      return dx_.data_as<float>();
    });
  }

 private:
  PoolPrims make_prims(std::int64_t n) override {
    PoolPrims p;
    p.src = act_md(n, b_.input);
    p.dst = act_md(n, b_.output);
    dnnl::pooling_forward::primitive_desc fwd_pd(
        dnnl::pooling_forward::desc(prop_kind::forward_training, alg_, p.src, p.dst, strides_, kernel_, pad_, pad_),
        ctx_.engine);
    dnnl::pooling_backward::primitive_desc bwd_pd(
        dnnl::pooling_backward::desc(alg_, p.src, p.dst, strides_, kernel_, pad_, pad_), ctx_.engine, fwd_pd);
    p.workspace.allocate(fwd_pd.workspace_desc(), b_);
    p.fwd = dnnl::pooling_forward(fwd_pd);
    p.bwd = dnnl::pooling_backward(bwd_pd);
    return p;
  }
  algorithm alg_;
  memory::dims kernel_, strides_, pad_;
};

}  // namespace

std::unique_ptr<CpuLayer> make_relu_layer(const LayerBuild& b) { return std::make_unique<ReluLayer>(b); }
std::unique_ptr<CpuLayer> make_pool_layer(const LayerBuild& b) { return std::make_unique<PoolLayer>(b); }

std::unique_ptr<CpuLayer> make_cpu_layer(const LayerBuild& b) {
  switch (b.spec->type) {
    case LayerType::Conv2d: return make_conv2d_layer(b);
    case LayerType::Linear: return make_linear_layer(b);
    case LayerType::ReLU: return make_relu_layer(b);
    case LayerType::MaxPool2d: return make_maxpool_layer(b);
    case LayerType::AvgPool2d:
    case LayerType::AdaptiveAvgPool2d: return make_pool_layer(b);
    case LayerType::BatchNorm2d: return make_batchnorm_layer(b);
    case LayerType::Dropout: return make_dropout_layer(b);
    case LayerType::Flatten: return make_flatten_layer(b);
  }
  throw InputError("layer " + std::to_string(b.index) + ": unsupported layer type");
}

}  // namespace ts::cpu
