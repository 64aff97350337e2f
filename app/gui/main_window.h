// TrainScope's main window: workspaces (widgets/workspaces: Train with the model, run settings and
// training charts; Profile with the timeline, its memory and utilization tracks and the analysis
// tabs; Playground with the teaching kernels, widgets/playground), shown one at a time or side by
// side, whose layouts QSettings remembers; the window fits
// the screen it opens on (clamped to the available geometry, minimum size <= 1280x680); the
// File/Run/View/Help menus and toolbar, a message bar for engine errors with their
// fix, and a status bar with device, batch size, AMP, num_workers and elapsed time. Run ▸ Save
// checkpoint… / Resume from checkpoint… drive the engine's checkpoints (main_window_checkpoints.cpp).
// Every run records a session file (Run settings ▸ Record session); File ▸ Open session… / Recent
// sessions / Save session as… and `trainscope FILE.tsession` replay one (main_window_sessions.cpp).
#pragma once
#include <QElapsedTimer>
#include <QFont>
#include <QPalette>
#include <QMainWindow>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/network.h"
#include "setups/setup.h"
#include "widgets/training_session.h"

class QAction;
class QDragEnterEvent;
class QDropEvent;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QTimer;
class QToolBar;

namespace ts::gui {

/// "AMP fp16, accumulate 4, deterministic" (the status bar's AMP label).
QString amp_status(AmpMode amp, int accumulate, bool deterministic);
/// Classroom mode's presenter palette: black on white, dark blue highlight, every text/background
/// pair at a contrast ratio >= 7:1 (WCAG 2.1, 1.4.6), disabled text >= 4.5:1 (main_window_classroom.cpp).
QPalette presenter_palette();
/// ", simulated 8 GiB card" after the status bar's device (--memory-limit / Simulate a smaller card); "" for 0.
QString simulated_card_status(std::int64_t memory_limit_bytes);

class DoctorPanel;
class ProgramPane;
struct ProgramSpec;
class ModelBuilder;
class CompareView;
class LessonsPanel;
class LessonView;
class PanelHub;
class TimelinePanel;
class VerdictBanner;
class VerdictPanel;
class SessionLoader;
struct SessionReplay;
class RunSettingsPanel;
class TrainingCharts;
class Workspaces;
class PlaygroundWorkspace;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  ModelBuilder* modelBuilder() const { return model_; }
  RunSettingsPanel* runSettings() const { return settings_; }
  TrainingCharts* charts() const { return charts_; }
  TrainingSession* session() const { return session_; }
  /// What the analysis panels show: the live run's events, or the opened session's.
  PanelHub* panelHub() const { return hub_; }
  TimelinePanel* timelinePanel() const { return timeline_; }
  VerdictPanel* verdictPanel() const { return verdicts_; }
  VerdictBanner* verdictBanner() const { return banner_; }
  QAction* startAction() const { return start_; }
  QAction* pauseAction() const { return pause_; }
  QAction* stopAction() const { return stop_; }
  QAction* saveCheckpointAction() const { return save_checkpoint_; }
  QAction* resumeAction() const { return resume_; }
  QAction* openSessionAction() const { return open_session_; }
  QAction* saveSessionAction() const { return save_session_; }
  QMenu* recentSessionsMenu() const { return recent_; }
  QAction* runAgainAction() const { return run_again_; }
  /// The central area: the Train and Profile workspaces and the mode shown.
  Workspaces* workspaces() const { return workspaces_; }
  /// The Playground workspace (widgets/playground): its ladders, roofline, kernels and their source.
  PlaygroundWorkspace* playground() const { return playground_; }
  /// The Compare window (nullptr until sessions were compared).
  CompareView* compareView() const { return compare_; }
  /// The session load in progress, if any (tests cancel it).
  SessionLoader* sessionLoader() const { return loader_; }
  /// The finished run's recorded session file ("" before a run finished recording).
  QString lastSessionPath() const { return last_session_; }
  /// The shown session's details (config, hardware, versions; "" when none is shown).
  QString sessionDetails() const;
  /// The status bar's permanent labels (tests): device, batch, AMP, num_workers.
  QString statusText() const;
  /// The message bar's text ("" when hidden).
  QString message() const;
  /// File ▸ Export (main_window_export.cpp): the shown session through profiling/export; "" when written, else why not.
  QString exportChromeTrace(const QString& path);
  QString exportKernelsCsv(const QString& path);
  QString exportStepsCsv(const QString& path);
  /// Every plot with data as DIR/<panel>.<suffix> ("png" or "pdf"); returns the files written.
  QStringList exportPlots(const QString& dir, const QString& suffix, QString* error = nullptr);
  QMenu* exportMenu() const { return export_menu_; }
  /// Lessons (main_window_lessons.cpp): the menu, the Lessons window (created on first use) and the
  /// window that shows a finished lesson (nullptr until one was shown).
  QMenu* lessonsMenu() const { return lessons_menu_; }
  LessonsPanel* showLessonsPanel();
  LessonsPanel* lessonsPanel() const { return lessons_panel_; }
  LessonView* lessonView() const { return lesson_view_; }
  /// Classroom mode (main_window_classroom.cpp): View ▸ Classroom mode and its font scale.
  QAction* classroomAction() const { return classroom_; }
  /// Help ▸ Environment doctor (main_window_dialogs.cpp): the doctor's window, created on first use
  /// (its probe: doctor::make_probe(), which tests replace with doctor::set_probe_factory).
  QAction* doctorAction() const { return doctor_; }
  /// File ▸ Profile a program… (main_window_program.cpp): starts `spec` under trainscope-run and
  /// follows its session; false with the reason in the message bar.
  bool profileProgram(const ProgramSpec& spec);
  ProgramPane* programPane() const { return program_pane_; }
  QAction* profileProgramAction() const { return profile_program_; }
  DoctorPanel* showDoctor();
  DoctorPanel* doctorPanel() const { return doctor_panel_; }
  bool classroomMode() const { return classroom_on_; }
  double classroomScale() const { return classroom_scale_; }

