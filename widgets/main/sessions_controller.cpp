// SessionsController: File ▸ Open session… / Recent sessions / Save session as… / Compare
// sessions…, the Session details tab and the replay of a recorded run into the training charts.
// Sessions load on a worker thread (SessionLoader: progress bar, Cancel) through profiling's reader;
// the panels read the store while it fills. While a session or a trace is shown, the Train workspace
// shows its model and Run settings read only, under a note naming it, and the status bar its device,
// batch size, AMP and num_workers (a trace: what it does not record); "Run again with these settings"
// loads them for a new run and says which ones this machine cannot keep, and why.
#include "widgets/main/sessions_controller.h"

#include <QAction>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStyle>
#include <QUrl>

#include "base/errors.h"
#include "lessons/session_pack.h"
#include "playground/session.h"
#include "profiling/analysis/analysis.h"
#include "profiling/import/trace_import.h"
#include "profiling/session/session_file.h"
#include "widgets/compare/compare_view.h"
#include "widgets/common/elided_label.h"
#include "widgets/model/layer_table_model.h"
#include "widgets/main/main_frame.h"
#include "widgets/main/shortcuts.h"
#include "widgets/model/model_builder.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/panels/verdict_panel.h"
#include "widgets/playground/playground_workspace.h"
#include "widgets/training/run_settings.h"
#include "widgets/sessions/session_details.h"
#include "widgets/sessions/session_loader.h"
#include "widgets/sessions/session_replay.h"
#include "widgets/training/training_charts.h"
#include "widgets/workspaces/workspaces.h"

