// ZeroedBufferPool: what CUPTI is promised (ZEROED_OUT_ACTIVITY_BUFFER) holds — every buffer handed
// out is zero over its whole size, also after reuse — the kept count is bounded, a buffer of an
// earlier size is not handed out again, and several threads may take and give back at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "profiling/cupti/zeroed_pool.h"

using ts::prof::ZeroedBufferPool;

namespace {
bool all_zero(const std::uint8_t* b, std::size_t n) {
  return std::all_of(b, b + n, [](std::uint8_t v) { return v == 0; });
}
}  // namespace

TEST(ZeroedBufferPool, BuffersComeZeroedAlsoAfterReuse) {
  ZeroedBufferPool pool(4096, 0);
  std::uint8_t* b = pool.take();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b) % 8, 0u);  // CUPTI's alignment
  EXPECT_TRUE(all_zero(b, 4096));
  std::memset(b, 0xab, 1000);  // CUPTI filled 1000 bytes
  pool.give_back(b, 4096, 1000);
  EXPECT_EQ(pool.kept(), 1u);
  std::uint8_t* again = pool.take();
  EXPECT_EQ(again, b);  // reused, not a new one
  EXPECT_TRUE(all_zero(again, 4096));
  pool.give_back(again, 4096, 0);
}

TEST(ZeroedBufferPool, FillKeepsBuffersAndMaxKeptBoundsThem) {
  ZeroedBufferPool pool(512, 2);
  pool.fill(2);
  EXPECT_EQ(pool.kept(), 2u);
  std::vector<std::uint8_t*> out;
  for (int i = 0; i < 5; ++i) out.push_back(pool.take());  // 2 kept, 3 new
  EXPECT_EQ(pool.kept(), 0u);
  for (auto* b : out) {
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(all_zero(b, 512));
    pool.give_back(b, 512, 512);
  }
  EXPECT_EQ(pool.kept(), 2u);  // the other three freed (ASan/LSan would see a leak otherwise)
  pool.clear();
  EXPECT_EQ(pool.kept(), 0u);
}

TEST(ZeroedBufferPool, ABufferOfAnEarlierSizeIsNotHandedOutAgain) {
  ZeroedBufferPool pool(256, 0);
  std::uint8_t* small = pool.take();
  pool.fill(1);
  pool.set_bytes(1024);
  EXPECT_EQ(pool.kept(), 0u);  // the 256-byte one kept was freed
  pool.give_back(small, 256, 10);
  EXPECT_EQ(pool.kept(), 0u);  // freed, not kept
  std::uint8_t* big = pool.take();
  EXPECT_TRUE(all_zero(big, 1024));
  pool.give_back(big, 1024, 1024);
  EXPECT_EQ(pool.kept(), 1u);
  pool.give_back(nullptr, 1024, 0);  // CUPTI's dropped request: nothing to keep
  EXPECT_EQ(pool.kept(), 1u);
}

TEST(ZeroedBufferPool, ThreadsTakeAndGiveBackAtOnce) {
  ZeroedBufferPool pool(1024, 4);
  std::vector<std::thread> threads;
  std::atomic<int> dirty{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&pool, &dirty, t] {
      for (int i = 0; i < 2000; ++i) {
        std::uint8_t* b = pool.take();
        if (!b || !all_zero(b, 1024)) ++dirty;
        if (!b) continue;
        const std::size_t used = static_cast<std::size_t>((i * 37 + t) % 1024);
        std::memset(b, 0x5a, used);
        pool.give_back(b, 1024, used);
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(dirty.load(), 0);
  EXPECT_LE(pool.kept(), 4u);
}
