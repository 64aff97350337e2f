// TrainScope's main window: docks (Model, Run settings, Training charts) whose layout QSettings
// remembers, the File/Run/View/Help menus and toolbar, a message bar for engine errors with their
// fix, and a status bar with device, batch size, AMP, num_workers and elapsed time.
// Sessions (open / save as / recent) join when the profiler's session file lands.
#pragma once
#include <QElapsedTimer>
#include <QMainWindow>
#include <vector>

#include "engine/network.h"
#include "widgets/training_session.h"

class QAction;
class QDockWidget;
class QLabel;
class QTimer;
class QToolBar;

namespace ts::gui {

class ModelBuilder;
class RunSettingsPanel;
class TrainingCharts;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  ModelBuilder* modelBuilder() const { return model_; }
  RunSettingsPanel* runSettings() const { return settings_; }
  TrainingCharts* charts() const { return charts_; }
  TrainingSession* session() const { return session_; }
  QAction* startAction() const { return start_; }
  QAction* pauseAction() const { return pause_; }
  QAction* stopAction() const { return stop_; }
  /// The message bar's text ("" when hidden).
  QString message() const;

 public slots:
  void startRun();
  void newRun();
  void showPreferences();
  void showAbout();

 protected:
  void closeEvent(QCloseEvent* e) override;

 private:
  void buildDocks();
  void buildActions();
  void buildStatusBar();
  void updateActions();
  void showMessage(const QString& text, bool error);
  void onStarted(const RunInfo& info);
  void onFinished(const RunOutcome& outcome);
  void applyPreferences();
  void tickElapsed();

  std::vector<DeviceInfo> gpus_;
  QString no_gpu_reason_;
  ModelBuilder* model_;
  RunSettingsPanel* settings_;
  TrainingCharts* charts_;
  TrainingSession* session_;
  QToolBar* message_bar_;
  QLabel* message_label_;
  QAction *new_run_, *start_, *pause_, *stop_, *prefs_, *about_, *quit_, *reset_layout_;
  QLabel *device_label_, *batch_label_, *amp_label_, *workers_label_, *elapsed_label_;
  QTimer* elapsed_timer_;
  QElapsedTimer run_clock_;
  QByteArray default_state_;
  bool running_ = false;
};

}  // namespace ts::gui
