// CpuNetwork: the Network interface on the host, with oneDNN primitives for the layers
// (cpu_layers.h) and host loops for normalisation, cross-entropy and the optimizer (cpu_ops.h).
// Everything is synchronous: train_step returns when the step is done, so last_loss() never waits.
// Memory comes from make_host_allocator(options.memory_limit_bytes) with a MemoryCategory per buffer;
// buffers are sized for max_batch_size once, primitives are created once per (layer, batch size), so
// under a cap an OutOfMemoryError can come from the constructor or from the first step of a new
// batch size (the trainer adds the advice: engine/memory_fit.h).
// Dropout masks are keyed by dropout_key(seed, step, layer index) with step = train steps (micro-
// batches) taken so far (0 in the first train_step), the same key the CUDA backend uses; without
// gradient accumulation that is also the number of optimizer steps. Gradient accumulation keeps a
// per-parameter sum of the micro-batches' gradients (category gradients, only when accumulate > 1).
// AMP is refused by make_network (cpu_amp_support), so everything here is fp32.
// Signals: no signal handler may run on the thread that calls this network or on its OpenMP
// workers. oneDNN 2.6's inner product keeps live data below the stack pointer past the red zone, and
// a handler's frame overwrote it and corrupted the heap. Front ends block the signals
// they handle in every thread and take them on one thread with sigwait() (app/runner/main.cpp).
#include <algorithm>
#include <cstring>
#include <utility>

#include "base/errors.h"
#include "base/printable.h"
#include "engine/cpu/cpu_layers.h"
#include "engine/cpu/cpu_ops.h"
#include "engine/host_trace.h"
#include "engine/network.h"

namespace ts {
namespace cpu {
namespace {

// Optimizer state of one parameter: SGD's momentum buffer, or Adam's m and v.
struct ParamState {
  LayerTensor* param = nullptr;
  Tensor state0, state1;
  Tensor accum;  // sum of pending micro-batches' gradients (accumulate > 1)
};

ModelSpec with_layer_names(ModelSpec spec) {
  for (std::size_t i = 0; i < spec.layers.size(); ++i)
    if (spec.layers[i].name.empty()) spec.layers[i].name = std::to_string(i);
  return spec;
}

// Copies between the API's NCHW order and the backend's storage (NHWC for [C, H, W] samples).
void to_storage(const float* src, float* dst, std::int64_t n, const Shape& per_sample) {
  if (per_sample.size() == 3) return nchw_to_nhwc(src, dst, n, per_sample[0], per_sample[1] * per_sample[2]);
  std::memcpy(dst, src, static_cast<std::size_t>(n * numel(per_sample)) * sizeof(float));
}
void from_storage(const float* src, float* dst, std::int64_t n, const Shape& per_sample) {
  if (per_sample.size() == 3) return nhwc_to_nchw(src, dst, n, per_sample[0], per_sample[1] * per_sample[2]);
  std::memcpy(dst, src, static_cast<std::size_t>(n * numel(per_sample)) * sizeof(float));
}

/// Copies a tensor of `shape`; when `transpose` (2-D), writes it transposed.
void copy_layout(const float* src, float* dst, const Shape& shape, bool transpose) {
  if (!transpose) return static_cast<void>(std::memcpy(dst, src, static_cast<std::size_t>(numel(shape)) * sizeof(float)));
  const std::int64_t rows = shape[0], cols = shape[1];
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) dst[c * rows + r] = src[r * cols + c];
}

Shape with_batch(std::int64_t n, const Shape& per_sample) {
  Shape s{n};
  s.insert(s.end(), per_sample.begin(), per_sample.end());
  return s;
}

class CpuNetwork final : public Network {
 public:
  CpuNetwork(const ModelSpec& spec, const NetworkOptions& options)
      : spec_(with_layer_names(spec)), options_(options), alloc_(make_host_allocator(options.memory_limit_bytes)) {
    if (options.max_batch_size <= 0)
      throw InputError("batch size must be > 0, got " + std::to_string(options.max_batch_size));
    shapes_ = infer_shapes(spec_, 0);  // any output shape is allowed on the test path
    set_compute_threads(options.cpu_threads);
    state_.seed = options.seed;
    dnnl_ = make_dnnl_context();
    build_layers();
    input_ = Tensor(*alloc_, DType::f32, with_batch(options.max_batch_size, spec_.input), MemoryCategory::input_batches);
    grad_out_ = Tensor(*alloc_, DType::f32, with_batch(options.max_batch_size, shapes_.back().output),
                       MemoryCategory::activations);
    set_parameters(initial_parameters(spec_, options.seed));
    set_parameters(initial_buffers(spec_));
  }

