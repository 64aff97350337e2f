// NVTX events to host ranges and steps by the shared step rule (profiling/steps/step_rule.h).
#include <gtest/gtest.h>

#include "engine/host_trace.h"
#include "profiling/inject/range_builder.h"

using namespace ts::prof;
using namespace ts::prof::inject;
using T = RangeEvent::Type;

namespace {
constexpr std::int64_t kMs = 1'000'000;

struct Fixture {
  EventStore store;
  RangeBuilder b{store, SessionClock(0, 0), StepRangePattern("step"), 0};
  void ev(T t, std::uint32_t tid, std::int64_t ms, const char* name = "", std::uint64_t id = 0) {
    RangeEvent e;
    e.type = t, e.tid = tid, e.host_ns = ms * kMs, e.name = name, e.id = id;
    b.add(e);
  }
  /// data [t, t+1), step [t+1, t+10) holding "step" (inner) and "forward".
  void iteration(std::uint32_t tid, std::int64_t t) {
    ev(T::push, tid, t, "data"), ev(T::pop, tid, t + 1);
    ev(T::push, tid, t + 1, "step"), ev(T::push, tid, t + 2, "step 3"), ev(T::pop, tid, t + 3);
    ev(T::push, tid, t + 3, "forward"), ev(T::pop, tid, t + 9), ev(T::pop, tid, t + 10);
  }
  const std::string& name(const HostRangeRecord& r) { return store.strings.get(r.name); }
};
}  // namespace

TEST(RangeBuilder, OutermostStepRangesAreStepsAndTheDataFetchOpensThem) {
  Fixture f;
  f.iteration(7, 0);
  f.iteration(7, 20);
  ASSERT_EQ(f.store.steps.size(), 2u);
  EXPECT_EQ(f.b.rule(), StepRule::named_ranges);
  EXPECT_EQ(f.b.rule_text(), "ranges matching 'step'");
  const StepRecord& s = f.store.steps[1];
  EXPECT_EQ(s.global_step, 2);
  EXPECT_EQ(s.start, 20 * kMs);  // the data range before the step belongs to it
  EXPECT_EQ(s.end, 30 * kMs);
  EXPECT_EQ(s.data_wait_ns, 1 * kMs);
  ASSERT_EQ(f.store.host_ranges.size(), 8u);
  int steps = 0, data = 0;
  for (std::size_t i = 0; i < f.store.host_ranges.size(); ++i) {
    const auto& r = f.store.host_ranges[i];
    EXPECT_EQ(r.thread, 7u);
    if (r.kind == static_cast<std::uint8_t>(ts::trace::RangeKind::step)) {
      ++steps;
      EXPECT_EQ(f.name(r), "step");
    }
    if (r.kind == static_cast<std::uint8_t>(ts::trace::RangeKind::data_wait)) ++data;
    if (f.name(r) == "step 3" || f.name(r) == "forward") {
      EXPECT_EQ(r.step, i < 4 ? 1 : 2);  // inside its step
    }
  }
  EXPECT_EQ(steps, 2);  // the nested "step 3" is not another step
  EXPECT_EQ(data, 2);
  EXPECT_EQ(f.b.step_thread(), 7u);
}

TEST(RangeBuilder, ProfilerStepWinsOverNamedRanges) {
  Fixture f;
  f.iteration(1, 0);
  f.ev(T::push, 1, 20, "ProfilerStep#4"), f.ev(T::push, 1, 21, "step"), f.ev(T::pop, 1, 22), f.ev(T::pop, 1, 30);
  f.iteration(1, 40);  // named ranges no longer make steps
  EXPECT_EQ(f.b.rule(), StepRule::profiler_step);
  ASSERT_EQ(f.store.steps.size(), 2u);
  EXPECT_EQ(f.store.steps[1].start, 20 * kMs);
  EXPECT_FALSE(f.b.note().empty());
}

