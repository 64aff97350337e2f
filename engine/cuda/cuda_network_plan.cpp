// CudaNetwork's plan: the spec's layers -> ops with fused tails (a 2x2 max pool after Conv2d -> ReLU
// included, engine/pool_fusion.h), per-op geometry and the flat parameter layout (PyTorch's
// named_parameters() order). Shape checks here name the layer, its type and the expected vs given
// size (ModelSpecError).
#include <algorithm>
#include <string>

#include "base/errors.h"
#include "engine/cuda/cuda_network.h"
#include "engine/pool_fusion.h"

namespace ts::cuda {
namespace {

constexpr std::int64_t kAlignFloats = 64;  // 256-byte alignment of every tensor in the flat buffers

std::int64_t align_up(std::int64_t v) { return (v + kAlignFloats - 1) / kAlignFloats * kAlignFloats; }

std::int64_t pool_out(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t p) {
  return s > 0 ? (in + 2 * p - k) / s + 1 : 0;
}

}  // namespace

void CudaNetwork::add_params(Op& op, const LayerSpec& l, const std::string& name) {
  auto add = [&](std::vector<ParamEntry>& list, std::int64_t& count, const char* suffix, Shape shape) {
    std::int64_t off = count;
    list.push_back({name + "." + suffix, shape, off});
    count = align_up(count + numel(shape));
    return off;
  };
  switch (l.type) {
    case LayerType::Conv2d:
      op.w_off = add(param_entries_, param_count_, "weight",
                     {l.out_channels, l.in_channels, l.kernel_size[0], l.kernel_size[1]});
      if (l.bias) op.b_off = add(param_entries_, param_count_, "bias", {l.out_channels});
      break;
    case LayerType::Linear:
      op.w_off = add(param_entries_, param_count_, "weight", {l.out_features, l.in_features});
      if (l.bias) op.b_off = add(param_entries_, param_count_, "bias", {l.out_features});
      break;
    case LayerType::BatchNorm2d:
      op.w_off = add(param_entries_, param_count_, "weight", {l.num_features});
      op.beta_off = add(param_entries_, param_count_, "bias", {l.num_features});
      op.rm_off = add(buffer_entries_, buffer_count_, "running_mean", {l.num_features});
      op.rv_off = add(buffer_entries_, buffer_count_, "running_var", {l.num_features});
      break;
    default: break;
  }
}

void CudaNetwork::build_plan() {
  if (spec_.layers.empty()) throw ModelSpecError(-1, "", "the model has no layers");
  Shape shape = spec_.input;
  int tail = -1;  // index in ops_ of the op that can absorb a following ReLU / Dropout
  for (std::size_t i = 0; i < spec_.layers.size(); ++i) {
    const LayerSpec& l = spec_.layers[i];
    const std::string type = layer_type_name(l.type);
    const std::string name = l.name.empty() ? std::to_string(i) : l.name;
    const std::string where = "layer " + std::to_string(i) + " (" + type + ")";
    auto fail = [&](const std::string& msg) { throw ModelSpecError(static_cast<int>(i), type, where + ": " + msg); };
    auto need_chw = [&] {
      if (shape.size() != 3) fail("expects a [C, H, W] input but its input is " + shape_string(shape));
    };
    Op op;
    op.layer = static_cast<int>(i);
    op.label = "layer " + std::to_string(i) + " (" + type + (l.name.empty() ? "" : " " + l.name) + ")";
    op.in_shape = shape;
    switch (l.type) {
      case LayerType::Conv2d: {
        need_chw();
        if (shape[0] != l.in_channels)
          fail("in_channels is " + std::to_string(l.in_channels) + " but its input has " + std::to_string(shape[0]) +
               " channels");
        ConvShape cs{shape[0], shape[1], shape[2], l.out_channels, l.kernel_size[0], l.kernel_size[1],
                     l.stride[0], l.stride[1], l.padding[0], l.padding[1], 0, 0};
        cs.h_out = pool_out(cs.h, cs.kh, cs.sh, cs.ph);
        cs.w_out = pool_out(cs.w, cs.kw, cs.sw, cs.pw);
        if (cs.h_out <= 0 || cs.w_out <= 0 || l.out_channels <= 0)
          fail("its output would be empty for input " + shape_string(shape));
        op.kind = OpKind::conv;
        op.conv = std::make_unique<ConvLayer>(cs, options_.allow_tf32, options_.deterministic, true, op.label, act_);
        op.conv->set_replayed(graph_steps());
        shape = {cs.c_out, cs.h_out, cs.w_out};
        op.channels = cs.c_out, op.hw = cs.h_out * cs.w_out;
        break;
      }
      case LayerType::Linear: {
        if (shape.empty() || shape.back() != l.in_features)
          fail("in_features is " + std::to_string(l.in_features) + " but its input has " +
               std::to_string(shape.empty() ? 0 : shape.back()) + " features");
        op.kind = OpKind::linear;
        op.in_features = l.in_features, op.out_features = l.out_features;
        shape.back() = l.out_features;
        op.channels = l.out_features, op.hw = 1;
        break;
      }
      case LayerType::BatchNorm2d:
        need_chw();
        if (shape[0] != l.num_features)
          fail("num_features is " + std::to_string(l.num_features) + " but its input has " +
               std::to_string(shape[0]) + " channels");
        op.kind = OpKind::batchnorm;
        op.bn = std::make_unique<BatchNormLayer>(shape[0], shape[1], shape[2], l.eps, l.momentum, act_);
        op.channels = shape[0], op.hw = shape[1] * shape[2];
        break;
      case LayerType::MaxPool2d:
      case LayerType::AvgPool2d:
      case LayerType::AdaptiveAvgPool2d: {
        need_chw();
        if (options_.fused_pool && fuses_max_pool(spec_, i, shape)) {
          // Conv2d -> ReLU -> this pool: the ReLU is already in the convolution's tail, the pool joins it.
          Op& t = ops_.back();
          if (tail != static_cast<int>(ops_.size()) - 1 || t.kind != OpKind::conv || !t.relu || t.dropout)
            fail("the convolution before it should end in a ReLU alone (internal error of the plan)");
          t.pool_layer = static_cast<int>(i);
          t.conv_shape = shape;
          shape = {shape[0], shape[1] / 2, shape[2] / 2};
          t.out_shape = shape;
          tail = -1;  // as after any pool: a ReLU or Dropout after it is a standalone op
          continue;
        }
        PoolShape ps{shape[0], shape[1], shape[2], l.kernel_size[0], l.kernel_size[1], l.stride[0], l.stride[1],
                     l.padding[0], l.padding[1], 0, 0};
        if (l.type == LayerType::AdaptiveAvgPool2d) {
          if (l.output_size[0] != 1 || l.output_size[1] != 1) fail("only output_size 1 is supported");
          ps = PoolShape{shape[0], shape[1], shape[2], shape[1], shape[2], shape[1], shape[2], 0, 0, 0, 0};
        }
        ps.h_out = pool_out(ps.h, ps.kh, ps.sh, ps.ph);
        ps.w_out = pool_out(ps.w, ps.kw, ps.sw, ps.pw);
        if (ps.h_out <= 0 || ps.w_out <= 0) fail("its output would be empty for input " + shape_string(shape));
        op.kind = OpKind::pool;
        op.pool = std::make_unique<PoolLayer>(l.type == LayerType::MaxPool2d ? PoolMode::max : PoolMode::average, ps,
                                              options_.deterministic, act_);
        shape = {ps.c, ps.h_out, ps.w_out};
        op.out_shape = shape;
        ops_.push_back(std::move(op));
        tail = -1;  // max-pool backward needs its raw output: nothing is fused into it
        continue;
      }
      case LayerType::Flatten: {
        std::int64_t d = l.start_dim - 1;  // start_dim counts the batch dimension
        if (d < 0 || d >= static_cast<std::int64_t>(shape.size()))
          fail("start_dim " + std::to_string(l.start_dim) + " is out of range for input " + shape_string(shape));
        Shape merged(shape.begin(), shape.begin() + d);
        merged.push_back(numel(Shape(shape.begin() + d, shape.end())));
        shape = merged;
        if (!ops_.empty()) ops_.back().out_shape = shape;  // a view of the previous op's output
        continue;
      }
      case LayerType::ReLU:
      case LayerType::Dropout: {
        bool relu = l.type == LayerType::ReLU;
        if (!relu && (l.p < 0 || l.p > 1)) fail("p must be in [0, 1]");
        if (tail >= 0 && (relu ? !ops_[tail].relu && !ops_[tail].dropout : !ops_[tail].dropout)) {
          Op& t = ops_[tail];
          if (relu) t.relu = true;
          else t.dropout = true, t.dropout_p = static_cast<float>(l.p), t.dropout_layer = static_cast<int>(i);
          continue;
        }
        op.kind = OpKind::pointwise;
        op.relu = relu;
        if (!relu) op.dropout = true, op.dropout_p = static_cast<float>(l.p), op.dropout_layer = static_cast<int>(i);
        op.channels = 1, op.hw = numel(shape);
        break;
      }
    }
    add_params(op, l, name);
    op.out_shape = shape;
    op.rows_per_sample = numel(shape) / (op.channels * op.hw);
    ops_.push_back(std::move(op));
    tail = static_cast<int>(ops_.size()) - 1;
  }
  for (const Op& op : ops_)
    max_activation_ = std::max({max_activation_, numel(op.in_shape), numel(op.out_shape),
                                op.fused_pool() ? numel(op.conv_shape) : 0});
}

}  // namespace ts::cuda
