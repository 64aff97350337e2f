// MainWindow's sessions: File ▸ Open session… / Recent sessions / Save session as… / Run again with
// these settings, drag and drop, the Session details tab and the replay of a recorded run into the
// training charts. Sessions load on a worker thread (SessionLoader: progress bar, Cancel) through
// profiling's reader; the panels read the store while it fills.
#include <QAction>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
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
#include "base/errors.h"
#include "playground/session.h"
#include "lessons/session_pack.h"
#include "profiling/import/trace_import.h"
#include "profiling/session_file.h"
#include "setups/setup.h"
#include "widgets/compare/compare_view.h"
#include "widgets/layer_table_model.h"
#include "widgets/model_builder.h"
#include "widgets/panel_hub.h"
#include "widgets/panels/verdict_panel.h"
#include "widgets/playground/playground_workspace.h"
#include "widgets/run_settings.h"
#include "widgets/session_loader.h"
#include "widgets/session_replay.h"
#include "widgets/training_charts.h"
#include "widgets/workspaces/workspaces.h"

namespace ts::gui {
namespace {
/// A .tsession (or recorded .tsession.zst) holding a playground run (playground/session.h).
bool is_playground_session(const QString& path) {
  if (!path.endsWith(".tsession") && !path.endsWith(".tsession.zst")) return false;
  try {
    lessons::PlainSession plain(path.toStdString());
    return !playground::read_playground_session(plain.path()).ladders.empty();
  } catch (const std::exception&) {
    return false;  // not one: the ordinary open says why
  }
}
constexpr int kRecentSessions = 8;
const char* const kRecentKey = "sessions/recent";
}  // namespace

void MainWindow::buildSessionActions() {
  auto* st = style();
  open_session_ = new QAction(st->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open session…"), this);
  open_session_->setShortcut(QKeySequence::Open);
  open_session_->setToolTip(tr("Show a recorded run (*.tsession), a PyTorch profiler trace (*.json, *.json.gz) or an Nsight Systems SQLite export (*.sqlite): its charts, panels, config and hardware"));
  save_session_ = new QAction(st->standardIcon(QStyle::SP_DialogSaveButton), tr("Save session &as…"), this);
  save_session_->setShortcut(QKeySequence::SaveAs);
  recent_ = new QMenu(tr("Recent sessions"), this);
  run_again_ = new QAction(tr("&Run again with these settings"), this);
  run_again_->setToolTip(tr("Load the shown session's model and knobs into the Train workspace for a new run"));
  run_again_->setEnabled(false);
  connect(run_again_, &QAction::triggered, this, &MainWindow::runAgainWithSessionSettings);
  compare_action_ = new QAction(tr("&Compare sessions…"), this);
  compare_action_->setToolTip(tr("Two or more sessions or traces side by side: config diff, throughput, accuracy, "
                                 "step-time breakdown, verdicts, kernel diff, aligned timelines"));
  connect(compare_action_, &QAction::triggered, this, &MainWindow::chooseSessionsToCompare);
  connect(open_session_, &QAction::triggered, this, &MainWindow::chooseSessionToOpen);
  loader_ = new SessionLoader(this);
  connect(loader_, &SessionLoader::storeReady, hub_,
          [this](std::shared_ptr<const prof::EventStore> store) { hub_->setStore(std::move(store), true); });
  connect(loader_, &SessionLoader::progress, this, [this](qint64 done, qint64 total) {
    load_bar_->setMaximum(1000);
    load_bar_->setValue(total > 0 ? static_cast<int>(1000 * done / total) : 0);
  });
  connect(loader_, &SessionLoader::loaded, this, &MainWindow::showLoadedSession);
  connect(loader_, &SessionLoader::following, this, &MainWindow::showFollowing);
  connect(hub_, &PanelHub::grew, this, &MainWindow::followedMetaGrew);
  connect(loader_, &SessionLoader::failed, this, &MainWindow::sessionLoadFailed);
  setAcceptDrops(true);
  connect(save_session_, &QAction::triggered, this, &MainWindow::chooseSessionToSave);
  rebuildRecentSessions();
}

QWidget* MainWindow::buildSessionDetails() {
  session_details_ = new QPlainTextEdit;
  session_details_->setObjectName("profile.session_details");
  session_details_->setReadOnly(true);
  session_details_->setPlaceholderText(tr("Open a session (File ▸ Open session…) to see its config and hardware."));
  return session_details_;
}

QString MainWindow::sessionDetails() const { return session_details_->toPlainText(); }

void MainWindow::leaveShownSession() {
  setWindowTitle(tr("TrainScope"));
  session_details_->clear();
  shown_meta_.clear();
  shown_name_.clear();
  showOwnSettings();
  updateIdleStatus();
}

void MainWindow::buildLoadProgress() {
  load_box_ = new QWidget;
  auto* row = new QHBoxLayout(load_box_);
  row->setContentsMargins(0, 0, 0, 0);
  load_label_ = new QLabel;
  load_bar_ = new QProgressBar;
  load_bar_->setMaximumWidth(200);
  load_bar_->setTextVisible(true);
  load_cancel_ = new QPushButton(tr("Cancel"));
  load_cancel_->setToolTip(tr("Stop opening the session"));
  connect(load_cancel_, &QPushButton::clicked, loader_, &SessionLoader::cancel);
  row->addWidget(load_label_);
  row->addWidget(load_bar_);
  row->addWidget(load_cancel_);
  statusBar()->addWidget(load_box_);
  load_box_->hide();
}

bool MainWindow::openSession(const QString& path) {
  if (running_ || loader_->isLoading()) return false;
  if (is_playground_session(path)) {  // its ladders, roofline and kernels: the Playground workspace
    workspaces_->setMode(Workspaces::Mode::playground);
    const bool shown = playground_->openSession(path);
    if (!shown) showMessage(playground_->statusText(), true);
    return shown;
  }
  try {
    if (prof::import::is_trace_path(path.toStdString())) {
      if (!QFileInfo(path).isFile() || !QFileInfo(path).isReadable())
        throw InputError(path.toStdString() + " does not exist or cannot be read");
    } else {
      prof::check_session(path.toStdString());
    }
  } catch (const std::exception& e) {
    showMessage(QString::fromStdString(e.what()), true);  // the reader's one line (not a session, newer, damaged)
    return false;
  }
  message_bar_->hide();
  before_open_ = {hub_->store(), verdicts_->sourceNote()};
  // Opening a session or a trace shows it in the Profile workspace (side by side stays as it is).
  if (workspaces_->mode() == Workspaces::Mode::train || workspaces_->mode() == Workspaces::Mode::playground)
    workspaces_->setMode(Workspaces::Mode::profile);
  if (!load_box_) buildLoadProgress();
  load_label_->setText(tr("Opening %1").arg(QFileInfo(path).fileName()));
  load_label_->setProperty("path", path);
  load_bar_->setRange(0, 0);  // busy until the first progress report
  load_box_->show();
  const bool started = loader_->start(path);
  updateActions();
  return started;
}

void MainWindow::showFollowing(bool on) {
  if (!load_box_) return;
  load_bar_->setVisible(!on);
  load_cancel_->setText(on ? tr("Stop following") : tr("Cancel"));
  load_cancel_->setToolTip(on ? tr("Stop reading new events; keep what has arrived") : tr("Stop opening the session"));
  const QString name = QFileInfo(load_label_->property("path").toString()).fileName();
  if (on) load_label_->setText(tr("Following %1 live: it is still being written").arg(name));
  follow_meta_version_ = 0;  // the next grew shows the followed file's settings (followedMetaGrew)
}

void MainWindow::followedMetaGrew() {
  // The status bar and Run settings say what the followed file ran on (its meta arrives with the
  // follower's batches and grows: the device after the program's first CUDA context), not the
  // window's own settings.
  const auto store = hub_->store();
  if (!store || !loader_->isFollowing() || store->meta_version() == follow_meta_version_) return;
  follow_meta_version_ = store->meta_version();
  shown_meta_ = store->meta();
  showSessionSettings(QFileInfo(load_label_->property("path").toString()).fileName());
}

void MainWindow::showLoadedSession(const SessionReplay& r) {
  load_box_->hide();
  hub_->setLive(false);
  charts_->reset(r.info);
  for (const auto& u : r.updates) charts_->addUpdate(u);
  for (const auto& e : r.epochs) charts_->addEpoch(e);
  charts_->finish(r.outcome);
  session_details_->setPlainText(r.details);
  before_open_ = {};
  if (r.incomplete)
    verdicts_->setSourceNote(tr("From an incomplete file (it ends early): verdicts cover the events read"));
  if (r.warning_count > 0)
    showMessage(tr("%1 opened with %n warning(s): %2", nullptr, r.warning_count).arg(QFileInfo(r.path).fileName(), r.warnings),
                false);
  shown_meta_ = r.store ? r.store->meta() : std::map<std::string, std::string>{};
  showSessionSettings(QFileInfo(r.path).fileName());  // main_window_shown.cpp
  const QString name = QFileInfo(r.path).fileName();
  setWindowTitle(tr("%1 — TrainScope").arg(name));
  // Short: the status bar's permanent labels sit to its right and a long message ran under them.
  statusBar()->showMessage(r.updates.empty() && r.epochs.empty()
                               ? tr("Opened %1").arg(name)
                               : tr("Session %1: %2 steps with a loss, %3 epoch(s)").arg(name).arg(r.updates.size()).arg(r.epochs.size()));
  addRecentSession(QFileInfo(r.path).absoluteFilePath());
  updateActions();
  emit sessionOpened(r.path);
}

void MainWindow::sessionLoadFailed(const QString& message, bool cancelled) {
  load_box_->hide();
  // The session shown before stays as it was: every panel reads its store again (the title,
  // charts, details and settings were not touched by the failed load).
  if (before_open_.store) {
    hub_->setStore(before_open_.store, false);
    verdicts_->setSourceNote(before_open_.note);
  } else {
    hub_->clear();
  }
  before_open_ = {};
  if (cancelled) statusBar()->showMessage(tr("Opening the session was cancelled"), 5000);
  else showMessage(message, true);
  updateActions();
  emit sessionFailed(message, cancelled);
}

namespace {
/// The local session and trace files among dropped URLs.
QStringList dropped_sessions(const QMimeData* mime) {
  QStringList out;
  if (!mime || !mime->hasUrls()) return out;
  for (const QUrl& url : mime->urls())
    if (url.isLocalFile() && (url.toLocalFile().endsWith(".tsession", Qt::CaseInsensitive) ||
                              prof::import::is_trace_path(url.toLocalFile().toStdString())))
      out << url.toLocalFile();
  return out;
}


/// A dropped setup: a .tsetup file, or a setup line dropped as text ("" when neither).
QString dropped_setup(const QMimeData* mime) {
  if (!mime) return {};
  if (mime->hasUrls())
    for (const QUrl& url : mime->urls())
      if (url.isLocalFile() && url.toLocalFile().endsWith(".tsetup", Qt::CaseInsensitive)) return url.toLocalFile();
  if (mime->hasText() && setups::is_setup_line(mime->text().toStdString())) return mime->text();
  return {};
}
}  // namespace

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (!running_ && (!dropped_sessions(e->mimeData()).isEmpty() || !dropped_setup(e->mimeData()).isEmpty()))
    e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  if (const QString setup = dropped_setup(e->mimeData()); !setup.isEmpty()) {
    e->acceptProposedAction();
    openSetup(setup);
    return;
  }
  const QStringList files = dropped_sessions(e->mimeData());
  if (files.isEmpty()) return;
  e->acceptProposedAction();
  if (files.size() >= 2) compareSessions(files);  // several files: side by side
  else openSession(files.front());
}

void MainWindow::compareSessions(const QStringList& paths) {
  if (!compare_) {
    compare_ = new CompareView(this);
    compare_->setWindowFlag(Qt::Window);
    compare_->setWindowTitle(tr("Compare sessions — TrainScope"));
    fitToolWindow(compare_, QSize(1400, 900));
  }
  compare_->openSessions(paths);
  compare_->show();
  compare_->raise();
}

void MainWindow::chooseSessionsToCompare() {
  const QStringList paths = QFileDialog::getOpenFileNames(
      this, tr("Compare sessions (choose two or more)"), default_session_dir(),
      tr("Sessions and traces (*.tsession *.json *.json.gz);;All files (*)"));
  if (paths.size() >= 2) compareSessions(paths);
  else if (paths.size() == 1) showMessage(tr("Choose two or more sessions to compare (Ctrl+click to pick several)"), false);
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
                                                    tr("Sessions and traces (*.tsession *.json *.json.gz *.sqlite);;TrainScope sessions (*.tsession);;"
                                                       "PyTorch profiler / Chrome traces (*.json *.json.gz);;"
                                                       "Nsight Systems SQLite exports (*.sqlite);;All files (*)"));
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
