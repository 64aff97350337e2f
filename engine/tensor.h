// Tensors of the engine: a dtype, a shape, a device and storage that comes from an Allocator, so
// that every byte is counted in a MemoryCategory (see memory.h). HostTensor is the plain fp32
// value type that crosses the engine's API (parameters, gradients, test inputs and outputs).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/memory.h"

namespace ts {

enum class DType : std::uint8_t { f32, f16, bf16, u8, i32, i64 };
enum class Device : std::uint8_t { cpu, cuda };

/// Size of one element in bytes.
std::size_t dtype_size(DType t);
const char* device_name(Device d);

/// A shape, outermost dimension first (NCHW for images: batch, channels, height, width).
using Shape = std::vector<std::int64_t>;
std::int64_t numel(const Shape& s);
/// "[128, 3, 32, 32]"
std::string shape_string(const Shape& s);

/// A contiguous tensor whose bytes come from an Allocator (device or host). Copies share storage.
class Tensor {
 public:
  Tensor() = default;
  /// Allocates numel(shape) * dtype_size(dtype) bytes from `alloc` in `category`.
  /// Throws OutOfMemoryError (via the allocator) when the memory is not there.
  Tensor(Allocator& alloc, DType dtype, Shape shape, MemoryCategory category);

  void* data() const { return block_ ? block_->ptr : nullptr; }
  template <class T> T* data_as() const { return static_cast<T*>(data()); }
  DType dtype() const { return dtype_; }
  Device device() const { return device_; }
  const Shape& shape() const { return shape_; }
  std::int64_t numel() const { return ts::numel(shape_); }
  std::size_t bytes() const { return static_cast<std::size_t>(numel()) * dtype_size(dtype_); }
  bool defined() const { return block_ != nullptr; }
  /// Same storage, another shape with the same element count (e.g. Flatten). Throws InputError otherwise.
  Tensor view(Shape shape) const;

 private:
  std::shared_ptr<MemoryBlock> block_;
  DType dtype_ = DType::f32;
  Device device_ = Device::cpu;
  Shape shape_;
};

/// Plain fp32 host tensor: the value type of the engine's API and of the tests.
struct HostTensor {
  Shape shape;
  std::vector<float> data;
  HostTensor() = default;
  explicit HostTensor(Shape s) : shape(std::move(s)), data(static_cast<std::size_t>(ts::numel(shape))) {}
  HostTensor(Shape s, std::vector<float> d) : shape(std::move(s)), data(std::move(d)) {}
  std::int64_t numel() const { return ts::numel(shape); }
};

/// A parameter, gradient or buffer with its PyTorch name ("conv1.weight", "fc2.bias", "bn1.running_mean").
struct NamedTensor {
  std::string name;
  HostTensor tensor;
};

}  // namespace ts
