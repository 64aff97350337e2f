// The Python insight's side of the injection library: optimizer.step marks as steps (rule 3b), the
// phase names' kinds, the trailing sync that extends a step, and the stack samples' queue.
#include <gtest/gtest.h>

#include "engine/host_trace.h"
#include "profiling/inject/py_stacks.h"
#include "profiling/inject/range_builder.h"

using namespace ts::prof;
using namespace ts::prof::inject;
using T = RangeEvent::Type;
using K = ts::trace::RangeKind;

namespace {
constexpr std::int64_t kMs = 1'000'000;

struct Fixture {
  EventStore store;
  RangeBuilder b{store, SessionClock(0, 0), StepRangePattern("step"), 0};
  void ev(T t, std::uint32_t tid, std::int64_t ms, const char* name = "") {
    RangeEvent e;
    e.type = t, e.tid = tid, e.host_ns = ms * kMs, e.name = name;
    b.add(e);
  }
  void range(std::uint32_t tid, std::int64_t from, std::int64_t to, const char* name) {
    ev(T::push, tid, from, name), ev(T::pop, tid, to);
  }
  /// A training iteration from t: data [t, t+2), forward, backward, optimizer, then the mark at t+9.
  void iteration(std::uint32_t tid, std::int64_t t) {
    range(tid, t, t + 2, "data");
    range(tid, t + 3, t + 5, "forward");
    range(tid, t + 5, t + 8, "backward");
    range(tid, t + 8, t + 9, "optimizer");
    ev(T::mark, tid, t + 9, kOptimizerStepMark);
  }
  std::size_t kind_count(K k) const {
    std::size_t n = 0;
    for (std::size_t i = 0; i < store.host_ranges.size(); ++i) n += store.host_ranges[i].kind == static_cast<std::uint8_t>(k);
    return n;
  }
};
}  // namespace

TEST(OptimizerSteps, EachOptimizerStepEndsAStepThatStartsAtItsDataFetch) {
  Fixture f;
  f.iteration(5, 0);
  f.iteration(5, 10);
  f.iteration(5, 20);
  // The third step waits for what follows it (a trailing sync would extend it): two are written.
  ASSERT_EQ(f.store.steps.size(), 2u);
  f.b.finish();
  ASSERT_EQ(f.store.steps.size(), 3u);
  EXPECT_EQ(f.b.rule(), StepRule::optimizer_steps);
  EXPECT_EQ(f.b.rule_text(), "optimizer.step calls (Python insight)");
  const StepRecord& s = f.store.steps[1];
  EXPECT_EQ(s.global_step, 2);
  EXPECT_EQ(s.start, 10 * kMs);
  EXPECT_EQ(s.end, 19 * kMs);
  EXPECT_EQ(s.data_wait_ns, 2 * kMs);
  EXPECT_EQ(f.b.step_thread(), 5u);
  EXPECT_EQ(f.kind_count(K::forward), 3u);
  EXPECT_EQ(f.kind_count(K::backward), 3u);
  EXPECT_EQ(f.kind_count(K::optimizer), 3u);
  EXPECT_EQ(f.kind_count(K::data_wait), 3u);
  EXPECT_EQ(f.kind_count(K::step), 0u);  // the mark is a boundary, not a host range
}

TEST(OptimizerSteps, ASyncAfterOptimizerStepBelongsToTheStepWhoseLossItReads) {
  Fixture f;
  f.iteration(5, 0);
  f.range(5, 9, 12, "sync: .item() train.py:41");  // running_loss += loss.item()
  f.iteration(5, 20);
  ASSERT_EQ(f.store.steps.size(), 1u);
  EXPECT_EQ(f.store.steps[0].end, 12 * kMs);
  f.b.finish();
  ASSERT_EQ(f.store.steps.size(), 2u);
  EXPECT_EQ(f.store.steps[1].start, 20 * kMs);  // the idle gap [12, 20) is no step's
}

