// CudaNetwork: construction (handles, streams, the memory plan, algorithm search, initial
// parameters), the OOM report with a batch size that fits, and small host-side services.
#include "engine/cuda/cuda_network.h"

#include <cublas_v2.h>

#include <algorithm>
#include <cstdlib>

#include "base/cuda_check.h"
#include "engine/cuda/cublas_check.h"
#include "engine/host_trace.h"
#include "engine/memory_fit.h"
#include "kernels/kernels.h"

namespace ts::cuda {
namespace {
constexpr std::size_t kCublasWorkspace = 32ull << 20;  // cuBLAS's recommendation for Hopper
constexpr std::size_t kMaxConvWorkspace = 256ull << 20;
constexpr std::size_t kMinConvWorkspace = 8ull << 20;
}  // namespace

CudaNetwork::CudaNetwork(const ModelSpec& spec, const NetworkOptions& options) : spec_(spec), options_(options) {
  if (options_.max_batch_size < 1 || options_.max_batch_size > (1ll << 31))
    throw InputError("max_batch_size must be between 1 and 2^31, not " + std::to_string(options_.max_batch_size));
  if (options_.accumulate < 1) throw InputError("accumulate must be >= 1, not " + std::to_string(options_.accumulate));
  act_ = options_.amp == AmpMode::fp16 ? kernels::ElemType::f16
                                       : (options_.amp == AmpMode::bf16 ? kernels::ElemType::bf16 : kernels::ElemType::f32);
  act_bytes_ = static_cast<std::size_t>(kernels::elem_bytes(act_));
  TS_CUDA_CHECK(cudaSetDevice(options_.cuda_device));
  info_ = query_device_info(options_.cuda_device);
  try {
    acquire();
  } catch (...) {
    release();  // no destructor runs for a constructor that throws (an absurd batch size: OutOfMemoryError)
    throw;
  }
}

// Streams, events, handles, pinned buffers, device memory and the first upload; everything it creates
// is released by release(), also when it throws halfway.
void CudaNetwork::acquire() {
  alloc_ = std::make_unique<CachingAllocator>(options_.cuda_device, options_.memory_limit_bytes);
  TS_CUDA_CHECK(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
  TS_CUDA_CHECK(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
  for (int s = 0; s < kInputSlots; ++s) {
    TS_CUDA_CHECK(cudaEventCreateWithFlags(&copied_[s], cudaEventDisableTiming));
    TS_CUDA_CHECK(cudaEventCreateWithFlags(&slot_free_[s], cudaEventDisableTiming));
  }
  cudnn_ = std::make_unique<CudnnHandle>(compute_);
  cublasHandle_t cb = nullptr;
  TS_CUBLAS_CHECK(cublasCreate(&cb));
  cublas_ = cb;
  TS_CUBLAS_CHECK(cublasSetStream(cb, compute_));
  TS_CUBLAS_CHECK(cublasSetMathMode(cb, CUBLAS_DEFAULT_MATH));  // no TF32 for matmul (PyTorch's default)
  TS_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_ring_), 2 * sizeof(float) * kLossRing));
  TS_CUDA_CHECK(cudaMallocHost(&host_counters_, kHostCounterBytes));
  build_plan();
  allocate_memory();
  TS_CUBLAS_CHECK(cublasSetWorkspace(cb, cublas_workspace_->ptr, cublas_workspace_->bytes));
  choose_algorithms();
  warm_shapes(algorithm_batch_sizes());
  upload_initial_parameters();
  synchronize();
}

CudaNetwork::~CudaNetwork() { release(); }

