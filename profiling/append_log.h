// AppendLog<T>: an append-only sequence with one writer thread and any number of reader threads.
// Records live in fixed-size chunks that never move, so a reader that loaded size() (acquire) may
// read records [0, size) while the writer keeps appending, without locks on either side. Records
// are never changed after they are published. Capacity: kChunkSlots * kChunk records.
#pragma once
#include <atomic>
#include <cstddef>
#include <memory>
#include <stdexcept>

namespace ts::prof {

template <class T>
class AppendLog {
 public:
  static constexpr std::size_t kChunk = 4096;
  static constexpr std::size_t kChunkSlots = 1 << 16;  // 268M records

  AppendLog() : chunks_(new std::atomic<T*>[kChunkSlots]) {
    for (std::size_t i = 0; i < kChunkSlots; ++i) chunks_[i].store(nullptr, std::memory_order_relaxed);
  }
  ~AppendLog() {
    for (std::size_t i = 0; i < kChunkSlots; ++i) delete[] chunks_[i].load(std::memory_order_relaxed);
  }
  AppendLog(const AppendLog&) = delete;
  AppendLog& operator=(const AppendLog&) = delete;

  /// Writer thread only. Returns false (record not kept) when the log is full.
  bool push(const T& v) {
    const std::size_t n = size_.load(std::memory_order_relaxed);
    const std::size_t c = n / kChunk;
    if (c >= kChunkSlots) return false;
    T* chunk = chunks_[c].load(std::memory_order_relaxed);
    if (!chunk) {
      chunk = new T[kChunk];
      chunks_[c].store(chunk, std::memory_order_release);
    }
    chunk[n % kChunk] = v;
    size_.store(n + 1, std::memory_order_release);
    return true;
  }
  /// Records published so far; any thread.
  std::size_t size() const { return size_.load(std::memory_order_acquire); }
  /// Record i < size(); any thread.
  const T& operator[](std::size_t i) const {
    return chunks_[i / kChunk].load(std::memory_order_acquire)[i % kChunk];
  }

 private:
  std::unique_ptr<std::atomic<T*>[]> chunks_;
  std::atomic<std::size_t> size_{0};
};

}  // namespace ts::prof
