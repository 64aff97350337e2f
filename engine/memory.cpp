// Memory accounting shared by the allocators, and the host allocator of the CPU backend.
#include "engine/memory.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>

#include "base/errors.h"

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

std::string format_bytes(std::int64_t bytes) {
  char buf[64];
  const double b = static_cast<double>(bytes);
  if (bytes >= (1ll << 40)) std::snprintf(buf, sizeof buf, "%.2f TiB", b / (1ll << 40));
  else if (bytes >= (1ll << 30)) std::snprintf(buf, sizeof buf, "%.2f GiB", b / (1ll << 30));
  else if (bytes >= (1ll << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", b / (1ll << 20));
  else if (bytes >= (1ll << 10)) std::snprintf(buf, sizeof buf, "%.1f KiB", b / (1ll << 10));
  else std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
  return buf;
}

std::string memory_limit_gib_text(std::int64_t limit_bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(limit_bytes) / static_cast<double>(kGiB));
  return buf;
}

std::string simulated_card_text(std::int64_t limit_bytes) {
  const std::string gib = memory_limit_gib_text(limit_bytes);
  return "simulated " + gib + " GiB card, --memory-limit " + gib;
}

std::int64_t memory_limit_bytes_from_gib(double gib) {
  constexpr double kMaxGib = 1048576;  // 1 PiB: far beyond any card, and safe in int64 bytes
  if (!(gib > 0) || gib > kMaxGib)
    throw InputError("--memory-limit must be a number of GiB above 0 and at most 1048576, got " + std::to_string(gib));
  const auto bytes = static_cast<std::int64_t>(std::llround(gib * static_cast<double>(kGiB)));
  if (bytes < (1ll << 20))
    throw InputError("--memory-limit " + memory_limit_gib_text(bytes) + " GiB is less than 1 MiB: no model fits");
  return bytes;
}

namespace {

/// malloc-backed allocator; reserved == allocated rounded to 64 bytes (the alignment it asks for).
/// With a cap, the bytes are reserved in the stats before malloc, under the lock, so two threads
/// (the trainer and a loader worker) cannot both pass the check with the last free bytes.
class HostAllocator final : public Allocator {
 public:
  explicit HostAllocator(std::int64_t limit_bytes) : limit_(limit_bytes) {}

  std::shared_ptr<MemoryBlock> allocate(std::size_t bytes, MemoryCategory category,
                                        const std::string& phase) override {
    const std::size_t rounded = (bytes + 63) / 64 * 64;
    const auto i = static_cast<std::size_t>(category);
    auto block = std::make_shared<MemoryBlock>();
    {
      std::lock_guard lock(mu_);
      if (limit_ > 0 && stats_.total_reserved() + static_cast<std::int64_t>(rounded) > limit_)
        throw_over_limit(bytes, category, phase);
      stats_.reserved[i] += static_cast<std::int64_t>(rounded);
    }
    void* p = rounded ? std::aligned_alloc(64, rounded) : nullptr;
    if (rounded && !p) {
      {
        std::lock_guard lock(mu_);
        stats_.reserved[i] -= static_cast<std::int64_t>(rounded);
      }
      throw OutOfMemoryError("out of host memory allocating " + std::to_string(bytes) + " bytes" +
                                 (phase.empty() ? "" : " for " + phase),
                             static_cast<std::int64_t>(bytes), 0, phase);
    }
    block->ptr = p;
    block->bytes = bytes;
    block->block_bytes = rounded;
    block->category = category;
    block->owner = this;
    std::lock_guard lock(mu_);
    stats_.allocated[i] += static_cast<std::int64_t>(bytes);
    if (stats_.total_allocated() > stats_.peak_allocated) stats_.peak_allocated = stats_.total_allocated();
    return block;
  }
  MemoryStats stats() const override {
    std::lock_guard lock(mu_);
    return stats_;
  }
  bool is_device() const override { return false; }
  std::int64_t limit_bytes() const override { return limit_; }

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
  /// Called with mu_ held.
  [[noreturn]] void throw_over_limit(std::size_t bytes, MemoryCategory category, const std::string& phase) const {
    const std::int64_t reserved = stats_.total_reserved();
    const std::int64_t free_bytes = std::max<std::int64_t>(0, limit_ - reserved);
    const std::string what = phase.empty() ? std::string(memory_category_name(category)) : phase;
    const std::string kind = phase.empty() ? "" : std::string(" (") + memory_category_name(category) + ")";
    OutOfMemoryError e("out of memory (" + simulated_card_text(limit_) + "): " + what + " asked for " +
                           format_bytes(static_cast<std::int64_t>(bytes)) + kind + "; " + format_bytes(free_bytes) +
                           " free of " + format_bytes(limit_) + " (" + format_bytes(reserved) + " reserved)",
                       static_cast<std::int64_t>(bytes), free_bytes, what);
    e.memory_limit_bytes = limit_;
    throw e;
  }

  mutable std::mutex mu_;
  MemoryStats stats_;
  const std::int64_t limit_;
};

}  // namespace

std::unique_ptr<Allocator> make_host_allocator(std::int64_t limit_bytes) {
  if (limit_bytes < 0) throw InputError("memory limit must be >= 0 bytes, got " + std::to_string(limit_bytes));
  return std::make_unique<HostAllocator>(limit_bytes);
}

}  // namespace ts
