// cuDNN-backed layers (legacy API): convolution with algorithms chosen once per batch size and
// cached, pooling (max / average / global average) and batch normalisation. This header keeps
// cudnn.h out of the network's translation units (it is slow to parse): descriptors live behind
// pimpls. Every call enqueues on the handle's stream (the compute stream) and throws DeviceError
// with cuDNN's error string on failure. Pointers are device pointers to NCHW tensors of the layer's
// data type (fp32, or fp16/bf16 under AMP: cuDNN computes in fp32 - CUDNN_DATA_FLOAT compute type,
// tensor cores for half types); BatchNorm's scale, bias and statistics are fp32 in every case.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "kernels/kernels.h"

namespace ts::cuda {

/// Owns a cudnnHandle_t bound to one stream.
class CudnnHandle {
 public:
  explicit CudnnHandle(cudaStream_t stream);
  ~CudnnHandle();
  CudnnHandle(const CudnnHandle&) = delete;
  CudnnHandle& operator=(const CudnnHandle&) = delete;
  void* raw() const { return handle_; }

 private:
  void* handle_ = nullptr;
};

/// cudnnGetVersion() of the library loaded at run time (e.g. 91400), and the headers' CUDNN_VERSION.
std::int64_t cudnn_runtime_version();
std::int64_t cudnn_build_version();

struct ConvShape {
  std::int64_t c_in = 0, h = 0, w = 0, c_out = 0, kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0;
  std::int64_t h_out = 0, w_out = 0;
};

/// Buffers the algorithm search may write into (they are overwritten; use it before real data).
struct ConvSearchBuffers {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
  void* dx = nullptr;  // null when the layer needs no data gradient
  void* dw = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

/// How many convolution algorithm searches (ConvLayer::find_algorithms that ran cuDNN's timings) this
/// process has made; a search of a convolution already searched with the same shape, batch, type and
/// limits takes the earlier result instead and is not counted.
std::int64_t conv_algorithm_searches();

class ConvLayer {
 public:
  /// allow_tf32: CUDNN_DEFAULT_MATH (TF32 tensor cores allowed on sm_80+), else CUDNN_FMA_MATH.
  /// deterministic: only algorithms cuDNN marks CUDNN_DETERMINISTIC. dtype: of x, w, y, dx and dw
  /// (fp16/bf16: tensor-core math, fp32 accumulation).
  ConvLayer(const ConvShape& s, bool allow_tf32, bool deterministic, bool needs_data_grad, std::string name,
            kernels::ElemType dtype = kernels::ElemType::f32);
  ~ConvLayer();
  /// Benchmarks the algorithms for batch n with cudnnFind*AlgorithmEx (synchronises; call before
  /// training), then times up to 4 of its fastest results that fit `b.workspace_bytes` with the host
  /// included (a call costs max(host enqueue, wall) µs: cudnnFind sees only the GPU) and caches the
  /// cheapest. TRAINSCOPE_CONV_LOG=1 prints each candidate's figures to stderr.
  void find_algorithms(const CudnnHandle& h, std::int64_t n, const ConvSearchBuffers& b);
  /// The training steps are replayed from a CUDA graph: find_algorithms ranks candidates by their GPU
  /// (wall) time alone, since a replay pays the host's enqueue once, at capture.
  void set_replayed(bool replayed);
  /// y = conv(x, w). Algorithms for a batch size not searched are taken from cuDNN's heuristics
  /// (cudnnGet*_v7, no execution, no sync) at first use and cached.
  void forward(const CudnnHandle& h, std::int64_t n, const void* x, const void* w, void* y, void* ws,
               std::size_t ws_bytes);
  void backward_data(const CudnnHandle& h, std::int64_t n, const void* dy, const void* w, void* dx, void* ws,
                     std::size_t ws_bytes);
  /// dw = conv_backward_filter(x, dy) (beta 0: overwrites dw).
  void backward_filter(const CudnnHandle& h, std::int64_t n, const void* x, const void* dy, void* dw,
                       void* ws, std::size_t ws_bytes);
  /// Largest workspace the cached algorithms for batch n need (after find/first use).
  std::size_t workspace_bytes(std::int64_t n) const;
  /// "fwd IMPLICIT_PRECOMP_GEMM (tensor op), bwd-data ..., bwd-filter ..." for logs.
  std::string describe(std::int64_t n) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

enum class PoolMode { max, average };

struct PoolShape {
  std::int64_t c = 0, h = 0, w = 0, kh = 2, kw = 2, sh = 2, sw = 2, ph = 0, pw = 0, h_out = 0, w_out = 0;
};

class PoolLayer {
 public:
  /// Max pooling (deterministic variant when asked) or average pooling counting the padding
  /// (PyTorch's count_include_pad=True).
  PoolLayer(PoolMode mode, const PoolShape& s, bool deterministic, kernels::ElemType dtype = kernels::ElemType::f32);
  ~PoolLayer();
  void forward(const CudnnHandle& h, std::int64_t n, const void* x, void* y);
  void backward(const CudnnHandle& h, std::int64_t n, const void* y, const void* dy, const void* x, void* dx);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class BatchNormLayer {
 public:
  BatchNormLayer(std::int64_t c, std::int64_t h, std::int64_t w, double eps, double momentum,
                 kernels::ElemType dtype = kernels::ElemType::f32);
  ~BatchNormLayer();
  /// Training: batch statistics; running stats updated with factor `momentum` (unbiased variance);
  /// save_mean / save_inv_std [c] keep what the backward needs.
  void forward_train(const CudnnHandle& h, std::int64_t n, const void* x, void* y, const float* gamma,
                     const float* beta, float* running_mean, float* running_var, float* save_mean,
                     float* save_inv_std);
  void forward_eval(const CudnnHandle& h, std::int64_t n, const void* x, void* y, const float* gamma,
                    const float* beta, const float* running_mean, const float* running_var);
  /// dx, and dgamma / dbeta overwritten.
  void backward(const CudnnHandle& h, std::int64_t n, const void* x, const void* dy, void* dx,
                const float* gamma, float* dgamma, float* dbeta, const float* save_mean,
                const float* save_inv_std);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ts::cuda