void CudaNetwork::release() noexcept {
  if (compute_) cudaStreamSynchronize(compute_);
  if (copy_) cudaStreamSynchronize(copy_);
  destroy_graphs();
  if (cublas_) cublasDestroy(static_cast<cublasHandle_t>(cublas_));
  cudnn_.reset();
  for (int s = 0; s < kInputSlots; ++s) {
    if (copied_[s]) cudaEventDestroy(copied_[s]);
    if (slot_free_[s]) cudaEventDestroy(slot_free_[s]);
  }
  if (compute_) cudaStreamDestroy(compute_);
  if (copy_) cudaStreamDestroy(copy_);
  if (host_ring_) cudaFreeHost(host_ring_);
  if (host_counters_) cudaFreeHost(host_counters_);
  cublas_ = nullptr, compute_ = copy_ = nullptr, host_ring_ = nullptr, host_counters_ = nullptr;
  copied_ = {}, slot_free_ = {};
}

std::shared_ptr<MemoryBlock> CudaNetwork::alloc(std::size_t bytes, MemoryCategory c, const std::string& phase) {
  return alloc_->allocate(bytes, c, phase);
}

void CudaNetwork::allocate_memory() {
  size_t free_b = 0, total_b = 0;
  TS_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  // The plan sees the simulated card: what the cap leaves (all of it, nothing is reserved yet).
  free_at_start_ = std::min(static_cast<std::int64_t>(free_b), alloc_->free_under_limit());
  const std::size_t pbytes = sizeof(float) * static_cast<std::size_t>(param_count_);
  const std::size_t N = static_cast<std::size_t>(options_.max_batch_size);
  try {
    params_ = alloc(pbytes, MemoryCategory::weights, "parameters");
    param_grads_ = alloc(pbytes, MemoryCategory::gradients, "gradients");
    const auto& o = options_.optimizer;
    bool adam = o.type != OptimizerType::sgd;
    if (adam || o.momentum != 0.0f) state1_ = alloc(pbytes, MemoryCategory::optimizer_state, "optimizer state");
    if (adam) state2_ = alloc(pbytes, MemoryCategory::optimizer_state, "optimizer state");
    if (buffer_count_ > 0)
      buffers_ = alloc(sizeof(float) * buffer_count_, MemoryCategory::weights, "BatchNorm running statistics");
    if (options_.accumulate > 1) accum_ = alloc(pbytes, MemoryCategory::gradients, "accumulated gradients");
    if (amp()) {
      params_lp_ = alloc(act_bytes_ * static_cast<std::size_t>(param_count_), MemoryCategory::weights,
                         std::string(amp_mode_name(options_.amp)) + " weight copy");
      std::int64_t max_conv_w = 0;
      for (const ParamEntry& e : param_entries_)  // conv weights are the 4-D parameters
        if (e.shape.size() == 4) max_conv_w = std::max(max_conv_w, numel(e.shape));
      if (max_conv_w > 0)
        wgrad_lp_ = alloc(act_bytes_ * static_cast<std::size_t>(max_conv_w), MemoryCategory::workspace,
                          "convolution weight-gradient scratch");
      amp_state_ = alloc(sizeof(kernels::AmpDeviceState), MemoryCategory::other, "loss-scaler state");
    }
    allocate_op_buffers();
    const std::size_t gbytes = act_bytes_ * N * static_cast<std::size_t>(max_activation_);
    grads_[0] = alloc(gbytes, MemoryCategory::activations, "activation gradients");
    grads_[1] = alloc(gbytes, MemoryCategory::activations, "activation gradients");
    input_f32_ = alloc(sizeof(float) * N * numel(spec_.input), MemoryCategory::activations, "normalised input");
    input_act_ = amp() ? alloc(act_bytes_ * N * numel(spec_.input), MemoryCategory::activations, "normalised input (AMP)")
                       : input_f32_;
    for (int s = 0; s < kInputSlots; ++s) {
      slot_images_[s] = alloc(N * numel(spec_.input), MemoryCategory::input_batches, "input batch slot");
      slot_labels_[s] = alloc(N * sizeof(std::int32_t), MemoryCategory::input_batches, "input label slot");
    }
    loss_ring_ = alloc(2 * sizeof(float) * kLossRing, MemoryCategory::other, "loss and loss-scale ring");
    eval_counters_ = alloc(16, MemoryCategory::other, "eval counters");
    test_loss_ = alloc(sizeof(float), MemoryCategory::other, "loss");
    cublas_workspace_ = alloc(kCublasWorkspace, MemoryCategory::workspace, "cuBLAS workspace");
    if (options_.cuda_graphs) graph_state_ = alloc(32, MemoryCategory::other, "CUDA graph step counters");
  } catch (const OutOfMemoryError& e) {
    rethrow_oom(e);
  }
  // Padding between tensors must stay zero (its gradient is never written), state starts at zero.
  // The cuBLAS workspace and the activation gradients too: on sm_90, cublasLt's split-K reduce reads
  // partial sums from the workspace, and cuDNN's fp16 max-pool backward reads dy, that compute-
  // sanitizer's initcheck counts as never written (98,304 and 57,264 reports in the AMP
  // tests; the values read are the ones the GEMM/dgrad kernels wrote, the results match fp32). Zeroed
  // once at start, so any slot a kernel left alone reads 0, the same in every run.
  for (auto* b : {&params_, &param_grads_, &state1_, &state2_, &buffers_, &accum_, &params_lp_, &loss_ring_,
                  &cublas_workspace_, &grads_[0], &grads_[1]})
    if (*b && (*b)->ptr) TS_CUDA_CHECK(cudaMemsetAsync((*b)->ptr, 0, (*b)->bytes, compute_));
  if (amp_state_) {
    kernels::AmpDeviceState st{options_.loss_scaler.init_scale, 0, 0u, 0, 0};
    TS_CUDA_CHECK(cudaMemcpy(amp_state_->ptr, &st, sizeof st, cudaMemcpyHostToDevice));
  }
  TS_CUDA_CHECK(cudaMemsetAsync(eval_counters_->ptr, 0, 16, compute_));
}

