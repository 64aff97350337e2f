// ProgramRun (see program_run.h).
#include "widgets/program/program_run.h"

#include <signal.h>

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QProcessEnvironment>
#include <QSettings>
#include <QStandardPaths>

#include "profiling/session/session_file.h"
#include "widgets/lessons/lesson_runner.h"

namespace ts::gui {

QStringList split_command_line(const QString& line, QString* error) {
  QStringList words;
  QString word;
  bool in_word = false;
  QChar quote;  // '\'' or '"' while inside one
  for (qsizetype i = 0; i < line.size(); ++i) {
    const QChar c = line[i];
    if (quote == '\'') {
      if (c == '\'') quote = QChar();
      else word += c;
    } else if (quote == '"') {
      if (c == '"') quote = QChar();
      else if (c == '\\' && i + 1 < line.size() && QString("\"\\$`").contains(line[i + 1])) word += line[++i];
      else word += c;
    } else if (c == '\'' || c == '"') {
      quote = c, in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i], in_word = true;
    } else if (c.isSpace()) {
      if (in_word) words << word;
      word.clear(), in_word = false;
    } else {
      word += c, in_word = true;
    }
  }
  if (!quote.isNull()) {
    if (error) *error = QObject::tr("command line '%1': a %2 quote is left open").arg(line, QString(quote));
    return {};
  }
  if (in_word) words << word;
  if (error) error->clear();
  return words;
}

QString check_program_spec(const ProgramSpec& spec) {
  if (spec.command_line.trimmed().isEmpty()) return QObject::tr("no program: give the command to run (e.g. python3 train.py)");
  QString why;
  if (split_command_line(spec.command_line, &why).isEmpty())
    return why.isEmpty() ? QObject::tr("command line '%1': nothing to run").arg(spec.command_line) : why;
  if (!spec.working_dir.isEmpty() && !QFileInfo(spec.working_dir).isDir())
    return QObject::tr("working folder %1 is not a folder").arg(spec.working_dir);
  for (const QString& e : spec.env)
    if (!e.trimmed().isEmpty() && (e.indexOf('=') <= 0))
      return QObject::tr("environment line '%1': write KEY=VALUE").arg(e);
  if (spec.inject_mode != "lean" && spec.inject_mode != "full" && spec.inject_mode != "nvtx")
    return QObject::tr("mode '%1': lean, full or nvtx").arg(spec.inject_mode);
  if (spec.python != "off" && spec.python != "lean" && spec.python != "full")
    return QObject::tr("Python insight '%1': off, lean or full").arg(spec.python);
  return {};
}

ProgramSpec load_program_spec() {
  QSettings s;
  ProgramSpec p;
  p.command_line = s.value("program/command_line").toString();
  p.working_dir = s.value("program/working_dir").toString();
  p.env = s.value("program/env").toStringList();
  p.step_range = s.value("program/step_range", p.step_range).toString();
  p.inject_mode = s.value("program/inject_mode", p.inject_mode).toString();
  p.python = s.value("program/python", p.python).toString();
  p.session = s.value("program/session").toString();
  return p;
}

void save_program_spec(const ProgramSpec& p) {
  QSettings s;
  s.setValue("program/command_line", p.command_line);
  s.setValue("program/working_dir", p.working_dir);
  s.setValue("program/env", p.env);
  s.setValue("program/step_range", p.step_range);
  s.setValue("program/inject_mode", p.inject_mode);
  s.setValue("program/python", p.python);
  s.setValue("program/session", p.session);
}

ProgramRun::ProgramRun(QObject* parent) : QObject(parent) {
  poll_.setInterval(200);
  connect(&poll_, &QTimer::timeout, this, &ProgramRun::checkSession);
}

ProgramRun::~ProgramRun() {
  if (process_) {
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(3000);
  }
}

namespace {
QString default_session(const QString& program) {
  const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/sessions";
  QDir().mkpath(dir);
  return dir + "/" + QFileInfo(program).baseName() + "-" + QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss") +
         ".tsession";
}
}  // namespace

