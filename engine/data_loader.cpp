// DataLoader: owns the epoch order (seeded Fisher-Yates), the fixed ring of batch buffers, the worker
// threads and the hand-off of finished batches to the consumer, in order.
//
// Batch b of an epoch is written into ring slot b % slots. Worker w prepares batches w, w + W,
// w + 2W, ... (PyTorch's round robin), each one whole (gather = one 3072-byte copy per image, or
// its augmented copy, augment.h), so there are no per-image locks: one lock to claim a free slot and one to
// publish it. A slot is free for batch b once the consumer has released batch b - slots (a batch is
// released by the next call to next() or start_epoch()). With num_workers 0, next() prepares the
// batch itself. Augmentation draws from a hash of (seed, epoch, record index), so the images do not
// depend on num_workers or on which thread made them.
#include "engine/data_loader.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "base/errors.h"
#include "engine/augment.h"
#include "engine/host_trace.h"

namespace ts {
namespace {

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Crop offsets (0..2*kAugmentPad each, in the padded image) and flip of record `index` in `epoch`.
struct Augmentation {
  int top, left;
  bool flip;
};

Augmentation augmentation_for(std::uint64_t seed, std::int64_t epoch, std::int64_t index) {
  const std::uint64_t h = splitmix64(splitmix64(splitmix64(seed) ^ static_cast<std::uint64_t>(epoch)) ^
                                     static_cast<std::uint64_t>(index));
  return {static_cast<int>(h % (2 * kAugmentPad + 1)), static_cast<int>((h >> 16) % (2 * kAugmentPad + 1)),
          ((h >> 32) & 1) != 0};
}

HostBuffer default_alloc(std::size_t bytes, bool /*pinned*/) {
  return HostBuffer(new std::uint8_t[bytes], [](std::uint8_t* p) { delete[] p; });
}

}  // namespace

struct DataLoader::Impl {
  struct Slot {
    HostBuffer memory;            // images [batch_size, 3, 32, 32] then labels [batch_size] int32
    Batch batch;
    std::int64_t ready = -1;      // batch index whose data the slot holds, -1 while none
  };

  const ImageSet& data;
  LoaderOptions options;
  bool pinned = false;
  std::int64_t batches = 0;       // per epoch
  std::vector<Slot> slots;
  std::vector<std::int64_t> order;  // record index of each position of the epoch

  std::mutex mutex;
  std::condition_variable slot_freed, batch_ready;
  std::int64_t epoch = -1;        // -1 before the first start_epoch
  std::int64_t released = 0;      // batches [0, released) are released by the consumer
  std::int64_t next_batch = 0;    // the next batch next() returns
  bool holding = false;           // the consumer holds batch next_batch - 1
  bool stopping = false;
  std::exception_ptr error;
  std::vector<std::thread> workers;

  std::atomic<std::int64_t> wait_ns{0}, delivered{0};

  Impl(const ImageSet& d, LoaderOptions o) : data(d), options(o) {}

  std::int64_t slot_count() const { return static_cast<std::int64_t>(slots.size()); }

  /// Gathers (and augments) batch `b` of the current epoch into `slot`. Touches only the slot.
  void fill(Slot& slot, std::int64_t b) {
    const std::int64_t n = data.count(), bs = options.batch_size;
    const std::int64_t begin = b * bs, size = std::min(bs, n - begin);
    std::uint8_t* images = slot.memory.get();
    auto* labels = reinterpret_cast<std::int32_t*>(images + bs * kImageBytes);
    for (std::int64_t i = 0; i < size; ++i) {
      const std::int64_t record = order[static_cast<std::size_t>(begin + i)];
      const std::uint8_t* src = data.images.data() + record * kImageBytes;
      if (options.augment) {
        const Augmentation a = augmentation_for(options.seed, epoch, record);
        augment_image(src, images + i * kImageBytes, a.top, a.left, a.flip);
      } else {
        std::memcpy(images + i * kImageBytes, src, kImageBytes);
      }
      labels[i] = data.labels[static_cast<std::size_t>(record)];
    }
    slot.batch = Batch{size, images, labels, pinned, epoch, b};
  }

  void worker_loop(int w) {
    const std::string thread_name = "loader-" + std::to_string(w);
    trace::name_this_thread(thread_name.c_str());
    const int stride = options.num_workers;
    for (std::int64_t b = w; b < batches; b += stride) {
      Slot& slot = slots[static_cast<std::size_t>(b % slot_count())];
      {
        std::unique_lock lock(mutex);
        slot_freed.wait(lock, [&] { return stopping || b < released + slot_count(); });
        if (stopping) return;
      }
      try {
        trace::ScopedRange range(trace::RangeKind::loader_batch, "load batch", nullptr, -1);
        fill(slot, b);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        batch_ready.notify_all();
        return;
      }
      std::lock_guard lock(mutex);
      slot.ready = b;
      batch_ready.notify_all();
    }
  }

