// LessonRunner (lesson_runner.h): trainscope-run --lesson as a child process, or the recording.
#include "widgets/lessons/lesson_runner.h"

#include <signal.h>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QTimer>

#include "base/errors.h"
#include "doctor/host.h"
#include "lessons/lesson_eval.h"
#include "lessons/lesson_where.h"

namespace ts::gui {

QString lesson_runner_program() {
  const QString env = qEnvironmentVariable("TRAINSCOPE_RUNNER");
  if (!env.isEmpty() && QFileInfo(env).isExecutable()) return env;
  const QString beside = QCoreApplication::applicationDirPath() + "/trainscope-run";
  if (QFileInfo(beside).isExecutable()) return beside;
#ifdef TRAINSCOPE_RUNNER_PATH
  if (QFileInfo(QStringLiteral(TRAINSCOPE_RUNNER_PATH)).isExecutable()) return QStringLiteral(TRAINSCOPE_RUNNER_PATH);
#endif
  return {};
}

LessonRunner::LessonRunner(QObject* parent) : QObject(parent) {}

LessonRunner::~LessonRunner() { end_child(process_, this); }

bool LessonRunner::start(const lessons::Lesson& l, const QString& source, const QString& data_dir,
                         const QString& out_dir, bool recorded_only) {
  if (process_) return false;
  lesson_ = l;
  cancelled_ = false;
  last_error_.clear();
  std::string why;
  if (recorded_only || !lessons::can_run_here(l, {}, &why)) {
    why = doctor::plain_gpu_reason(why);
    std::string tried;
    const QString dir = QString::fromStdString(lessons::find_recording("", l, &tried));
    const QString reason = recorded_only ? tr("the recording was asked for") : QString::fromStdString(why);
    if (dir.isEmpty()) {
      emit failed(tr("Lesson %1: %2, and it has no recording (looked in %3)")
                      .arg(QString::fromStdString(l.name), reason, QString::fromStdString(tried)),
                  false);
      return false;
    }
    QString where;
    try {
      where = QString::fromStdString(lessons::recorded_where(lessons::read_record(dir.toStdString())));
    } catch (const Error& e) {
      where = QString::fromUtf8(e.what());  // LessonView then says why it cannot show it
    }
    emit finished(dir, true, tr("Recorded lesson (%1): %2").arg(reason, where));
    return true;
  }
  const QString program = lesson_runner_program();
  if (program.isEmpty()) {
    emit failed(tr("Lesson %1: trainscope-run was not found beside the window (set TRAINSCOPE_RUNNER)")
                    .arg(QString::fromStdString(l.name)),
                false);
    return false;
  }
  QDir().mkpath(out_dir);
  dir_ = out_dir;
  QStringList args{"--lesson", source, "--lesson-dir", out_dir};
  if (!data_dir.isEmpty()) args << "--data" << data_dir;
  process_ = new QProcess(this);
  process_->setProcessChannelMode(QProcess::SeparateChannels);
  process_->setStandardOutputFile(QProcess::nullDevice());  // the result is read from the folder
  connect(process_, &QProcess::readyReadStandardError, this, &LessonRunner::onStderr);
  connect(process_, &QProcess::finished, this, &LessonRunner::onFinished);
  progress_ = tr("Starting lesson %1…").arg(QString::fromStdString(l.title));
  emit progress(0, static_cast<int>(l.runs.size()), progress_);
  // A program that cannot start reports it through errorOccurred (no wait on the GUI thread).
  connect(process_, &QProcess::errorOccurred, this, [this, program](QProcess::ProcessError err) {
    if (err != QProcess::FailedToStart || !process_) return;
    const QString msg = tr("Lesson %1: %2 could not start: %3")
                            .arg(QString::fromStdString(lesson_.name), program, process_->errorString());
    process_->deleteLater();
    process_ = nullptr;
    emit failed(msg, false);
  });
  process_->start(program, args);
  return true;
}

void LessonRunner::cancel() {
  if (!process_) return;
  cancelled_ = true;
  ::kill(static_cast<pid_t>(process_->processId()), SIGINT);
  kill_after(process_, 10000);
}

void kill_after(QProcess* p, int grace_ms) {
  QTimer::singleShot(grace_ms, p, [p] { p->kill(); });
}

void end_child(QProcess* p, QObject* runner) {
  if (!p) return;
  p->disconnect(runner);
  p->kill();
  p->waitForFinished(3000);
}

void for_each_line(QByteArray& pending, const QByteArray& more, const std::function<void(const QString&)>& line) {
  pending += more;
  qsizetype nl = 0;
  while ((nl = pending.indexOf('\n')) >= 0) {
    const QString text = QString::fromUtf8(pending.left(nl));
    pending.remove(0, nl + 1);
    line(text);
  }
}

void LessonRunner::onStderr() {
  for_each_line(pending_, process_->readAllStandardError(), [this](const QString& line) {
    // "lesson NAME: run ID (LABEL): knobs" when a run starts (app/runner/lesson_cmd.cpp)
    const QString head = "lesson " + QString::fromStdString(lesson_.name) + ": run ";
    if (line.startsWith(head)) {
      const QString rest = line.mid(head.size());
      const QString id = rest.section(' ', 0, 0);
      const int i = lesson_.run_index(id.toStdString());
      if (i >= 0 && rest.section(' ', 1, 1).startsWith('(')) {
        progress_ = tr("Run %1 of %2: %3")
                        .arg(i + 1)
                        .arg(lesson_.runs.size())
                        .arg(QString::fromStdString(lesson_.runs[static_cast<std::size_t>(i)].label));
        emit progress(i, static_cast<int>(lesson_.runs.size()), progress_);
      }
    } else if (line.startsWith("error:")) {
      last_error_ = line;
    }
  });
}

void LessonRunner::onFinished(int code, QProcess::ExitStatus status) {
  QProcess* p = process_;
  process_ = nullptr;
  p->deleteLater();
  const bool have_folder = QFileInfo::exists(dir_ + "/manifest.json");
  // exit 0: shown, 1: ran but not shown, 130: stopped (the folder keeps the finished runs)
  if (status == QProcess::NormalExit && (code == 0 || code == 1) && have_folder) {
    emit finished(dir_, false, QString());
    return;
  }
  if (cancelled_) {
    emit failed(tr("Lesson %1 cancelled").arg(QString::fromStdString(lesson_.title)), true);
    return;
  }
  emit failed(tr("Lesson %1 failed (trainscope-run exit %2)%3")
                  .arg(QString::fromStdString(lesson_.name))
                  .arg(status == QProcess::NormalExit ? code : -1)
                  .arg(last_error_.isEmpty() ? QString() : ": " + last_error_),
              false);
}

}  // namespace ts::gui
