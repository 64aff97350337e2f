// ZeroedBufferPool: CUPTI activity buffers handed out already zeroed and kept for reuse.
//
// CUPTI clears every buffer it is given unless told (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER)
// that buffers come zeroed; it would clear them on the thread whose CUDA call filled the last one (the
// trainer's or the program's, mid-step: ~1 ms for 8 MiB). With this pool the clearing happens where a
// parsed buffer is given back (the collector's thread), and only over the bytes CUPTI wrote. Used by
// TrainScope's own collector (cupti_collector.cpp) and by the injection library (inject_cupti.cpp).
// Thread-safe; CUDA-free (plain memory).
#pragma once
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace ts::prof {

class ZeroedBufferPool {
 public:
  /// Buffers of `bytes` each (8-byte aligned, CUPTI's requirement); at most `max_kept` are kept for
  /// reuse (0: no limit), the rest freed when given back.
  ZeroedBufferPool(std::size_t bytes, std::size_t max_kept);
  ~ZeroedBufferPool();
  ZeroedBufferPool(const ZeroedBufferPool&) = delete;
  ZeroedBufferPool& operator=(const ZeroedBufferPool&) = delete;

  /// A zeroed buffer of bytes(): a kept one, else a new one; null when memory runs out (CUPTI then
  /// drops the records and counts them).
  std::uint8_t* take();
  /// Takes back a buffer of `size` bytes from take() of which the first `valid` bytes were written:
  /// they are cleared and the buffer kept (or freed above max_kept). A buffer of another size than
  /// bytes() (made before set_bytes changed it) is freed.
  void give_back(std::uint8_t* buffer, std::size_t size, std::size_t valid);
  /// Makes buffers until `count` are kept (before a run, so the first requests need not allocate).
  void fill(std::size_t count);
  /// Frees every kept buffer.
  void clear();
  /// Buffers from now on are `bytes` each; kept ones of another size are freed.
  void set_bytes(std::size_t bytes);

  std::size_t bytes() const;
  std::size_t kept() const;

 private:
  std::uint8_t* make() const;  // a new zeroed buffer of bytes_, or null

  mutable std::mutex mutex_;
  std::size_t bytes_, max_kept_;
  std::vector<std::uint8_t*> kept_;
};

}  // namespace ts::prof
