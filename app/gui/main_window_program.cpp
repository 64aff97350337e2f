// MainWindow: File ▸ Profile a program… The program runs under trainscope-run -- (its
// CUDA work recorded by profiling/inject into a session file); the Profile workspace follows that file
// live as it grows (SessionLoader's follow mode), the Program tab shows the program's output and how
// it ended, and Stop interrupts it the way Ctrl-C would.
#include <QAction>
#include <QMenu>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>

#include "app/gui/main_window.h"
#include "widgets/program/program_dialog.h"
#include "widgets/program/program_pane.h"
#include "widgets/session_loader.h"
#include "widgets/workspaces/profile_workspace.h"
#include "widgets/workspaces/workspaces.h"

namespace ts::gui {

namespace {
/// After the program ended, how long its last batch may take to reach the file before following
/// stops (the recorder flushes every second and at exit).
constexpr int kAfterExitMs = 2500;
}  // namespace

void MainWindow::buildProgramActions(QMenu* file) {
  profile_program_ = file->addAction(tr("Profile a &program…"), this, [this] { chooseProgramToProfile(); });
  profile_program_->setObjectName("file.profile_program");
  profile_program_->setShortcut(QKeySequence(tr("Ctrl+Shift+R")));
  profile_program_->setToolTip(tr("Run your own CUDA program (a PyTorch script, any binary) under TrainScope and "
                                  "watch its kernels, memory and verdicts live"));
}

void MainWindow::connectProgramPane() {
  ProgramRun* run = program_pane_->run();
  connect(run, &ProgramRun::sessionAppeared, this, [this](const QString& s) { followProgramSession(s, 0); });
  connect(run, &ProgramRun::finished, this, [this](int code, const QString& how) {
    statusBar()->showMessage(tr("The profiled program %1").arg(how), 10000);
    // After Stop any exit is the one asked for (Python's KeyboardInterrupt exits 1): said, not an error.
    const bool stopped = program_pane_->run()->stopRequested();
    if (stopped) showMessage(tr("The profiled program was stopped (%1); its session is kept").arg(how), false);
    else if (code != 0) showMessage(tr("The profiled program %1: its output is in the Program tab").arg(how), code != 130);
    QTimer::singleShot(kAfterExitMs, this, [this] {
      if (loader_->isFollowing()) loader_->cancel();  // keep what arrived: loaded() follows
    });
    updateActions();
  });
}

void MainWindow::chooseProgramToProfile() {
  ProgramDialog d(load_program_spec(), this);
  if (d.exec() != QDialog::Accepted) return;
  save_program_spec(d.spec());
  profileProgram(d.spec());
}

bool MainWindow::profileProgram(const ProgramSpec& spec) {
  if (running_) {
    showMessage(tr("A training run is going: stop it before profiling a program"), true);
    return false;
  }
  if (!program_pane_->start(spec)) {
    showMessage(program_pane_->state(), true);
    return false;
  }
  message_bar_->hide();
  if (workspaces_->mode() == Workspaces::Mode::train) workspaces_->setMode(Workspaces::Mode::profile);
  workspaces_->profile()->showTab(program_pane_);
  QTimer::singleShot(0, this, [this] { workspaces_->profile()->showTab(program_pane_); });  // after the first layout
  updateActions();
  return true;
}

void MainWindow::followProgramSession(const QString& session, int attempt) {
  if (openSession(session)) {
    workspaces_->profile()->showTab(program_pane_);  // the log stays in view while the lanes fill
    return;
  }
  if (attempt >= 10) {
    showMessage(tr("Cannot follow %1: another session is still opening").arg(session), true);
    return;
  }
  if (loader_->isLoading()) loader_->cancel();  // the program's session replaces what was opening
  QTimer::singleShot(300, this, [this, session, attempt] { followProgramSession(session, attempt + 1); });
}

}  // namespace ts::gui
