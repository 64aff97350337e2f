// ProgramRun: a program of the user's recorded by TrainScope: `trainscope-run --session
// S --step-range P --inject-mode M --python Y -- PROGRAM ARGS` as a child process (profiling/inject records the
// program; docs/profile-a-program.md). It passes the program's output on line by line, says when the
// session file has appeared (the window then follows it live: SessionLoader), stops the program the
// way a terminal would (SIGINT, then SIGTERM after a grace period, then SIGKILL) and says how it
// ended. Qt only (QProcess); the recording itself happens in the program's process.
#pragma once
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTimer>

namespace ts::gui {

/// What to run and how to record it (File ▸ Profile a program…; the last one is remembered).
struct ProgramSpec {
  QString command_line;  // program and arguments, split as a POSIX shell would (split_command_line)
  QString working_dir;   // "" = the window's
  QStringList env;       // KEY=VALUE added to the window's environment
  QString step_range = "step";  // --step-range (profiling/steps/step_rule.h)
  QString inject_mode = "lean";  // --inject-mode: lean (the default), full or nvtx (docs/profile-a-program.md)
  QString python = "lean";       // --python: the Python insight, off, lean (the default) or full
  QString session;               // the session file to write ("" = a new one in the sessions folder)
};

/// A command line split into words as a POSIX shell splits it (no expansion): blanks separate words,
/// '...' keeps everything literally, "..." keeps all but \" \\ \$ \` (backslash escapes), a backslash
/// outside quotes escapes the next character. A quote left open: empty, and `error` (may be null)
/// says so in one line; otherwise `error` is cleared.
QStringList split_command_line(const QString& line, QString* error = nullptr);
/// The spec's problems in one line ("" when it can run): no command, a working folder that is not a
/// folder, an environment line without '=', quotes left open, an unknown mode or Python insight.
QString check_program_spec(const ProgramSpec& spec);
/// trainscope-run's arguments for `spec` writing `session`: --session, --step-range, --inject-mode,
/// --python, then -- and the program's words.
QStringList runner_arguments(const ProgramSpec& spec, const QString& session);
/// QSettings keys "program/…": the last spec, so the dialog opens with it.
ProgramSpec load_program_spec();
void save_program_spec(const ProgramSpec& spec);

class ProgramRun : public QObject {
  Q_OBJECT
 public:
  explicit ProgramRun(QObject* parent = nullptr);
  ~ProgramRun() override;  // kills a program still running (the window is closing)

  /// Starts the program under trainscope-run. False, with error() set, when the spec does not check,
  /// trainscope-run is not found or the process cannot start; true otherwise (started() follows).
  bool start(const ProgramSpec& spec);
  /// SIGINT now (what Ctrl-C sends: the program saves and ends), SIGTERM after kGraceMs, SIGKILL
  /// after as long again. The session stays readable (the recorder flushes every second).
  void stop();
  bool running() const { return process_ && process_->state() != QProcess::NotRunning; }
  /// stop() was called for this run (its end, whatever the exit code, is what the user asked for).
  bool stopRequested() const { return stopping_; }
  const QString& sessionPath() const { return session_; }
  const QString& error() const { return error_; }
  qint64 pid() const { return process_ ? process_->processId() : 0; }

  static constexpr int kGraceMs = 5000;

 signals:
  void started(const QString& session);
  /// A line the program (or trainscope-run) wrote on stdout or stderr.
  void output(const QString& line);
  /// The session file exists and reads as a session: open it to follow it.
  void sessionAppeared(const QString& session);
  /// The program ended: its exit code as the runner returns it (128 + signal when a signal ended
  /// it), and one line for people ("exited with code 0", "ended by signal 11 (a crash)").
  void finished(int exit_code, const QString& how);

 private:
  void readOutput();
  void checkSession();
  void onFinished(int code, QProcess::ExitStatus status);
  QProcess* process_ = nullptr;
  QTimer poll_;
  QString session_, error_, partial_;
  bool appeared_ = false, stopping_ = false;
};

}  // namespace ts::gui
