// Data loader in the manner of torch.utils.data.DataLoader: `num_workers` threads (0 = the calling
// thread loads), a seeded shuffle per epoch, optional augmentation (random crop with 4 pixels of
// zero padding + horizontal flip, as torchvision's RandomCrop(32, padding=4) and
// RandomHorizontalFlip()), `pin_memory` (batch buffers from Network::allocate_host(pinned)),
// and `prefetch_factor` batches in flight per worker. Batches come out in order.
// Normalisation is not done here: backends normalise (engine/batch.h).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>

#include "engine/batch.h"
#include "engine/cifar10.h"
#include "engine/network.h"

namespace ts {

struct LoaderOptions {
  std::int64_t batch_size = 128;
  int num_workers = 0;
  bool shuffle = true;
  bool augment = false;
  bool pin_memory = true;
  bool drop_last = false;
  int prefetch_factor = 2;   // batches prepared ahead per worker (PyTorch's default 2)
  std::uint64_t seed = 0;    // shuffle and augmentation; epoch e uses seed + e
};

/// Bytes of the loader's ring of batch buffers (allocated once, in the constructor): max(2,
/// num_workers x prefetch_factor + 2) slots of batch_size x (3072 image + 4 label) bytes.
std::int64_t loader_ring_bytes(const LoaderOptions& options);

/// Allocator for batch buffers; Network::allocate_host fits. Default: plain new[].
using HostAllocFn = std::function<HostBuffer(std::size_t bytes, bool pinned)>;

/// Time the consumer spent waiting inside next() (the data-loader wait of the analysis), ns.
struct LoaderStats {
  std::int64_t wait_ns = 0;
  std::int64_t batches = 0;
};

class DataLoader {
 public:
  /// `data` must outlive the loader. Throws InputError when batch_size <= 0 or larger than the data,
  /// or num_workers < 0.
  DataLoader(const ImageSet& data, LoaderOptions options, HostAllocFn alloc = {});
  ~DataLoader();  // stops and joins the workers
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  /// Starts epoch `epoch` (0-based): reshuffles with seed + epoch and restarts the workers.
  void start_epoch(std::int64_t epoch);
  /// The next batch of the epoch, or nullptr at its end. The batch stays valid until the next call
  /// to next() or start_epoch(). Records the wait in stats().
  const Batch* next();
  std::int64_t batches_per_epoch() const;
  LoaderStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ts