 public slots:
  void startRun();
  /// Starts a run that continues the checkpoint at `path` (the form's settings, same model and seed).
  void resumeFrom(const QString& path);
  /// While training: writes a checkpoint to `path` at the end of the current epoch.
  bool requestCheckpoint(const QString& path);
  void chooseCheckpointToSave();
  void chooseCheckpointToResume();
  void newRun();
  /// Starts showing the session at `path`: a quick check (false with the reader's one-line error in
  /// the message bar), then a background load with a progress bar and Cancel in the status bar; the
  /// panels fill while it loads; sessionOpened(path) when the charts, details and title are shown.
  bool openSession(const QString& path);
  /// Loads the shown session's model and knobs into the Model and Run settings docks.
  bool runAgainWithSessionSettings();
  /// Opens the Compare window on two or more sessions or traces (File ▸ Compare sessions…, or
  /// dropping several files).
  void compareSessions(const QStringList& paths);
  void chooseSessionsToCompare();
  /// Copies the last run's session file to `path`.
  bool saveSessionAs(const QString& path);
  void chooseSessionToOpen();
  /// Runs built-in lesson `name` (or opens its recording, where a device is missing or
  /// `recorded_only`); false for an unknown name. The result opens in lessonView().
  bool runLesson(const QString& name, bool recorded_only = false);
  /// Shows the lesson folder `dir` in lessonView() (`recorded_note`: "" for a live lesson).
  void showLesson(const QString& dir, const QString& recorded_note);
  /// Enters or leaves classroom mode: the font ×classroomScale(), presenter_palette(), only the shown
  /// lesson's knobs in Run settings, the Profile workspace, the lesson window's Compare wider.
  void setClassroomMode(bool on);
  /// The classroom font scale (1.25 .. 2; kept in QSettings); applied at once while in classroom mode.
  void setClassroomScale(double scale);
  void chooseSessionToSave();
  /// Setups (main_window_setups.cpp, docs/setups.md). Opens a setup file or line: a run's fills the
  /// model and Run settings, a lesson's is listed and selected in the Lessons window; false with the
  /// one-line refusal in the message bar (nothing changed) for a damaged, foreign or newer setup.
  bool openSetup(const QString& line_or_path);
  /// The Train workspace's model and Run settings as a setup (unchecked), and as its one line (""
  /// with the reason in the message bar when the model does not check: a setup that every reader
  /// would refuse is never shared).
  setups::Setup currentSetup() const;
  QString setupLine();
  /// Writes the checked currentSetup() to `path`; false with the reason in the message bar.
  bool saveSetupAs(const QString& path);
  void chooseSetupToOpen();
  void chooseSetupToSave();
  /// File ▸ Paste setup line: the clipboard's trainscope: line, opened.
  void pasteSetupLine();
  void showPreferences();
  void showAbout();

 signals:
  /// A setup was opened and taken into the window.
  void setupOpened();
  /// A session finished loading and is shown.
  void sessionOpened(const QString& path);
  /// Opening a session failed while it loaded (`message`: the one line shown in the message bar) or
  /// was cancelled.
  void sessionFailed(const QString& message, bool cancelled);

