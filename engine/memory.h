// Memory accounting. Every allocation of the engine names a category, so the allocator can report
// allocated and reserved bytes per category (weights, gradients, optimizer state, activations,
// workspace, input batches) to the runner, the profiler's samplers and the memory graph.
// The CUDA backend's caching allocator (engine/cuda/caching_allocator.h) and the CPU backend's
// host allocator implement Allocator.
//
// The cap (a simulated smaller card, trainscope-run --memory-limit GiB, the window's "Simulate a
// smaller card"): an allocator made with limit_bytes > 0 refuses an allocation that would take its
// total *reserved* bytes past the cap, and throws the OutOfMemoryError a real OOM throws, its message
// naming the simulated card. Reserved, not allocated, as PyTorch's
// torch.cuda.set_per_process_memory_fraction caps the caching allocator's reserved memory: cached
// free blocks count (the caching allocator releases them and retries before it gives up), memory
// outside the allocator does not (the CUDA context, cuDNN's and cuBLAS's handles; on the CPU
// backend, oneDNN's own scratchpads). On the CPU backend everything the host allocator hands out
// counts, the data loader's batch buffers included.
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
  /// The cap on reserved bytes (see the top of this file); 0 = none.
  virtual std::int64_t limit_bytes() const { return 0; }

 protected:
  friend struct MemoryBlock;
  virtual void release(MemoryBlock& block) noexcept = 0;
};

/// Host (malloc) allocator with the same accounting; used by the CPU backend. Thread-safe.
/// `limit_bytes` > 0 caps its reserved bytes (see the top of this file); 0 = no cap.
std::unique_ptr<Allocator> make_host_allocator(std::int64_t limit_bytes = 0);

/// "1.50 GiB", "512.0 MiB", "12.0 KiB", "100 B" (binary units).
std::string format_bytes(std::int64_t bytes);

constexpr std::int64_t kGiB = 1ll << 30;
/// The cap in GiB as --memory-limit takes it: "8", "0.5", "1.25" (shortest of up to 6 digits).
std::string memory_limit_gib_text(std::int64_t limit_bytes);
/// "simulated 8 GiB card, --memory-limit 8": how messages name a cap of `limit_bytes` (> 0).
std::string simulated_card_text(std::int64_t limit_bytes);
/// --memory-limit's GiB (fractions allowed) to bytes, rounded to the nearest byte. Throws
/// InputError unless 0 < gib <= 1048576 (1 PiB) and the result is at least 1 MiB.
std::int64_t memory_limit_bytes_from_gib(double gib);

}  // namespace ts
