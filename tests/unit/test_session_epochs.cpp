// The session's epochs table: written through the Profiler (record_epoch) and the SessionWriter,
// read back by read_session / open_session; a format-1 file written before the table existed opens
// with no epochs.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "engine/trainer.h"
#include "profiling/event_source.h"
#include "profiling/profiler.h"
#include "profiling/session/session_file.h"

namespace ts::prof {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ts_epochs_" + std::to_string(getpid()) + "_" + name)).string();
}

EpochResult epoch_result(int epoch) {
  EpochResult e;
  e.epoch = epoch;
  e.train_loss = 2.0 / epoch;
  e.test_accuracy = 0.1 * epoch;
  e.test_loss = 1.5 / epoch;
  e.images_per_s = 1000.0 + epoch;
  e.train_seconds = 1.25 * epoch;
  e.eval_seconds = 0.5;
  e.loss_scale = 32768.0f;
  e.skipped_steps = epoch - 1;
  return e;
}

TEST(SessionEpochs, RoundTripThroughTheProfiler) {
  const std::string path = temp_path("profiler.tsession");
  {
    ProfilerOptions o;
    o.session_path = path;
    Profiler p(o);
    for (int k = 1; k <= 3; ++k) p.record_epoch(epoch_result(k));
    const ProfilerSummary s = p.stop();
    EXPECT_TRUE(s.error.empty()) << s.error;
  }
  const auto source = open_session(path);
  const EventStore& st = source->store();
  ASSERT_EQ(st.epochs.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const EpochRecord& r = st.epochs[i];
    const EpochResult e = epoch_result(static_cast<int>(i) + 1);
    EXPECT_EQ(r.epoch, e.epoch);
    EXPECT_DOUBLE_EQ(r.train_loss, e.train_loss);
    EXPECT_DOUBLE_EQ(r.test_accuracy, e.test_accuracy);
    EXPECT_DOUBLE_EQ(r.test_loss, e.test_loss);
    EXPECT_DOUBLE_EQ(r.images_per_s, e.images_per_s);
    EXPECT_EQ(r.train_ns, static_cast<std::int64_t>(e.train_seconds * 1e9));
    EXPECT_EQ(r.eval_ns, 500000000);
    EXPECT_FLOAT_EQ(r.loss_scale, 32768.0f);
    EXPECT_EQ(r.skipped_steps, e.skipped_steps);
  }
  std::filesystem::remove(path);
}

TEST(SessionEpochs, WrittenIncrementallyByTheWriter) {
  const std::string path = temp_path("writer.tsession");
  EventStore a;
  SessionWriter w(path, a);
  a.append(a.epochs, EpochRecord{1, 2.0, 0.25, 1.9, 500, 10, 5, 1.0f, 0});
  ASSERT_TRUE(w.write_batch());
  a.append(a.epochs, EpochRecord{2, 1.5, 0.5, 1.4, 600, 20, 6, 1.0f, 0});
  w.close();
  EventStore b;
  read_session(path, b);
  ASSERT_EQ(b.epochs.size(), 2u);
  EXPECT_EQ(b.epochs[1].epoch, 2);
  EXPECT_DOUBLE_EQ(b.epochs[1].test_accuracy, 0.5);
  EXPECT_EQ(b.epochs[1].train_ns, 20);
  std::filesystem::remove(path);
}

TEST(SessionEpochs, AnOlderFormatOneFileWithoutTheTableHasNoEpochs) {
  const std::string path = temp_path("old.tsession");
  EventStore a;
  a.append(a.steps, StepRecord{1, 1, 1, 0, 100, 64, 0});
  a.append(a.epochs, EpochRecord{1, 2.0, 0.25, 1.9, 500, 10, 5, 1.0f, 0});
  SessionWriter(path, a).close();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DROP TABLE epochs", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EventStore b;
  ASSERT_NO_THROW(read_session(path, b));
  EXPECT_EQ(b.epochs.size(), 0u);
  EXPECT_EQ(b.steps.size(), 1u);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ts::prof