  DeviceInfo device_info() const override {
    DeviceInfo d;
    d.device = Device::cpu;
    d.name = cpu_model_name();
    d.cpu_threads = compute_threads();
    d.library_versions = dnnl_version_string();
    return d;
  }
  const ModelSpec& spec() const override { return spec_; }

  void train_step(const Batch& batch) override {
    const std::int64_t n = check_batch(batch);
    {
      trace::ScopedRange r(trace::RangeKind::h2d_copy, "normalise input");
      normalize_images(batch.images, n, options_.normalization, input_.data_as<float>());
    }
    run_forward(n, true);
    const std::int64_t k = classes();
    trace::ScopedRange loss_range(trace::RangeKind::loss, "loss");
    const auto ce = cross_entropy(output_, batch.labels, n, k, grad_out_.data_as<float>());
    if (options_.accumulate > 1) {  // loss / N: the gradient of each micro-batch is divided by N
      const float inv = 1.0f / static_cast<float>(options_.accumulate);
      float* g = grad_out_.data_as<float>();
      for (std::int64_t i = 0; i < n * k; ++i) g[i] *= inv;
    }
    loss_range.close();
    run_backward(n, false);
    trace::ScopedRange opt_range(trace::RangeKind::optimizer, "optimizer");
    accumulate_or_step();
    opt_range.close();
    losses_.push_back(static_cast<float>(ce.loss_sum / static_cast<double>(n)));
    last_loss_ = losses_.back();
  }
  float last_loss() override { return last_loss_; }
  void flush_accumulation() override {
    if (pending_ == 0) return;
    for (auto& s : opt_) std::memcpy(s.param->grad.data(), s.accum.data(), s.accum.bytes());
    apply_update();
  }
  TrainingCounters counters() override {
    TrainingCounters c;
    c.train_steps = state_.step;
    c.optimizer_steps = opt_steps_;
    return c;
  }
  void restore_counters(const TrainingCounters& c) override {
    state_.step = c.train_steps;
    opt_steps_ = c.optimizer_steps;
    pending_ = 0;
  }
  std::vector<NamedTensor> optimizer_state() const override {
    std::vector<NamedTensor> out;
    for (const auto& s : opt_)
      for (const auto& [suffix, t] : state_tensors(s)) {
        HostTensor h(s.param->value.shape());
        const Shape& st = t->shape();
        copy_layout(t->data_as<float>(), h.data.data(), s.param->transposed ? Shape{st[1], st[0]} : st,
                    s.param->transposed);
        out.push_back({s.param->name + suffix, std::move(h)});
      }
    return out;
  }
  void set_optimizer_state(const std::vector<NamedTensor>& tensors) override {
    for (const auto& nt : tensors) {
      bool found = false;
      for (auto& s : opt_)
        for (const auto& [suffix, t] : state_tensors(s)) {
          if (s.param->name + suffix != nt.name) continue;
          if (nt.tensor.shape != s.param->value.shape() || nt.tensor.data.size() != static_cast<std::size_t>(t->numel()))
            throw InputError("optimizer state '" + printable(nt.name) + "' has shape " + shape_string(nt.tensor.shape) +
                             " but the parameter's is " + shape_string(s.param->value.shape()));
          copy_layout(nt.tensor.data.data(), t->data_as<float>(), s.param->value.shape(), s.param->transposed);
          found = true;
        }
      if (!found) throw InputError("the optimizer has no state named '" + printable(nt.name) + "'");
    }
  }
  std::vector<float> drain_step_losses() override { return std::exchange(losses_, {}); }

