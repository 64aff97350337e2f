// PlaygroundRunner (playground_runner.h): the child process, the recording's place, the sources.
#include "widgets/playground/playground_runner.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QTimer>

#include "widgets/lessons/lesson_runner.h"

namespace ts::gui {

QString playground_recording(QString* tried) {
  QStringList places;
  const QString env = qEnvironmentVariable("TRAINSCOPE_PLAYGROUND_RECORDING");
  if (!env.isEmpty()) places << env;
  places << QCoreApplication::applicationDirPath() + "/../share/trainscope/playground/h200.tsession.zst";
#ifdef TRAINSCOPE_SOURCE_TREE
  places << QStringLiteral(TRAINSCOPE_SOURCE_TREE) + "/resources/playground/h200.tsession.zst";
#endif
  for (const QString& p : places)
    if (QFileInfo(p).isFile()) return p;
  if (tried) *tried = places.join(", ");
  return {};
}

QString kernel_source_path(const QString& family, const QString& variant, QString* anchor) {
  QString file, at;
  if (variant.startsWith("cuBLAS")) return {};
  if (family == "vector_add")
    file = "memory.cu", at = "vector_add_kernel";
  else if (family == "copy")
    file = "memory.cu", at = variant.contains("float4") ? "copy4_kernel" : "copy_kernel";
  else if (family == "stride")
    file = "memory.cu", at = "strided_read_kernel";
  else if (family == "transpose")
    file = "memory.cu", at = variant == "naive" ? "transpose_naive_kernel" : "transpose_tile_kernel";
  else if (family == "reduction")
    file = "reduction.cu", at = "reduce" + variant.left(1);
  else if (family == "sgemm") {
    file = "gemm.cu";
    const int step = variant.section(' ', 0, 0).toInt();
    const char* names[] = {"sgemm_naive", "sgemm_naive", "sgemm_coalesced", "sgemm_smem",    "sgemm_1d",
                           "sgemm_2d",    "sgemm_vec",   "sgemm_warptile",  "sgemm_warptile"};
    at = names[step >= 1 && step <= 8 ? step : 0];
  } else if (family == "tensor")
    file = "gemm_tensor.cu", at = "wmma_gemm";
  else if (family == "divergence")
    file = "warps.cu", at = "divergence_kernel";
  else if (family == "occupancy")
    file = "warps.cu", at = variant.contains("launch bounds") ? "occupancy_ilp16_capped"
                            : variant.contains("ILP")         ? "occupancy_ilp16"
                                                              : "occupancy_ilp1";
  else
    return {};
  if (anchor) *anchor = at;
  return ":/playground/src/" + file;
}

PlaygroundRunner::PlaygroundRunner(QObject* parent) : QObject(parent) {}

PlaygroundRunner::~PlaygroundRunner() { end_child(process_, this); }

bool PlaygroundRunner::start(const QString& family, const QStringList& args, const QString& session) {
  if (process_) return false;
  const QString program = lesson_runner_program();
  if (program.isEmpty()) {
    emit failed(tr("trainscope-run was not found beside the window (set TRAINSCOPE_RUNNER)"), false);
    return false;
  }
  session_ = session;
  cancelled_ = false;
  last_line_.clear();
  error_line_.clear();
  pending_.clear();
  const QStringList all = QStringList{"--playground", family} + args + QStringList{"--session", session};
  command_ = QFileInfo(program).fileName() + " " + all.join(' ');
  process_ = new QProcess(this);
  process_->setProcessChannelMode(QProcess::MergedChannels);
  connect(process_, &QProcess::readyReadStandardOutput, this, &PlaygroundRunner::onOutput);
  connect(process_, &QProcess::finished, this, &PlaygroundRunner::onFinished);
  connect(process_, &QProcess::errorOccurred, this, [this, program](QProcess::ProcessError err) {
    if (err != QProcess::FailedToStart || !process_) return;
    const QString msg = tr("%1 could not start: %2").arg(program, process_->errorString());
    process_->deleteLater();
    process_ = nullptr;
    emit failed(msg, false);
  });
  clock_.start();
  process_->start(program, all);
  last_line_ = command_;
  emit progress(command_, 0);
  return true;
}

void PlaygroundRunner::cancel() {
  if (!process_) return;
  cancelled_ = true;
  process_->terminate();
  kill_after(process_, 5000);
}

void PlaygroundRunner::onOutput() {
  for_each_line(pending_, process_->readAllStandardOutput(), [this](const QString& raw) {
    const QString line = raw.trimmed();
    if (line.isEmpty()) return;
    last_line_ = line;
    if (line.startsWith("error:")) error_line_ = line;
    emit progress(line, clock_.elapsed() / 1000.0);
  });
}

void PlaygroundRunner::onFinished(int code, QProcess::ExitStatus status) {
  QProcess* p = process_;
  process_ = nullptr;
  if (p) p->deleteLater();
  // exit 0: every check passed; 1: a check failed (the session records it); 3: no GPU; 2: bad input.
  if (status == QProcess::NormalExit && (code == 0 || code == 1) && QFileInfo(session_).isFile()) {
    emit finished(session_, code);
    return;
  }
  if (cancelled_) {
    emit failed(tr("run cancelled"), false);
    return;
  }
  const QString why = !error_line_.isEmpty() ? error_line_ : last_line_;
  emit failed(tr("trainscope-run exit %1%2")
                  .arg(status == QProcess::NormalExit ? code : -1)
                  .arg(why.isEmpty() ? "" : ": " + why),
              status == QProcess::NormalExit && code == 3);
}

}  // namespace ts::gui
