// Naive double-precision reference layers: plain loops, written for clarity, that the CPU and CUDA
// backends are tested against. Semantics are PyTorch's (torch.nn.functional, 2.x): NCHW tensors,
// MaxPool2d pads with -inf and on ties keeps the first maximum, AvgPool2d counts the padding
// (count_include_pad=True), BatchNorm2d normalises with the biased batch variance and updates
// running_var with the unbiased one, Dropout keeps element i when dropout_uniform(key, i) >= p and
// scales kept elements by 1/(1-p), CrossEntropyLoss takes the mean over the batch.
// RefModel runs a whole ModelSpec forward and backward; numerical_gradient gives central
// differences for checking the analytic backward passes themselves.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/model_spec.h"
#include "engine/tensor.h"

namespace ts::ref {

/// A double-precision tensor with a shape (outermost first) and contiguous values.
struct RefTensor {
  Shape shape;
  std::vector<double> v;
  RefTensor() = default;
  explicit RefTensor(Shape s);
  RefTensor(Shape s, std::vector<double> values);
  std::int64_t numel() const { return static_cast<std::int64_t>(v.size()); }
  bool empty() const { return v.empty(); }
};

RefTensor from_host(const HostTensor& t);
HostTensor to_host(const RefTensor& t);

// ---- Conv2d: x [N,C,H,W], w [O,C,KH,KW], b [O] or empty ---------------------------------------
struct Conv2dGeometry {
  std::int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
};
RefTensor conv2d_forward(const RefTensor& x, const RefTensor& w, const RefTensor& b, const Conv2dGeometry& g);
/// dL/dx given dL/dy.
RefTensor conv2d_backward_data(const RefTensor& dy, const RefTensor& w, const Shape& x_shape,
                               const Conv2dGeometry& g);
/// dL/dw given dL/dy and the forward input.
RefTensor conv2d_backward_weight(const RefTensor& dy, const RefTensor& x, const Shape& w_shape,
                                 const Conv2dGeometry& g);
/// dL/db: dy summed over N, H, W.
RefTensor conv2d_backward_bias(const RefTensor& dy);

// ---- ReLU ---------------------------------------------------------------------------------------
RefTensor relu_forward(const RefTensor& x);
/// dy where x > 0, else 0 (PyTorch's threshold_backward at 0).
RefTensor relu_backward(const RefTensor& dy, const RefTensor& x);

// ---- Pooling: x [N,C,H,W] -------------------------------------------------------------------------
struct Pool2dGeometry {
  std::int64_t kernel_h = 2, kernel_w = 2, stride_h = 2, stride_w = 2, pad_h = 0, pad_w = 0;
};
/// Output size floor((H + 2p - k)/s) + 1 (ceil_mode=False).
Shape pool2d_output_shape(const Shape& x_shape, const Pool2dGeometry& g);
RefTensor maxpool2d_forward(const RefTensor& x, const Pool2dGeometry& g);
/// Routes each dy to the first maximum of its window.
RefTensor maxpool2d_backward(const RefTensor& dy, const RefTensor& x, const Pool2dGeometry& g);
/// count_include_pad=True: every window divides by kernel_h*kernel_w.
RefTensor avgpool2d_forward(const RefTensor& x, const Pool2dGeometry& g);
RefTensor avgpool2d_backward(const RefTensor& dy, const Shape& x_shape, const Pool2dGeometry& g);
/// AdaptiveAvgPool2d((1,1)): [N,C,H,W] -> [N,C,1,1].
RefTensor adaptive_avgpool1_forward(const RefTensor& x);
RefTensor adaptive_avgpool1_backward(const RefTensor& dy, const Shape& x_shape);

// ---- Linear: x [N,in], w [out,in], b [out] or empty ---------------------------------------------
RefTensor linear_forward(const RefTensor& x, const RefTensor& w, const RefTensor& b);
RefTensor linear_backward_data(const RefTensor& dy, const RefTensor& w);
RefTensor linear_backward_weight(const RefTensor& dy, const RefTensor& x);
RefTensor linear_backward_bias(const RefTensor& dy);

// ---- BatchNorm2d ------------------------------------------------------------------------------------
/// What the training forward keeps for the backward pass.
struct BatchNormCache {
  RefTensor x_hat;               // normalised input, shape of x
  std::vector<double> inv_std;   // 1/sqrt(var_biased + eps) per channel
};
/// Training mode: normalises with the batch mean and biased variance; updates
/// running = (1-momentum)*running + momentum*batch_stat with the unbiased variance.
RefTensor batchnorm2d_forward_train(const RefTensor& x, const RefTensor& gamma, const RefTensor& beta,
                                    double eps, double momentum, RefTensor& running_mean,
                                    RefTensor& running_var, BatchNormCache* cache);
/// Eval mode: normalises with the running statistics.
RefTensor batchnorm2d_forward_eval(const RefTensor& x, const RefTensor& gamma, const RefTensor& beta,
                                   double eps, const RefTensor& running_mean, const RefTensor& running_var);
/// Backward of the training forward: returns dx; dgamma, dbeta receive the parameter gradients.
RefTensor batchnorm2d_backward(const RefTensor& dy, const RefTensor& gamma, const BatchNormCache& cache,
                               RefTensor* dgamma, RefTensor* dbeta);

// ---- Dropout ------------------------------------------------------------------------------------------
/// Per-element multiplier: 1/(1-p) where dropout_uniform(key, i) >= p, else 0 (p == 1: all 0).
std::vector<double> dropout_scale(std::int64_t n, double p, std::uint64_t key);
/// y = x * scale (forward), dx = dy * scale (backward).
RefTensor apply_scale(const RefTensor& x, const std::vector<double>& scale);

// ---- Flatten ---------------------------------------------------------------------------------------------
/// Merges dimensions start_dim..end (start_dim counts the batch dimension as 0).
RefTensor flatten(const RefTensor& x, std::int64_t start_dim);

// ---- Cross-entropy -------------------------------------------------------------------------------------
/// Mean over the batch of -log softmax(logits)[label]; logits [N, K]. When `grad` is given it gets
/// dL/dlogits = (softmax - onehot)/N. When `per_sample` is given it gets each sample's loss.
double cross_entropy(const RefTensor& logits, const std::vector<std::int32_t>& labels, RefTensor* grad = nullptr,
                     std::vector<double>* per_sample = nullptr);

// ---- A whole model ---------------------------------------------------------------------------------------
/// Parameter and buffer names of a layer follow PyTorch: "<name>.weight", ".bias", ".running_mean",
/// ".running_var"; an unnamed layer is named by its index.
std::string layer_name(const ModelSpec& spec, std::size_t index);

/// Runs a ModelSpec on the reference layers. Parameters and buffers are set by name (usually from a
/// backend's parameters()/buffers(), so both start from the same values).
class RefModel {
 public:
  explicit RefModel(ModelSpec spec);
  std::map<std::string, RefTensor> params, buffers, grads;
  /// Dropout layer i uses dropout_key(seed, dropout_step, i) in training mode when dropout_enabled.
  std::uint64_t seed = 0, dropout_step = 0;
  bool dropout_enabled = true;

