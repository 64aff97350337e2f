// TrainScope's main window: the frame around the feature controllers (widgets/main: sessions,
// lessons + classroom, setups, program, checkpoints, export), which it owns and whose actions it
// assembles into the File/Run/View/Lessons/Help menus (MainFrame is what they get of it). The frame
// keeps the workspaces (widgets/workspaces: Train with the model, run settings and training charts;
// Profile with the timeline, its memory and utilization tracks and the analysis tabs; Playground
// with the teaching kernels), shown one at a time or side by side, whose layouts QSettings
// remembers; the window fits the screen it opens on (clamped to the available geometry, minimum
// size <= 1280x680); the toolbar, a message bar for engine errors with their fix, a status bar with
// device, batch size, AMP, num_workers and elapsed time, the run's life cycle (New run, Start,
// Pause, Stop), Preferences, About and the environment doctor (main_window_dialogs.cpp). Every run
// records a session file (Run settings ▸ Record session).
#pragma once
#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QMainWindow>
#include <QMargins>
#include <memory>
#include <string>
#include <vector>

#include "engine/network.h"
#include "widgets/main/main_frame.h"
#include "widgets/training/training_session.h"

class QAction;
class QDragEnterEvent;
class QDropEvent;
class QLabel;
class QTimer;
class QToolBar;

namespace ts::gui {

class CheckpointsController;
class DoctorPanel;
class ElidedLabel;
class ExportController;
class JobController;
class LessonsController;
class ModelBuilder;
class PanelHub;
class PlaygroundWorkspace;
class ProgramController;
class RunSettingsPanel;
class SessionsController;
class SetupsController;
class TimelinePanel;
class TrainingCharts;
class VerdictBanner;
class VerdictPanel;
class Workspaces;

/// The window's geometry (the client area, as QWidget::geometry()) whose frame, `frame` px around it
/// (the window manager's title bar and borders; none offscreen), lies inside `avail` (the screen's
/// available geometry): `client`'s size expanded to `minimum` and bounded by what the frame leaves,
/// centred when `center`, else moved only as far as needed to come inside.
QRect fit_window_geometry(const QRect& avail, const QMargins& frame, const QRect& client, QSize minimum, bool center);

class MainWindow : public QMainWindow, public MainFrame {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// The feature controllers (widgets/main), each with its actions, windows and state.
  SessionsController* sessions() const { return sessions_; }
  LessonsController* lessons() const { return lessons_; }
  SetupsController* setups() const { return setups_; }
  ProgramController* program() const { return program_; }
  CheckpointsController* checkpoints() const { return checkpoints_; }
  ExportController* exports() const { return exports_; }
  JobController* jobs() const { return jobs_; }

  ModelBuilder* modelBuilder() const override { return model_; }
  RunSettingsPanel* runSettings() const override { return settings_; }
  TrainingCharts* charts() const override { return charts_; }
  TrainingSession* session() const override { return session_; }
  PanelHub* panelHub() const override { return hub_; }
  TimelinePanel* timelinePanel() const { return timeline_; }
  VerdictPanel* verdictPanel() const override { return verdicts_; }
  VerdictBanner* verdictBanner() const { return banner_; }
  QAction* startAction() const { return start_; }
  QAction* pauseAction() const { return pause_; }
  QAction* stopAction() const { return stop_; }
  QAction* newRunAction() const { return new_run_; }
  Workspaces* workspaces() const override { return workspaces_; }
  PlaygroundWorkspace* playground() const override { return playground_; }
  /// The status bar's permanent labels (tests): device, batch, AMP, num_workers.
  QString statusText() const;
  /// The message bar's text ("" when hidden); it wraps on up to kMessageLines lines before it is cut.
  QString message() const override;
  static constexpr int kMessageLines = 4;
  /// Help ▸ Environment doctor (main_window_dialogs.cpp): the doctor's window, created on first use
  /// (its probe: doctor::make_probe(), which tests replace with doctor::set_probe_factory).
  QAction* doctorAction() const { return doctor_; }
  DoctorPanel* showDoctor();
  DoctorPanel* doctorPanel() const { return doctor_panel_; }

