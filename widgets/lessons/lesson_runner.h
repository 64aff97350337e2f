// LessonRunner: runs a lesson for the window. Where this machine has every device the lesson's runs
// use, it trains them with `trainscope-run --lesson` as a child process (the runs record into a
// folder under the user's sessions folder; the process's stderr lines give the progress; Cancel
// sends SIGINT, which the runner answers by stopping at the next step and keeping the runs it
// finished); where a device is missing it opens the lesson's recording instead, saying which device
// is missing and where and when each run was recorded. Either way it ends with finished(dir, ...):
// a lesson folder (manifest.json + one session per run) that LessonView shows.
#pragma once
#include <QObject>
#include <QProcess>
#include <QString>
#include <functional>

#include "lessons/lesson.h"

namespace ts::gui {

/// The trainscope-run the window starts: TRAINSCOPE_RUNNER in the environment, then beside the
/// window's executable, then the build tree's (TRAINSCOPE_RUNNER_PATH, for tests). "" when none exists.
QString lesson_runner_program();

/// Appends `more` (a read of a runner's output) to `pending` and calls line(text) for each complete
/// line in it, as UTF-8 without its '\n'; a partial last line stays in `pending` for the next read.
void for_each_line(QByteArray& pending, const QByteArray& more, const std::function<void(const QString&)>& line);
/// Kills `p` when it is still there `grace_ms` after it was asked to stop (SIGINT, terminate()).
void kill_after(QProcess* p, int grace_ms);
/// A runner's child when the runner goes: it sends the runner nothing more, is killed and waited
/// for (3 s at most). Nothing when `p` is null.
void end_child(QProcess* p, QObject* runner);

class LessonRunner : public QObject {
  Q_OBJECT
 public:
  explicit LessonRunner(QObject* parent = nullptr);
  ~LessonRunner() override;

  /// Starts lesson `l`. `source`: what `--lesson` is given (a built-in's name or the lesson file);
  /// `data_dir`: the CIFAR-10 folder ("" = the generated sample set); `out_dir`: the folder to train
  /// into. `recorded_only`: open the recording even where the devices are here. Returns false (and
  /// emits failed) when a lesson runs already or nothing can be shown; a runner that fails to start
  /// emits failed later.
  bool start(const lessons::Lesson& l, const QString& source, const QString& data_dir, const QString& out_dir,
             bool recorded_only = false);
  /// Stops the runs (SIGINT; the process is killed if it has not quit 10 s later).
  void cancel();
  bool running() const { return process_ != nullptr; }
  /// The last progress line ("Run 1 of 2: batch size 4 …").
  QString progressText() const { return progress_; }

 signals:
  /// Run `index` (0-based) of `count` started training.
  void progress(int index, int count, const QString& text);
  /// The lesson folder to show. `recorded`: it is the shipped recording; `note`: why (the missing
  /// device, and each run's device and date) or "" for a live lesson.
  void finished(const QString& dir, bool recorded, const QString& note);
  /// Nothing to show, one line (a run error is not this: the folder still records it).
  void failed(const QString& message, bool cancelled);

 private:
  void onStderr();
  void onFinished(int code, QProcess::ExitStatus status);

  QProcess* process_ = nullptr;
  lessons::Lesson lesson_;
  QString dir_, progress_, last_error_;
  QByteArray pending_;
  bool cancelled_ = false;
};

}  // namespace ts::gui
