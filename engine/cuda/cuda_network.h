// CudaNetwork: the CUDA backend of ts::Network (NCHW; fp32, or AMP fp16/bf16). Internal header of
// engine/cuda.
//
// Plan. The spec's layers become a short list of ops; a Conv2d, Linear or BatchNorm2d absorbs the
// ReLU and Dropout that follow it into a fused pointwise tail (kernels/epilogue.cu: bias + ReLU +
// dropout in one launch, run in place on the op's output; its backward also produces the bias
// gradient). Flatten is a view. A MaxPool2d(2, stride 2, no padding) on an even height and width
// right after Conv2d -> ReLU joins that tail too (engine/pool_fusion.h; kernels/pool/fused_pool.h):
// the convolution writes its raw output to the op's `raw` buffer, one pass adds the bias, applies the
// ReLU and pools into the op's output with a uint8 index of each window's maximum, and backward routes
// the pooled gradient through the index into a full-size gradient with the bias gradient in the same
// pass (NetworkOptions::fused_pool, TRAINSCOPE_FUSED_POOL=0 turns it off). Other pooling (cuDNN) keeps
// its raw output (max-pool backward needs it), so a ReLU/Dropout after a pool, or first in the model,
// is a standalone pointwise op with its own output buffer. SimpleCNN becomes 4 ops:
// conv1+relu+pool1, conv2+relu+pool2, fc1+relu+dropout, fc2+bias (6 unfused: conv1+relu, pool1,
// conv2+relu, pool2, fc1+relu+dropout, fc2+bias).
//
// Memory (all from the caching allocator, all at construction, none in a step): one flat buffer of
// parameters, one of gradients and one or two of optimizer state (so the update is one launch);
// BatchNorm running statistics; per op an output buffer for max_batch_size (a fused pool's op also its
// full-size raw convolution output and its index, one byte per pooled element); two ping-pong gradient
// buffers (the largest activation, a fused op's full-size one included); 3 input slots (uint8 images +
// int32 labels) filled by the copy stream; the normalised input; one convolution workspace; cuBLAS's
// workspace; a device ring of per-step losses and eval counters.
//
// Steps. The dropout mask of a training forward uses dropout_key(seed, step, layer index), where step
// is the number of train steps (micro-batches) taken before it (0 for the first train_step); Adam's t
// is the number of optimizer updates + 1 (on the host, or on the device for fp16 whose skips only the
// device knows).
//
// AMP (options.amp fp16/bf16, autocast's choices): activations, activation gradients and the logits
// are half (act_ type); convolutions (cuDNN, tensor-op math, fp32 compute) and linear layers
// (cublasGemmEx, CUBLAS_COMPUTE_32F) read a half copy of the weights (params_lp_) that the optimizer
// launch rewrites from the fp32 master weights; weight gradients land in the fp32 gradient buffer
// (linear: GemmEx with an fp32 C; conv: a half scratch cast to fp32), bias and BatchNorm gradients
// are summed in fp32. fp16 scales the loss gradient by the device-resident loss scale and steps with
// kernels::amp_optimizer_update (check + unscale + skip + update + scale update, one launch). The
// loss ring holds, after the kLossRing losses, the scale each step used (negative: skipped).
#pragma once
#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/errors.h"
#include "engine/cuda/caching_allocator.h"
#include "engine/cuda/cudnn_layers.h"
#include "engine/network.h"
#include "kernels/kernels.h"
#include "kernels/pool/fused_pool.h"

