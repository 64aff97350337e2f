// PlaygroundRunner: runs a playground family for the window as `trainscope-run --playground FAMILY
// --size N [--threads-per-block T --blocks-per-grid B] --session FILE` in a child process (the
// runner is found as the Lessons' is: lesson_runner_program()), reports its output lines as progress
// and ends with the session it recorded. Also where the shipped recording lives, and which kernel
// source each family's variants come from (playground/kernels/*.cu, shipped as Qt resources).
#pragma once
#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace ts::gui {

/// The recorded H200 playground session: TRAINSCOPE_PLAYGROUND_RECORDING in the environment, then
/// ../share/trainscope/playground/h200.tsession.zst beside the executable, then the source tree's
/// resources/playground/h200.tsession.zst. "" when none exists; `tried` gets the places looked in.
QString playground_recording(QString* tried = nullptr);

/// The resource path of the kernel source that `family`'s `variant` runs (":/playground/src/gemm.cu"),
/// and in `anchor` the text to scroll to ("__global__ void sgemm_naive"); "" for a library row
/// (cuBLAS: no source to show) or an unknown family.
QString kernel_source_path(const QString& family, const QString& variant, QString* anchor = nullptr);

class PlaygroundRunner : public QObject {
  Q_OBJECT
 public:
  explicit PlaygroundRunner(QObject* parent = nullptr);
  ~PlaygroundRunner() override;
  /// Starts the runner with `args` (after --playground FAMILY) writing `session`. False (and failed)
  /// when one runs already or no trainscope-run was found.
  bool start(const QString& family, const QStringList& args, const QString& session);
  void cancel();
  bool running() const { return process_ != nullptr; }
  /// The command line started (for the status and the log).
  QString commandLine() const { return command_; }
  /// Seconds since the run started, and the last line it printed.
  double seconds() const { return clock_.isValid() ? clock_.elapsed() / 1000.0 : 0; }
  QString lastLine() const { return last_line_; }

 signals:
  /// A line the runner printed, and the seconds since it started.
  void progress(const QString& line, double seconds);
  /// The run ended with its session written (exit 0; 1: a check failed, the session shows it).
  void finished(const QString& session, int exit_code);
  /// No session: one line (exit 3 = no GPU in that process: `no_gpu` true).
  void failed(const QString& message, bool no_gpu);

 private:
  void onOutput();
  void onFinished(int code, QProcess::ExitStatus status);
  QProcess* process_ = nullptr;
  QString session_, command_, last_line_, error_line_;
  QByteArray pending_;
  QElapsedTimer clock_;
  bool cancelled_ = false;
};

}  // namespace ts::gui
