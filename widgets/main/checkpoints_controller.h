// The main window's checkpoints (checkpoints_controller.cpp): Run ▸ Save checkpoint… (written by
// the trainer thread at the end of the current epoch) and Run ▸ Resume from checkpoint… (the
// engine's resume_path; a bad file fails the run with the engine's one-line error in the message bar).
#pragma once
#include <QObject>
#include <QString>

class QAction;

namespace ts::gui {

class MainFrame;

class CheckpointsController : public QObject {
  Q_OBJECT
 public:
  /// Makes the two actions and follows the frame's training session (its epochs, checkpoints saved
  /// or failed).
  CheckpointsController(MainFrame& frame, QObject* parent);

  QAction* saveAction() const { return save_; }
  QAction* resumeAction() const { return resume_; }
  /// While training: writes a checkpoint to `path` at the end of the current epoch; false when no
  /// run is going.
  bool requestCheckpoint(const QString& path);
  /// Starts a run that continues the checkpoint at `path` (the form's settings, same model and seed);
  /// nothing while a run goes or Resume is disabled.
  void resumeFrom(const QString& path);
  /// The enabled state and tooltips of the actions (`running`: a training run goes; `can_configure`:
  /// the form could start a run).
  void updateActions(bool running, bool can_configure);

 private:
  void chooseCheckpointToSave();
  void chooseCheckpointToResume();

  MainFrame& frame_;
  QAction* save_;
  QAction* resume_;
  int current_epoch_ = 0;  // the running epoch (1-based; 0 before the first update and between runs)
};

}  // namespace ts::gui
