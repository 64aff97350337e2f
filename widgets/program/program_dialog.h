// File ▸ Profile a program…: what to run under TrainScope (command line, working folder,
// environment, step ranges, mode, Python insight, session file), filled with the last one (QSettings). OK is refused,
// with the reason under the fields, while the spec does not check (check_program_spec).
#pragma once
#include <QDialog>

#include "widgets/program/program_run.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace ts::gui {

class ProgramDialog : public QDialog {
  Q_OBJECT
 public:
  explicit ProgramDialog(const ProgramSpec& initial, QWidget* parent = nullptr);
  ProgramSpec spec() const;
  QString problem() const;  // the line shown when OK was refused ("" when none)
  void accept() override;
  QLineEdit* commandEdit() const { return command_; }
  QComboBox* pythonBox() const { return python_; }

 private:
  QLineEdit *command_, *dir_, *steps_, *session_;
  QPlainTextEdit* env_;
  QComboBox *mode_, *python_;
  QLabel* problem_;
};

}  // namespace ts::gui
