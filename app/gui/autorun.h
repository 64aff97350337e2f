// Non-interactive use of the window: `trainscope --autorun ...` sets Run settings from the command
// line, starts the run, prints one line per epoch and the final test accuracy (the number the
// window shows) on stdout, optionally grabs screenshots before / during / after, and quits when
// done with --quit-when-done. Used for the H200 check (QT_QPA_PLATFORM=offscreen) and by
// scripts/screenshots.sh (Xvfb).
#pragma once
#include <QObject>
#include <QString>
#include <QStringList>
#include <string>
#include <utility>
#include <vector>

#include "widgets/training/run_settings.h"

class QCommandLineParser;
class QWidget;

namespace ts::gui {

class MainWindow;
class LiveLatency;

struct AutorunOptions {
  bool autorun = false;
  bool quit_when_done = false;
  QString device = "auto";      // auto | cuda | cpu | cuda:N
  QString data;                 // empty: the sample set
  QString model;                // preset name or spec file; empty: SimpleCNN
  QString screenshots;          // folder for before/during/after PNGs; empty: none
  double stop_after_s = 0;      // > 0: press Stop after this many seconds
  bool live_latency = false;    // print how long after a kernel ends the timeline first shows it
  RunSettings settings;
  /// The options given on the command line (names without "--"). With `on_window_settings` (a
  /// setup was loaded: `trainscope SETUP --autorun`) only these replace the window's settings.
  QStringList given;
  /// The given options that are knobs of the run configuration, as (knob, value) in its table's
  /// words (runconfig::apply_knob): what goes over a loaded setup's settings.
  std::vector<std::pair<std::string, std::string>> knobs;
  bool on_window_settings = false;
};

/// Saves `window` as DIR/NAME.png and prints "screenshot PATH" (nothing when `dir` is empty).
void save_screenshot(QWidget* window, const QString& dir, const QString& name);

/// Adds the options to `parser`; parse_autorun reads them back (false + `error` on a bad value).
void add_autorun_options(QCommandLineParser& parser);
bool parse_autorun(const QCommandLineParser& parser, AutorunOptions& out, QString& error);

/// Drives `window` as the options say; the process exit code is set through QCoreApplication::exit.
class Autorun : public QObject {
  Q_OBJECT
 public:
  Autorun(MainWindow* window, AutorunOptions options);
  void begin();

 private:
  void grab(const QString& name);
  /// The window's settings (a loaded setup's) with the options given on the command line over them.
  RunSettings settings_over_window() const;
  MainWindow* window_;
  AutorunOptions o_;
  bool grabbed_during_ = false;
  LiveLatency* latency_ = nullptr;  // --live-latency
};

}  // namespace ts::gui
