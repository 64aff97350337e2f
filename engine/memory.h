// Memory accounting. Every allocation of the engine names a category, so the allocator can report
// allocated and reserved bytes per category (weights, gradients, optimizer state, activations,
// workspace, input batches) to the runner, the profiler's samplers and the memory graph.
// The CUDA backend's caching allocator (engine/cuda/caching_allocator.h) and the CPU backend's
// host allocator implement Allocator.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace ts {

enum class MemoryCategory : std::uint8_t {
  weights, gradients, optimizer_state, activations, workspace, input_batches, other, count
};
constexpr std::size_t kMemoryCategoryCount = static_cast<std::size_t>(MemoryCategory::count);
/// "weights", "gradients", "optimizer_state", "activations", "workspace", "input_batches", "other".
const char* memory_category_name(MemoryCategory c);

/// Bytes per category. `allocated`: bytes in live tensors (as asked, before rounding).
/// `reserved`: bytes the allocator holds from the system/driver for that category, cached blocks
/// included. `peak_allocated`: the high-water mark of the sum of `allocated` since creation or reset.
struct MemoryStats {
  std::array<std::int64_t, kMemoryCategoryCount> allocated{};
  std::array<std::int64_t, kMemoryCategoryCount> reserved{};
  std::int64_t peak_allocated = 0;
  std::int64_t total_allocated() const;
  std::int64_t total_reserved() const;
};

class Allocator;

/// One allocation. Returned to its allocator when the last owner lets go.
struct MemoryBlock {
  void* ptr = nullptr;
  std::size_t bytes = 0;       // as requested
  std::size_t block_bytes = 0; // as reserved (rounded)
  MemoryCategory category = MemoryCategory::other;
  Allocator* owner = nullptr;
  ~MemoryBlock();
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  /// Returns a block of at least `bytes` bytes. Throws OutOfMemoryError naming `phase` when the
  /// memory is not there (after releasing cached blocks and retrying once).
  virtual std::shared_ptr<MemoryBlock> allocate(std::size_t bytes, MemoryCategory category,
                                                const std::string& phase = {}) = 0;
  virtual MemoryStats stats() const = 0;
  /// True for device memory (the CUDA caching allocator), false for host memory.
  virtual bool is_device() const = 0;

 protected:
  friend struct MemoryBlock;
  virtual void release(MemoryBlock& block) noexcept = 0;
};

/// Host (malloc) allocator with the same accounting; used by the CPU backend. Thread-safe.
std::unique_ptr<Allocator> make_host_allocator();

}  // namespace ts
