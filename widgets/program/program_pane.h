// The Profile workspace's "Program" tab: the run log of a program recorded from the
// window (File ▸ Profile a program…), its state ("running, following its session", "exited with
// code 0", "ended by signal 11 (a crash)") and Stop. The program itself is a ProgramRun.
#pragma once
#include <QWidget>

#include "widgets/program/program_run.h"

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace ts::gui {

class ProgramPane : public QWidget {
  Q_OBJECT
 public:
  explicit ProgramPane(QWidget* parent = nullptr);
  ProgramRun* run() const { return run_; }
  /// Starts `spec` (false with the reason in the state line when it cannot).
  bool start(const ProgramSpec& spec);
  QString log() const;
  QString state() const;
  QPushButton* stopButton() const { return stop_; }

  /// Lines kept in the log (older ones scroll away).
  static constexpr int kLogLines = 20000;

 private:
  ProgramRun* run_;
  QLabel* state_;
  QPushButton* stop_;
  QPlainTextEdit* log_;
  QString program_;
};

}  // namespace ts::gui