void CudaNetwork::allocate_op_buffers() {
  const std::size_t N = static_cast<std::size_t>(options_.max_batch_size);
  for (Op& op : ops_) {
    op.out = alloc(act_bytes_ * N * numel(op.out_shape), MemoryCategory::activations, "activations of " + op.label);
    if (op.fused_pool()) {
      op.raw = alloc(act_bytes_ * N * numel(op.conv_shape), MemoryCategory::activations,
                     "convolution output of " + op.label);
      op.pool_index = alloc(N * numel(op.out_shape), MemoryCategory::activations, "max-pool indices of " + op.label);
    }
    if (op.b_off >= 0) {
      std::int64_t rows = static_cast<std::int64_t>(N) * op.rows_per_sample;
      op.partials = alloc(sizeof(float) * kernels::epilogue_partials_count(rows, op.channels, op.hw), MemoryCategory::workspace,
                          "bias-gradient partial sums of " + op.label);
      op.counters = alloc(sizeof(unsigned) * op.channels, MemoryCategory::workspace, "counters of " + op.label);
      TS_CUDA_CHECK(cudaMemsetAsync(op.counters->ptr, 0, op.counters->bytes, compute_));
    }
    if (op.kind == OpKind::batchnorm)
      op.bn_save = alloc(sizeof(float) * 2 * op.channels, MemoryCategory::activations, "saved statistics of " + op.label);
  }
}

std::vector<std::int64_t> CudaNetwork::algorithm_batch_sizes() const {
  std::vector<std::int64_t> sizes{options_.max_batch_size};
  for (std::int64_t n : options_.planned_batch_sizes)
    if (n >= 1 && n < options_.max_batch_size && std::find(sizes.begin(), sizes.end(), n) == sizes.end())
      sizes.push_back(n);
  return sizes;
}

ConvSearchBuffers CudaNetwork::conv_buffers(std::size_t k, void* workspace, std::size_t workspace_bytes) {
  const Op& op = ops_[k];
  return ConvSearchBuffers{k ? ops_[k - 1].out_ptr() : input_act(), weights_lp(op.w_off), op.conv_out_ptr(),
                           grad_buf(0), amp() ? wgrad_lp_->ptr : static_cast<void*>(grads() + op.w_off), workspace,
                           workspace_bytes};
}