  void set(const std::vector<NamedTensor>& tensors);  // params or buffers, by name
  RefTensor forward(const RefTensor& x, bool training);
  /// Backward from dL/d(output) of the last training forward; fills `grads`, returns dL/dx.
  RefTensor backward(const RefTensor& dy);
  const ModelSpec& spec() const { return spec_; }

 private:
  RefTensor forward_layer(std::size_t i, const RefTensor& x, bool training);
  RefTensor backward_layer(std::size_t i, const RefTensor& dy);
  ModelSpec spec_;
  std::vector<RefTensor> inputs_;              // per layer, from the last forward
  std::vector<BatchNormCache> bn_caches_;      // per layer (used by BatchNorm2d)
  std::vector<std::vector<double>> dropout_;   // per layer (used by Dropout)
};

// ---- Finite differences -----------------------------------------------------------------------------
/// Central differences (f(x + h e_i) - f(x - h e_i)) / 2h for every element of x, in double.
RefTensor numerical_gradient(const std::function<double(const RefTensor&)>& f, const RefTensor& x,
                             double h = 1e-6);

/// Largest |a-b| / max(atol_floor, |b|) over all elements and where it is; shapes must match.
struct Comparison {
  double max_abs = 0, max_rel = 0;
  std::int64_t worst_index = -1;
  bool shape_ok = true;
};
Comparison compare(const std::vector<double>& a, const std::vector<double>& b, double atol_floor);
Comparison compare(const HostTensor& a, const RefTensor& b, double atol_floor);

/// Deterministic pseudo-random values in [lo, hi) (SplitMix64), for test inputs.
RefTensor random_tensor(Shape shape, std::uint64_t seed, double lo = -1.0, double hi = 1.0);

}  // namespace ts::ref
