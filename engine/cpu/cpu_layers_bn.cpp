// BatchNorm2d on oneDNN's batch_normalization primitives (use_scale | use_shift; eval mode adds
// use_global_stats). oneDNN returns the batch mean and biased variance; the running statistics are
// updated here as torch.nn.BatchNorm2d does: running = (1 - momentum) * running + momentum * stat,
// with the unbiased variance var * M / (M - 1), M = N*H*W.
#include <map>

#include "engine/cpu/cpu_dnnl.h"

namespace ts::cpu {
namespace {

using dnnl::prop_kind;
using flags = dnnl::normalization_flags;

struct BatchNormPrims {
  memory::desc md;
  DnnlWorkspace workspace;
  dnnl::batch_normalization_forward fwd_train, fwd_eval;
  dnnl::batch_normalization_backward bwd;
};

class BatchNormLayer final : public DnnlLayer<BatchNormPrims> {
 public:
  explicit BatchNormLayer(const LayerBuild& b) : DnnlLayer(b), channels_(b.spec->num_features) {
    const Shape c{channels_};
    for (auto* t : {&weight_, &bias_}) {
      t->value = Tensor(*b.alloc, DType::f32, c, MemoryCategory::weights);
      t->grad = Tensor(*b.alloc, DType::f32, c, MemoryCategory::gradients);
    }
    weight_.name = b.name + ".weight";
    bias_.name = b.name + ".bias";
    running_mean_.name = b.name + ".running_mean";
    running_var_.name = b.name + ".running_var";
    running_mean_.value = Tensor(*b.alloc, DType::f32, c, MemoryCategory::weights);
    running_var_.value = Tensor(*b.alloc, DType::f32, c, MemoryCategory::weights);
    mean_ = Tensor(*b.alloc, DType::f32, c, MemoryCategory::workspace);
    var_ = Tensor(*b.alloc, DType::f32, c, MemoryCategory::workspace);
    allocate_batch_buffers();
  }

  float* forward(float* x, std::int64_t n, bool training) override {
    return dnnl_guard(b_.name + " forward", [&] {
      auto& p = prims(n);
      x_ = x;
      const memory::desc c_md = plain_md({channels_}, tag::x);
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, wrap(p.md, ctx_, x)},
                                           {DNNL_ARG_DST, wrap(p.md, ctx_, y_.data())},
                                           {DNNL_ARG_SCALE, wrap(c_md, ctx_, weight_.value.data())},
                                           {DNNL_ARG_SHIFT, wrap(c_md, ctx_, bias_.value.data())}};
      if (training) {
        args.emplace(DNNL_ARG_MEAN, wrap(c_md, ctx_, mean_.data()));
        args.emplace(DNNL_ARG_VARIANCE, wrap(c_md, ctx_, var_.data()));
        p.workspace.add_to(args, ctx_);
        p.fwd_train.execute(ctx_.stream, args);
      } else {
        args.emplace(DNNL_ARG_MEAN, wrap(c_md, ctx_, running_mean_.value.data()));
        args.emplace(DNNL_ARG_VARIANCE, wrap(c_md, ctx_, running_var_.value.data()));
        p.fwd_eval.execute(ctx_.stream, args);
      }
      ctx_.stream.wait();
      if (training) update_running_stats(n);
      return y_.data_as<float>();
    });
  }

  float* backward(float* dy, std::int64_t n, bool need_dx) override {
    return dnnl_guard(b_.name + " backward", [&]() -> float* {
      auto& p = prims(n);
      const memory::desc c_md = plain_md({channels_}, tag::x);
      // oneDNN 2.6's backward with use_shift also reads DNNL_ARG_SHIFT (execute fails without it).
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, wrap(p.md, ctx_, x_)},
                                           {DNNL_ARG_MEAN, wrap(c_md, ctx_, mean_.data())},
                                           {DNNL_ARG_VARIANCE, wrap(c_md, ctx_, var_.data())},
                                           {DNNL_ARG_DIFF_DST, wrap(p.md, ctx_, dy)},
                                           {DNNL_ARG_SCALE, wrap(c_md, ctx_, weight_.value.data())},
                                           {DNNL_ARG_SHIFT, wrap(c_md, ctx_, bias_.value.data())},
                                           {DNNL_ARG_DIFF_SRC, wrap(p.md, ctx_, dx_.data())},
                                           {DNNL_ARG_DIFF_SCALE, wrap(c_md, ctx_, weight_.grad.data())},
                                           {DNNL_ARG_DIFF_SHIFT, wrap(c_md, ctx_, bias_.grad.data())}};
      p.workspace.add_to(args, ctx_);
      run(p.bwd, args);
      return need_dx ? dx_.data_as<float>() : nullptr;
    });
  }

  std::vector<LayerTensor*> params() override { return {&weight_, &bias_}; }
  std::vector<LayerTensor*> buffers() override { return {&running_mean_, &running_var_}; }

 private:
  BatchNormPrims make_prims(std::int64_t n) override {
    const float eps = static_cast<float>(b_.spec->eps);
    const flags ss = flags::use_scale | flags::use_shift;
    BatchNormPrims p;
    p.md = act_md(n, b_.input);
    dnnl::batch_normalization_forward::primitive_desc train_pd(
        dnnl::batch_normalization_forward::desc(prop_kind::forward_training, p.md, eps, ss), ctx_.engine);
    dnnl::batch_normalization_forward::primitive_desc eval_pd(
        dnnl::batch_normalization_forward::desc(prop_kind::forward_inference, p.md, eps, ss | flags::use_global_stats),
        ctx_.engine);
    dnnl::batch_normalization_backward::primitive_desc bwd_pd(
        dnnl::batch_normalization_backward::desc(prop_kind::backward, p.md, p.md, eps, ss), ctx_.engine, train_pd);
    p.workspace.allocate(train_pd.workspace_desc(), b_);
    p.fwd_train = dnnl::batch_normalization_forward(train_pd);
    p.fwd_eval = dnnl::batch_normalization_forward(eval_pd);
    p.bwd = dnnl::batch_normalization_backward(bwd_pd);
    return p;
  }

  void update_running_stats(std::int64_t n) {
    const double m = b_.spec->momentum;
    const double count = static_cast<double>(n * b_.input[1] * b_.input[2]);
    const double unbias = count > 1 ? count / (count - 1) : 1.0;
    float* rm = running_mean_.value.data_as<float>();
    float* rv = running_var_.value.data_as<float>();
    const float* bm = mean_.data_as<float>();
    const float* bv = var_.data_as<float>();
    for (std::int64_t c = 0; c < channels_; ++c) {
      rm[c] = static_cast<float>((1 - m) * rm[c] + m * bm[c]);
      rv[c] = static_cast<float>((1 - m) * rv[c] + m * bv[c] * unbias);
    }
  }

  std::int64_t channels_;
  LayerTensor weight_, bias_, running_mean_, running_var_;
  Tensor mean_, var_;  // batch statistics of the last training forward (biased variance)
};

}  // namespace

std::unique_ptr<CpuLayer> make_batchnorm_layer(const LayerBuild& b) { return std::make_unique<BatchNormLayer>(b); }

}  // namespace ts::cpu
