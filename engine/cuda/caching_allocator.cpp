// Caching device allocator: see caching_allocator.h.
#include "engine/cuda/caching_allocator.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "base/cuda_check.h"
#include "base/errors.h"

namespace ts::cuda {
namespace {
std::size_t idx(MemoryCategory c) { return static_cast<std::size_t>(c); }
}  // namespace

CachingAllocator::CachingAllocator(int device, std::int64_t limit_bytes) : device_(device), limit_(limit_bytes) {
  if (limit_bytes < 0) throw InputError("memory limit must be >= 0 bytes, got " + std::to_string(limit_bytes));
}

CachingAllocator::~CachingAllocator() {
  std::lock_guard<std::mutex> lock(mutex_);
  cudaSetDevice(device_);
  empty_cache_locked();
}

std::shared_ptr<MemoryBlock> CachingAllocator::allocate(std::size_t bytes, MemoryCategory category,
                                                        const std::string& phase) {
  auto block = std::make_shared<MemoryBlock>();
  block->bytes = bytes;
  block->category = category;
  if (bytes == 0) return block;  // no storage, no owner: nothing to give back
  const std::size_t rounded = round_size(bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = free_.lower_bound(rounded);
  if (it != free_.end() && it->first <= 2 * rounded) {
    block->ptr = it->second.ptr;
    block->block_bytes = it->first;
    stats_.reserved[idx(it->second.category)] -= static_cast<std::int64_t>(it->first);
    cached_bytes_ -= static_cast<std::int64_t>(it->first);
    free_.erase(it);
  } else {
    block->ptr = malloc_with_retry(rounded, bytes, category, phase);
    block->block_bytes = rounded;
  }
  stats_.reserved[idx(category)] += static_cast<std::int64_t>(block->block_bytes);
  stats_.allocated[idx(category)] += static_cast<std::int64_t>(bytes);
  std::int64_t total = 0;
  for (auto a : stats_.allocated) total += a;
  if (total > stats_.peak_allocated) stats_.peak_allocated = total;
  block->owner = this;
  return block;
}

void* CachingAllocator::malloc_with_retry(std::size_t rounded, std::size_t requested, MemoryCategory category,
                                          const std::string& phase) {
  TS_CUDA_CHECK(cudaSetDevice(device_));
  if (limit_ > 0) check_limit_locked(rounded, requested, category, phase);
  void* ptr = nullptr;
  cudaError_t e = cudaMalloc(&ptr, rounded);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the sticky-free error state of the runtime
    empty_cache_locked();
    e = cudaMalloc(&ptr, rounded);
  }
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    std::string what = phase.empty() ? std::string(memory_category_name(category)) : phase;
    throw OutOfMemoryError("CUDA out of memory: " + what + " asked for " +
                               format_bytes(static_cast<std::int64_t>(requested)) + " (" +
                               memory_category_name(category) + "); " +
                               format_bytes(static_cast<std::int64_t>(free_b)) + " free of " +
                               format_bytes(static_cast<std::int64_t>(total_b)),
                           static_cast<std::int64_t>(requested), static_cast<std::int64_t>(free_b), what);
  }
  if (e != cudaSuccess) throw_cuda_error(e, "cudaMalloc", __FILE__, __LINE__);
  ++mallocs_;
  return ptr;
}

void CachingAllocator::check_limit_locked(std::size_t rounded, std::size_t requested, MemoryCategory category,
                                          const std::string& phase) {
  const auto want = static_cast<std::int64_t>(rounded);
  if (stats_.total_reserved() + want <= limit_) return;
  empty_cache_locked();  // cached blocks count against the cap: give them back first
  const std::int64_t reserved = stats_.total_reserved();
  if (reserved + want <= limit_) return;
  const std::int64_t free_b = std::max<std::int64_t>(0, limit_ - reserved);
  const std::string what = phase.empty() ? std::string(memory_category_name(category)) : phase;
  OutOfMemoryError e("CUDA out of memory (" + simulated_card_text(limit_) + "): " + what + " asked for " +
                         format_bytes(static_cast<std::int64_t>(requested)) + " (" + memory_category_name(category) +
                         "); " + format_bytes(free_b) + " free of " + format_bytes(limit_) + " (" +
                         format_bytes(reserved) + " reserved)",
                     static_cast<std::int64_t>(requested), free_b, what);
  e.memory_limit_bytes = limit_;
  throw e;
}

std::int64_t CachingAllocator::free_under_limit() const {
  if (limit_ <= 0) return INT64_MAX;
  std::lock_guard<std::mutex> lock(mutex_);
  return std::max<std::int64_t>(0, limit_ - stats_.total_reserved());
}

void CachingAllocator::release(MemoryBlock& block) noexcept {
  if (!block.ptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.allocated[idx(block.category)] -= static_cast<std::int64_t>(block.bytes);
  free_.emplace(block.block_bytes, Cached{block.ptr, block.category});
  cached_bytes_ += static_cast<std::int64_t>(block.block_bytes);
  block.ptr = nullptr;
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  empty_cache_locked();
}

void CachingAllocator::empty_cache_locked() {
  for (auto& [size, c] : free_) {
    cudaFree(c.ptr);
    ++frees_;
    stats_.reserved[idx(c.category)] -= static_cast<std::int64_t>(size);
  }
  free_.clear();
  cached_bytes_ = 0;
}

MemoryStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}
std::int64_t CachingAllocator::malloc_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return mallocs_;
}
std::int64_t CachingAllocator::free_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return frees_;
}
std::int64_t CachingAllocator::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cached_bytes_;
}

}  // namespace ts::cuda