  void begin_eval() override { eval_ = {}; }
  void eval_batch(const Batch& batch) override {
    const std::int64_t n = check_batch(batch);
    normalize_images(batch.images, n, options_.normalization, input_.data_as<float>());
    run_forward(n, false);
    const auto ce = cross_entropy(output_, batch.labels, n, classes(), nullptr);
    eval_.correct += ce.correct;
    eval_.total += n;
    eval_.loss_sum += ce.loss_sum;
  }
  EvalResult end_eval() override { return eval_; }

  HostBuffer allocate_host(std::size_t bytes, bool /*pinned: plain memory on the CPU backend*/) override {
    std::shared_ptr<Allocator> alloc = alloc_;
    auto block = alloc->allocate(bytes, MemoryCategory::input_batches, "input batches");
    auto* ptr = static_cast<std::uint8_t*>(block->ptr);
    return HostBuffer(ptr, [block, alloc](std::uint8_t*) mutable {
      block.reset();  // before the allocator it returns to
      alloc.reset();
    });
  }
  MemoryStats memory_stats() const override { return alloc_->stats(); }
  void synchronize() override {}

  HostTensor forward(const HostTensor& x, bool training) override {
    const std::int64_t n = check_input(x, spec_.input, "forward input");
    to_storage(x.data.data(), input_.data_as<float>(), n, spec_.input);
    run_forward(n, training);
    HostTensor y(with_batch(n, shapes_.back().output));
    from_storage(output_, y.data.data(), n, shapes_.back().output);
    return y;
  }

  HostTensor backward(const HostTensor& grad_output) override {
    if (last_n_ == 0) throw InputError("backward() needs a forward(training=true) first");
    const std::int64_t n = check_input(grad_output, shapes_.back().output, "backward grad_output");
    if (n != last_n_)
      throw InputError("backward grad_output has batch " + std::to_string(n) + " but the last forward had " +
                       std::to_string(last_n_));
    to_storage(grad_output.data.data(), grad_out_.data_as<float>(), n, shapes_.back().output);
    const float* dx = run_backward(n, true);
    HostTensor out(with_batch(n, spec_.input));
    from_storage(dx, out.data.data(), n, spec_.input);
    return out;
  }

  float forward_backward_loss(const HostTensor& x, const std::vector<std::int32_t>& labels,
                              HostTensor* logits) override {
    const std::int64_t n = check_input(x, spec_.input, "forward input");
    if (static_cast<std::int64_t>(labels.size()) != n)
      throw InputError(std::to_string(labels.size()) + " labels for a batch of " + std::to_string(n));
    to_storage(x.data.data(), input_.data_as<float>(), n, spec_.input);
    run_forward(n, true);
    const auto ce = cross_entropy(output_, labels.data(), n, classes(), grad_out_.data_as<float>());
    if (logits) {
      *logits = HostTensor(with_batch(n, shapes_.back().output));
      std::memcpy(logits->data.data(), output_, logits->data.size() * sizeof(float));
    }
    run_backward(n, false);
    return static_cast<float>(ce.loss_sum / static_cast<double>(n));
  }

  void optimizer_step() override {
    update_parameters();
    ++state_.step;
  }

  std::vector<NamedTensor> parameters() const override { return to_named(params_, false); }
  std::vector<NamedTensor> gradients() const override { return to_named(params_, true); }
  std::vector<NamedTensor> buffers() const override { return to_named(buffers_, false); }

  void set_parameters(const std::vector<NamedTensor>& tensors) override {
    for (const auto& t : tensors) {
      LayerTensor* dst = find(t.name);
      if (!dst) throw InputError("the model has no parameter or buffer named '" + printable(t.name) + "'");
      if (dst->value.shape() != t.tensor.shape || t.tensor.data.size() != static_cast<std::size_t>(dst->value.numel()))
        throw InputError("'" + printable(t.name) + "' has shape " + shape_string(dst->value.shape()) + " but " +
                         shape_string(t.tensor.shape) + " was given");
      copy_layout(t.tensor.data.data(), dst->value.data_as<float>(), dst->value.shape(), dst->transposed);
    }
  }
  void set_dropout_enabled(bool enabled) override { state_.dropout_enabled = enabled; }

