// CudaNetwork's weight-gradient producers and the update: linear layers on cuBLAS (SGEMM in fp32,
// cublasGemmEx with fp16/bf16 inputs and fp32 compute under AMP), the convolution weight gradient
// (fp32 directly; under AMP a half scratch cast into the fp32 gradient buffer), gradient accumulation,
// the optimizer launch (fp16: kernels::amp_optimizer_update with the loss scaler on the device), and
// the counters and optimizer state that checkpoints read and restore.
#include <cublas_v2.h>

#include <cmath>
#include <cstring>
#include <unordered_map>

#include "base/cuda_check.h"
#include "base/printable.h"
#include "engine/cuda/cublas_check.h"
#include "engine/cuda/cuda_network.h"
#include "kernels/kernels.h"

namespace ts::cuda {
namespace {
const float kOne = 1.0f, kZero = 0.0f;
int i32(std::int64_t v) { return static_cast<int>(v); }
cudaDataType_t cublas_type(kernels::ElemType t) {
  return t == kernels::ElemType::f16 ? CUDA_R_16F : (t == kernels::ElemType::bf16 ? CUDA_R_16BF : CUDA_R_32F);
}
}  // namespace

// Row-major y[rows, out] = x[rows, in] W^T + (bias in the tail): column-major, this is
// y^T = W(col-major [in, out])^T x^T, i.e. gemm(T, N, m=out, n=rows, k=in).
void CudaNetwork::linear_gemm(const Op& op, std::int64_t rows, const void* x, void* y) {
  auto h = static_cast<cublasHandle_t>(cublas_);
  const int in = i32(op.in_features), out = i32(op.out_features), r = i32(rows);
  if (!amp()) {
    TS_CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, out, r, in, &kOne, params() + op.w_off, in,
                                static_cast<const float*>(x), in, &kZero, static_cast<float*>(y), out));
    return;
  }
  const cudaDataType_t t = cublas_type(act_);
  TS_CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, out, r, in, &kOne, weights_lp(op.w_off), t, in, x, t, in,
                               &kZero, y, t, out, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

// dW[out, in] = dy^T x  -> col-major dW^T[in, out] = x^T(col [in, rows]) * dy(col [out, rows])^T.
// dx[rows, in] = dy W   -> col-major dx^T[in, rows] = W(col [in, out]) * dy^T(col [out, rows]).
// Under AMP dW is written in fp32 straight from half inputs (GemmEx: 16F/16BF x 16F/16BF -> 32F).
void CudaNetwork::linear_gemm_backward(const Op& op, std::int64_t rows, const void* x, const void* dy, void* dx) {
  auto h = static_cast<cublasHandle_t>(cublas_);
  const int in = i32(op.in_features), out = i32(op.out_features), r = i32(rows);
  if (!amp()) {
    TS_CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, in, out, r, &kOne, static_cast<const float*>(x), in,
                                static_cast<const float*>(dy), out, &kZero, grads() + op.w_off, in));
    if (dx)
      TS_CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, in, r, out, &kOne, params() + op.w_off, in,
                                  static_cast<const float*>(dy), out, &kZero, static_cast<float*>(dx), in));
    return;
  }
  const cudaDataType_t t = cublas_type(act_);
  TS_CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, in, out, r, &kOne, x, t, in, dy, t, out, &kZero,
                               grads() + op.w_off, CUDA_R_32F, in, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  if (dx)
    TS_CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, in, r, out, &kOne, weights_lp(op.w_off), t, in, dy, t,
                                 out, &kZero, dx, t, in, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

void CudaNetwork::conv_backward_filter(Op& op, std::int64_t n, const void* x, const void* dy) {
  void* ws = workspace_ ? workspace_->ptr : nullptr;
  if (!amp()) return op.conv->backward_filter(*cudnn_, n, x, dy, grads() + op.w_off, ws, workspace_bytes_);
  // cuDNN's filter gradient has the filter's (half) type: a scratch, then widened into the fp32 buffer.
  op.conv->backward_filter(*cudnn_, n, x, dy, wgrad_lp_->ptr, ws, workspace_bytes_);
  for (const ParamEntry& e : param_entries_)
    if (e.offset == op.w_off) {
      kernels::cast_to_float(wgrad_lp_->ptr, act_, grads() + op.w_off, numel(e.shape), compute_);
      return;
    }
}

void CudaNetwork::accumulate_or_update() {
  const int n = options_.accumulate;
  if (n <= 1) return apply_optimizer(grads(), nullptr);
  ++pending_;
  if (pending_ < n) {
    kernels::grad_accumulate(static_cast<float*>(accum_->ptr), grads(), param_count_, pending_ == 1, compute_);
    if (fp16())  // this micro-batch made no update: its scale slot says 0
      TS_CUDA_CHECK(cudaMemsetAsync(static_cast<float*>(loss_ring_->ptr) + kLossRing + step_ % kLossRing, 0,
                                    sizeof(float), compute_));
    return;
  }
  apply_optimizer(grads(), static_cast<const float*>(accum_->ptr));
}

void CudaNetwork::flush_accumulation() {
  if (pending_ == 0) return;
  // accum_ already holds every pending micro-batch; the update reads it as the gradient. The scale
  // slot of the last micro-batch (written 0 above) takes this update's scale.
  --step_;
  apply_optimizer(static_cast<const float*>(accum_->ptr), nullptr);
  ++step_;
}