  // MainFrame (widgets/main/main_frame.h).
  QWidget* frameWindow() override { return this; }
  void showMessage(const QString& text, bool error) override;
  void hideMessage() override;
  void showStatus(const QString& text, int timeout_ms = 0) override;
  bool running() const override { return running_; }
  void updateActions() override;
  void updateIdleStatus() override;
  void startWith(const RunSettings& settings) override;
  void addStatusWidget(QWidget* w) override;
  void fitToolWindow(QWidget* w, QSize want) const override;
  void showOverFrame(QWidget* w) const override;
  /// The verdict banner's row: shown while the banner has content, outside the Playground.
  void showVerdictRow();
  StatusLabels statusLabels() const override;
  const std::vector<DeviceInfo>& gpus() const override { return gpus_; }
  QString noGpuReason() const override { return no_gpu_reason_; }

 public slots:
  void startRun();
  void newRun();
  void showPreferences();
  void showAbout();

 protected:
  void closeEvent(QCloseEvent* e) override;
  /// The first show and the geometry changes just after it: the window manager's frame is known
  /// only once the window is mapped, and then the window is fitted again with it (fitFrameToScreen).
  bool event(QEvent* e) override;
  /// Dropping a .tsession file (or trace) opens it, several compare; a .tsetup file or a dropped
  /// setup line opens the setup.
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;
  /// The status bar's resizes, font changes and relayouts: the shown message elided again.
  bool eventFilter(QObject* o, QEvent* e) override;

 private:
  void buildWorkspaces();
  /// The Profile workspace and its panels (main_window_panels.cpp); the verdict banner row.
  class ProfileWorkspace* buildProfileWorkspace();
  void buildViewMenu();
  /// Clamps the window to the available geometry of its screen (the first run's 1600x1000, or a
  /// remembered size from a larger screen).
  void fitToScreen(bool first_run);
  /// Once the frame is known: moves and shrinks the window so the frame is on the screen too.
  void fitFrameToScreen();
  void buildActions();
  void buildStatusBar();
  void connectFixes();  // a verdict's Apply -> Run settings (main_window_panels.cpp)
  void onStarted(const RunInfo& info);
  void onFinished(const RunOutcome& outcome);
  void applyPreferences();
  void tickElapsed();
  /// "elapsed m:ss" of `seconds` (whole seconds, rounded as the charts' "done in" / "stopped after").
  void showElapsed(qint64 seconds);
  /// Shows status_full_ elided to the room left of the permanent labels (its remaining time kept).
  void elideStatus();

  std::vector<DeviceInfo> gpus_;
  QString no_gpu_reason_;
  bool no_gpu_hardware_ = false;  // no NVIDIA device on the PCI bus (doctor::read_nvidia_pci)
  ModelBuilder* model_;
  RunSettingsPanel* settings_;
  TrainingCharts* charts_;
  TrainingSession* session_;
  PanelHub* hub_;
  TimelinePanel* timeline_ = nullptr;
  VerdictPanel* verdicts_ = nullptr;
  VerdictBanner* banner_ = nullptr;
  QToolBar* message_bar_;
  ElidedLabel* message_label_;
  QAction *new_run_, *start_, *pause_, *stop_, *prefs_, *about_, *quit_, *reset_layout_;
  QAction* doctor_ = nullptr;
  DoctorPanel* doctor_panel_ = nullptr;
  SessionsController* sessions_ = nullptr;
  LessonsController* lessons_ = nullptr;
  SetupsController* setups_ = nullptr;
  ProgramController* program_ = nullptr;
  CheckpointsController* checkpoints_ = nullptr;
  ExportController* exports_ = nullptr;
  JobController* jobs_ = nullptr;
  Workspaces* workspaces_ = nullptr;
  PlaygroundWorkspace* playground_ = nullptr;
  QLabel *device_label_, *batch_label_, *amp_label_, *workers_label_, *elapsed_label_;
  QTimer* elapsed_timer_;
  QElapsedTimer run_clock_;
  bool running_ = false;
  bool first_run_ = false;         // no saved geometry: centred on the screen
  QElapsedTimer shown_clock_;      // since the first show (the frame fit's window)
  QMargins fitted_frame_;          // the frame margins fitFrameToScreen last fitted to
  QString amp_text_;  // "AMP fp16" etc. of the run
  QString status_full_, status_shown_;  // showStatus's text, and as elided on the status bar
  QDeadlineTimer status_until_;
  bool status_fresh_ = false;  // showStatus's text not yet shown
};

}  // namespace ts::gui