  void stop_workers() {
    {
      std::lock_guard lock(mutex);
      stopping = true;
    }
    slot_freed.notify_all();
    for (std::thread& t : workers) t.join();
    workers.clear();
    stopping = false;
  }

  void shuffle(std::int64_t e) {
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int64_t>(i);
    if (!options.shuffle) return;
    // Our own Fisher-Yates over mt19937_64 (whose output the standard fixes), so the order is the same
    // with every standard library; std::shuffle's is not specified.
    std::mt19937_64 rng(options.seed + static_cast<std::uint64_t>(e));
    for (std::size_t i = order.size() - 1; i > 0; --i) {
      const std::size_t j = static_cast<std::size_t>(rng() % (i + 1));
      std::swap(order[i], order[j]);
    }
  }

  void start(std::int64_t e) {
    stop_workers();  // joins: no thread touches the state below until the new workers start
    epoch = e;
    released = 0;
    next_batch = 0;
    holding = false;
    error = nullptr;
    for (Slot& s : slots) s.ready = -1;
    shuffle(e);
    for (int w = 0; w < options.num_workers; ++w) workers.emplace_back([this, w] { worker_loop(w); });
  }

  const Batch* next() {
    if (epoch < 0) start(0);
    const std::int64_t t0 = now_ns();
    std::unique_lock lock(mutex);
    if (holding) {
      released = next_batch;  // the batch handed out last is free again
      holding = false;
      slot_freed.notify_all();
    }
    if (error) std::rethrow_exception(error);
    if (next_batch >= batches) return nullptr;
    const std::int64_t b = next_batch;
    Slot& slot = slots[static_cast<std::size_t>(b % slot_count())];
    if (options.num_workers == 0) {
      lock.unlock();
      trace::ScopedRange range(trace::RangeKind::loader_batch, "load batch", nullptr, -1);
      fill(slot, b);
      range.close();
      lock.lock();
    } else {
      batch_ready.wait(lock, [&] { return slot.ready == b || error != nullptr; });
      if (slot.ready != b) std::rethrow_exception(error);
    }
    wait_ns += now_ns() - t0;
    delivered += 1;
    next_batch = b + 1;
    holding = true;
    return &slot.batch;
  }
};

namespace {
int ring_slots(const LoaderOptions& o) { return std::max(2, o.num_workers * o.prefetch_factor + 2); }
std::size_t slot_bytes(const LoaderOptions& o) {
  return static_cast<std::size_t>(o.batch_size) * (kImageBytes + sizeof(std::int32_t));
}
}  // namespace

std::int64_t loader_ring_bytes(const LoaderOptions& options) {
  return ring_slots(options) * static_cast<std::int64_t>(slot_bytes(options));
}

DataLoader::DataLoader(const ImageSet& data, LoaderOptions options, HostAllocFn alloc)
    : impl_(std::make_unique<Impl>(data, options)) {
  const std::int64_t n = data.count();
  if (options.batch_size <= 0 || options.batch_size > n) {
    throw InputError("data loader: batch_size " + std::to_string(options.batch_size) +
                     " must be 1.." + std::to_string(n) + " (the number of images)");
  }
  if (options.num_workers < 0) {
    throw InputError("data loader: num_workers must be >= 0, got " + std::to_string(options.num_workers));
  }
  if (options.prefetch_factor < 1) {
    throw InputError("data loader: prefetch_factor must be >= 1, got " + std::to_string(options.prefetch_factor));
  }
  Impl& s = *impl_;
  s.batches = options.drop_last ? n / options.batch_size : (n + options.batch_size - 1) / options.batch_size;
  s.order.resize(static_cast<std::size_t>(n));
  s.pinned = options.pin_memory && static_cast<bool>(alloc);
  if (!alloc) alloc = default_alloc;
  // The ring is allocated once here and reused by every batch of every epoch.
  const int slots = ring_slots(options);
  const std::size_t bytes = slot_bytes(options);
  s.slots.resize(static_cast<std::size_t>(slots));
  for (Impl::Slot& slot : s.slots) {
    slot.memory = alloc(bytes, options.pin_memory);
    if (!slot.memory) throw InputError("data loader: could not allocate a batch buffer of " + std::to_string(bytes) + " bytes");
  }
}

DataLoader::~DataLoader() { impl_->stop_workers(); }

void DataLoader::start_epoch(std::int64_t epoch) { impl_->start(epoch); }

const Batch* DataLoader::next() { return impl_->next(); }

std::int64_t DataLoader::batches_per_epoch() const { return impl_->batches; }

LoaderStats DataLoader::stats() const { return {impl_->wait_ns.load(), impl_->delivered.load()}; }

}  // namespace ts
