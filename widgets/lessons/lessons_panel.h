// LessonsPanel: the lessons a teacher can run — the built-in ones (resources/lessons) and their own
// lesson files (Add lesson file…, remembered in QSettings "lessons/files"; an invalid one is refused
// with its field named and never listed). For the selected lesson: its title, devices, runs and the
// story's first paragraph; Run lesson (trains where the devices are here, else opens the
// recording), Open recording, Copy as a line (a setup line, docs/setups.md), progress and Cancel. lessonReady(dir, note) hands the finished lesson
// folder to the window, which shows it in a LessonView.
#pragma once
#include <QString>
#include <QWidget>
#include <vector>

#include "lessons/lesson.h"

class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;

namespace ts::gui {

class LessonRunner;

class LessonsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LessonsPanel(QWidget* parent = nullptr);

  /// Lessons listed: built-in first, then the teacher's own files.
  int lessonCount() const { return static_cast<int>(entries_.size()); }
  const lessons::Lesson& lesson(int i) const { return entries_[static_cast<std::size_t>(i)].lesson; }
  /// Selects the lesson named `name` (false when none is).
  bool select(const QString& name);
  /// Adds a lesson file; false with the one-line error shown (and returned in `error`) when it is invalid.
  bool addLessonFile(const QString& path, QString* error = nullptr);
  /// Runs the selected lesson. `data_dir` is the CIFAR-10 folder ("" = the generated sample set).
  void runSelected(const QString& data_dir, bool recorded_only = false);
  void cancel();
  LessonRunner* runner() const { return runner_; }
  QString statusText() const;
  QListWidget* list() const { return list_; }
  QPushButton* runButton() const { return run_; }
  QPushButton* cancelButton() const { return cancel_; }
  /// The selected lesson as a setup line (docs/setups.md; "" with the reason in the status when its
  /// model file cannot be read). The "Copy as a line" button puts it on the clipboard.
  QString selectedLine();
  /// Where a live lesson trains: default_session_dir()/lessons/NAME-yyyyMMdd-hhmmss.
  static QString lessonFolder(const QString& name);

 signals:
  void lessonReady(const QString& dir, const QString& recorded_note);
  /// The window's data folder is asked for when Run is pressed in the panel.
  void runRequested(bool recorded_only);

 private:
  struct Entry {
    lessons::Lesson lesson;
    QString source;  // the built-in's name or the file
    bool builtin = true;
  };
  void rebuildList();
  void showSelected();
  void addFileDialog();
  void removeSelected();
  void setBusy(bool busy);
  int current() const;

  std::vector<Entry> entries_;
  QListWidget* list_;
  QLabel *title_, *details_, *status_;
  QPushButton *run_, *recording_, *copy_, *add_, *remove_, *cancel_;
  QProgressBar* progress_;
  LessonRunner* runner_;
};

}  // namespace ts::gui
