// The CUDA backend's caching device allocator (ts::Allocator). Sizes are rounded up to 512 bytes;
// freed blocks go to a free list ordered by size and are handed out again best-fit (a block at most
// twice the request, so a small tensor does not pin a huge block), so a steady-state training loop
// never calls cudaMalloc or cudaFree. When cudaMalloc fails it releases the cached blocks and tries
// once more, then throws OutOfMemoryError naming the phase, the bytes asked and the bytes free
// (cudaMemGetInfo). Blocks are reused in the order of the stream that freed them: the engine frees
// device memory only when the work that used it has been synchronised or was queued on the same
// compute stream as the next user. Thread-safe (samplers read stats() from other threads).
// A cap (limit_bytes > 0, a simulated smaller card: engine/memory.h) is checked before cudaMalloc:
// when the new block would take the reserved total past it, the cached blocks are released and the
// check repeated (what PyTorch does at its per-process memory fraction), then OutOfMemoryError is
// thrown with "CUDA out of memory (simulated 8 GiB card, --memory-limit 8): ..." and free bytes =
// the cap minus the reserved total.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "engine/memory.h"

namespace ts::cuda {

class CachingAllocator final : public Allocator {
 public:
  static constexpr std::size_t kGranularity = 512;
  /// `limit_bytes` > 0 caps the reserved bytes (a simulated smaller card); 0 = no cap.
  explicit CachingAllocator(int device, std::int64_t limit_bytes = 0);
  ~CachingAllocator() override;
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  std::shared_ptr<MemoryBlock> allocate(std::size_t bytes, MemoryCategory category,
                                        const std::string& phase = {}) override;
  MemoryStats stats() const override;
  bool is_device() const override { return true; }
  std::int64_t limit_bytes() const override { return limit_; }
  /// Bytes the cap leaves for new blocks: limit - reserved (cached blocks count as reserved, but
  /// the allocator frees them before it refuses); INT64_MAX without a cap.
  std::int64_t free_under_limit() const;

  /// Returns every cached (free) block to the driver.
  void empty_cache();
  /// How many times cudaMalloc / cudaFree were called (tests: reuse must not call cudaMalloc).
  std::int64_t malloc_count() const;
  std::int64_t free_count() const;
  /// Bytes held in the free lists.
  std::int64_t cached_bytes() const;
  static std::size_t round_size(std::size_t bytes) {
    return (bytes + kGranularity - 1) / kGranularity * kGranularity;
  }

 protected:
  void release(MemoryBlock& block) noexcept override;

 private:
  struct Cached {
    void* ptr;
    MemoryCategory category;  // whose reserved bytes it counts in
  };
  void* malloc_with_retry(std::size_t rounded, std::size_t requested, MemoryCategory category,
                          const std::string& phase);
  void empty_cache_locked();
  /// Throws the simulated-card OutOfMemoryError when `rounded` more bytes would pass the cap (after
  /// releasing the cache); called with mutex_ held.
  void check_limit_locked(std::size_t rounded, std::size_t requested, MemoryCategory category,
                          const std::string& phase);

  int device_;
  const std::int64_t limit_;
  mutable std::mutex mutex_;
  std::multimap<std::size_t, Cached> free_;  // block_bytes -> block
  MemoryStats stats_;
  std::int64_t mallocs_ = 0, frees_ = 0, cached_bytes_ = 0;
};

/// "1.50 GiB", "512.0 MiB", "12.0 KiB", "100 B" (engine/memory.h).
using ts::format_bytes;

}  // namespace ts::cuda