void CudaNetwork::apply_optimizer(const float* grad, const float* accum) {
  pending_ = 0;
  const OptimizerConfig& c = options_.optimizer;
  kernels::OptimizerArgs a;
  a.kind = c.type == OptimizerType::sgd ? kernels::OptimizerArgs::sgd
                                        : (c.type == OptimizerType::adam ? kernels::OptimizerArgs::adam
                                                                         : kernels::OptimizerArgs::adamw);
  a.lr = c.lr, a.weight_decay = c.effective_weight_decay();
  a.momentum = c.momentum, a.dampening = c.dampening, a.nesterov = c.nesterov;
  a.beta1 = c.beta1, a.beta2 = c.beta2, a.eps = c.eps;
  float* s1 = state1_ ? static_cast<float*>(state1_->ptr) : nullptr;
  float* s2 = state2_ ? static_cast<float*>(state2_->ptr) : nullptr;
  if (fp16()) {
    kernels::AmpScalerArgs sa;
    sa.growth_factor = options_.loss_scaler.growth_factor;
    sa.backoff_factor = options_.loss_scaler.backoff_factor;
    sa.growth_interval = static_cast<int>(options_.loss_scaler.growth_interval);
    float* scale_slot = capturing_ ? graph_scale() : static_cast<float*>(loss_ring_->ptr) + kLossRing + step_ % kLossRing;
    kernels::amp_optimizer_update(a, sa, amp_state(), scale_slot, params(), grad, accum, s1, s2, params_lp_->ptr, act_,
                                  param_count_, compute_);
    return;
  }
  const std::int64_t t = opt_steps_ + 1;
  a.first_step = t == 1;
  const double bc1 = 1.0 - std::pow(static_cast<double>(c.beta1), static_cast<double>(t));
  const double bc2 = 1.0 - std::pow(static_cast<double>(c.beta2), static_cast<double>(t));
  a.step_size = static_cast<float>(c.lr / bc1);
  a.bias_correction2_sqrt = static_cast<float>(std::sqrt(bc2));
  if (capturing_) a.device_t = graph_counters() + 1;  // a graph replays this launch at every later t
  kernels::optimizer_update(a, params(), grad, s1, s2, param_count_, compute_, accum,
                            amp() ? params_lp_->ptr : nullptr, act_);
  if (!capturing_) ++opt_steps_;
}

TrainingCounters CudaNetwork::counters() {
  TrainingCounters c;
  c.train_steps = step_;
  c.optimizer_steps = opt_steps_;
  if (fp16()) {
    static_assert(sizeof(kernels::AmpDeviceState) <= kHostCounterBytes);
    kernels::AmpDeviceState st{};
    TS_CUDA_CHECK(cudaMemcpyAsync(host_counters_, amp_state_->ptr, sizeof st, cudaMemcpyDeviceToHost, compute_));
    TS_CUDA_CHECK(cudaStreamSynchronize(compute_));
    std::memcpy(&st, host_counters_, sizeof st);
    c.optimizer_steps = st.optimizer_steps;
    c.loss_scale = st.scale;
    c.growth_tracker = st.growth_tracker;
    c.skipped_steps = st.skipped_steps;
  }
  return c;
}

void CudaNetwork::restore_counters(const TrainingCounters& c) {
  synchronize();
  graph_counters_current_ = false;
  step_ = drained_to_ = c.train_steps;
  undrained_.clear(), undrained_scales_.clear(), drained_scales_.clear();
  opt_steps_ = c.optimizer_steps;
  pending_ = 0;
  if (fp16()) {
    kernels::AmpDeviceState st{c.loss_scale, static_cast<int>(c.growth_tracker), 0u, c.optimizer_steps,
                               c.skipped_steps};
    TS_CUDA_CHECK(cudaMemcpy(amp_state_->ptr, &st, sizeof st, cudaMemcpyHostToDevice));
  }
}

namespace {
/// (suffix, buffer) pairs of the optimizer's state, PyTorch's state_dict names.
std::vector<std::pair<std::string, float*>> state_buffers(const OptimizerConfig& c, float* s1, float* s2) {
  if (c.type == OptimizerType::sgd) return s1 ? std::vector<std::pair<std::string, float*>>{{".momentum_buffer", s1}}
                                              : std::vector<std::pair<std::string, float*>>{};
  return {{".exp_avg", s1}, {".exp_avg_sq", s2}};
}
}  // namespace

std::vector<NamedTensor> CudaNetwork::optimizer_state() const {
  std::vector<NamedTensor> out;
  for (const auto& [suffix, base] : state_buffers(options_.optimizer, state1_ ? static_cast<float*>(state1_->ptr) : nullptr,
                                                  state2_ ? static_cast<float*>(state2_->ptr) : nullptr))
    for (NamedTensor& t : read_entries(param_entries_, base)) {
      t.name += suffix;
      out.push_back(std::move(t));
    }
  return out;
}

void CudaNetwork::set_optimizer_state(const std::vector<NamedTensor>& tensors) {
  EntryTargets by_name;
  for (const auto& [suffix, base] : state_buffers(options_.optimizer, state1_ ? static_cast<float*>(state1_->ptr) : nullptr,
                                                  state2_ ? static_cast<float*>(state2_->ptr) : nullptr))
    for (const ParamEntry& e : param_entries_) by_name[e.name + suffix] = {&e, base};
  write_entries(by_name, tensors, {"the optimizer has no state named '", "optimizer state '", "the parameter's"});
  TS_CUDA_CHECK(cudaStreamSynchronize(compute_));
}

}  // namespace ts::cuda
