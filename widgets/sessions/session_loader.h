// SessionLoader: opens a recorded session (*.tsession, or compressed as lessons record them:
// *.tsession.zst, *.tsession.gz, read through a plain copy) or a PyTorch profiler / Chrome trace
// (*.json, *.json.gz: imported by profiling/import) on a worker thread; a compressed session is
// decompressed there too, once (one that holds a playground run is handed on: playgroundSession).
// A session opens progressively: the store is handed out at once (storeReady: the panels draw what
// has arrived, the window stays usable), progress is reported (rows read / total, <= ~20 Hz) and the load can be
// cancelled. The worker only appends to the store (EventStore's one-writer contract); results reach
// the GUI thread as queued signals.
#pragma once
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <thread>

#include "widgets/sessions/session_replay.h"

namespace ts::lessons {
class PlainSession;
}

namespace ts::gui {

/// QSettings key of Preferences ▸ Trace step ranges: the --step-range pattern (profiling/steps/step_rule.h)
/// a trace without ProfilerStep#N is imported with; default "step".
inline constexpr const char* kStepRangeKey = "prefs/step_range";

/// Whether `path` is a compressed session (*.tsession.zst, older recordings' *.tsession.gz): read
/// through a decompressed copy (lessons/session_pack.h), never followed.
bool is_compressed_session(const QString& path);

class SessionLoader : public QObject {
  Q_OBJECT
 public:
  explicit SessionLoader(QObject* parent = nullptr);
  ~SessionLoader() override;  // cancels a load in progress and joins it

  /// Starts loading `path` (false while another load runs). Emits storeReady, then progress,
  /// then exactly one of loaded / failed. A trace's store is complete when it comes (storeReady
  /// right before loaded; progress counts file bytes).
  /// A session a writer still has open (prof::session_being_written: a run of trainscope-run
  /// --session, a profiled program) is *followed*: following(true) after storeReady, new rows
  /// every kFollowPollMs while the panels stay live, and loaded once the writer closes the file,
  /// the user stops following (cancel()), or nothing new came for kFollowIdleMs (a writer that was
  /// killed: replay.incomplete). Latency from a committed batch to the store: at most one poll.
  bool start(const QString& path);
  /// Asks the load to stop (failed(..., true) follows); while following, stops following and keeps
  /// what was read (loaded follows).
  void cancel() { cancel_ = true; }
  bool isLoading() const { return loading_; }
  bool isFollowing() const { return following_; }

  static constexpr int kFollowPollMs = 100;      // the writer commits every 250 ms (ProfilerOptions::write_period)
  static constexpr int kFollowIdleMs = 15000;    // samplers add rows every 50 ms while a run is alive

 signals:
  void storeReady(std::shared_ptr<const ts::prof::EventStore> store);
  void progress(qint64 rows_read, qint64 rows_total);
  void loaded(const ts::gui::SessionReplay& replay);
  /// One line for the user; cancelled: the user asked for it (not an error).
  void failed(const QString& message, bool cancelled);
  /// Following a session that is still being written started (true) or ended (false, before loaded).
  void following(bool on);
  /// The compressed session at `path` holds a playground run, not a training run: instead of loaded,
  /// with its decompressed copy (`plain`) for the Playground workspace to show. The store of
  /// storeReady stays empty.
  void playgroundSession(const QString& path, std::shared_ptr<ts::lessons::PlainSession> plain);

 private:
  void join();
  void startTrace(const QString& path);
  void startFollow(const QString& path, std::shared_ptr<prof::EventStore> store);
  std::thread worker_;
  std::atomic<bool> cancel_{false};
  bool loading_ = false;
  bool following_ = false;
};

}  // namespace ts::gui

Q_DECLARE_METATYPE(ts::gui::SessionReplay)
