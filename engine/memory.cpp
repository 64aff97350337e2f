// Memory accounting shared by the allocators, and the host allocator of the CPU backend.
#include "engine/memory.h"

#include <cstdlib>
#include <mutex>
#include <new>

#include "engine/errors.h"

namespace ts {

const char* memory_category_name(MemoryCategory c) {
  switch (c) {
    case MemoryCategory::weights: return "weights";
    case MemoryCategory::gradients: return "gradients";
    case MemoryCategory::optimizer_state: return "optimizer_state";
    case MemoryCategory::activations: return "activations";
    case MemoryCategory::workspace: return "workspace";
    case MemoryCategory::input_batches: return "input_batches";
    case MemoryCategory::other: return "other";
    case MemoryCategory::count: break;
  }
  return "?";
}

std::int64_t MemoryStats::total_allocated() const {
  std::int64_t s = 0;
  for (auto v : allocated) s += v;
  return s;
}

std::int64_t MemoryStats::total_reserved() const {
  std::int64_t s = 0;
  for (auto v : reserved) s += v;
  return s;
}

MemoryBlock::~MemoryBlock() {
  if (owner && ptr) owner->release(*this);
}

namespace {

/// malloc-backed allocator; reserved == allocated rounded to 64 bytes (the alignment it asks for).
class HostAllocator final : public Allocator {
 public:
  std::shared_ptr<MemoryBlock> allocate(std::size_t bytes, MemoryCategory category,
                                        const std::string& phase) override {
    const std::size_t rounded = (bytes + 63) / 64 * 64;
    void* p = rounded ? std::aligned_alloc(64, rounded) : nullptr;
    if (rounded && !p)
      throw OutOfMemoryError("out of host memory allocating " + std::to_string(bytes) + " bytes" +
                                 (phase.empty() ? "" : " for " + phase),
                             static_cast<std::int64_t>(bytes), 0, phase);
    auto block = std::make_shared<MemoryBlock>();
    block->ptr = p;
    block->bytes = bytes;
    block->block_bytes = rounded;
    block->category = category;
    block->owner = this;
    std::lock_guard lock(mu_);
    auto i = static_cast<std::size_t>(category);
    stats_.allocated[i] += static_cast<std::int64_t>(bytes);
    stats_.reserved[i] += static_cast<std::int64_t>(rounded);
    if (stats_.total_allocated() > stats_.peak_allocated) stats_.peak_allocated = stats_.total_allocated();
    return block;
  }
  MemoryStats stats() const override {
    std::lock_guard lock(mu_);
    return stats_;
  }
  bool is_device() const override { return false; }

 protected:
  void release(MemoryBlock& block) noexcept override {
    std::free(block.ptr);
    std::lock_guard lock(mu_);
    auto i = static_cast<std::size_t>(block.category);
    stats_.allocated[i] -= static_cast<std::int64_t>(block.bytes);
    stats_.reserved[i] -= static_cast<std::int64_t>(block.block_bytes);
    block.ptr = nullptr;
  }

 private:
  mutable std::mutex mu_;
  MemoryStats stats_;
};

}  // namespace

std::unique_ptr<Allocator> make_host_allocator() { return std::make_unique<HostAllocator>(); }

}  // namespace ts
