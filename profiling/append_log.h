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
  /// Chunk slots live in blocks of kBlock, made when the first chunk of a block is: an empty log
  /// costs its directory (2 KiB), not the whole slot table (a 1M-event session has 15 logs; a
  /// flat table of 2^16 slots each cost 7.7 MB of touched memory).
  static constexpr std::size_t kBlock = 256;
  static constexpr std::size_t kBlocks = 256;
  static constexpr std::size_t kChunkSlots = kBlock * kBlocks;  // 65,536 chunks: 268M records

  AppendLog() {
    for (auto& b : dir_) b.store(nullptr, std::memory_order_relaxed);
  }
  ~AppendLog() {
    for (auto& b : dir_) {
      std::atomic<T*>* block = b.load(std::memory_order_relaxed);
      if (!block) continue;
      for (std::size_t i = 0; i < kBlock; ++i) delete[] block[i].load(std::memory_order_relaxed);
      delete[] block;
    }
  }
  AppendLog(const AppendLog&) = delete;
  AppendLog& operator=(const AppendLog&) = delete;

  /// Writer thread only. Returns false (record not kept) when the log is full.
  bool push(const T& v) {
    const std::size_t n = size_.load(std::memory_order_relaxed);
    const std::size_t c = n / kChunk;
    if (c >= kChunkSlots) return false;
    std::atomic<T*>* block = dir_[c / kBlock].load(std::memory_order_relaxed);
    if (!block) {
      block = new std::atomic<T*>[kBlock];
      for (std::size_t i = 0; i < kBlock; ++i) block[i].store(nullptr, std::memory_order_relaxed);
      dir_[c / kBlock].store(block, std::memory_order_release);
    }
    T* chunk = block[c % kBlock].load(std::memory_order_relaxed);
    if (!chunk) {
      chunk = new T[kChunk];
      block[c % kBlock].store(chunk, std::memory_order_release);
    }
    chunk[n % kChunk] = v;
    size_.store(n + 1, std::memory_order_release);
    return true;
  }
  /// Records published so far; any thread.
  std::size_t size() const { return size_.load(std::memory_order_acquire); }
  /// Record i < size(); any thread.
  const T& operator[](std::size_t i) const {
    const std::size_t c = i / kChunk;
    return dir_[c / kBlock].load(std::memory_order_acquire)[c % kBlock].load(std::memory_order_acquire)[i % kChunk];
  }

 private:
  std::atomic<std::atomic<T*>*> dir_[kBlocks];
  std::atomic<std::size_t> size_{0};
};

}  // namespace ts::prof