namespace ts::cuda {

/// DeviceInfo of CUDA device `ordinal` (CUDA 13: clock rates come from cudaDeviceGetAttribute).
DeviceInfo query_device_info(int ordinal);

enum class OpKind { conv, linear, batchnorm, pool, pointwise };

struct Op {
  OpKind kind = OpKind::pointwise;
  int layer = 0;              // spec index of the main layer
  std::string label;          // "layer 0 (Conv2d conv1)"
  Shape in_shape, out_shape;  // per sample
  // fused tail
  bool relu = false, dropout = false;
  float dropout_p = 0.0f;
  int dropout_layer = -1;
  // parameters: float offsets into the flat buffers (-1: none)
  std::int64_t w_off = -1, b_off = -1;              // weight (BatchNorm: gamma), tail bias
  std::int64_t beta_off = -1, rm_off = -1, rv_off = -1;  // BatchNorm beta and running stats
  std::int64_t channels = 1, hw = 1;   // tail geometry per sample: out = [channels, hw] x rows
  std::int64_t rows_per_sample = 1;    // numel(out) / (channels*hw): Linear's GEMM rows per sample
  std::int64_t in_features = 0, out_features = 0;
  // a MaxPool2d fused into a conv's tail (relu then pool; kernels/pool/fused_pool.h)
  int pool_layer = -1;     // its spec index, -1: none
  Shape conv_shape;        // the convolution's output per sample [C, H, W] (out_shape is the pooled one)
  std::unique_ptr<ConvLayer> conv;
  std::unique_ptr<PoolLayer> pool;
  std::unique_ptr<BatchNormLayer> bn;
  // raw, pool_index: the fused pool's full-size convolution output and uint8 window index
  std::shared_ptr<MemoryBlock> out, raw, pool_index, partials, counters, bn_save;
  void* out_ptr() const { return out->ptr; }
  bool fused_pool() const { return pool_layer >= 0; }
  /// Where the convolution writes: the raw buffer under a fused pool, else the op's output.
  void* conv_out_ptr() const { return fused_pool() ? raw->ptr : out->ptr; }
  /// The epilogue's tail (a fused pool's bias and ReLU run in the pooling kernels instead).
  bool has_tail() const { return !fused_pool() && (b_off >= 0 || relu || dropout); }
};

struct ParamEntry {
  std::string name;
  Shape shape;
  std::int64_t offset = 0;  // floats into the flat buffer
};

class CudaNetwork final : public Network {
 public:
  CudaNetwork(const ModelSpec& spec, const NetworkOptions& options);
  ~CudaNetwork() override;

  DeviceInfo device_info() const override { return info_; }
  const ModelSpec& spec() const override { return spec_; }
  void train_step(const Batch& batch) override;
  float last_loss() override;
  std::vector<float> drain_step_losses() override;
  std::vector<float> drained_loss_scales() const override { return drained_scales_; }
  void flush_accumulation() override;
  TrainingCounters counters() override;
  void restore_counters(const TrainingCounters& c) override;
  std::vector<NamedTensor> optimizer_state() const override;
  void set_optimizer_state(const std::vector<NamedTensor>& tensors) override;
  void begin_eval() override;
  void eval_batch(const Batch& batch) override;
  EvalResult end_eval() override;
  HostBuffer allocate_host(std::size_t bytes, bool pinned) override;
  MemoryStats memory_stats() const override { return alloc_->stats(); }
  void synchronize() override;

  HostTensor forward(const HostTensor& x, bool training) override;
  HostTensor backward(const HostTensor& grad_output) override;
  float forward_backward_loss(const HostTensor& x, const std::vector<std::int32_t>& labels,
                              HostTensor* logits) override;
  void optimizer_step() override;
  std::vector<NamedTensor> parameters() const override;
  std::vector<NamedTensor> gradients() const override;
  std::vector<NamedTensor> buffers() const override;
  void set_parameters(const std::vector<NamedTensor>& tensors) override;
  void set_dropout_enabled(bool enabled) override { dropout_enabled_ = enabled; }

  // ---- for tests and the profiler --------------------------------------------------------
  CachingAllocator& allocator() { return *alloc_; }
  const std::vector<Op>& ops() const { return ops_; }
  std::int64_t step() const { return step_; }
  /// Convolution algorithms chosen, one line per conv op.
  std::string describe_algorithms(std::int64_t n) const;

 private:
  /// The constructor's work after the argument checks; throws DeviceError / OutOfMemoryError.
  void acquire();
  /// Frees what acquire() created (the destructor, and a constructor that throws); idempotent.
  void release() noexcept;
  static constexpr int kInputSlots = 3;
  static constexpr std::int64_t kLossRing = 4096;

  // construction (cuda_network.cpp, cuda_network_plan.cpp)
  void build_plan();
  void add_params(Op& op, const LayerSpec& l, const std::string& name);
  void allocate_memory();
  void allocate_op_buffers();
  void choose_algorithms();
  /// max_batch_size, then options_.planned_batch_sizes in [1, max_batch_size), each once.
  std::vector<std::int64_t> algorithm_batch_sizes() const;
  /// Layer k's (a convolution) input, weights, output and gradient buffers, with this workspace.
  ConvSearchBuffers conv_buffers(std::size_t k, void* workspace, std::size_t workspace_bytes);
  /// cudnnFind* for every convolution at every size in a `limit`-byte search workspace (freed
  /// after); returns the largest workspace the chosen algorithms need.
  std::size_t search_algorithms(const std::vector<std::int64_t>& sizes, std::size_t limit);
  /// Zeros every buffer the search and the warm-up read (gradients, weights, input, outputs).
  void zero_scratch();
  /// One training forward, backward and evaluation forward at each batch size, on zeros, before the
  /// parameters are uploaded: cuDNN and cuBLAS build their plans for each shape and CUDA loads each
  /// kernel they pick (lazy loading) here, not inside the epoch's last, short step or the first
  /// evaluation batch (2.3 s of host time per new shape under AMP before). Leaves the buffers zero.
  void warm_shapes(const std::vector<std::int64_t>& sizes);
  void upload_initial_parameters();
  [[noreturn]] void rethrow_oom(const OutOfMemoryError& e) const;
  std::shared_ptr<MemoryBlock> alloc(std::size_t bytes, MemoryCategory c, const std::string& phase);

