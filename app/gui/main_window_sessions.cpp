// MainWindow's sessions: File ▸ Open session… / Recent sessions / Save session as…, the Session
// details dock and the replay of a recorded run into the training charts. Sessions are read only
// through profiling's reader (load_session_replay -> prof::open_session).
#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>

#include "app/gui/main_window.h"
#include "widgets/run_settings.h"
#include "widgets/panel_hub.h"
#include "widgets/session_replay.h"
#include "widgets/training_charts.h"

namespace ts::gui {
namespace {
constexpr int kRecentSessions = 8;
const char* const kRecentKey = "sessions/recent";
}  // namespace

void MainWindow::buildSessionActions() {
  auto* st = style();
  open_session_ = new QAction(st->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open session…"), this);
  open_session_->setShortcut(QKeySequence::Open);
  open_session_->setToolTip(tr("Show a recorded run (*.tsession): its charts, config and hardware"));
  save_session_ = new QAction(st->standardIcon(QStyle::SP_DialogSaveButton), tr("Save session &as…"), this);
  save_session_->setShortcut(QKeySequence::SaveAs);
  recent_ = new QMenu(tr("Recent sessions"), this);
  connect(open_session_, &QAction::triggered, this, &MainWindow::chooseSessionToOpen);
  connect(save_session_, &QAction::triggered, this, &MainWindow::chooseSessionToSave);
  rebuildRecentSessions();
}

QDockWidget* MainWindow::buildSessionDock() {
  auto* d = new QDockWidget(tr("Session details"), this);
  d->setObjectName("dock.session_details");
  session_details_ = new QPlainTextEdit;
  session_details_->setReadOnly(true);
  session_details_->setPlaceholderText(tr("Open a session (File ▸ Open session…) to see its config and hardware."));
  d->setWidget(session_details_);
  d->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable | QDockWidget::DockWidgetClosable);
  return d;
}

QString MainWindow::sessionDetails() const { return session_details_->toPlainText(); }

void MainWindow::leaveShownSession() {
  setWindowTitle(tr("TrainScope"));
  session_details_->clear();
}

bool MainWindow::openSession(const QString& path) {
  if (running_) return false;
  SessionReplay r;
  try {
    r = load_session_replay(path);
  } catch (const std::exception& e) {
    showMessage(QString::fromStdString(e.what()), true);  // the reader's one line (not a session, newer, damaged)
    return false;
  }
  message_bar_->hide();
  charts_->reset(r.info);
  for (const auto& u : r.updates) charts_->addUpdate(u);
  for (const auto& e : r.epochs) charts_->addEpoch(e);
  charts_->finish(r.outcome);
  hub_->setStore(r.store, false);
  session_details_->setPlainText(r.details);
  session_dock_->show();
  const QString name = QFileInfo(path).fileName();
  setWindowTitle(tr("%1 — TrainScope").arg(name));
  statusBar()->showMessage(tr("Session %1: %2 steps with a loss, %3 epoch(s); Start runs a fresh run with the "
                              "current settings")
                               .arg(name)
                               .arg(r.updates.size())
                               .arg(r.epochs.size()));
  addRecentSession(QFileInfo(path).absoluteFilePath());
  return true;
}

bool MainWindow::saveSessionAs(const QString& path) {
  if (last_session_.isEmpty() || path.isEmpty()) return false;
  if (QFileInfo(path).absoluteFilePath() == QFileInfo(last_session_).absoluteFilePath()) return true;
  if (QFile::exists(path) && !QFile::remove(path)) {
    showMessage(tr("Cannot replace %1").arg(path), true);
    return false;
  }
  if (!QFile::copy(last_session_, path)) {
    showMessage(tr("Cannot save the session to %1 (copying %2 failed)").arg(path, last_session_), true);
    return false;
  }
  statusBar()->showMessage(tr("Session saved to %1").arg(path), 5000);
  addRecentSession(QFileInfo(path).absoluteFilePath());
  return true;
}

void MainWindow::chooseSessionToOpen() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open session"), default_session_dir(),
                                                    tr("TrainScope sessions (*.tsession);;All files (*)"));
  if (!path.isEmpty()) openSession(path);
}

void MainWindow::chooseSessionToSave() {
  if (last_session_.isEmpty()) return;
  QString path = QFileDialog::getSaveFileName(this, tr("Save session as"), QFileInfo(last_session_).fileName(),
                                              tr("TrainScope sessions (*.tsession)"));
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) path += ".tsession";
  saveSessionAs(path);
}

void MainWindow::addRecentSession(const QString& path) {
  QSettings s;
  QStringList list = s.value(kRecentKey).toStringList();
  list.removeAll(path);
  list.prepend(path);
  while (list.size() > kRecentSessions) list.removeLast();
  s.setValue(kRecentKey, list);
  rebuildRecentSessions();
}

void MainWindow::rebuildRecentSessions() {
  recent_->clear();
  const QStringList list = QSettings().value(kRecentKey).toStringList();
  for (const QString& path : list) {
    auto* a = recent_->addAction(QFileInfo(path).fileName());
    a->setToolTip(path);
    a->setData(path);
    connect(a, &QAction::triggered, this, [this, path] { openRecentSession(path); });
  }
  if (list.isEmpty()) recent_->addAction(tr("(no sessions opened yet)"))->setEnabled(false);
}

void MainWindow::openRecentSession(const QString& path) {
  if (!QFileInfo::exists(path)) {
    QSettings s;
    QStringList list = s.value(kRecentKey).toStringList();
    list.removeAll(path);
    s.setValue(kRecentKey, list);
    rebuildRecentSessions();
    showMessage(tr("Session file %1 no longer exists: removed from Recent sessions").arg(path), true);
    return;
  }
  openSession(path);
}

}  // namespace ts::gui
