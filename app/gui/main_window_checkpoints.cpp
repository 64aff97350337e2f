// MainWindow: Run ▸ Save checkpoint… (written by the trainer thread at the end of the current epoch)
// and Run ▸ Resume from checkpoint… (the engine's resume_path; a bad file fails the run with the
// engine's one-line error in the message bar), plus the run's AMP readout in the status bar.
#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QStatusBar>

#include "app/gui/main_window.h"
#include "widgets/run_settings.h"
#include "widgets/training_charts.h"

namespace ts::gui {

void MainWindow::connectCheckpoints() {
  connect(session_, &TrainingSession::checkpointSaved, this, [this](const QString& path, int epoch) {
    showMessage(tr("Checkpoint after epoch %1 written to %2").arg(epoch).arg(QFileInfo(path).absoluteFilePath()), false);
  });
  connect(session_, &TrainingSession::checkpointFailed, this,
          [this](const QString& why) { showMessage(tr("Checkpoint not written: %1").arg(why), true); });
  connect(session_, &TrainingSession::engineMessage, this,
          [this](const QString& text) { statusBar()->showMessage(text, 10000); });
  connect(session_, &TrainingSession::progress, this, [this](const TrainingUpdate& u) {
    current_epoch_ = u.epoch;
    if (charts_->lossScale() > 0)
      amp_label_->setText(amp_text_ + tr(" · scale %1 · %2 skipped")
                                          .arg(static_cast<double>(charts_->lossScale()), 0, 'g', 6)
                                          .arg(charts_->skippedSteps().size()));
  });
}

bool MainWindow::requestCheckpoint(const QString& path) {
  if (!running_ || !session_->requestCheckpoint(path)) return false;
  const QString epoch = current_epoch_ > 0 ? tr("epoch %1").arg(current_epoch_) : tr("the current epoch");
  statusBar()->showMessage(
      tr("The checkpoint will be written to %1 at the end of %2").arg(QFileInfo(path).absoluteFilePath(), epoch));
  return true;
}

void MainWindow::chooseCheckpointToSave() {
  if (!running_) return;
  QString dir = settings_->settings().checkpoint_path;
  if (dir.isEmpty() || !(dir.endsWith('/') || QFileInfo(dir).isDir())) dir = default_checkpoint_dir();
  QDir().mkpath(dir);
  const QString name = tr("checkpoint-epoch%1.tsckpt").arg(std::max(current_epoch_, 1));
  const QString path = QFileDialog::getSaveFileName(this, tr("Save checkpoint"), QDir(dir).filePath(name),
                                                    tr("TrainScope checkpoints (*.tsckpt)"));
  if (!path.isEmpty()) requestCheckpoint(path);
}

void MainWindow::chooseCheckpointToResume() {
  if (running_) return;
  QString dir = settings_->settings().checkpoint_path;
  if (dir.isEmpty()) dir = default_checkpoint_dir();
  const QString path = QFileDialog::getOpenFileName(this, tr("Resume from checkpoint"), dir,
                                                    tr("TrainScope checkpoints (*.tsckpt);;All files (*)"));
  if (!path.isEmpty()) resumeFrom(path);
}

void MainWindow::resumeFrom(const QString& path) {
  if (running_ || !resume_->isEnabled()) return;
  RunSettings s = settings_->settings();
  s.resume_path = path;  // this run only: the next Start is a fresh run
  startWith(s);
}

}  // namespace ts::gui
