// CudaNetwork's test path: forward / backward / loss / optimizer step on host tensors, and the
// parameters, gradients and buffers by PyTorch name. Everything is copied through the host and
// synchronised: correctness over speed. Under AMP, inputs and outputs are cast through temporary fp32
// blocks (fp32 on the API, half on the device); gradients() is unscaled by the fp16 loss scale.
#include <unordered_map>

#include "base/cuda_check.h"
#include "base/printable.h"
#include "engine/cuda/cuda_network.h"
#include "kernels/kernels.h"

namespace ts::cuda {

void CudaNetwork::upload(float* dst, const std::vector<float>& src) {
  TS_CUDA_CHECK(cudaMemcpyAsync(dst, src.data(), sizeof(float) * src.size(), cudaMemcpyHostToDevice, compute_));
  TS_CUDA_CHECK(cudaStreamSynchronize(compute_));
}

std::vector<float> CudaNetwork::download(const float* src, std::int64_t count) const {
  std::vector<float> out(static_cast<std::size_t>(count));
  TS_CUDA_CHECK(cudaMemcpyAsync(out.data(), src, sizeof(float) * out.size(), cudaMemcpyDeviceToHost, compute_));
  TS_CUDA_CHECK(cudaStreamSynchronize(compute_));
  return out;
}

std::vector<float> CudaNetwork::download_act(const void* src, std::int64_t count) {
  if (!amp()) return download(static_cast<const float*>(src), count);
  auto tmp = alloc(sizeof(float) * static_cast<std::size_t>(count), MemoryCategory::other, "test-path staging");
  kernels::cast_to_float(src, act_, static_cast<float*>(tmp->ptr), count, compute_);
  return download(static_cast<const float*>(tmp->ptr), count);
}

void CudaNetwork::upload_act(void* dst, const std::vector<float>& src) {
  if (!amp()) return upload(static_cast<float*>(dst), src);
  auto tmp = alloc(sizeof(float) * src.size(), MemoryCategory::other, "test-path staging");
  upload(static_cast<float*>(tmp->ptr), src);
  kernels::cast_from_float(static_cast<const float*>(tmp->ptr), dst, act_, static_cast<std::int64_t>(src.size()), compute_);
  TS_CUDA_CHECK(cudaStreamSynchronize(compute_));
}

HostTensor CudaNetwork::forward(const HostTensor& x, bool training) {
  const std::int64_t n = x.shape.empty() ? 0 : x.shape[0];
  Shape sample(x.shape.begin() + (x.shape.empty() ? 0 : 1), x.shape.end());
  if (n < 1 || n > options_.max_batch_size || sample != spec_.input)
    throw InputError("forward: input " + shape_string(x.shape) + " is not [N, " + shape_string(spec_.input).substr(1) +
                     " with 1 <= N <= " + std::to_string(options_.max_batch_size));
  synchronize();
  upload_act(input_act(), x.data);
  forward_ops(n, training);
  have_forward_ = training;
  last_forward_n_ = n;
  Shape out_shape{n};
  out_shape.insert(out_shape.end(), ops_.back().out_shape.begin(), ops_.back().out_shape.end());
  return HostTensor(out_shape, download_act(ops_.back().out_ptr(), numel(out_shape)));
}

HostTensor CudaNetwork::backward(const HostTensor& grad_output) {
  if (!have_forward_) throw InputError("backward: call forward(x, training=true) first");
  const std::int64_t n = last_forward_n_;
  if (grad_output.numel() != n * numel(ops_.back().out_shape))
    throw InputError("backward: grad_output " + shape_string(grad_output.shape) + " does not match the output");
  upload_act(grad_buf(0), grad_output.data);
  int cur = backward_ops(n, 0, true);
  Shape in_shape{n};
  in_shape.insert(in_shape.end(), spec_.input.begin(), spec_.input.end());
  return HostTensor(in_shape, download_act(grad_buf(cur), numel(in_shape)));
}

float CudaNetwork::forward_backward_loss(const HostTensor& x, const std::vector<std::int32_t>& labels,
                                         HostTensor* logits) {
  HostTensor out = forward(x, true);
  const std::int64_t n = last_forward_n_;
  if (static_cast<std::int64_t>(labels.size()) != n || ops_.back().out_shape.size() != 1)
    throw InputError("forward_backward_loss: need one label per sample and a [N, classes] output");
  TS_CUDA_CHECK(cudaMemcpyAsync(slot_labels_[0]->ptr, labels.data(), sizeof(std::int32_t) * labels.size(),
                                cudaMemcpyHostToDevice, compute_));
  float* loss = static_cast<float*>(test_loss_->ptr);
  kernels::cross_entropy_forward_backward(ops_.back().out_ptr(), act_,
                                          static_cast<const std::int32_t*>(slot_labels_[0]->ptr), n, classes(),
                                          grad_buf(0), loss, compute_, 1.0f, fp16() ? &amp_state()->scale : nullptr);
  backward_ops(n, 0, true);
  if (logits) *logits = std::move(out);
  return download(loss, 1)[0];
}

void CudaNetwork::optimizer_step() {
  apply_optimizer(grads(), nullptr);
  ++step_;
  TS_CUDA_CHECK(cudaStreamSynchronize(compute_));
}

std::vector<NamedTensor> CudaNetwork::read_entries(const std::vector<ParamEntry>& entries, const float* base) const {
  std::vector<NamedTensor> out;
  if (entries.empty()) return out;
  const ParamEntry& last = entries.back();
  std::vector<float> all = download(base, last.offset + numel(last.shape));
  for (const ParamEntry& e : entries) {
    auto first = all.begin() + e.offset;
    out.push_back({e.name, HostTensor(e.shape, std::vector<float>(first, first + numel(e.shape)))});
  }
  return out;
}

std::vector<NamedTensor> CudaNetwork::parameters() const { return read_entries(param_entries_, params()); }
std::vector<NamedTensor> CudaNetwork::gradients() const {
  auto g = read_entries(param_entries_, grads());
  if (fp16()) {  // the gradients hold loss * scale: report d(loss)/d(param) as the API promises
    kernels::AmpDeviceState st{};
    TS_CUDA_CHECK(cudaMemcpy(&st, amp_state_->ptr, sizeof st, cudaMemcpyDeviceToHost));
    for (auto& t : g)
      for (float& v : t.tensor.data) v /= st.scale;
  }
  return g;
}
std::vector<NamedTensor> CudaNetwork::buffers() const { return read_entries(buffer_entries_, bufs()); }

void CudaNetwork::write_entries(const EntryTargets& targets, const std::vector<NamedTensor>& tensors,
                                const EntryWords& words) {
  synchronize();
  for (const NamedTensor& t : tensors) {
    auto it = targets.find(t.name);
    if (it == targets.end()) throw InputError(words.unknown + printable(t.name) + "'");
    const ParamEntry& e = *it->second.first;
    if (t.tensor.shape != e.shape || t.tensor.data.size() != static_cast<std::size_t>(numel(e.shape)))
      throw InputError(words.named + printable(t.name) + "' has shape " + shape_string(t.tensor.shape) + " but " +
                       words.owner + " is " + shape_string(e.shape));
    TS_CUDA_CHECK(cudaMemcpyAsync(it->second.second + e.offset, t.tensor.data.data(), sizeof(float) * t.tensor.data.size(),
                                  cudaMemcpyHostToDevice, compute_));
  }
}

void CudaNetwork::set_parameters(const std::vector<NamedTensor>& tensors) {
  EntryTargets by_name;
  for (const auto& e : param_entries_) by_name[e.name] = {&e, params()};
  for (const auto& e : buffer_entries_) by_name[e.name] = {&e, bufs()};
  write_entries(by_name, tensors,
                {"set_parameters: the model has no parameter or buffer '", "set_parameters: '", "the model's"});
  refresh_weights_lp();
  TS_CUDA_CHECK(cudaStreamSynchronize(compute_));
}

}  // namespace ts::cuda
