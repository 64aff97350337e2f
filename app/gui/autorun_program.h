// ProgramAutorun: File ▸ Profile a program… from the command line (the H200's live-latency check runs it).
//   trainscope --profile-program "python3 seed_train.py --nvtx" [--program-dir D] [--program-env K=V]...
//              [--program-session F] [--inject-mode lean|full|nvtx] [--python off|lean|full] [--step-range P]
//              [--live-latency] [--screenshots DIR] [--window-size WxH] [--stop-after S] [--quit-when-done]
// starts the program as the dialog would, lets the Profile workspace follow its session, and prints
// on stdout: the program's end, the --live-latency figures of the followed file, and what the
// window received against the finished file read again (every table's rows; "lost 0" when equal).
// Screenshots: program-during.png (6 s after the session appeared) and program-after.png.
// Exit code with --quit-when-done: the program's own when it failed, else 1 when rows were lost or
// no session could be shown, else 0.
#pragma once
#include <QObject>
#include <QSize>
#include <QString>

#include "widgets/program/program_run.h"

class QCommandLineParser;

namespace ts::gui {

class LiveLatency;
class MainWindow;

struct ProgramAutorunOptions {
  ProgramSpec spec;
  bool given = false;        // --profile-program was on the command line
  bool live_latency = false;
  bool quit_when_done = false;
  QString screenshots;
  double stop_after_s = 0;   // > 0: press Stop after this many seconds
  QSize window_size;         // valid: the window is resized to it first (screenshots offscreen)
};

/// Adds --profile-program and its companions (the autorun options hold the shared ones).
void add_program_autorun_options(QCommandLineParser& parser);
/// Reads them back; false with `error` set on a bad value (an inject mode that is not lean, full or
/// nvtx, a Python insight that is not off, lean or full).
bool parse_program_autorun(const QCommandLineParser& parser, ProgramAutorunOptions& out, QString& error);

class ProgramAutorun : public QObject {
  Q_OBJECT
 public:
  ProgramAutorun(MainWindow* window, ProgramAutorunOptions options);
  void begin();
  /// After the session was shown whole: rows the window did not receive (compareWithFile), the
  /// latency samples (null without --live-latency).
  bool done() const { return done_; }
  std::size_t lost() const { return lost_; }
  const LiveLatency* latency() const { return latency_; }

 private:
  void grab(const QString& name);
  void programEnded(int code, const QString& how);
  void sessionShown(const QString& path);
  /// Both the program's end and the whole session on screen: the figures, the last screenshot, quit.
  void finish();
  /// One line per table: followed rows / rows in the file; the number of rows missing.
  std::size_t compareWithFile(const QString& path);
  MainWindow* window_;
  ProgramAutorunOptions o_;
  LiveLatency* latency_ = nullptr;
  int program_code_ = -1;
  std::size_t lost_ = 0;
  bool ended_ = false, done_ = false, appeared_ = false;
  QString shown_;  // the session the window showed whole (the follow ended)
};

}  // namespace ts::gui
