// Tensor helpers: dtype sizes and names, shape printing, allocation through an Allocator.
#include "engine/tensor.h"

#include "base/errors.h"

namespace ts {

std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::f16: return 2;
    case DType::bf16: return 2;
    case DType::u8: return 1;
    case DType::i32: return 4;
    case DType::i64: return 8;
  }
  return 1;
}

const char* device_name(Device d) { return d == Device::cuda ? "cuda" : "cpu"; }

std::int64_t numel(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

std::string shape_string(const Shape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(s[i]);
  }
  return out + "]";
}

Tensor::Tensor(Allocator& alloc, DType dtype, Shape shape, MemoryCategory category)
    : dtype_(dtype), device_(alloc.is_device() ? Device::cuda : Device::cpu), shape_(std::move(shape)) {
  block_ = alloc.allocate(bytes(), category);
}

Tensor Tensor::view(Shape shape) const {
  if (ts::numel(shape) != numel())
    throw InputError("cannot view a tensor of shape " + shape_string(shape_) + " as " + shape_string(shape));
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

}  // namespace ts