namespace ts::gui {
namespace {
/// A plain .tsession holding a playground run (playground/session.h): a few small reads. A compressed
/// one is told apart by the session loader once it has decompressed it, off the GUI thread.
bool is_playground_session(const QString& path) {
  if (!path.endsWith(".tsession")) return false;
  try {
    return !playground::read_playground_session(path.toStdString()).ladders.empty();
  } catch (const std::exception&) {
    return false;  // not one: the ordinary open says why
  }
}
constexpr int kRecentSessions = 8;
const char* const kRecentKey = "sessions/recent";
}  // namespace

SessionsController::SessionsController(MainFrame& frame, QObject* parent) : QObject(parent), frame_(frame) {
  auto* st = frame_.frameWindow()->style();
  open_ = new QAction(st->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open session…"), this);
  set_shortcut(open_, ShortcutId::open_session);
  open_->setToolTip(tr("Show a recorded run (*.tsession, or a lesson's compressed *.tsession.zst), a PyTorch profiler trace (*.json, *.json.gz) or an Nsight Systems SQLite export (*.sqlite): its charts, panels, config and hardware"));
  save_ = new QAction(st->standardIcon(QStyle::SP_DialogSaveButton), tr("Save session &as…"), this);
  set_shortcut(save_, ShortcutId::save_session_as);
  recent_ = new QMenu(tr("Recent sessions"), frame_.frameWindow());
  run_again_ = new QAction(tr("&Run again with these settings"), this);
  run_again_->setToolTip(tr("Load the shown session's model and knobs into the Train workspace for a new run"));
  run_again_->setEnabled(false);
  connect(run_again_, &QAction::triggered, this, &SessionsController::runAgainWithSessionSettings);
  compare_action_ = new QAction(tr("&Compare sessions…"), this);
  compare_action_->setToolTip(tr("Two or more sessions or traces side by side: config diff, throughput, accuracy, "
                                 "step-time breakdown, verdicts, kernel diff, aligned timelines"));
  connect(compare_action_, &QAction::triggered, this, &SessionsController::chooseSessionsToCompare);
  connect(open_, &QAction::triggered, this, &SessionsController::chooseSessionToOpen);
  loader_ = new SessionLoader(this);
  connect(loader_, &SessionLoader::storeReady, frame_.panelHub(),
          [this](std::shared_ptr<const prof::EventStore> store) { frame_.panelHub()->setStore(std::move(store), true); });
  connect(loader_, &SessionLoader::progress, this, [this](qint64 done, qint64 total) {
    load_bar_->setMaximum(1000);
    load_bar_->setValue(total > 0 ? static_cast<int>(1000 * done / total) : 0);
  });
  connect(loader_, &SessionLoader::loaded, this, &SessionsController::showLoadedSession);
  connect(loader_, &SessionLoader::following, this, &SessionsController::showFollowing);
  connect(frame_.panelHub(), &PanelHub::grew, this, &SessionsController::followedMetaGrew);
  connect(loader_, &SessionLoader::failed, this, &SessionsController::sessionLoadFailed);
  connect(loader_, &SessionLoader::playgroundSession, this, &SessionsController::showPlaygroundSession);
  connect(save_, &QAction::triggered, this, &SessionsController::chooseSessionToSave);
  rebuildRecentSessions();
}

SessionsController::~SessionsController() = default;

bool SessionsController::isLoading() const { return loader_->isLoading(); }

QWidget* SessionsController::buildDetails() {
  details_ = new QPlainTextEdit;
  details_->setObjectName("profile.session_details");
  details_->setReadOnly(true);
  details_->setPlaceholderText(tr("Open a session (File ▸ Open session…) to see its config and hardware."));
  return details_;
}

QString SessionsController::details() const { return details_->toPlainText(); }

void SessionsController::leaveShownSession() {
  frame_.frameWindow()->setWindowTitle(tr("TrainScope"));
  details_->clear();
  shown_meta_.clear();
  shown_name_.clear();
  job_meta_.clear();
  job_whose_.clear();
  showOwnSettings();
  frame_.updateIdleStatus();
}

void SessionsController::buildLoadProgress() {
  load_box_ = new QWidget;
  auto* row = new QHBoxLayout(load_box_);
  row->setContentsMargins(0, 0, 0, 0);
  load_label_ = new SqueezeLabel({}, 60);  // a long file name is cut, not widening the window
  load_bar_ = new QProgressBar;
  load_bar_->setMaximumWidth(200);
  load_bar_->setTextVisible(true);
  load_cancel_ = new QPushButton(tr("Cancel"));
  load_cancel_->setToolTip(tr("Stop opening the session"));
  connect(load_cancel_, &QPushButton::clicked, loader_, &SessionLoader::cancel);
  row->addWidget(load_label_);
  row->addWidget(load_bar_);
  row->addWidget(load_cancel_);
  frame_.addStatusWidget(load_box_);
  load_box_->hide();
}

bool SessionsController::openSession(const QString& path) {
  if (frame_.running() || loader_->isLoading()) return false;
  if (is_playground_session(path)) {  // its ladders, roofline and kernels: the Playground workspace
    frame_.workspaces()->setMode(Workspaces::Mode::playground);
    const bool shown = frame_.playground()->openSession(path);
    if (!shown) frame_.showMessage(frame_.playground()->statusText(), true);
    return shown;
  }
  try {
    // A trace, or a compressed session (checked when the loader has decompressed it, off this thread).
    if (prof::import::is_trace_path(path.toStdString()) || is_compressed_session(path)) {
      if (!QFileInfo(path).isFile() || !QFileInfo(path).isReadable())
        throw InputError(path.toStdString() + " does not exist or cannot be read");
    } else {
      prof::check_session(path.toStdString());
    }
  } catch (const std::exception& e) {
    frame_.showMessage(QString::fromStdString(e.what()), true);  // the reader's one line (not a session, newer, damaged)
    return false;
  }
  frame_.hideMessage();
  before_open_ = {frame_.panelHub()->store(), frame_.verdictPanel()->sourceNote(), frame_.panelHub()->view(), {}};
  // Opening a session or a trace shows it in the Profile workspace (side by side stays as it is).
  if (const auto mode = frame_.workspaces()->mode(); mode == Workspaces::Mode::train || mode == Workspaces::Mode::playground) {
    before_open_.mode = mode;
    frame_.workspaces()->setMode(Workspaces::Mode::profile);
  }
  if (!load_box_) buildLoadProgress();
  load_label_->setText(tr("Opening %1").arg(QFileInfo(path).fileName()));
  load_label_->setProperty("path", path);
  load_bar_->setRange(0, 0);  // busy until the first progress report
  load_box_->show();
  const bool started = loader_->start(path);
  frame_.updateActions();
  return started;
}

void SessionsController::showFollowing(bool on) {
  if (!load_box_) return;
  load_bar_->setVisible(!on);
  load_cancel_->setText(on ? tr("Stop following") : tr("Cancel"));
  load_cancel_->setToolTip(on ? tr("Stop reading new events; keep what has arrived") : tr("Stop opening the session"));
  const QString name = QFileInfo(load_label_->property("path").toString()).fileName();
  if (on) load_label_->setText(tr("Following %1 live: it is still being written").arg(name));
  follow_meta_version_ = 0;  // the next grew shows the followed file's settings (followedMetaGrew)
}

void SessionsController::followedMetaGrew() {
  // The status bar and Run settings say what the followed file ran on (its meta arrives with the
  // follower's batches and grows: the device after the program's first CUDA context), not the
  // window's own settings.
  const auto store = frame_.panelHub()->store();
  if (!store || !loader_->isFollowing() || store->meta_version() == follow_meta_version_) return;
  follow_meta_version_ = store->meta_version();
  shown_meta_ = store->meta();
  showSessionSettings(QFileInfo(load_label_->property("path").toString()).fileName());
}

void SessionsController::showLoadedSession(const SessionReplay& r) {
  load_box_->hide();
  frame_.panelHub()->setLive(false);
  frame_.charts()->reset(r.info);
  for (const auto& u : r.updates) frame_.charts()->addUpdate(u);
  for (const auto& e : r.epochs) frame_.charts()->addEpoch(e);
  frame_.charts()->finish(r.outcome);
  details_->setPlainText(r.details);
  before_open_ = {};
  if (r.incomplete)
    frame_.verdictPanel()->setSourceNote(tr("From an incomplete file (it ends early): verdicts cover the events read"));
  if (r.warning_count > 0)
    frame_.showMessage(tr("%1 opened with %n warning(s): %2", nullptr, r.warning_count).arg(QFileInfo(r.path).fileName(), r.warnings),
                false);
  shown_meta_ = r.store ? r.store->meta() : std::map<std::string, std::string>{};
  showSessionSettings(QFileInfo(r.path).fileName());
  const QString name = QFileInfo(r.path).fileName();
  frame_.frameWindow()->setWindowTitle(tr("%1 — TrainScope").arg(name));
  // Short: the status bar's permanent labels sit to its right and a long message ran under them.
  frame_.showStatus(r.updates.empty() && r.epochs.empty()
                               ? tr("Opened %1").arg(name)
                               : tr("Session %1: %2 steps with a loss, %3 epoch(s)").arg(name).arg(r.updates.size()).arg(r.epochs.size()));
  addRecentSession(QFileInfo(r.path).absoluteFilePath());
  frame_.updateActions();
  emit sessionOpened(r.path);
}

void SessionsController::restoreBeforeOpen() {
  load_box_->hide();
  // The session shown before stays as it was: every panel reads its store again, at the range the
  // user had (Fit all, a zoom) and with its highlight, in the workspace the open left (the title,
  // charts, details and settings were not touched by the load).
  if (before_open_.store) {
    frame_.panelHub()->restoreStore(before_open_.store, before_open_.view);
    frame_.verdictPanel()->setSourceNote(before_open_.note);
  } else {
    frame_.panelHub()->clear();
  }
  if (before_open_.mode) frame_.workspaces()->setMode(*before_open_.mode);
  before_open_ = {};
}

void SessionsController::showPlaygroundSession(const QString& path, std::shared_ptr<lessons::PlainSession> plain) {
  // Not a training session: the Profile panels keep what they showed; the Playground workspace shows
  // the run from the loader's decompressed copy (no second decompression).
  restoreBeforeOpen();
  frame_.workspaces()->setMode(Workspaces::Mode::playground);
  if (!frame_.playground()->openSession(path, std::move(plain))) frame_.showMessage(frame_.playground()->statusText(), true);
  frame_.updateActions();
}

void SessionsController::sessionLoadFailed(const QString& message, bool cancelled) {
  restoreBeforeOpen();
  if (cancelled) frame_.showStatus(tr("Opening the session was cancelled"), 5000);
  else frame_.showMessage(message, true);
  frame_.updateActions();
  emit sessionFailed(message, cancelled);
}

QStringList SessionsController::droppedSessions(const QMimeData* mime) {
  QStringList out;
  if (!mime || !mime->hasUrls()) return out;
  for (const QUrl& url : mime->urls())
    if (url.isLocalFile() && (url.toLocalFile().endsWith(".tsession", Qt::CaseInsensitive) || is_compressed_session(url.toLocalFile()) ||
                              prof::import::is_trace_path(url.toLocalFile().toStdString())))
      out << url.toLocalFile();
  return out;
}

void SessionsController::compareSessions(const QStringList& paths) {
  if (!compare_) {
    compare_ = new CompareView(frame_.frameWindow());
    compare_->setWindowFlag(Qt::Window);
    compare_->setWindowTitle(tr("Compare sessions — TrainScope"));
    compare_->setCudaGpuHere(!frame_.gpus().empty());  // its fixes in the Verdicts tab's words
    frame_.fitToolWindow(compare_, QSize(1400, 900));
  }
  compare_->openSessions(paths);
  compare_->show();
  compare_->raise();
}

QString SessionsController::sessionFileFilter() {
  // A lesson's recorded sessions are compressed (trainscope-run --lesson-compress: ID.tsession.zst).
  return tr("Sessions and traces (*.tsession *.tsession.zst *.json *.json.gz *.sqlite);;"
            "TrainScope sessions (*.tsession *.tsession.zst);;"
            "PyTorch profiler / Chrome traces (*.json *.json.gz);;"
            "Nsight Systems SQLite exports (*.sqlite);;All files (*)");
}

void SessionsController::chooseSessionsToCompare() {
  const QStringList paths = QFileDialog::getOpenFileNames(
      frame_.frameWindow(), tr("Compare sessions (choose two or more)"), default_session_dir(), sessionFileFilter());
  if (paths.size() >= 2) compareSessions(paths);
  else if (paths.size() == 1) frame_.showMessage(tr("Choose two or more sessions to compare (Ctrl+click to pick several)"), false);
}

bool SessionsController::saveSessionAs(const QString& path) {
  if (last_session_.isEmpty() || path.isEmpty()) return false;
  if (QFileInfo(path).absoluteFilePath() == QFileInfo(last_session_).absoluteFilePath()) return true;
  if (QFile::exists(path) && !QFile::remove(path)) {
    frame_.showMessage(tr("Cannot replace %1").arg(path), true);
    return false;
  }
  if (!QFile::copy(last_session_, path)) {
    frame_.showMessage(tr("Cannot save the session to %1 (copying %2 failed)").arg(path, last_session_), true);
    return false;
  }
  frame_.showStatus(tr("Session saved to %1").arg(path), 5000);
  addRecentSession(QFileInfo(path).absoluteFilePath());
  return true;
}

void SessionsController::chooseSessionToOpen() {
  const QString path = QFileDialog::getOpenFileName(frame_.frameWindow(), tr("Open session"), default_session_dir(),
                                                    sessionFileFilter());
  if (!path.isEmpty()) openSession(path);
}

void SessionsController::chooseSessionToSave() {
  if (last_session_.isEmpty()) return;
  QString path = QFileDialog::getSaveFileName(frame_.frameWindow(), tr("Save session as"), QFileInfo(last_session_).fileName(),
                                              tr("TrainScope sessions (*.tsession)"));
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) path += ".tsession";
  saveSessionAs(path);
}

void SessionsController::addRecentSession(const QString& path) {
  QSettings s;
  QStringList list = s.value(kRecentKey).toStringList();
  list.removeAll(path);
  list.prepend(path);
  while (list.size() > kRecentSessions) list.removeLast();
  s.setValue(kRecentKey, list);
  rebuildRecentSessions();
}

void SessionsController::rebuildRecentSessions() {
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

void SessionsController::openRecentSession(const QString& path) {
  if (!QFileInfo::exists(path)) {
    QSettings s;
    QStringList list = s.value(kRecentKey).toStringList();
    list.removeAll(path);
    s.setValue(kRecentKey, list);
    rebuildRecentSessions();
    frame_.showMessage(tr("Session file %1 no longer exists: removed from Recent sessions").arg(path), true);
    return;
  }
  openSession(path);
}

void SessionsController::runFinished(const RunOutcome& o) {
  if (!o.session_path.isEmpty() && QFileInfo::exists(o.session_path)) last_session_ = o.session_path;
  // Session details of the run just recorded (they were empty until the file was opened).
  if (const auto store = frame_.panelHub()->store()) details_->setPlainText(describe_session(store->meta(), o.session_path));
}

void SessionsController::updateActions(bool running) {
  const bool loading = isLoading();
  open_->setEnabled(!running && !loading);
  recent_->setEnabled(!running && !loading);
  run_again_->setEnabled(!running && !loading && !shown_name_.isEmpty() &&
                         settings_from_session(shown_meta_, RunSettings{}).has_value());
  save_->setEnabled(!running && !last_session_.isEmpty());
  save_->setToolTip(!last_session_.isEmpty() ? tr("Save a copy of the last run's session (%1)").arg(last_session_)
                                             : tr("Available once a run has finished recording a session "
                                                  "(Run settings ▸ Record session)"));
}

namespace {
QString meta_text(const std::map<std::string, std::string>& meta, const char* key) {
  auto it = meta.find(key);
  return it == meta.end() ? QString() : QString::fromStdString(it->second);
}
}  // namespace

void SessionsController::showSessionSettings(const QString& name) {
  shown_name_ = name;
  const auto s = settings_from_session(shown_meta_, frame_.runSettings()->settings());
  if (!s) {
    showOwnSettings();
    const bool trace = shown_meta_.count("import.format") > 0;
    frame_.runSettings()->showNoSessionSettings(name, trace ? tr("a PyTorch / Chrome trace records no TrainScope run settings")
                                                 : tr("this session has no recorded run settings"));
    frame_.updateIdleStatus();
    frame_.updateActions();
    return;
  }
  if (const auto model = model_from_session(shown_meta_)) {
    if (!showing_model_) own_model_ = frame_.modelBuilder()->spec();
    showing_model_ = true;
    frame_.modelBuilder()->model()->setSpec(*model);
  }
  const QString device = meta_text(shown_meta_, "device.name");
  frame_.runSettings()->showSession(*s, name, device.isEmpty() ? tr("CUDA %1").arg(s->cuda_device) : device);
  frame_.updateIdleStatus();
  frame_.updateActions();
}

void SessionsController::showOwnSettings() {
  frame_.runSettings()->showOwn();
  if (showing_model_) frame_.modelBuilder()->model()->setSpec(own_model_);
  showing_model_ = false;
  frame_.updateActions();
}

void SessionsController::showJobRank(const std::map<std::string, std::string>& meta, int rank) {
  // The job replaces a session shown before it (nothing of it to run again or save).
  shown_meta_.clear();
  shown_name_.clear();
  job_meta_ = meta;
  job_whose_ = tr("rank %1 of the job").arg(rank);
  frame_.updateIdleStatus();
  frame_.updateActions();
}

bool SessionsController::showShownStatus() {
  const bool job = shown_name_.isEmpty() && !job_whose_.isEmpty();
  if (shown_name_.isEmpty() && !job) return false;
  const std::map<std::string, std::string>& meta = job ? job_meta_ : shown_meta_;
  // The form holds the user's settings again (a session's recorded ones were left): its values, by
  // MainWindow::updateIdleStatus. A trace or a job records none, so its labels stay its own.
  if (!job && !frame_.runSettings()->showingSession() && settings_from_session(meta, RunSettings{})) return false;
  const StatusLabels labels = frame_.statusLabels();
  const bool trace = meta.count("import.format") > 0;
  const QString whose = job ? job_whose_ : trace ? tr("trace") : tr("session");
  QString device = meta_text(meta, "device.name");
  if (device.isEmpty()) device = meta_text(meta, "device.kind") == "cpu" ? tr("CPU") : tr("not recorded");
  labels.device->setText(tr("device: %1 (%2)").arg(device, whose) +
                         simulated_card_status(prof::analysis::run_config(meta).memory_limit_bytes));
  labels.device->setToolTip(tr("What the shown %1 ran on").arg(whose));
  // The shown session's own run.config (the form shows the same, read only).
  if (const auto recorded = settings_from_session(meta, RunSettings{})) {
    const RunSettings& s = *recorded;
    for (QLabel* l : {labels.batch, labels.amp, labels.workers}) l->setToolTip(tr("Recorded in the %1").arg(whose));
    labels.batch->setText(tr("batch size %1").arg(s.batch_size));
    labels.amp->setText(amp_status(s.amp, s.accumulate, s.deterministic));
    labels.workers->setText(tr("num_workers %1%2").arg(s.num_workers).arg(s.pin_memory ? ", pinned" : ""));
  } else {
    for (QLabel* l : {labels.batch, labels.amp, labels.workers}) l->setToolTip(tr("Not recorded in the %1").arg(whose));
    labels.batch->setText(tr("batch size: not recorded"));
    labels.amp->setText(tr("AMP: not recorded"));
    labels.workers->setText(tr("num_workers: not recorded"));
  }
  return true;
}

bool SessionsController::runAgainWithSessionSettings() {
  QStringList changed;
  if (!loadSessionSettings(nullptr, &changed)) return false;
  if (changed.isEmpty())
    frame_.showStatus(tr("The session's model and settings are loaded: press Start to run them again"), 8000);
  else
    frame_.showMessage(tr("The session's model and settings are loaded, except: %1").arg(changed.join("; ")), false);
  return true;
}

bool SessionsController::loadSessionSettings(QStringList* notes) { return loadSessionSettings(notes, nullptr); }

bool SessionsController::loadSessionSettings(QStringList* notes, QStringList* sentences) {
  if (frame_.running()) return false;
  auto recorded = settings_from_session(shown_meta_, frame_.runSettings()->settings());
  if (!recorded) return false;
  const auto model = model_from_session(shown_meta_);
  showOwnSettings();  // the user's own settings are the base for what cannot be kept
  const RunSettings own = frame_.runSettings()->settings();
  RunSettings next = *recorded;
  // Each exception twice: a sentence for Run again's own message, a short note for a caller's line.
  QStringList changed, short_notes;
  if (next.device == Device::cuda && frame_.gpus().empty()) {
    next.device = Device::cpu;
    changed << tr("device: the session ran on %1; this machine has no usable GPU (%2), so the CPU backend runs it")
                   .arg(meta_text(shown_meta_, "device.name").isEmpty() ? tr("CUDA") : meta_text(shown_meta_, "device.name"),
                        frame_.noGpuReason());
    short_notes << tr("device CUDA → CPU: no CUDA GPU on this machine");
  } else if (next.device == Device::cuda && next.cuda_device >= static_cast<int>(frame_.gpus().size())) {
    changed << tr("device: CUDA %1 is not on this machine; CUDA 0 runs it").arg(next.cuda_device);
    short_notes << tr("device CUDA %1 → CUDA 0: not on this machine").arg(next.cuda_device);
    next.cuda_device = 0;
  }
  const QString data = recorded_data(shown_meta_);
  if (!data.isEmpty() && data != "sample" && !QFileInfo(data).isDir()) {
    changed << tr("data: %1 is not on this machine; your choice is kept (%2)")
                   .arg(data, own.data_dir.isEmpty() ? tr("the sample set") : own.data_dir);
    short_notes << tr("data: the recorded folder is not here, yours is kept");
  }
  if (const QString why = amp_unavailable_reason(next.device, next.amp); next.amp != AmpMode::off && !why.isEmpty()) {
    changed << tr("AMP: %1").arg(why);
    short_notes << tr("AMP %1 → off: %2")
                       .arg(amp_mode_name(next.amp))
                       .arg(frame_.gpus().empty() ? tr("no CUDA GPU on this machine") : tr("not on the CPU backend"));
    next.amp = AmpMode::off;
  }
  if (model) frame_.modelBuilder()->model()->setSpec(*model);
  frame_.runSettings()->setSettings(next);
  frame_.workspaces()->setMode(frame_.workspaces()->mode() == Workspaces::Mode::profile || frame_.workspaces()->mode() == Workspaces::Mode::playground
                           ? Workspaces::Mode::train
                           : frame_.workspaces()->mode());
  if (notes) *notes = short_notes;
  if (sentences) *sentences = changed;
  frame_.updateActions();
  return true;
}

}  // namespace ts::gui
