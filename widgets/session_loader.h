// SessionLoader: opens a recorded session (*.tsession) or a PyTorch profiler / Chrome trace
// (*.json, *.json.gz: imported by profiling/import) on a worker thread. A session opens progressively: the store is handed out at once (storeReady: the panels draw what has arrived, the
// window stays usable), progress is reported (rows read / total, <= ~20 Hz) and the load can be
// cancelled. The worker only appends to the store (EventStore's one-writer contract); results reach
// the GUI thread as queued signals.
#pragma once
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <thread>

#include "widgets/session_replay.h"

namespace ts::gui {

/// QSettings key of Preferences ▸ Trace step ranges: the --step-range pattern (profiling/steps/step_rule.h)
/// a trace without ProfilerStep#N is imported with; default "step".
inline constexpr const char* kStepRangeKey = "prefs/step_range";

class SessionLoader : public QObject {
  Q_OBJECT
 public:
  explicit SessionLoader(QObject* parent = nullptr);
  ~SessionLoader() override;  // cancels a load in progress and joins it

  /// Starts loading `path` (false while another load runs). Emits storeReady, then progress,
  /// then exactly one of loaded / failed. A trace's store is complete when it comes (storeReady
  /// right before loaded; progress counts file bytes).
  bool start(const QString& path);
  /// Asks the load to stop (failed(..., true) follows).
  void cancel() { cancel_ = true; }
  bool isLoading() const { return loading_; }

 signals:
  void storeReady(std::shared_ptr<const ts::prof::EventStore> store);
  void progress(qint64 rows_read, qint64 rows_total);
  void loaded(const ts::gui::SessionReplay& replay);
  /// One line for the user; cancelled: the user asked for it (not an error).
  void failed(const QString& message, bool cancelled);

 private:
  void join();
  void startTrace(const QString& path);
  std::thread worker_;
  std::atomic<bool> cancel_{false};
  bool loading_ = false;
};

}  // namespace ts::gui

Q_DECLARE_METATYPE(ts::gui::SessionReplay)
