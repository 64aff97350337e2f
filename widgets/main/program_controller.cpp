// ProgramController: File ▸ Profile a program… The program runs under trainscope-run -- (its
// CUDA work recorded by profiling/inject into a session file); the Profile workspace follows that file
// live as it grows (SessionLoader's follow mode), the Program tab shows the program's output and how
// it ended, and Stop interrupts it the way Ctrl-C would.
#include "widgets/main/program_controller.h"

#include <QAction>
#include <QMenu>
#include <QTimer>

#include "widgets/main/main_frame.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/main/shortcuts.h"
#include "widgets/program/program_dialog.h"
#include "widgets/program/program_pane.h"
#include "widgets/sessions/session_loader.h"
#include "widgets/workspaces/profile_workspace.h"
#include "widgets/workspaces/workspaces.h"

namespace ts::gui {

namespace {
/// After the program ended, how long its last batch may take to reach the file before following
/// stops (the recorder flushes every second and at exit).
constexpr int kAfterExitMs = 2500;
}  // namespace

ProgramController::ProgramController(MainFrame& frame, SessionsController& sessions, QObject* parent)
    : QObject(parent), frame_(frame), sessions_(sessions) {}

void ProgramController::buildActions(QMenu* file) {
  profile_ = file->addAction(tr("Profile a &program…"), this, [this] { chooseProgramToProfile(); });
  profile_->setObjectName("file.profile_program");
  set_shortcut(profile_, ShortcutId::profile_program);
  profile_->setToolTip(tr("Run your own CUDA program (a PyTorch script, any binary) under TrainScope and "
                          "watch its kernels, memory and verdicts live"));
}

ProgramPane* ProgramController::buildPane() {
  pane_ = new ProgramPane;
  ProgramRun* run = pane_->run();
  connect(run, &ProgramRun::sessionAppeared, this, [this](const QString& s) { followProgramSession(s, 0); });
  connect(run, &ProgramRun::finished, this, [this](int code, const QString& how) {
    frame_.showStatus(tr("The profiled program %1").arg(how), 10000);
    // After Stop any exit is the one asked for (Python's KeyboardInterrupt exits 1): said, not an error.
    const bool stopped = pane_->run()->stopRequested();
    if (stopped) frame_.showMessage(tr("The profiled program was stopped (%1); its session is kept").arg(how), false);
    else if (code != 0) frame_.showMessage(tr("The profiled program %1: its output is in the Program tab").arg(how), code != 130);
    QTimer::singleShot(kAfterExitMs, this, [this] {
      if (sessions_.loader()->isFollowing()) sessions_.loader()->cancel();  // keep what arrived: loaded() follows
    });
    frame_.updateActions();
  });
  return pane_;
}

void ProgramController::chooseProgramToProfile() {
  ProgramDialog d(load_program_spec(), frame_.frameWindow());
  if (d.exec() != QDialog::Accepted) return;
  save_program_spec(d.spec());
  profileProgram(d.spec());
}

bool ProgramController::profileProgram(const ProgramSpec& spec) {
  if (frame_.running()) {
    frame_.showMessage(tr("A training run is going: stop it before profiling a program"), true);
    return false;
  }
  if (!pane_->start(spec)) {
    frame_.showMessage(pane_->state(), true);
    return false;
  }
  frame_.hideMessage();
  if (frame_.workspaces()->mode() == Workspaces::Mode::train) frame_.workspaces()->setMode(Workspaces::Mode::profile);
  frame_.workspaces()->profile()->showTab(pane_);
  QTimer::singleShot(0, this, [this] { frame_.workspaces()->profile()->showTab(pane_); });  // after the first layout
  frame_.updateActions();
  return true;
}

void ProgramController::followProgramSession(const QString& session, int attempt) {
  if (sessions_.openSession(session)) {
    frame_.workspaces()->profile()->showTab(pane_);  // the log stays in view while the lanes fill
    return;
  }
  if (attempt >= 10) {
    frame_.showMessage(tr("Cannot follow %1: another session is still opening").arg(session), true);
    return;
  }
  if (sessions_.loader()->isLoading()) sessions_.loader()->cancel();  // the program's session replaces what was opening
  QTimer::singleShot(300, this, [this, session, attempt] { followProgramSession(session, attempt + 1); });
}

}  // namespace ts::gui
