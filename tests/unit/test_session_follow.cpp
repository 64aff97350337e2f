// SessionFollower: a session read while its writer writes it (File ▸ Profile a program…'s live channel). Batches
// arrive whole and once each, a loss written a batch after its step still arrives, the writer's
// close is seen (overview, finished), and a follower racing a writer thread ends with exactly the
// rows read_session reads from the finished file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "profiling/session/session_file.h"

namespace ts::prof {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ts_follow_" + std::to_string(getpid()) + "_" + name)).string();
}

void remove_session(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

/// Steps `from`..`to` (global step numbers) with one kernel, one runtime call and one sample each;
/// the step's loss only when `with_loss` (the trainer writes it once the step's loss is known).
void add_steps(EventStore& s, int from, int to, bool with_loss) {
  for (int i = from; i <= to; ++i) {
    KernelRecord k;
    k.start = 1000 * i, k.end = k.start + 400, k.stream = 7, k.correlation = static_cast<std::uint32_t>(i);
    k.name = s.strings.intern("kernel_" + std::to_string(i % 5));  // new strings now and then
    KernelConfig c;
    c.grid[0] = i % 3 + 1, c.block[0] = 128;
    k.config = s.intern_config(c);
    s.append(s.kernels, k);
    s.append(s.runtime, RuntimeRecord{1000 * i - 50, 1000 * i - 40, 42, static_cast<std::uint32_t>(i),
                                      s.strings.intern("cudaLaunchKernel"), 211, 0});
    s.append(s.steps, StepRecord{i, 1, i, 1000 * i, 1000 * i + 900, 64, 10});
    if (with_loss) s.append(s.losses, LossRecord{i, 2.0f / static_cast<float>(i)});
  }
  if (s.series.size() == 0) s.append(s.series, SeriesRecord{0, s.strings.intern("gpu.power"), s.strings.intern("W")});
  s.append(s.samples, SampleRecord{1000 * to, 0, 100.0 + to});
}

TEST(SessionFollow, ReadsEachCommittedBatchOnceAndSeesTheClose) {
  const std::string path = temp_path("batches.tsession");
  EventStore w_store, r_store;
  SessionWriter w(path, w_store);
  add_steps(w_store, 1, 10, true);
  ASSERT_TRUE(w.write_batch());
  EXPECT_TRUE(session_being_written(path));
  SessionFollower f(path, r_store);
  EXPECT_GT(f.poll(), 0);
  EXPECT_EQ(r_store.kernels.size(), 10u);
  EXPECT_EQ(r_store.steps.size(), 10u);
  EXPECT_EQ(r_store.losses.size(), 10u);
  EXPECT_EQ(f.poll(), 0);  // nothing new: nothing appended twice
  EXPECT_EQ(r_store.kernels.size(), 10u);
  EXPECT_FALSE(f.finished());

  add_steps(w_store, 11, 15, false);  // steps whose losses come in a later batch
  ASSERT_TRUE(w.write_batch());
  f.poll();
  EXPECT_EQ(r_store.steps.size(), 15u);
  EXPECT_EQ(r_store.losses.size(), 10u);
  for (int i = 11; i <= 15; ++i) w_store.append(w_store.losses, LossRecord{i, 0.5f});
  ASSERT_TRUE(w.write_batch());
  f.poll();
  ASSERT_EQ(r_store.losses.size(), 15u);
  EXPECT_EQ(r_store.losses[14].global_step, 15);
  EXPECT_EQ(r_store.strings.get(r_store.kernels[12].name), "kernel_3");
  EXPECT_EQ(r_store.config(r_store.kernels[13]).grid[0], 14 % 3 + 1);

  w.close();
  EXPECT_FALSE(session_being_written(path));
  f.poll();
  EXPECT_TRUE(f.finished());
  EXPECT_NE(r_store.overview(), nullptr);
  EXPECT_EQ(f.poll(), 0);
  remove_session(path);
}

// The injection library writes with SessionRecorder (no overview): its close marker ends following,
// and the marker never reaches a store (a copy of the file is not born closed).
TEST(SessionFollow, TheCloseOfAFileWithoutOverviewIsSeen) {
  const std::string path = temp_path("recorder.tsession");
  EventStore w_store, r_store;
  SessionRecorder w(path, w_store);
  add_steps(w_store, 1, 5, true);
  ASSERT_TRUE(w.write_batch());
  SessionFollower f(path, r_store);
  f.poll();
  EXPECT_FALSE(f.finished());
  add_steps(w_store, 6, 8, true);
  w.close();
  f.poll();
  EXPECT_TRUE(f.finished());
  EXPECT_EQ(r_store.kernels.size(), 8u);
  EXPECT_NE(r_store.overview(), nullptr);  // built from the rows
  EXPECT_EQ(r_store.meta().count("session.closed"), 0u);
  EventStore again;
  read_session(path, again);
  EXPECT_EQ(again.meta().count("session.closed"), 0u);
  EXPECT_FALSE(session_being_written(path));
  remove_session(path);
}

// A file the injection library closed before the marker existed (still in WAL mode: a reader held
// it when the writer closed): its "closed: ..." status ends following; "recording" does not.
TEST(SessionFollow, AnInjectedFileClosedBeforeTheMarkerIsSeenClosed) {
  const std::string path = temp_path("oldinject.tsession");
  EventStore w_store, r_store;
  SessionRecorder w(path, w_store);
  add_steps(w_store, 1, 3, true);
  w_store.set_meta("inject.status", "recording");
  ASSERT_TRUE(w.write_batch());
  SessionFollower f(path, r_store);
  f.poll();
  EXPECT_FALSE(f.finished());
  EXPECT_TRUE(session_being_written(path));
  w_store.set_meta("inject.status", "closed: the program exited");
  ASSERT_TRUE(w.write_batch());  // the old library's last batch: no close marker after it
  f.poll();
  EXPECT_TRUE(f.finished());
  EXPECT_FALSE(session_being_written(path));
  w.close();
  remove_session(path);
}

TEST(SessionFollow, ARacingFollowerEndsWithEveryRowOfTheFinishedFile) {
  const std::string path = temp_path("race.tsession");
  EventStore w_store;
  auto writer = std::make_unique<SessionWriter>(path, w_store);
  ASSERT_TRUE(writer->write_batch());  // the schema exists before the follower opens the file
  std::atomic<bool> done{false};
  std::thread t([&] {
    for (int b = 0; b < 40; ++b) {
      add_steps(w_store, b * 25 + 1, b * 25 + 25, true);
      writer->write_batch();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    writer->close();
    done = true;
  });
  EventStore r_store;
  SessionFollower f(path, r_store);
  int polls = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!f.finished() && std::chrono::steady_clock::now() < deadline) {
    f.poll();
    ++polls;
  }
  t.join();
  EXPECT_TRUE(f.finished());
  EXPECT_GT(polls, 1);
  EventStore whole;
  read_session(path, whole);
  EXPECT_EQ(r_store.kernels.size(), 1000u);
  EXPECT_EQ(r_store.kernels.size(), whole.kernels.size());
  EXPECT_EQ(r_store.runtime.size(), whole.runtime.size());
  EXPECT_EQ(r_store.steps.size(), whole.steps.size());
  EXPECT_EQ(r_store.losses.size(), whole.losses.size());
  EXPECT_EQ(r_store.samples.size(), whole.samples.size());
  for (std::size_t i = 0; i < whole.kernels.size(); i += 97) {
    EXPECT_EQ(r_store.kernels[i].start, whole.kernels[i].start);
    EXPECT_EQ(r_store.strings.get(r_store.kernels[i].name), whole.strings.get(whole.kernels[i].name));
  }
  remove_session(path);
}

TEST(SessionFollow, RefusesWhatIsNotASession) {
  const std::string path = temp_path("not.tsession");
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::fputs("not a database at all, just text", f);
    std::fclose(f);
  }
  EventStore s;
  EXPECT_THROW(SessionFollower(path, s), SessionError);
  EXPECT_FALSE(session_being_written(path));
  EXPECT_THROW(SessionFollower(temp_path("missing.tsession"), s), SessionError);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ts::prof
