// What the main window's frame gives its feature controllers (widgets/main/*_controller.h), in the
// manner of Qt Creator's ICore for its plugins: the widgets every feature works on (the model, Run
// settings, charts, the training session, the panels' hub, the workspaces), the message bar and the
// status bar, whether a run is going, and a call to refresh every action's enabled state. The
// window (app/gui/main_window.h) implements it and owns the controllers; a controller owns its own
// actions, windows and state, and tests drive it directly.
#pragma once
#include <QSize>
#include <QString>
#include <cstdint>
#include <vector>

#include "engine/network.h"

class QLabel;
class QWidget;

namespace ts::gui {

class ModelBuilder;
class PanelHub;
class PlaygroundWorkspace;
class RunSettingsPanel;
struct RunSettings;
class TrainingCharts;
class TrainingSession;
class VerdictPanel;
class Workspaces;

/// "AMP fp16, accumulate 4, deterministic" (the status bar's AMP label).
QString amp_status(AmpMode amp, int accumulate, bool deterministic);
/// ", simulated 8 GiB card" after the status bar's device (--memory-limit / Simulate a smaller card); "" for 0.
QString simulated_card_status(std::int64_t memory_limit_bytes);

/// The status bar's permanent labels that say what a run, a shown session or the form runs on.
struct StatusLabels {
  QLabel* device = nullptr;
  QLabel* batch = nullptr;
  QLabel* amp = nullptr;
  QLabel* workers = nullptr;
};

class MainFrame {
 public:
  virtual ~MainFrame() = default;

  /// The window: the parent of dialogs and tool windows.
  virtual QWidget* frameWindow() = 0;
  /// The message bar: `text` shown (red and bold when `error`), until dismissed or replaced.
  virtual void showMessage(const QString& text, bool error) = 0;
  virtual void hideMessage() = 0;
  /// The message bar's text ("" when hidden).
  virtual QString message() const = 0;
  /// The status bar's temporary message for `timeout_ms` (0: until the next one).
  virtual void showStatus(const QString& text, int timeout_ms = 0) = 0;
  /// A training run is going (between Start and its end).
  virtual bool running() const = 0;
  /// Every action's enabled state and tooltip again, after a controller's state changed.
  virtual void updateActions() = 0;
  /// The status bar's labels for the form's settings, a shown session's or nothing while a run goes.
  virtual void updateIdleStatus() = 0;
  /// Starts a training run with `settings` (the form's, or a resume's); nothing when one is going.
  virtual void startWith(const RunSettings& settings) = 0;
  /// Adds `w` to the status bar's left, beside its temporary messages (the session load's progress).
  virtual void addStatusWidget(QWidget* w) = 0;
  /// Sizes a tool window (Compare, Lessons, a lesson) to `want`, at least its minimum size hint,
  /// within the available geometry of the window's screen.
  virtual void fitToolWindow(QWidget* w, QSize want) const = 0;
  /// Shows tool window `w` (a lesson) in the window's place: maximized where the window is, else at
  /// its position and size (at least `w`'s minimum size hint, within the screen's available area).
  virtual void showOverFrame(QWidget* w) const = 0;

  virtual ModelBuilder* modelBuilder() const = 0;
  virtual RunSettingsPanel* runSettings() const = 0;
  virtual TrainingCharts* charts() const = 0;
  virtual TrainingSession* session() const = 0;
  /// What the analysis panels show: the live run's events, or the opened session's.
  virtual PanelHub* panelHub() const = 0;
  /// The Verdicts tab (nullptr until the Profile workspace is built).
  virtual VerdictPanel* verdictPanel() const = 0;
  /// The central area: the Train and Profile workspaces and the mode shown (nullptr until built).
  virtual Workspaces* workspaces() const = 0;
  /// The Playground workspace (nullptr until built).
  virtual PlaygroundWorkspace* playground() const = 0;
  virtual StatusLabels statusLabels() const = 0;
  /// The CUDA devices found at start (empty: the CPU backend) and, when none, why not.
  virtual const std::vector<DeviceInfo>& gpus() const = 0;
  virtual QString noGpuReason() const = 0;
};

}  // namespace ts::gui
