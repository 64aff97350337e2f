// CudaNetwork's hot path: input copies on the copy stream into rotating device slots, then
// normalise, forward, fused cross-entropy, backward and one optimizer launch on the compute stream,
// with no host sync and no allocation. Also the per-op forward/backward used by the test path, and
// the forward/backward of a max pool fused into a convolution's tail.
#include <cmath>

#include "base/cuda_check.h"
#include "engine/cuda/cuda_network.h"
#include "engine/host_trace.h"
#include "kernels/dropout_hash.h"
#include "kernels/kernels.h"

namespace ts::cuda {
void CudaNetwork::check_batch(const Batch& b, const char* what) const {
  if (b.size < 1 || b.size > options_.max_batch_size)
    throw InputError(std::string(what) + ": batch size " + std::to_string(b.size) + " is outside 1.." +
                     std::to_string(options_.max_batch_size) + " (max_batch_size)");
  if (spec_.input != Shape{kImageChannels, kImageHeight, kImageWidth})
    throw InputError(std::string(what) + ": batches are 3x32x32 images but the model's input is " +
                     shape_string(spec_.input));
  if (ops_.back().out_shape.size() != 1)
    throw InputError(std::string(what) + ": the model's output " + shape_string(ops_.back().out_shape) +
                     " is not a vector of class scores");
}

// Copy stream: wait until the slot's previous reader finished, copy images + labels, mark copied.
// Pinned sources are read asynchronously, so the host waits for that copy alone (the contract lets
// the caller reuse the batch on return); pageable ones are staged by the driver before returning.
// The host's wait for a pinned copy is a range of its own: when the host runs ahead of the GPU (CUDA
// graphs), the copy stream first waits for the step that last read the slot, and the wait is most of
// the step; one "H2D copy" range around it read as if copying took the step.
int CudaNetwork::enqueue_input(const Batch& b) {
  trace::ScopedRange range(trace::RangeKind::h2d_copy, "H2D copy");
  const int s = next_slot_;
  next_slot_ = (next_slot_ + 1) % kInputSlots;
  TS_CUDA_CHECK(cudaStreamWaitEvent(copy_, slot_free_[s], 0));
  TS_CUDA_CHECK(cudaMemcpyAsync(slot_images_[s]->ptr, b.images, static_cast<std::size_t>(b.size) * kImageBytes,
                                cudaMemcpyHostToDevice, copy_));
  TS_CUDA_CHECK(cudaMemcpyAsync(slot_labels_[s]->ptr, b.labels, static_cast<std::size_t>(b.size) * sizeof(std::int32_t),
                                cudaMemcpyHostToDevice, copy_));
  TS_CUDA_CHECK(cudaEventRecord(copied_[s], copy_));
  range.close();
  if (b.pinned) {
    trace::ScopedRange wait(trace::RangeKind::h2d_copy, "H2D copy: wait for a free slot + copy");
    TS_CUDA_CHECK(cudaEventSynchronize(copied_[s]));
  }
  TS_CUDA_CHECK(cudaStreamWaitEvent(compute_, copied_[s], 0));
  kernels::NormalizeParams np;
  for (int c = 0; c < kImageChannels; ++c) np.mean[c] = options_.normalization.mean[c], np.std[c] = options_.normalization.std[c];
  kernels::normalize_u8(static_cast<const std::uint8_t*>(slot_images_[s]->ptr), input_act(), act_, b.size,
                        kImageChannels, kImageHeight * kImageWidth, np, compute_);
  return s;
}

void CudaNetwork::train_step(const Batch& batch) {
  check_batch(batch, "train_step");
  if (step_ - drained_to_ >= kLossRing) {  // the ring would overwrite unread losses: read them now
    auto early = drain_step_losses();
    auto early_scales = drained_scales_;
    undrained_.insert(undrained_.end(), early.begin(), early.end());
    undrained_scales_.insert(undrained_scales_.end(), early_scales.begin(), early_scales.end());
  }
  const std::int64_t n = batch.size;
  const int s = enqueue_input(batch);
  if (graph_steps()) return graph_train_step(n, s);
  graph_counters_current_ = false;
  step_body(n, s);
  ++step_;
}

void CudaNetwork::step_body(std::int64_t n, int s) {
  forward_ops(n, true);
  trace::ScopedRange loss_range(trace::RangeKind::loss, "loss");
  float* loss_slot = capturing_ ? graph_loss() : static_cast<float*>(loss_ring_->ptr) + step_ % kLossRing;
  // loss / accumulate, times the fp16 loss scale that lives on the device
  kernels::cross_entropy_forward_backward(ops_.back().out_ptr(), act_, static_cast<const std::int32_t*>(slot_labels_[s]->ptr),
                                          n, classes(), grad_buf(0), loss_slot, compute_,
                                          1.0f / static_cast<float>(options_.accumulate),
                                          fp16() ? &amp_state()->scale : nullptr);
  if (!capturing_) TS_CUDA_CHECK(cudaEventRecord(slot_free_[s], compute_));
  loss_range.close();
  backward_ops(n, 0, false);
  trace::ScopedRange opt_range(trace::RangeKind::optimizer, "optimizer");
  accumulate_or_update();
  if (capturing_) kernels::advance_step_counters(graph_counters(), true, compute_);
}

float CudaNetwork::last_loss() {
  if (step_ == 0) return std::nanf("");
  float* src = static_cast<float*>(loss_ring_->ptr) + (step_ - 1) % kLossRing;
  TS_CUDA_CHECK(cudaMemcpyAsync(host_ring_, src, sizeof(float), cudaMemcpyDeviceToHost, compute_));
  TS_CUDA_CHECK(cudaStreamSynchronize(compute_));
  return host_ring_[0];
}

std::vector<float> CudaNetwork::drain_step_losses() {
  std::vector<float> out;
  out.swap(undrained_);
  drained_scales_.clear();
  drained_scales_.swap(undrained_scales_);
  if (step_ == drained_to_) {
    if (!fp16()) drained_scales_.clear();
    return out;
  }
  // losses then scales: one copy of both halves of the ring
  TS_CUDA_CHECK(cudaMemcpyAsync(host_ring_, loss_ring_->ptr, 2 * sizeof(float) * kLossRing, cudaMemcpyDeviceToHost,
                                compute_));
  TS_CUDA_CHECK(cudaStreamSynchronize(compute_));
  for (std::int64_t t = drained_to_; t < step_; ++t) {
    out.push_back(host_ring_[t % kLossRing]);
    if (fp16()) drained_scales_.push_back(host_ring_[kLossRing + t % kLossRing]);
  }
  drained_to_ = step_;
  return out;
}

void CudaNetwork::begin_eval() {
  TS_CUDA_CHECK(cudaMemsetAsync(eval_counters_->ptr, 0, 16, compute_));
  eval_total_ = 0;
}

void CudaNetwork::eval_batch(const Batch& batch) {
  check_batch(batch, "eval_batch");
  const int s = enqueue_input(batch);
  forward_ops(batch.size, false);
  auto* counters = static_cast<unsigned long long*>(eval_counters_->ptr);
  kernels::eval_accumulate(ops_.back().out_ptr(), act_, static_cast<const std::int32_t*>(slot_labels_[s]->ptr), batch.size,
                           classes(), counters, reinterpret_cast<double*>(counters + 1), compute_);
  TS_CUDA_CHECK(cudaEventRecord(slot_free_[s], compute_));
  eval_total_ += batch.size;
}

EvalResult CudaNetwork::end_eval() {
  TS_CUDA_CHECK(cudaMemcpyAsync(host_counters_, eval_counters_->ptr, 16, cudaMemcpyDeviceToHost, compute_));
  TS_CUDA_CHECK(cudaStreamSynchronize(compute_));
  EvalResult r;
  r.correct = static_cast<std::int64_t>(static_cast<unsigned long long*>(host_counters_)[0]);
  r.loss_sum = reinterpret_cast<double*>(host_counters_)[1];
  r.total = eval_total_;
  return r;
}

// ---- ops ------------------------------------------------------------------------------------------
void CudaNetwork::warm_shapes(const std::vector<std::int64_t>& sizes) {
  zero_scratch();
  for (std::int64_t n : sizes) {
    forward_ops(n, true);
    backward_ops(n, 0, false);
    forward_ops(n, false);
  }
  zero_scratch();
}

void CudaNetwork::forward_ops(std::int64_t n, bool training) {
  const void* x = input_act();
  for (Op& op : ops_) {
    trace::ScopedRange range(trace::RangeKind::forward, "forward", op.label.c_str());
    forward_op(op, n, x, training);
    x = op.out_ptr();
  }
}

void CudaNetwork::forward_op(Op& op, std::int64_t n, const void* x, bool training) {
  void* y = op.out_ptr();
  float* w = op.w_off >= 0 ? params() + op.w_off : nullptr;  // fp32 master (BatchNorm's gamma)
  switch (op.kind) {
    case OpKind::conv:
      op.conv->forward(*cudnn_, n, x, weights_lp(op.w_off), op.conv_out_ptr(), workspace_ ? workspace_->ptr : nullptr,
                       workspace_bytes_);
      if (op.fused_pool()) return fused_pool_forward(op, n, training);
      break;
    case OpKind::linear: linear_gemm(op, n * op.rows_per_sample, x, y); break;
    case OpKind::batchnorm: {
      float* save = static_cast<float*>(op.bn_save->ptr);
      if (training)
        op.bn->forward_train(*cudnn_, n, x, y, w, params() + op.beta_off, bufs() + op.rm_off, bufs() + op.rv_off, save,
                             save + op.channels);
      else
        op.bn->forward_eval(*cudnn_, n, x, y, w, params() + op.beta_off, bufs() + op.rm_off, bufs() + op.rv_off);
      break;
    }
    case OpKind::pool: op.pool->forward(*cudnn_, n, x, y); return;
    case OpKind::pointwise:
      TS_CUDA_CHECK(cudaMemcpyAsync(y, x, act_bytes_ * n * numel(op.out_shape), cudaMemcpyDeviceToDevice, compute_));
      break;
  }
  kernels::Epilogue e;
  e.bias = op.b_off >= 0 ? params() + op.b_off : nullptr;
  e.relu = op.relu;
  e.dropout = op.dropout && training && dropout_enabled_;
  e.dropout_p = op.dropout_p;
  e.dropout_key = e.dropout ? dropout_key(options_.seed, static_cast<std::uint64_t>(step_), op.dropout_layer) : 0;
  if (e.dropout && capturing_)
    e.dropout_step = graph_counters(), e.dropout_seed = options_.seed, e.dropout_layer = static_cast<std::uint64_t>(op.dropout_layer);
  kernels::epilogue_forward(y, act_, n * op.rows_per_sample, op.channels, op.hw, e, compute_);
}

int CudaNetwork::backward_ops(std::int64_t n, int cur, bool input_grad) {
  for (std::size_t k = ops_.size(); k-- > 0;) {
    Op& op = ops_[k];
    const void* x = k ? ops_[k - 1].out_ptr() : input_act();
    const bool need_dx = k > 0 || input_grad;
    trace::ScopedRange range(trace::RangeKind::backward, "backward", op.label.c_str());
    backward_op(op, n, x, grad_buf(cur), grad_buf(1 - cur), need_dx);
    // A pointwise op's dx is its dy, in place; a fused pool's is too (its full-size gradient in between
    // takes the other buffer).
    if (op.kind != OpKind::pointwise && !op.fused_pool()) cur = 1 - cur;
  }
  return cur;
}

void CudaNetwork::backward_op(Op& op, std::int64_t n, const void* x, void* dy, void* dx, bool need_dx) {
  if (op.fused_pool()) return fused_pool_backward(op, n, x, dy, dx, need_dx);
  const void* y = op.out_ptr();
  if (op.has_tail()) {
    kernels::Epilogue e;
    e.bias = op.b_off >= 0 ? params() + op.b_off : nullptr;
    e.relu = op.relu;
    e.dropout = op.dropout && dropout_enabled_;
    e.dropout_p = op.dropout_p;
    e.dropout_key = e.dropout ? dropout_key(options_.seed, static_cast<std::uint64_t>(step_), op.dropout_layer) : 0;
    if (e.dropout && capturing_)
      e.dropout_step = graph_counters(), e.dropout_seed = options_.seed, e.dropout_layer = static_cast<std::uint64_t>(op.dropout_layer);
    kernels::epilogue_backward(dy, y, act_, n * op.rows_per_sample, op.channels, op.hw, e,
                               e.bias ? grads() + op.b_off : nullptr, op.partials ? static_cast<float*>(op.partials->ptr) : nullptr,
                               op.counters ? static_cast<unsigned*>(op.counters->ptr) : nullptr, compute_);
  }
  void* ws = workspace_ ? workspace_->ptr : nullptr;
  switch (op.kind) {
    case OpKind::conv:
      if (need_dx) op.conv->backward_data(*cudnn_, n, dy, weights_lp(op.w_off), dx, ws, workspace_bytes_);
      conv_backward_filter(op, n, x, dy);
      break;
    case OpKind::linear: linear_gemm_backward(op, n * op.rows_per_sample, x, dy, need_dx ? dx : nullptr); break;
    case OpKind::batchnorm: {
      const float* save = static_cast<const float*>(op.bn_save->ptr);
      op.bn->backward(*cudnn_, n, x, dy, dx, params() + op.w_off, grads() + op.w_off, grads() + op.beta_off, save,
                      save + op.channels);
      break;
    }
    case OpKind::pool:
      if (need_dx) op.pool->backward(*cudnn_, n, y, dy, x, dx);
      break;
    case OpKind::pointwise: break;
  }
}

// ---- a max pool fused into a convolution's tail (kernels/pool/fused_pool.h) -----------------------
kernels::PoolTailShape CudaNetwork::pool_tail_shape(const Op& op, std::int64_t n) const {
  return kernels::PoolTailShape{n, op.conv_shape[0], op.conv_shape[1], op.conv_shape[2]};
}

void CudaNetwork::fused_pool_forward(Op& op, std::int64_t n, bool training) {
  const float* bias = op.b_off >= 0 ? params() + op.b_off : nullptr;
  auto* index = training ? static_cast<std::uint8_t*>(op.pool_index->ptr) : nullptr;  // eval: no backward
  kernels::relu_max_pool_forward(op.raw->ptr, bias, act_, pool_tail_shape(op, n), op.out_ptr(), index, compute_);
}

void CudaNetwork::fused_pool_backward(Op& op, std::int64_t n, const void* x, void* dy, void* g, bool need_dx) {
  const bool bias = op.b_off >= 0;
  kernels::relu_max_pool_backward(dy, op.out_ptr(), static_cast<const std::uint8_t*>(op.pool_index->ptr), act_,
                                  pool_tail_shape(op, n), g, bias ? grads() + op.b_off : nullptr,
                                  bias ? static_cast<float*>(op.partials->ptr) : nullptr,
                                  bias ? static_cast<unsigned*>(op.counters->ptr) : nullptr, compute_);
  // The pooled gradient is spent: the convolution's dx goes to its buffer.
  if (need_dx)
    op.conv->backward_data(*cudnn_, n, g, weights_lp(op.w_off), dy, workspace_ ? workspace_->ptr : nullptr,
                           workspace_bytes_);
  conv_backward_filter(op, n, x, g);
}

}  // namespace ts::cuda
