// ZeroedBufferPool (zeroed_pool.h).
#include "profiling/cupti/zeroed_pool.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace ts::prof {

ZeroedBufferPool::ZeroedBufferPool(std::size_t bytes, std::size_t max_kept) : bytes_(bytes), max_kept_(max_kept) {}

ZeroedBufferPool::~ZeroedBufferPool() { clear(); }

std::uint8_t* ZeroedBufferPool::make() const {
  // aligned_alloc wants a size that is a multiple of the alignment.
  const std::size_t n = (bytes_ + 7) / 8 * 8;
  auto* b = static_cast<std::uint8_t*>(std::aligned_alloc(8, n));
  if (b) std::memset(b, 0, n);
  return b;
}

std::uint8_t* ZeroedBufferPool::take() {
  std::lock_guard lock(mutex_);
  if (!kept_.empty()) {
    std::uint8_t* b = kept_.back();
    kept_.pop_back();
    return b;
  }
  return make();
}

void ZeroedBufferPool::give_back(std::uint8_t* buffer, std::size_t size, std::size_t valid) {
  if (!buffer) return;
  std::lock_guard lock(mutex_);
  if (size != bytes_ || (max_kept_ != 0 && kept_.size() >= max_kept_)) {
    std::free(buffer);
    return;
  }
  std::memset(buffer, 0, std::min(valid, bytes_));  // the rest is still zero
  kept_.push_back(buffer);
}

void ZeroedBufferPool::fill(std::size_t count) {
  std::lock_guard lock(mutex_);
  while (kept_.size() < count)
    if (std::uint8_t* b = make()) kept_.push_back(b);
    else break;
}

void ZeroedBufferPool::clear() {
  std::lock_guard lock(mutex_);
  for (std::uint8_t* b : kept_) std::free(b);
  kept_.clear();
}

void ZeroedBufferPool::set_bytes(std::size_t bytes) {
  std::lock_guard lock(mutex_);
  if (bytes == bytes_) return;
  for (std::uint8_t* b : kept_) std::free(b);
  kept_.clear();
  bytes_ = bytes;
}

std::size_t ZeroedBufferPool::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

std::size_t ZeroedBufferPool::kept() const {
  std::lock_guard lock(mutex_);
  return kept_.size();
}

}  // namespace ts::prof