void CudaNetwork::choose_algorithms() {
  bool any_conv = std::any_of(ops_.begin(), ops_.end(), [](const Op& op) { return op.kind == OpKind::conv; });
  if (!any_conv) return;
  size_t free_b = 0, total_b = 0;
  TS_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const auto free_now =
      static_cast<std::size_t>(std::min(static_cast<std::int64_t>(free_b), alloc_->free_under_limit()));
  const std::size_t limit = std::max(kMinConvWorkspace, std::min(kMaxConvWorkspace, free_now / 8));
  zero_scratch();
  const std::vector<std::int64_t> sizes = algorithm_batch_sizes();
  try {
    if (options_.deterministic) {
      // Timing-based search can pick a different (deterministic) algorithm in another run, and another
      // algorithm rounds differently: deterministic mode takes cuDNN's heuristic order instead, as
      // PyTorch does when benchmark mode is off (chosen by the runs below, per batch size).
      workspace_bytes_ = std::min<std::size_t>(limit, 64ull << 20);
    } else {
      workspace_bytes_ = std::max(search_algorithms(sizes, limit), kMinConvWorkspace);
    }
    workspace_ = alloc(workspace_bytes_, MemoryCategory::workspace, "convolution workspace");
  } catch (const OutOfMemoryError& e) {
    rethrow_oom(e);
  }
}

// The search and the warm-up read these buffers before any batch or weight is in them: zeros, so
// that nothing reads uninitialised memory (compute-sanitizer initcheck reported every read; garbage
// can also hold denormals or NaNs that skew the timings the choice rests on).
void CudaNetwork::zero_scratch() {
  for (const auto* blocks : {&grads_[0], &grads_[1], &params_, &param_grads_, &params_lp_, &input_act_})
    if (*blocks) TS_CUDA_CHECK(cudaMemsetAsync((*blocks)->ptr, 0, (*blocks)->bytes, compute_));
  for (const Op& op : ops_)
    for (const auto* block : {&op.out, &op.raw, &op.pool_index})
      if (*block) TS_CUDA_CHECK(cudaMemsetAsync((*block)->ptr, 0, (*block)->bytes, compute_));
}

std::size_t CudaNetwork::search_algorithms(const std::vector<std::int64_t>& sizes, std::size_t limit) {
  std::size_t needed = 0;
  {
    TS_CUDA_CHECK(cudaStreamSynchronize(compute_));  // the scratch zeroing: the device idle for the sink
    const trace::ScopedRange range(trace::RangeKind::other, "cuDNN algorithm search (GPU not traced)");
    const trace::MeasuringScope measuring;  // a profiler pauses: the timings are the run's, not its own
    auto search = alloc(limit, MemoryCategory::workspace, "convolution algorithm search");
    for (std::size_t k = 0; k < ops_.size(); ++k) {
      if (ops_[k].kind != OpKind::conv) continue;
      for (std::int64_t n : sizes) {
        ops_[k].conv->find_algorithms(*cudnn_, n, conv_buffers(k, search->ptr, limit));
        needed = std::max(needed, ops_[k].conv->workspace_bytes(n));
      }
    }
  }
  alloc_->empty_cache();
  return needed;
}

void CudaNetwork::upload_initial_parameters() {
  set_parameters(initial_parameters(spec_, options_.seed));
  // BatchNorm's running mean 0 and variance 1 (torch/nn/modules/batchnorm.py); cudaMalloc gives
  // whatever the memory held, and the warm-up's training forward has updated them.
  if (buffer_count_ > 0) set_parameters(initial_buffers(spec_));
}

void CudaNetwork::refresh_weights_lp() {
  if (amp()) kernels::cast_from_float(params(), params_lp_->ptr, act_, param_count_, compute_);
}

