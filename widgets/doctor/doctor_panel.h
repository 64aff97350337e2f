// The environment doctor's window (Help ▸ Environment doctor): the findings first, coloured by
// grade (problems red, warnings amber), then the full report (doctor/report.h) with the Qt version
// added, a Copy as Markdown button (the bug report without user or host names) and Check again.
// The probe (doctor::make_probe(); tests set a fake one with doctor::set_probe_factory) runs on a
// worker thread: the real probe's copy load takes ~0.5 s per GPU and the window must not stall.
#pragma once
#include <QDialog>
#include <memory>

#include "doctor/report.h"

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTreeWidget;

namespace ts::gui {

class DoctorPanel : public QDialog {
  Q_OBJECT
 public:
  explicit DoctorPanel(QWidget* parent = nullptr);
  ~DoctorPanel() override;

  /// Runs the probe again (off the GUI thread); reportReady() when shown.
  void refresh();
  /// The report shown (nullptr before the first one).
  const doctor::Report* report() const { return report_.get(); }
  QTreeWidget* findingsView() const { return findings_; }
  QPlainTextEdit* reportView() const { return text_; }
  QPushButton* copyMarkdownButton() const { return copy_; }
  QLabel* summaryLabel() const { return summary_; }
  /// The Markdown bug report of the shown report ("" before one), as Copy as Markdown puts it on the clipboard.
  QString markdown() const;

 signals:
  void reportReady();

 private:
  void wrapFindings();  // cause and fix rows broken into lines that fit the Finding column
  void show_report(std::shared_ptr<doctor::Report> r);

  QLabel* summary_;
  QTreeWidget* findings_;
  QPlainTextEdit* text_;
  QPushButton *copy_, *again_;
  std::shared_ptr<doctor::Report> report_;
  std::shared_ptr<bool> alive_;
  bool running_ = false;
};

}  // namespace ts::gui