 private:
  void build_layers() {
    for (std::size_t i = 0; i < spec_.layers.size(); ++i) {
      LayerBuild b;
      b.spec = &spec_.layers[i];
      b.name = spec_.layers[i].name;
      b.index = i;
      b.input = shapes_[i].input;
      b.output = shapes_[i].output;
      b.max_batch = options_.max_batch_size;
      b.alloc = alloc_.get();
      b.dnnl = dnnl_;
      b.state = &state_;
      layers_.push_back(make_cpu_layer(b));
      labels_.push_back("layer " + std::to_string(i) + " (" + layer_type_name(spec_.layers[i].type) +
                        (spec_.layers[i].name.empty() ? "" : " " + spec_.layers[i].name) + ")");
      for (LayerTensor* p : layers_.back()->params()) {
        std::memset(p->grad.data(), 0, p->grad.bytes());
        params_.push_back(p);
        opt_.push_back(make_state(p));
      }
      for (LayerTensor* p : layers_.back()->buffers()) buffers_.push_back(p);
    }
  }

  /// One optimizer update with the gradients in p.grad (Adam's t = updates so far + 1).
  void update_parameters() {
    const std::int64_t t = opt_steps_ + 1;  // PyTorch's step count, 1 on the first update
    for (auto& s : opt_) {
      LayerTensor& p = *s.param;
      optimizer_update(options_.optimizer, t, p.value.data_as<float>(), p.grad.data_as<float>(),
                       s.state0.defined() ? s.state0.data_as<float>() : nullptr,
                       s.state1.defined() ? s.state1.data_as<float>() : nullptr, p.value.numel());
    }
    opt_steps_ = t;
  }
  void apply_update() {
    update_parameters();
    pending_ = 0;
  }
  /// After a micro-batch's backward: add its gradients to the sum, or (the accumulate-th) update.
  void accumulate_or_step() {
    ++state_.step;
    const int n = options_.accumulate;
    if (n <= 1) return apply_update();
    ++pending_;
    for (auto& s : opt_) {
      float* acc = s.accum.data_as<float>();
      float* g = s.param->grad.data_as<float>();
      const std::int64_t count = s.accum.numel();
      if (pending_ == 1) std::memcpy(acc, g, s.accum.bytes());
      else if (pending_ < n) for (std::int64_t i = 0; i < count; ++i) acc[i] += g[i];
      else for (std::int64_t i = 0; i < count; ++i) g[i] = acc[i] + g[i];
    }
    if (pending_ == n) apply_update();
  }
  static std::vector<std::pair<std::string, const Tensor*>> state_tensors(const ParamState& s) {
    std::vector<std::pair<std::string, const Tensor*>> v;
    const bool sgd = !s.state1.defined();
    if (s.state0.defined()) v.emplace_back(sgd ? ".momentum_buffer" : ".exp_avg", &s.state0);
    if (s.state1.defined()) v.emplace_back(".exp_avg_sq", &s.state1);
    return v;
  }

  ParamState make_state(LayerTensor* p) {
    ParamState s;
    s.param = p;
    const auto& c = options_.optimizer;
    auto zeros = [&] {
      Tensor t(*alloc_, DType::f32, p->value.shape(), MemoryCategory::optimizer_state);
      std::memset(t.data(), 0, t.bytes());
      return t;
    };
    if (c.type == OptimizerType::sgd) {
      if (c.momentum != 0.0f) s.state0 = zeros();
    } else {
      s.state0 = zeros();
      s.state1 = zeros();
    }
    if (options_.accumulate > 1) s.accum = Tensor(*alloc_, DType::f32, p->value.shape(), MemoryCategory::gradients);
    return s;
  }

  void run_forward(std::int64_t n, bool training) {
    float* cur = input_.data_as<float>();
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      trace::ScopedRange r(trace::RangeKind::forward, "forward", labels_[i].c_str());
      cur = layers_[i]->forward(cur, n, training);
    }
    output_ = cur;
    last_n_ = training ? n : 0;
  }