QStringList runner_arguments(const ProgramSpec& spec, const QString& session) {
  QStringList args{"--session", session, "--step-range", spec.step_range, "--inject-mode", spec.inject_mode,
                   "--python", spec.python, "--"};
  return args + split_command_line(spec.command_line);
}

bool ProgramRun::start(const ProgramSpec& spec) {
  error_ = check_program_spec(spec);
  if (!error_.isEmpty()) return false;
  if (running()) return (error_ = tr("a program is already running: stop it first")), false;
  const QString runner = lesson_runner_program();
  if (runner.isEmpty()) return (error_ = tr("trainscope-run was not found beside the window (set TRAINSCOPE_RUNNER)")), false;
  const QStringList words = split_command_line(spec.command_line);
  session_ = spec.session.isEmpty() ? default_session(words.front()) : QFileInfo(spec.session).absoluteFilePath();
  const QStringList args = runner_arguments(spec, session_);
  if (process_) process_->deleteLater();
  process_ = new QProcess(this);
  process_->setProcessChannelMode(QProcess::MergedChannels);
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  for (const QString& e : spec.env)
    if (!e.trimmed().isEmpty()) env.insert(e.section('=', 0, 0).trimmed(), e.section('=', 1));
  env.insert("PYTHONUNBUFFERED", env.value("PYTHONUNBUFFERED", "1"));  // the log shows lines as they come
  process_->setProcessEnvironment(env);
  if (!spec.working_dir.isEmpty()) process_->setWorkingDirectory(spec.working_dir);
  connect(process_, &QProcess::readyReadStandardOutput, this, &ProgramRun::readOutput);
  connect(process_, &QProcess::finished, this, &ProgramRun::onFinished);
  appeared_ = stopping_ = false;
  partial_.clear();
  process_->start(runner, args);
  if (!process_->waitForStarted(5000)) {
    error_ = tr("cannot start %1: %2").arg(runner, process_->errorString());
    return false;
  }
  poll_.start();
  emit started(session_);
  return true;
}

void ProgramRun::stop() {
  if (!running() || stopping_) return;
  stopping_ = true;
  ::kill(static_cast<pid_t>(process_->processId()), SIGINT);  // the runner passes it on to the program
  QProcess* p = process_;
  QTimer::singleShot(kGraceMs, this, [this, p] {
    if (p == process_ && running()) process_->terminate();
  });
  QTimer::singleShot(2 * kGraceMs, this, [this, p] {
    if (p == process_ && running()) process_->kill();
  });
}

void ProgramRun::readOutput() {
  partial_ += QString::fromLocal8Bit(process_->readAllStandardOutput());
  qsizetype nl;
  while ((nl = partial_.indexOf('\n')) >= 0) {
    emit output(partial_.left(nl).remove('\r'));
    partial_.remove(0, nl + 1);
  }
}

void ProgramRun::checkSession() {
  if (appeared_ || !QFileInfo::exists(session_)) return;
  try {
    prof::check_session(session_.toStdString());
  } catch (const std::exception&) {
    return;  // created but its schema not committed yet: the next poll
  }
  appeared_ = true;
  emit sessionAppeared(session_);
}

void ProgramRun::onFinished(int code, QProcess::ExitStatus status) {
  readOutput();
  if (!partial_.isEmpty()) emit output(partial_), partial_.clear();
  checkSession();  // a program that ended within the first poll still gets its session opened
  poll_.stop();
  QString how;
  if (status == QProcess::CrashExit) how = tr("trainscope-run itself ended abnormally");
  else if (code > 128 && code < 160)
    how = tr("ended by signal %1%2").arg(code - 128).arg(code - 128 == SIGSEGV || code - 128 == SIGABRT || code - 128 == SIGBUS
                                                             ? tr(" (a crash)")
                                                             : code - 128 == SIGINT ? tr(" (interrupted)") : QString());
  else how = tr("exited with code %1").arg(code);
  emit finished(status == QProcess::CrashExit ? -1 : code, how);
}

}  // namespace ts::gui