TEST(OptimizerSteps, AnEvaluationLoopBetweenEpochsStaysOutsideTheSteps) {
  Fixture f;
  f.iteration(5, 0);
  for (int i = 0; i < 5; ++i) f.range(5, 20 + 4 * i, 22 + 4 * i, "data"), f.range(5, 22 + 4 * i, 24 + 4 * i, "forward");
  f.iteration(5, 100);
  f.b.finish();
  ASSERT_EQ(f.store.steps.size(), 2u);
  EXPECT_EQ(f.store.steps[1].start, 100 * kMs);  // its own data fetch, not the evaluation's first
  EXPECT_EQ(f.store.steps[1].data_wait_ns, 2 * kMs);
}

TEST(OptimizerSteps, StepRangesOfTheScriptWinOverOptimizerSteps) {
  Fixture f;
  f.ev(T::push, 5, 0, "step");
  f.iteration(5, 0);
  f.ev(T::pop, 5, 10);
  f.ev(T::push, 5, 10, "step");
  f.iteration(5, 10);
  f.ev(T::pop, 5, 20);
  f.b.finish();
  EXPECT_EQ(f.b.rule(), StepRule::named_ranges);
  ASSERT_EQ(f.store.steps.size(), 2u);
  EXPECT_EQ(f.store.steps[1].start, 10 * kMs);
  EXPECT_EQ(f.store.steps[1].end, 20 * kMs);
}

TEST(OptimizerSteps, OneSecondWindowsGiveWayToTheFirstOptimizerStep) {
  Fixture f;
  f.b.tick(2500 * kMs);
  EXPECT_EQ(f.store.steps.size(), 2u);
  f.iteration(5, 3000);
  EXPECT_TRUE(f.b.take_windows_dropped());
  f.b.finish();
  EXPECT_EQ(f.store.steps[f.store.steps.size() - 1].global_step, 1);  // numbered from 1 again
}

TEST(PyStackQueue, StacksBecomeOneTreeAndSamplesNameTheirNode) {
  EventStore store;
  PyStackQueue q;
  ASSERT_TRUE(q.frame(1, "main", "/home/u/train.py", 80));
  ASSERT_TRUE(q.frame(2, "__getitem__", "/home/u/train.py", 31));
  ASSERT_TRUE(q.frame(3, "_conv_forward", "/usr/lib/python3/site-packages/torch/nn/modules/conv.py", 549));
  const std::uint32_t a[] = {2, 1}, b[] = {3, 1};  // innermost first
  ASSERT_TRUE(q.stack(10, a, 2));
  ASSERT_TRUE(q.stack(11, b, 2));
  ASSERT_TRUE(q.sample(77, 5 * kMs, 10));
  ASSERT_TRUE(q.sample(77, 6 * kMs, 11));
  EXPECT_FALSE(q.sample(77, 7 * kMs, 0));
  EXPECT_FALSE(q.frame(0, "x", "y", 1));
  q.drain(store, SessionClock(1 * kMs, 0));
  ASSERT_EQ(store.py_frames.size(), 3u);
  ASSERT_EQ(store.py_stacks.size(), 3u);  // main, main>__getitem__, main>_conv_forward
  ASSERT_EQ(store.py_samples.size(), 2u);
  EXPECT_EQ(store.py_samples[0].time, 4 * kMs);  // session time
  EXPECT_EQ(store.py_samples[0].thread, 77u);
  const PyStackRecord& leaf = store.py_stacks[store.py_samples[1].stack - 1];
  EXPECT_EQ(store.strings.get(store.py_frames[leaf.frame - 1].function), "_conv_forward");
  EXPECT_EQ(store.py_stacks[leaf.parent - 1].parent, 0u);  // main is the root
  // A sample of an undefined stack is dropped and counted.
  q.sample(77, 8 * kMs, 99);
  q.drain(store, SessionClock(0, 0));
  EXPECT_EQ(store.py_samples.size(), 2u);
  EXPECT_EQ(q.dropped(), 1);
  EXPECT_EQ(q.samples(), 3);
}

TEST(RangeKinds, ThePythonInsightsPhaseNames) {
  EXPECT_EQ(range_kind_of("forward"), K::forward);
  EXPECT_EQ(range_kind_of("backward"), K::backward);
  EXPECT_EQ(range_kind_of("optimizer"), K::optimizer);
  EXPECT_EQ(range_kind_of("data"), K::data_wait);
  EXPECT_EQ(range_kind_of("sync: .item() train.py:4"), K::other);
  EXPECT_EQ(range_kind_of("Forward"), K::other);  // exact names only
}
