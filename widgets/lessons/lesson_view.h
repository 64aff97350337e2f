// LessonView: a lesson's result in one window: the story beside the Compare view of its runs.
// The left column holds the title, a banner when it is a recording (which device is missing here,
// where and when each run was recorded), the story's paragraphs, each expectation with ✔ or ✘ and
// its numbers (a verdict's change written "fired → gone", a figure's "before → after (×ratio)", an
// outcome's "out of memory"), and the key figures side by side, the rows the lesson is about
// highlighted; the column scrolls as one (no part in a box of its own). The right side is a
// CompareView of the runs' sessions (labelled with the runs' labels), its timelines aligned at the
// lesson's step and the lesson's panel's tab shown. The judging (lessons::evaluate_sessions, which
// opens every session) runs on a worker thread; recorded sessions (ID.tsession.zst) are
// decompressed there once, into plain temporary copies that the judging and the Compare view read
// and that are held while the lesson is shown.
#pragma once
#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

#include "lessons/lesson_eval.h"

class QLabel;
class QScrollArea;
class QSplitter;
class QTableWidget;
class QVBoxLayout;

namespace ts::lessons {
class PlainSession;
}

namespace ts::gui {

class CompareView;

/// The compare tab that a lesson's "show.panel" opens: timeline, memory, utilization -> Timelines;
/// verdicts -> Verdicts; kernels -> Kernels; compare -> Throughput && accuracy.
QString lesson_compare_tab(const std::string& panel);
/// The figures a lesson is about: those its expectations name, plus the panel's (memory:
/// peak_memory_bytes and activation_bytes; utilization: gpu_utilization_pct).
std::vector<std::string> lesson_key_figures(const lessons::Lesson& l);

class LessonView : public QWidget {
  Q_OBJECT
 public:
  explicit LessonView(QWidget* parent = nullptr);
  ~LessonView() override;

  /// Shows the lesson folder `dir` (manifest.json + sessions). `recorded_note`: "" for a live
  /// lesson, else the banner's text. ready() when the story and checks are shown and the sessions
  /// are handed to the Compare view; failed(message) when the folder cannot be read.
  void showLesson(const QString& dir, const QString& recorded_note);

  /// Classroom mode: Compare gets 64 % of the width (else 60 %).
  void setPresenting(bool on);
  bool presenting() const { return presenting_; }
  /// The judged result (nullptr until ready); each run's `session` is the plain file the view reads.
  const lessons::LessonResult* result() const { return result_.get(); }
  bool isRecording() const { return recorded_; }
  QLabel* titleLabel() const { return title_; }
  QLabel* recordingBanner() const { return banner_; }
  QLabel* storyLabel() const { return story_; }
  /// One row per expectation, in the lesson's order: met, what, the change ("fired → gone"), the numbers.
  struct CheckRow {
    bool met = false;
    QString what, change, numbers;
  };
  const std::vector<CheckRow>& checkRows() const { return check_rows_; }
  QLabel* checksLabel() const { return checks_; }
  QTableWidget* figuresTable() const { return figures_; }
  CompareView* compareView() const { return compare_; }
  QSplitter* splitter() const { return split_; }
  /// The left column (title to status), scrolled as one.
  QScrollArea* column() const { return column_; }

 signals:
  void ready();
  void failed(const QString& message);

 protected:
  /// The key-number table's viewport resized: its rows are measured again (see the constructor).
  bool eventFilter(QObject* o, QEvent* e) override;

 private:
  using Copies = std::vector<std::unique_ptr<lessons::PlainSession>>;
  void showResult(std::shared_ptr<lessons::LessonResult> r);
  void fillChecks(const lessons::LessonResult& r);
  void renderChecks();  // check_rows_ as the checks label's table, at the presenting size
  void fillFigures(const lessons::LessonResult& r);
  void startCompare(const lessons::LessonResult& r);

  QSplitter* split_;
  QScrollArea* column_;
  QLabel *title_, *banner_, *story_, *status_;
  QLabel* checks_;
  std::vector<CheckRow> check_rows_;
  QTableWidget* figures_;
  CompareView* compare_;
  std::shared_ptr<lessons::LessonResult> result_;
  Copies copies_;  // plain copies of the shown lesson's sessions (result()->runs[i].run.session)
  bool recorded_ = false;
  bool presenting_ = false;
  int generation_ = 0;
};

}  // namespace ts::gui