  // step machinery (cuda_network_step.cpp)
  void check_batch(const Batch& b, const char* what) const;
  int enqueue_input(const Batch& b);
  /// A training step's forward, loss, backward and update after its input is in slot `slot`: run
  /// eagerly, or recorded into a graph while capturing_ (then the loss and the fp16 scale go to the
  /// graph's scratch, the dropout step and Adam's t are read on the device, host counters stay put).
  void step_body(std::int64_t n, int slot);
  void forward_ops(std::int64_t n, bool training);
  void forward_op(Op& op, std::int64_t n, const void* x, bool training);
  /// Backward from the gradient in grads_[cur]; returns the index of the buffer holding dL/dx (ops
  /// other than pointwise ones and fused pools write dx into the other buffer).
  int backward_ops(std::int64_t n, int cur, bool input_grad);
  void backward_op(Op& op, std::int64_t n, const void* x, void* dy, void* dx, bool need_dx);
  void conv_backward_filter(Op& op, std::int64_t n, const void* x, const void* dy);
  /// A fused pool's forward (bias, ReLU, pool; the window index when training) from op.raw into op.out.
  void fused_pool_forward(Op& op, std::int64_t n, bool training);
  /// A fused pool's backward: the pooled gradient dy -> the full-size gradient g of the convolution's
  /// output (and the bias gradient); then the convolution's backward from g, its dx into dy's buffer.
  void fused_pool_backward(Op& op, std::int64_t n, const void* x, void* dy, void* g, bool need_dx);
  kernels::PoolTailShape pool_tail_shape(const Op& op, std::int64_t n) const;
  /// After a train_step's backward: accumulate the micro-batch or apply the update.
  void accumulate_or_update();
  /// One optimizer update from `grad` (+ `accum` when not null): one launch.
  void apply_optimizer(const float* grad, const float* accum);
  bool amp() const { return act_ != kernels::ElemType::f32; }
  bool fp16() const { return act_ == kernels::ElemType::f16; }
  /// The low-precision weight copy at a float offset of the flat buffer (the fp32 buffer when not AMP).
  void* weights_lp(std::int64_t off) const {
    return amp() ? static_cast<void*>(static_cast<char*>(params_lp_->ptr) + 2 * off) : static_cast<void*>(params() + off);
  }
  kernels::AmpDeviceState* amp_state() const { return static_cast<kernels::AmpDeviceState*>(amp_state_->ptr); }
  void refresh_weights_lp();
  std::int64_t classes() const { return ops_.back().out_shape.empty() ? 0 : numel(ops_.back().out_shape); }
  void* input_act() const { return input_act_->ptr; }
  void* grad_buf(int i) const { return grads_[i]->ptr; }
  float* params() const { return static_cast<float*>(params_->ptr); }
  float* grads() const { return static_cast<float*>(param_grads_->ptr); }
  float* bufs() const { return buffers_ ? static_cast<float*>(buffers_->ptr) : nullptr; }
  void linear_gemm(const Op& op, std::int64_t rows, const void* x, void* y);
  void linear_gemm_backward(const Op& op, std::int64_t rows, const void* x, const void* dy, void* dx);

  // CUDA graphs (cuda_network_graph.cpp): with options_.cuda_graphs and one update per step, a train
  // step is one cudaGraphLaunch of the step captured once per (batch size, input slot).
  bool graph_steps() const { return options_.cuda_graphs && options_.accumulate == 1; }
  void graph_train_step(std::int64_t n, int slot);
  /// A captured step: the graph and an executable of it for each way a tracer may instrument graph
  /// launches (trace::GraphTracing), each instantiated at its first launch under that tracing and kept:
  /// a hybrid recording switches every ~200 steps, and instantiating at every switch costs milliseconds.
  struct StepGraph {
    cudaGraph_t graph = nullptr;
    std::array<cudaGraphExec_t, 2> exec{};  // by trace::GraphTracing
    unsigned tracing_changes = 0;           // trace::graph_tracing_changes() at the last launch
  };
  /// Captures step_body(n, slot) on the compute stream (thread-local capture mode: the loader's threads
  /// may allocate pinned memory meanwhile) into g.graph; throws DeviceError.
  void capture_step(std::int64_t n, int slot, StepGraph& g);
  /// The executable of g for the tracer's current graph tracing, instantiated if it has none; throws DeviceError.
  cudaGraphExec_t step_exec(StepGraph& g);
  void destroy_graphs() noexcept;
  /// graph_state_: {long long train steps, updates applied; float loss, fp16 loss scale} on the device.
  long long* graph_counters() const { return static_cast<long long*>(graph_state_->ptr); }
  float* graph_loss() const { return reinterpret_cast<float*>(graph_counters() + 2); }
  float* graph_scale() const { return graph_loss() + 1; }

