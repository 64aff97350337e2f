// The CPU backend's layers: one object per layer of the ModelSpec, each owning its output and
// input-gradient buffers (sized for max_batch_size, MemoryCategory::activations), its parameters,
// gradients and buffers, and its oneDNN primitives, created once per batch size and cached.
// This header does not include dnnl.hpp (a slow header): the oneDNN types live behind DnnlContext
// and inside cpu_layers_*.cpp.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/memory.h"
#include "engine/model_spec.h"
#include "engine/tensor.h"

namespace ts::cpu {

/// oneDNN's CPU engine and stream (defined in cpu_dnnl.h).
struct DnnlContext;
std::shared_ptr<DnnlContext> make_dnnl_context();
/// "oneDNN 2.6.3" from dnnl_version() at run time.
std::string dnnl_version_string();

/// A learnable parameter (value and gradient) or a buffer (grad undefined), named as PyTorch does.
struct LayerTensor {
  std::string name;   // "conv1.weight", "bn1.running_var"
  Tensor value, grad; // shape() is PyTorch's
  /// 2-D tensors only: stored transposed ([in, out] for a Linear weight), which oneDNN 2.6's
  /// inner product runs ~25% faster over forward + backward here. The element-wise optimizer
  /// does not care; the network transposes at the API (parameters, gradients, set_parameters).
  bool transposed = false;
};

/// State shared by the layers of one network and set by it before each pass.
struct RunState {
  std::uint64_t seed = 0;
  std::int64_t step = 0;       // train steps (micro-batches) taken so far (0 before the first); keys dropout masks
  bool dropout_enabled = true;
};

/// What a layer needs to build itself. Shapes are per sample (no batch dimension).
struct LayerBuild {
  const LayerSpec* spec = nullptr;
  std::string name;            // the layer's PyTorch name
  std::size_t index = 0;       // position in the spec (keys dropout masks)
  Shape input, output;
  std::int64_t max_batch = 0;
  Allocator* alloc = nullptr;
  std::shared_ptr<DnnlContext> dnnl;
  const RunState* state = nullptr;
};

class CpuLayer {
 public:
  virtual ~CpuLayer() = default;
  /// Forward of x [n, input...]; returns the output [n, output...] (a layer buffer, or x itself for
  /// Flatten). `x` must stay valid until backward.
  virtual float* forward(float* x, std::int64_t n, bool training) = 0;
  /// Backward of the last training forward from dy [n, output...]: overwrites the parameter
  /// gradients; returns dx [n, input...] when need_dx, else nullptr.
  virtual float* backward(float* dy, std::int64_t n, bool need_dx) = 0;
  virtual std::vector<LayerTensor*> params() { return {}; }
  virtual std::vector<LayerTensor*> buffers() { return {}; }
};

/// Builds the layer for b.spec->type. Throws InputError / DeviceError (oneDNN failures).
std::unique_ptr<CpuLayer> make_cpu_layer(const LayerBuild& b);

// Factories by family (cpu_layers_conv.cpp: Conv2d, Linear; cpu_layers_misc.cpp: ReLU, AvgPool2d,
// AdaptiveAvgPool2d; cpu_layers_bn.cpp; cpu_layers_simple.cpp: MaxPool2d, Dropout, Flatten).
std::unique_ptr<CpuLayer> make_conv2d_layer(const LayerBuild& b);
std::unique_ptr<CpuLayer> make_linear_layer(const LayerBuild& b);
std::unique_ptr<CpuLayer> make_relu_layer(const LayerBuild& b);
std::unique_ptr<CpuLayer> make_pool_layer(const LayerBuild& b);     // average pooling (oneDNN)
std::unique_ptr<CpuLayer> make_maxpool_layer(const LayerBuild& b);  // own loops, see cpu_layers_simple.cpp
std::unique_ptr<CpuLayer> make_batchnorm_layer(const LayerBuild& b);
std::unique_ptr<CpuLayer> make_dropout_layer(const LayerBuild& b);
std::unique_ptr<CpuLayer> make_flatten_layer(const LayerBuild& b);

}  // namespace ts::cpu