TEST(RangeBuilder, OneSecondWindowsUntilAStepRangeAppears) {
  Fixture f;
  f.b.tick(2500 * kMs);
  ASSERT_EQ(f.store.steps.size(), 2u);  // complete windows only
  EXPECT_EQ(f.b.rule(), StepRule::one_second_windows);
  EXPECT_EQ(f.store.steps[1].start, 1000 * kMs);
  f.iteration(1, 3000);
  f.b.tick(9000 * kMs);  // no more windows once steps come from ranges
  ASSERT_EQ(f.store.steps.size(), 3u);
  EXPECT_EQ(f.store.steps[2].global_step, 1);  // numbered from 1 again: the windows leave the file
  EXPECT_TRUE(f.b.take_windows_dropped());
  EXPECT_FALSE(f.b.take_windows_dropped());
  EXPECT_EQ(f.b.rule(), StepRule::named_ranges);
  EXPECT_NE(f.b.note().find("one-second window(s) before the first step range were dropped"), std::string::npos);
}

TEST(RangeBuilder, BadInputIsCountedNotFatal) {
  Fixture f;
  f.ev(T::pop, 3, 1);                 // a pop without a push
  f.ev(T::end, 3, 2, "", 99);         // an end without a start
  f.ev(T::start, 3, 3, "io", 5);      // start/end may cross threads
  f.ev(T::end, 4, 6, "", 5);
  f.ev(T::push, 3, 7, "left open");
  EXPECT_EQ(f.b.unmatched(), 2);
  EXPECT_EQ(f.b.open_ranges(), 1);
  ASSERT_EQ(f.store.host_ranges.size(), 1u);
  EXPECT_EQ(f.store.host_ranges[0].thread, 3u);
  EXPECT_EQ(f.store.host_ranges[0].end - f.store.host_ranges[0].start, 3 * kMs);
}

TEST(RangeBuilder, DataRangeNames) {
  EXPECT_TRUE(is_data_range_name("data"));
  EXPECT_TRUE(is_data_range_name("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"));
  EXPECT_FALSE(is_data_range_name("database"));
}

TEST(RangeQueue, DrainsEveryThreadInOrder) {
  RangeQueue q;
  std::thread a([&] {
    for (int i = 0; i < 100; ++i) q.append(RangeEvent{T::push, 1, i, 0, "x"});
  });
  a.join();
  for (int i = 0; i < 50; ++i) q.append(RangeEvent{T::pop, 2, i, 0, ""});
  std::vector<RangeEvent> out;
  q.drain(out);
  ASSERT_EQ(out.size(), 150u);
  std::int64_t last1 = -1;
  for (const auto& e : out) {
    if (e.tid != 1) continue;
    EXPECT_GT(e.host_ns, last1);
    last1 = e.host_ns;
  }
  out.clear();
  q.drain(out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(q.dropped(), 0);
}

TEST(RangeQueue, ALaterQueueAtTheSameAddressGetsItsOwnBuffers) {
  alignas(RangeQueue) unsigned char place[sizeof(RangeQueue)];
  auto* a = new (place) RangeQueue;
  a->append(RangeEvent{T::push, 1, 1, 0, "a"});
  a->~RangeQueue();
  auto* b = new (place) RangeQueue;  // same address, as a recorder made after another one was destroyed
  b->append(RangeEvent{T::push, 1, 2, 0, "b"});
  std::vector<RangeEvent> out;
  b->drain(out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "b");
  b->~RangeQueue();
}

TEST(RangeBuilder, AStartEndRangeWhoseEndArrivesFirstIsKept) {
  // A DDP bucket's range starts on the training thread and ends on gloo's thread; each thread's
  // events come in their own batches, so the end can be read before its start. It was dropped
  // (counted unmatched, the start left open): rank 0 of a recorded job lost all 127 bucket ranges.
  Fixture f;
  f.ev(T::end, 7, 5, "", 42);
  EXPECT_EQ(f.b.unmatched(), 1);  // said while its start is missing
  f.ev(T::start, 1, 2, "comm: async ddp all_reduce bucket 0", 42);
  f.ev(T::start, 1, 6, "comm: async ddp all_reduce bucket 0", 43);
  f.ev(T::end, 7, 8, "", 43);  // the usual order still works
  EXPECT_EQ(f.b.unmatched(), 0);
  EXPECT_EQ(f.b.open_ranges(), 0);
  ASSERT_EQ(f.store.host_ranges.size(), 2u);
  EXPECT_EQ(f.store.host_ranges[0].start, 2 * kMs);
  EXPECT_EQ(f.store.host_ranges[0].end, 5 * kMs);
  EXPECT_EQ(f.name(f.store.host_ranges[0]), "comm: async ddp all_reduce bucket 0");
  EXPECT_EQ(f.store.host_ranges[1].end, 8 * kMs);
}