  // test path (cuda_network_host.cpp)
  void upload(float* dst, const std::vector<float>& src);
  std::vector<float> download(const float* src, std::int64_t count) const;
  /// Activation-typed device data <-> fp32 host values (casts through a temporary fp32 block).
  std::vector<float> download_act(const void* src, std::int64_t count);
  void upload_act(void* dst, const std::vector<float>& src);
  std::vector<NamedTensor> read_entries(const std::vector<ParamEntry>& entries, const float* base) const;
  /// Where each named tensor goes: its entry (shape, offset) and the device buffer the entry is in.
  using EntryTargets = std::unordered_map<std::string, std::pair<const ParamEntry*, float*>>;
  /// The words of write_entries' errors: "<unknown>NAME'" for a name with no target and
  /// "<named>NAME' has shape S but <owner> is S2" for a shape that differs.
  struct EntryWords {
    const char* unknown;
    const char* named;
    const char* owner;
  };
  /// Uploads `tensors` to their targets (after synchronize(); the copies are on the compute
  /// stream, not waited for). Throws InputError, naming the tensor, before a copy of it.
  void write_entries(const EntryTargets& targets, const std::vector<NamedTensor>& tensors, const EntryWords& words);

  ModelSpec spec_;
  NetworkOptions options_;
  DeviceInfo info_;
  std::unique_ptr<CachingAllocator> alloc_;  // first member with device memory: destroyed last
  cudaStream_t compute_ = nullptr, copy_ = nullptr;
  std::unique_ptr<CudnnHandle> cudnn_;
  void* cublas_ = nullptr;  // cublasHandle_t
  std::vector<Op> ops_;
  std::vector<ParamEntry> param_entries_, buffer_entries_;
  std::int64_t param_count_ = 0, buffer_count_ = 0;  // floats, with alignment padding
  std::int64_t max_activation_ = 0;                  // elements per sample, largest op in/out (or raw conv output)
  kernels::ElemType act_ = kernels::ElemType::f32;  // activations (fp16/bf16 under AMP)
  std::size_t act_bytes_ = 4;
  std::shared_ptr<MemoryBlock> params_, param_grads_, state1_, state2_, buffers_;
  std::shared_ptr<MemoryBlock> params_lp_, accum_, wgrad_lp_, amp_state_;  // AMP / accumulation
  std::shared_ptr<MemoryBlock> input_f32_, input_act_, grads_[2], workspace_, cublas_workspace_;
  std::array<std::shared_ptr<MemoryBlock>, kInputSlots> slot_images_, slot_labels_;
  std::array<cudaEvent_t, kInputSlots> copied_{}, slot_free_{};
  std::shared_ptr<MemoryBlock> loss_ring_, eval_counters_, test_loss_;
  float* host_ring_ = nullptr;        // pinned [kLossRing]
  /// Pinned scratch for small read-backs, one at a time: the evaluation's {u64 correct; double
  /// loss_sum}, the fp16 AMP state (a pageable destination would be a synchronous staged copy).
  static constexpr std::size_t kHostCounterBytes = 64;
  void* host_counters_ = nullptr;
  std::size_t workspace_bytes_ = 0;
  int next_slot_ = 0;
  std::int64_t step_ = 0, drained_to_ = 0;  // ring holds steps [drained_to_, step_)
  std::int64_t opt_steps_ = 0;              // updates applied (not fp16: fp16's count is on the device)
  int pending_ = 0;                         // micro-batches accumulated since the last update
  std::vector<float> undrained_, undrained_scales_;  // read early when the ring was about to wrap
  std::vector<float> drained_scales_;
  std::int64_t eval_total_ = 0;
  bool dropout_enabled_ = true;
  bool have_forward_ = false;
  std::int64_t last_forward_n_ = 0;
  std::int64_t free_at_start_ = 0;
  std::map<std::pair<std::int64_t, int>, StepGraph> graphs_;  // (batch size, input slot)
  std::shared_ptr<MemoryBlock> graph_state_;
  bool capturing_ = false;
  bool graph_counters_current_ = false;  // the device's counters equal step_ and opt_steps_
};

}  // namespace ts::cuda
