// CheckpointsController: Run ▸ Save checkpoint… (written by the trainer thread at the end of the
// current epoch) and Run ▸ Resume from checkpoint… (the engine's resume_path; a bad file fails the
// run with the engine's one-line error in the message bar).
#include "widgets/main/checkpoints_controller.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QStyle>
#include <QWidget>
#include <algorithm>

#include "widgets/main/main_frame.h"
#include "widgets/training/run_settings.h"
#include "widgets/training/training_session.h"

namespace ts::gui {

CheckpointsController::CheckpointsController(MainFrame& frame, QObject* parent) : QObject(parent), frame_(frame) {
  auto* st = frame_.frameWindow()->style();
  save_ = new QAction(st->standardIcon(QStyle::SP_DialogSaveButton), tr("Save &checkpoint…"), this);
  resume_ = new QAction(st->standardIcon(QStyle::SP_DialogOpenButton), tr("&Resume from checkpoint…"), this);
  resume_->setToolTip(tr("Continue a run from a .tsckpt file (same model and seed; the form's settings)"));
  connect(save_, &QAction::triggered, this, &CheckpointsController::chooseCheckpointToSave);
  connect(resume_, &QAction::triggered, this, &CheckpointsController::chooseCheckpointToResume);
  TrainingSession* session = frame_.session();
  connect(session, &TrainingSession::checkpointSaved, this, [this](const QString& path, int epoch) {
    frame_.showMessage(tr("Checkpoint after epoch %1 written to %2").arg(epoch).arg(QFileInfo(path).absoluteFilePath()),
                       false);
  });
  connect(session, &TrainingSession::checkpointFailed, this,
          [this](const QString& why) { frame_.showMessage(tr("Checkpoint not written: %1").arg(why), true); });
  connect(session, &TrainingSession::progress, this, [this](const TrainingUpdate& u) { current_epoch_ = u.epoch; });
  connect(session, &TrainingSession::finished, this, [this] { current_epoch_ = 0; });
}

void CheckpointsController::updateActions(bool running, bool can_configure) {
  save_->setEnabled(running);
  save_->setToolTip(running ? tr("Write a checkpoint at the end of the current epoch")
                            : tr("Available while training (the trainer writes it at an epoch boundary); "
                                 "set Checkpoint every N epochs in Run settings to keep a run's state"));
  resume_->setEnabled(!running && can_configure);
}

bool CheckpointsController::requestCheckpoint(const QString& path) {
  if (!frame_.running() || !frame_.session()->requestCheckpoint(path)) return false;
  const QString epoch = current_epoch_ > 0 ? tr("epoch %1").arg(current_epoch_) : tr("the current epoch");
  frame_.showStatus(
      tr("The checkpoint will be written to %1 at the end of %2").arg(QFileInfo(path).absoluteFilePath(), epoch));
  return true;
}

void CheckpointsController::chooseCheckpointToSave() {
  if (!frame_.running()) return;
  QString dir = frame_.runSettings()->settings().checkpoint_path;
  if (dir.isEmpty() || !(dir.endsWith('/') || QFileInfo(dir).isDir())) dir = default_checkpoint_dir();
  QDir().mkpath(dir);
  const QString name = tr("checkpoint-epoch%1.tsckpt").arg(std::max(current_epoch_, 1));
  const QString path = QFileDialog::getSaveFileName(frame_.frameWindow(), tr("Save checkpoint"), QDir(dir).filePath(name),
                                                    tr("TrainScope checkpoints (*.tsckpt)"));
  if (!path.isEmpty()) requestCheckpoint(path);
}

void CheckpointsController::chooseCheckpointToResume() {
  if (frame_.running()) return;
  QString dir = frame_.runSettings()->settings().checkpoint_path;
  if (dir.isEmpty()) dir = default_checkpoint_dir();
  const QString path = QFileDialog::getOpenFileName(frame_.frameWindow(), tr("Resume from checkpoint"), dir,
                                                    tr("TrainScope checkpoints (*.tsckpt);;All files (*)"));
  if (!path.isEmpty()) resumeFrom(path);
}

void CheckpointsController::resumeFrom(const QString& path) {
  if (frame_.running() || !resume_->isEnabled()) return;
  RunSettings s = frame_.runSettings()->settings();
  s.resume_path = path;  // this run only: the next Start is a fresh run
  frame_.startWith(s);
}

}  // namespace ts::gui
