// ProgramPane (see program_pane.h).
#include "widgets/program/program_pane.h"

#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace ts::gui {

ProgramPane::ProgramPane(QWidget* parent) : QWidget(parent), run_(new ProgramRun(this)) {
  setObjectName("profile.program");
  state_ = new QLabel(tr("No program yet: File ▸ Profile a program… runs one under TrainScope and follows it here."));
  state_->setWordWrap(true);
  stop_ = new QPushButton(tr("Stop"));
  stop_->setToolTip(tr("Interrupt the program as Ctrl-C would (SIGINT; SIGTERM after %1 s): its session is kept")
                        .arg(ProgramRun::kGraceMs / 1000));
  stop_->setEnabled(false);
  log_ = new QPlainTextEdit;
  log_->setObjectName("profile.program.log");
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(kLogLines);
  log_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  log_->setPlaceholderText(tr("The program's output (stdout and stderr) appears here."));
  auto* top = new QHBoxLayout;
  top->addWidget(state_, 1);
  top->addWidget(stop_);
  auto* lay = new QVBoxLayout(this);
  lay->addLayout(top);
  lay->addWidget(log_, 1);
  connect(stop_, &QPushButton::clicked, this, [this] {
    run_->stop();
    stop_->setEnabled(false);
    state_->setText(tr("%1: stopping (SIGINT sent)…").arg(program_));
  });
  connect(run_, &ProgramRun::output, this, [this](const QString& line) { log_->appendPlainText(line); });
  connect(run_, &ProgramRun::sessionAppeared, this, [this](const QString& session) {
    state_->setText(tr("%1: running; following %2 live").arg(program_, QFileInfo(session).fileName()));
  });
  connect(run_, &ProgramRun::finished, this, [this](int, const QString& how) {
    stop_->setEnabled(false);
    state_->setText(tr("%1 %2; its session: %3").arg(program_, how, run_->sessionPath()));
    log_->appendPlainText(tr("— %1 %2").arg(program_, how));
  });
}

bool ProgramPane::start(const ProgramSpec& spec) {
  const QStringList words = split_command_line(spec.command_line);
  program_ = words.isEmpty() ? spec.command_line : QFileInfo(words.front()).fileName();
  if (!run_->start(spec)) {
    state_->setText(tr("Cannot profile the program: %1").arg(run_->error()));
    return false;
  }
  log_->clear();
  log_->appendPlainText("$ " + spec.command_line);
  stop_->setEnabled(true);
  state_->setText(tr("%1: running; waiting for its first CUDA or NVTX call to open %2")
                      .arg(program_, QFileInfo(run_->sessionPath()).fileName()));
  return true;
}

QString ProgramPane::log() const { return log_->toPlainText(); }
QString ProgramPane::state() const { return state_->text(); }

}  // namespace ts::gui