// The footprint of this plan at max_batch_size (per sample: op outputs, a fused pool's raw convolution
// output and uint8 index, the two gradient buffers, the input slots and normalised input; fixed:
// parameters, gradients, optimizer state, BatchNorm statistics, the accumulation buffer the advice may
// add, the AMP weight copy, the largest workspaces) against the memory free when the plan began, under
// the cap when there is one.
void CudaNetwork::rethrow_oom(const OutOfMemoryError& e) const {
  const std::int64_t N = options_.max_batch_size;
  const auto ab = static_cast<std::int64_t>(act_bytes_);
  MemoryFootprint f;
  f.per_sample_bytes = numel(spec_.input) * (sizeof(float) + kInputSlots + (amp() ? ab : 0)) + 4 * kInputSlots +
                       2 * max_activation_ * ab;
  for (const Op& op : ops_) {
    f.per_sample_bytes += numel(op.out_shape) * ab;
    if (op.fused_pool()) f.per_sample_bytes += numel(op.conv_shape) * ab + numel(op.out_shape);  // raw + index
  }
  int states = options_.optimizer.type != OptimizerType::sgd ? 2 : (options_.optimizer.momentum != 0 ? 1 : 0);
  f.fixed_bytes = static_cast<std::int64_t>(sizeof(float)) * ((3 + states) * param_count_ + buffer_count_) +
                  (amp() ? ab * param_count_ : 0) + static_cast<std::int64_t>(kCublasWorkspace + kMaxConvWorkspace);
  const std::int64_t fits = batch_size_that_fits(f, free_at_start_);
  const std::int64_t cap = alloc_->limit_bytes();
  const bool simulated = cap > 0 && e.memory_limit_bytes > 0;  // the cap, not the real card, ran out
  const std::string card = "the simulated " + memory_limit_gib_text(cap) + " GiB card";
  std::string msg = std::string(e.what()) + ". At max_batch_size " + std::to_string(N) + " the model needs about " +
                    format_bytes(f.per_sample_bytes) + " per sample (" + format_bytes(f.per_sample_bytes * N) +
                    " of activations and input) plus " + format_bytes(f.fixed_bytes) +
                    " of parameters, gradients, optimizer state and workspaces; when the network was set up, " +
                    format_bytes(free_at_start_) + (simulated ? " of " + card : "") + " was free";
  msg += oom_fix_advice(N, options_.accumulate, fits, !amp(), true, simulated ? "on " + card : "on this GPU");
  throw with_oom_advice(e, msg, N, options_.accumulate, fits);
}

HostBuffer CudaNetwork::allocate_host(std::size_t bytes, bool pinned) {
  if (pinned) {
    void* p = nullptr;
    if (cudaHostAlloc(&p, bytes, cudaHostAllocDefault) == cudaSuccess)
      return HostBuffer(static_cast<std::uint8_t*>(p), [](std::uint8_t* q) { cudaFreeHost(q); });
    cudaGetLastError();  // fall back to pageable memory (copies still work, without overlap)
  }
  auto* p = static_cast<std::uint8_t*>(std::malloc(bytes ? bytes : 1));
  if (!p) throw OutOfMemoryError("host out of memory allocating " + format_bytes(bytes), bytes, 0, "host batch buffer");
  return HostBuffer(p, [](std::uint8_t* q) { std::free(q); });
}

void CudaNetwork::synchronize() {
  TS_CUDA_CHECK(cudaStreamSynchronize(copy_));
  TS_CUDA_CHECK(cudaStreamSynchronize(compute_));
}

std::string CudaNetwork::describe_algorithms(std::int64_t n) const {
  std::string s;
  for (const Op& op : ops_)
    if (op.conv) s += op.conv->describe(n) + "\n";
  return s;
}

std::unique_ptr<Network> make_cuda_network_impl(const ModelSpec& spec, const NetworkOptions& options) {
  return std::make_unique<CudaNetwork>(spec, options);
}

}  // namespace ts::cuda
