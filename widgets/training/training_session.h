// A training run driven from the GUI. The engine's Trainer runs on a worker thread; the GUI gets
// value-type updates through queued signals, at most ~30 per second (losses of several read-backs
// are coalesced into one update), and never waits for the trainer: Pause blocks the worker
// between steps (TrainerObserver::between_steps), Stop sets the trainer's stop flag.
// Per-step losses come from the trainer's device ring (read every log_every steps, no extra sync).
// With RunSettings::record_session the run is recorded into a session file by profiling's Profiler.
#pragma once
#include <QElapsedTimer>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "engine/trainer.h"
#include "widgets/training/run_settings.h"

class QThread;

namespace ts::prof {
class EventStore;
class Profiler;
}

namespace ts::gui {

/// What the run trains on, sent once the data and the network are ready.
struct RunInfo {
  DeviceInfo device;
  QString data_description;        // "CIFAR-10 (…)" or "sample set (NOT CIFAR-10)"
  std::int64_t train_images = 0, test_images = 0, steps_per_epoch = 0;
  int epochs = 0;
  std::int64_t batch_size = 0;
  int num_workers = 0;
  AmpMode amp = AmpMode::off;
  int accumulate = 1;
  bool deterministic = false;
  std::int64_t memory_limit_bytes = 0;  // a simulated smaller card (the allocator's cap); 0 = the real card
  QStringList warnings;
};

/// Coalesced step reports: (global step, loss) pairs, oldest first; NaN/inf losses included.
/// fp16 AMP: loss_scales runs parallel to losses (StepReport::loss_scales: negative = the step was
/// skipped for inf/NaN gradients, 0 = no update or no scale); empty without fp16.
struct TrainingUpdate {
  std::vector<std::pair<std::int64_t, float>> losses;
  std::vector<float> loss_scales;
  int epoch = 0;
  std::int64_t step = 0, steps_in_epoch = 0, global_step = 0;
  double images_per_s = 0;        // the epoch so far (the engine's running mean)
  /// Images/s of the steps since the previous update (live: batch size x steps / wall time between
  /// the two reports; replayed: this step's own); 0 for the first update of an epoch, whose interval
  /// holds the evaluation. The Throughput chart plots it per step with a smoothed line.
  double step_images_per_s = 0;
  double elapsed_s = 0;
};

/// The end of a run: completed, stopped by the user, or failed (message and fix).
struct RunOutcome {
  enum Kind { completed, stopped, failed } kind = completed;
  TrainSummary summary;            // epochs done so far (also when failed or stopped)
  QString message;                 // failed: what happened
  QString fix;                     // failed: what to change
  double elapsed_s = 0;
  QString session_path;            // the recorded session file ("" when not recorded)
  QString session_error;           // why recording failed or stopped early ("" when fine)
};

class TrainingSession : public QObject {
  Q_OBJECT
 public:
  explicit TrainingSession(QObject* parent = nullptr);
  ~TrainingSession() override;  // stops and joins a running worker

  /// Starts a run (false when one is running). Data loading happens on the worker thread.
  bool start(const RunSettings& settings, const ModelSpec& model);
  bool isRunning() const { return thread_ != nullptr; }
  bool isPaused() const { return paused_.load(); }
  /// Asks the trainer thread to write a checkpoint to `path` at the end of the current epoch
  /// (Trainer::save); checkpointSaved or checkpointFailed follows. False when no run is going.
  bool requestCheckpoint(const QString& path);
  QString pendingCheckpoint() const;
  /// Minimum interval between progress signals, ms (default 33: ≤ 30 Hz).
  void setUpdateIntervalMs(int ms) { interval_ms_ = ms; }

 public slots:
  void pause();
  void resume();
  void stop();

 signals:
  void started(const ts::gui::RunInfo& info);
  void progress(const ts::gui::TrainingUpdate& update);
  void epochFinished(const ts::EpochResult& result);
  void pausedChanged(bool paused);
  void finished(const ts::gui::RunOutcome& outcome);
  /// A checkpoint was written (requested or every N epochs) after `epoch`.
  void checkpointSaved(const QString& path, int epoch);
  void checkpointFailed(const QString& message);
  /// The engine's informational lines ("resumed from … after epoch 1").
  void engineMessage(const QString& text);
  /// The run's profiler started: its event store, which the panels read while the run trains (and
  /// after it ended; the store stays alive as long as someone holds it).
  void recordingStarted(std::shared_ptr<const ts::prof::EventStore> store);

 private:
  void work(RunSettings settings, ModelSpec model);  // on the worker thread
  void flush(bool force);
  TrainerObserver makeObserver(Trainer*& trainer);
  void saveRequested(Trainer& trainer, int epoch);  // on the worker thread, at an epoch boundary
  /// Starts recording settings.session_path (when record_session); a failure lands in out.session_error.
  std::unique_ptr<prof::Profiler> startProfiler(const RunSettings& settings, const ModelSpec& model, RunOutcome& out);

  QThread* thread_ = nullptr;
  std::atomic<bool> stop_{false}, paused_{false};
  std::mutex pause_mutex_;
  std::condition_variable pause_cv_;
  int interval_ms_ = 33;
  mutable std::mutex checkpoint_mutex_;
  QString checkpoint_request_;
  std::int64_t last_global_step_ = 0;  // worker thread
  prof::Profiler* profiler_ = nullptr;  // worker thread: the run's session recorder, if any
  // Worker-thread state (touched only by the worker while it runs).
  TrainingUpdate pending_;
  QElapsedTimer run_clock_, emit_clock_;
  std::int64_t batch_size_ = 0, rate_step_ = 0;  // per-interval throughput (flush())
  int rate_epoch_ = 0;
  qint64 rate_ms_ = 0;
};

/// The message and the fix for an engine error (out of memory, no GPU, bad dataset, NaN loss).
std::pair<QString, QString> explain_error(const std::exception& e);

}  // namespace ts::gui

Q_DECLARE_METATYPE(ts::gui::RunInfo)
Q_DECLARE_METATYPE(ts::gui::TrainingUpdate)
Q_DECLARE_METATYPE(ts::gui::RunOutcome)
Q_DECLARE_METATYPE(ts::EpochResult)
Q_DECLARE_METATYPE(std::shared_ptr<const ts::prof::EventStore>)
