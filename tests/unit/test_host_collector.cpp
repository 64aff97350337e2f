// HostCollector's thread names: a host lane is named by the name its thread ends up with, also when
// the thread names itself after its first range (trainscope-run's main thread is the process's
// "trainscope-run" until training starts and it becomes "trainer").
#include <gtest/gtest.h>
#include <pthread.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "engine/host_trace.h"
#include "profiling/host_collector.h"

namespace ts::prof {
namespace {

/// One range, as ScopedRange reports it at its end.
void emit_range(HostCollector& c, const char* name) {
  trace::RangeEvent e;
  e.start_ns = trace::now_ns();
  e.end_ns = e.start_ns + 1000;
  e.kind = trace::RangeKind::other;
  e.name = name;
  c.on_range(e);
}

/// Lets the test pump between a worker's stages: the worker waits at each stage until the test says go.
struct Stages {
  std::mutex m;
  std::condition_variable cv;
  int done = 0, allowed = 0;
  void finish_and_wait(int stage) {
    std::unique_lock lock(m);
    done = stage;
    cv.notify_all();
    cv.wait(lock, [&] { return allowed >= stage + 1; });
  }
  void wait_done(int stage) {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return done >= stage; });
  }
  void allow(int stage) {
    std::lock_guard lock(m);
    allowed = stage;
    cv.notify_all();
  }
};

std::string names_of(const EventStore& s, std::uint32_t tid) {
  std::string out;
  for (std::size_t i = 0; i < s.threads.size(); ++i)
    if (s.threads[i].tid == tid) out += (out.empty() ? "" : ",") + s.strings.get(s.threads[i].name);
  return out;
}

TEST(HostCollector, NamesALaneByTheNameItsThreadGivesItselfAfterItsFirstRange) {
  EventStore store;
  HostCollector collector(store, SessionClock(trace::now_ns()), 0, 0);
  Stages stages;
  std::uint32_t tid = 0;
  std::thread worker([&] {
    pthread_setname_np(pthread_self(), "process-name");  // what a fresh thread's OS name reads
    tid = trace::thread_id();
    emit_range(collector, "cuDNN algorithm search");  // before the trainer names its thread
    stages.finish_and_wait(1);
    trace::name_this_thread("trainer");
    emit_range(collector, "step");
    stages.finish_and_wait(2);
  });
  stages.wait_done(1);
  collector.pump();  // the pump runs between the first range and the rename
  stages.allow(2);
  stages.wait_done(2);
  collector.pump();
  stages.allow(3);
  worker.join();
  collector.flush();
  EXPECT_EQ(collector.ranges(), 2);
  EXPECT_EQ(names_of(store, tid), "trainer");
}

TEST(HostCollector, NamesAThreadThatNeverNamesItselfByItsOsNameEvenAfterItEnded) {
  EventStore store;
  HostCollector collector(store, SessionClock(trace::now_ns()), 0, 0);
  Stages stages;
  std::uint32_t tid = 0;
  std::thread worker([&] {
    pthread_setname_np(pthread_self(), "raw-worker");
    tid = trace::thread_id();
    emit_range(collector, "work");
    stages.finish_and_wait(1);
  });
  stages.wait_done(1);
  collector.pump();  // reads the OS name while the thread lives
  EXPECT_EQ(names_of(store, tid), "");  // not final yet: the thread may still name itself
  stages.allow(2);
  worker.join();
  collector.flush();
  EXPECT_EQ(names_of(store, tid), "raw-worker");
}

}  // namespace
}  // namespace ts::prof
