// JobLoader: opens a distributed job (profiling/job: load_job, then analyze) on a worker thread, as
// SessionLoader opens one session, so the window stays usable while the ranks' files are read and
// aligned. Progress is the files opened out of the files named (<= ~20 Hz); the load can be
// cancelled between two files. The worker owns the Job until it is done; results reach the GUI
// thread as queued calls (value types: the Job is handed over whole, never shared while it fills).
//
// A second start() while a load runs: the later one wins. The running load is asked to stop (it
// stops before its next file), its result is dropped, and the later paths load once it has
// stopped; only the later one ends in loaded or failed. One worker thread at a time, so the GUI
// thread never waits for a load to finish (only the destructor joins).
#pragma once
#include <QObject>
#include <QStringList>
#include <atomic>
#include <memory>
#include <optional>
#include <thread>

#include "profiling/job/job.h"

namespace ts::gui {

/// A job read and analysed: what JobLoader::loaded hands over.
struct LoadedJob {
  QStringList paths;
  std::shared_ptr<prof::job::Job> job;
  prof::job::JobReport report;
};

class JobLoader : public QObject {
  Q_OBJECT
 public:
  explicit JobLoader(QObject* parent = nullptr);
  ~JobLoader() override;  // stops a load in progress and joins it

  /// Starts loading the job in `paths` (folders or rank files; prof::job::load_job). Emits progress,
  /// then exactly one of loaded / failed, unless a later start() replaces it (see above).
  void start(const QStringList& paths);
  /// Stops the load in progress and drops one waiting to start: failed(..., true) follows.
  void cancel();
  bool isLoading() const { return loading_; }

 signals:
  void progress(qint64 files_done, qint64 files_total);
  void loaded(const ts::gui::LoadedJob& job);
  /// One line for the user (load_job's InputError: no path names a readable rank); cancelled: the user
  /// asked for it (not an error).
  void failed(const QString& message, bool cancelled);

 private:
  void launch(const QStringList& paths);
  /// The worker's end, on the GUI thread: `result` shown, or failed, or dropped for a waiting load.
  void finish(std::optional<LoadedJob> result, QString message, bool cancelled);

  std::thread worker_;
  std::atomic<bool> cancel_{false};
  bool loading_ = false;
  std::optional<QStringList> waiting_;  // a later start()'s paths, started when the worker stops
};

}  // namespace ts::gui