  /// Backward through every layer from grad_out_; returns dL/dinput when need_input_grad.
  const float* run_backward(std::int64_t n, bool need_input_grad) {
    float* cur = grad_out_.data_as<float>();
    for (std::size_t i = layers_.size(); i-- > 0;) {
      trace::ScopedRange r(trace::RangeKind::backward, "backward", labels_[i].c_str());
      cur = layers_[i]->backward(cur, n, i > 0 || need_input_grad);
    }
    return cur;
  }

  std::int64_t classes() const {
    const Shape& out = shapes_.back().output;
    if (out.size() != 1) throw InputError("training needs a model whose output is [classes], not " + shape_string(out));
    return out[0];
  }

  std::int64_t check_batch(const Batch& batch) const {
    if (spec_.input != Shape{kImageChannels, kImageHeight, kImageWidth})
      throw InputError("batches are [3, 32, 32] images but the model's input is " + shape_string(spec_.input));
    if (batch.size <= 0 || batch.size > options_.max_batch_size)
      throw InputError("batch of " + std::to_string(batch.size) + " images; the network takes 1 to " +
                       std::to_string(options_.max_batch_size));
    if (!batch.images || !batch.labels) throw InputError("batch without images or labels");
    return batch.size;
  }

  std::int64_t check_input(const HostTensor& x, const Shape& per_sample, const char* what) const {
    if (x.shape.size() != per_sample.size() + 1 || !std::equal(per_sample.begin(), per_sample.end(), x.shape.begin() + 1))
      throw InputError(std::string(what) + " has shape " + shape_string(x.shape) + " but [N, " +
                       shape_string(per_sample).substr(1) + " was expected");
    const std::int64_t n = x.shape[0];
    if (n <= 0 || n > options_.max_batch_size)
      throw InputError(std::string(what) + " has batch " + std::to_string(n) + "; the network takes 1 to " +
                       std::to_string(options_.max_batch_size));
    if (x.data.size() != static_cast<std::size_t>(numel(x.shape)))
      throw InputError(std::string(what) + " has " + std::to_string(x.data.size()) + " values for shape " +
                       shape_string(x.shape));
    return n;
  }

  LayerTensor* find(const std::string& name) const {
    for (auto* list : {&params_, &buffers_})
      for (LayerTensor* p : *list)
        if (p->name == name) return p;
    return nullptr;
  }

  static std::vector<NamedTensor> to_named(const std::vector<LayerTensor*>& list, bool grad) {
    std::vector<NamedTensor> out;
    for (const LayerTensor* p : list) {
      const Tensor& t = grad ? p->grad : p->value;
      HostTensor h(t.shape());
      // A transposed [R, C] tensor is stored as [C, R]: copying it back transposes [C, R].
      copy_layout(t.data_as<float>(), h.data.data(), p->transposed ? Shape{t.shape()[1], t.shape()[0]} : t.shape(),
                  p->transposed);
      out.push_back({p->name, std::move(h)});
    }
    return out;
  }

  ModelSpec spec_;
  NetworkOptions options_;
  std::shared_ptr<Allocator> alloc_;
  std::shared_ptr<DnnlContext> dnnl_;
  std::vector<LayerShape> shapes_;
  RunState state_;
  std::vector<std::unique_ptr<CpuLayer>> layers_;
  std::vector<std::string> labels_;  // "layer 0 (Conv2d conv1)": host-trace range names
  std::vector<LayerTensor*> params_, buffers_;
  std::vector<ParamState> opt_;
  Tensor input_, grad_out_;
  float* output_ = nullptr;   // the last layer's output of the last forward
  std::int64_t last_n_ = 0;   // batch of the last training forward (0: none)
  std::vector<float> losses_;
  float last_loss_ = 0.0f;
  std::int64_t opt_steps_ = 0;  // optimizer updates applied (Adam's t)
  int pending_ = 0;             // micro-batches accumulated since the last update
  EvalResult eval_;
};

}  // namespace
}  // namespace cpu

std::unique_ptr<Network> make_cpu_network(const ModelSpec& spec, const NetworkOptions& options) {
  return std::make_unique<cpu::CpuNetwork>(spec, options);
}

}  // namespace ts