 protected:
  void closeEvent(QCloseEvent* e) override;
  /// Dropping a .tsession file (or trace) opens it, several compare; a .tsetup file or a dropped
  /// setup line opens the setup.
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  void buildWorkspaces();
  /// The Profile workspace and its panels (main_window_panels.cpp); the verdict banner row.
  class ProfileWorkspace* buildProfileWorkspace();
  void buildViewMenu();
  void buildLessonsMenu(QMenu* menu);
  void buildSetupActions(QMenu* file);
  void takeRunSetup(const setups::Setup& s);
  std::optional<setups::Setup> checkedSetup();
  void takeLessonSetup(const lessons::Lesson& l);
  void buildClassroomActions(QMenu* view);
  /// Run settings show the shown lesson's knobs in classroom mode, every knob otherwise.
  void applyLessonKnobs();
  /// Clamps the window to the available geometry of its screen (the first run's 1600x1000, or a
  /// remembered size from a larger screen).
  void fitToScreen(bool first_run);
  /// Sizes a tool window (Compare, Lessons, a lesson) to `want`, at least its minimum size hint,
  /// within the available geometry of this window's screen.
  void fitToolWindow(QWidget* w, QSize want) const;
  void buildActions();
  void buildStatusBar();
  void updateActions();
  void showMessage(const QString& text, bool error);
  void startWith(const RunSettings& s);
  void connectCheckpoints();
  QMenu* buildExportMenu();
  void connectFixes();  // a verdict's Apply -> Run settings
  void buildSessionActions();
  QWidget* buildSessionDetails();
  void addRecentSession(const QString& path);
  void rebuildRecentSessions();
  void openRecentSession(const QString& path);
  void leaveShownSession();
  /// The shown session's model and settings in the Train workspace, read only, and in the status
  /// bar (main_window_shown.cpp); a trace: a note that it records none.
  void showSessionSettings(const QString& name);
  /// The user's own model and settings again, editable.
  void showOwnSettings();
  /// The status bar's labels for the shown session or trace (false when none is shown).
  bool showShownStatus();
  void showLoadedSession(const SessionReplay& r);
  void showFollowing(bool on);
  void followedMetaGrew();
  void buildProgramActions(QMenu* file);
  void connectProgramPane();  // after buildProfileWorkspace made the Program tab
  void chooseProgramToProfile();
  void followProgramSession(const QString& session, int attempt);  // the status bar while a session still being written is followed
  void sessionLoadFailed(const QString& message, bool cancelled);
  void buildLoadProgress();
  void updateIdleStatus();
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
  PanelHub* hub_;
  TimelinePanel* timeline_ = nullptr;
  VerdictPanel* verdicts_ = nullptr;
  VerdictBanner* banner_ = nullptr;
  QToolBar* message_bar_;
  QLabel* message_label_;
  QAction *new_run_, *start_, *pause_, *stop_, *prefs_, *about_, *quit_, *reset_layout_;
  QAction *save_checkpoint_, *resume_;
  QAction *open_session_, *save_session_;
  QMenu* recent_;
  QMenu* export_menu_ = nullptr;
  QAction* run_again_ = nullptr;
  QAction* compare_action_ = nullptr;
  CompareView* compare_ = nullptr;
  QMenu* lessons_menu_ = nullptr;
  LessonsPanel* lessons_panel_ = nullptr;
  LessonView* lesson_view_ = nullptr;
  QAction* classroom_ = nullptr;
  QAction* doctor_ = nullptr;
  QAction* profile_program_ = nullptr;
  ProgramPane* program_pane_ = nullptr;  // the Profile workspace's Program tab
  DoctorPanel* doctor_panel_ = nullptr;
  bool classroom_on_ = false;
  double classroom_scale_ = 1.5;
  QFont classroom_saved_font_;
  QPalette classroom_saved_palette_;
  int classroom_saved_mode_ = 0;
  SessionLoader* loader_ = nullptr;
  QWidget* load_box_ = nullptr;     // status bar: "Opening …" + progress bar + Cancel
  class QProgressBar* load_bar_ = nullptr;
  QLabel* load_label_ = nullptr;
  class QPushButton* load_cancel_ = nullptr;  // "Cancel", or "Stop following" for a session still being written
  std::map<std::string, std::string> shown_meta_;  // the shown session's metadata
  std::uint64_t follow_meta_version_ = 0;  // the followed file's meta last shown (followedMetaGrew)
  QString shown_name_;                             // its file name ("" when none is shown)
  ModelSpec own_model_;                            // the user's model while a session's is shown
  bool showing_model_ = false;
  /// What the panels showed when an open started: put back if the open fails.
  struct BeforeOpen {
    std::shared_ptr<const prof::EventStore> store;
    QString note;
  } before_open_;
  Workspaces* workspaces_ = nullptr;
  PlaygroundWorkspace* playground_ = nullptr;
  QPlainTextEdit* session_details_ = nullptr;
  QString last_session_;
  QLabel *device_label_, *batch_label_, *amp_label_, *workers_label_, *elapsed_label_;
  QTimer* elapsed_timer_;
  QElapsedTimer run_clock_;
  bool running_ = false;
  int current_epoch_ = 0;
  QString amp_text_;  // "AMP fp16" etc. of the run
};

}  // namespace ts::gui
