// MainWindow: the frame (workspaces, menus assembled from the feature controllers' actions, the
// message bar, the status bar) and the run's life cycle as the GUI sees it.
#include "app/gui/main_window.h"
#include "widgets/panels/panel_hub.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QDateTime>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenuBar>
#include <QGuiApplication>
#include <QScreen>
#include <QSettings>
#include <QLayout>
#include <QStatusBar>
#include <QStyle>
#include <QPointer>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QWindow>
#include <algorithm>

#include "doctor/host.h"
#include "engine/memory.h"
#include "widgets/data/cifar_download.h"
#include "widgets/common/elided_label.h"
#include "widgets/model/layer_table_model.h"
#include "widgets/main/checkpoints_controller.h"
#include "widgets/main/export_controller.h"
#include "widgets/main/lessons_controller.h"
#include "widgets/main/program_controller.h"
#include "widgets/job/job_timelines.h"
#include "widgets/main/job_controller.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/main/setups_controller.h"
#include "widgets/main/shortcuts.h"
#include "widgets/model/model_builder.h"
#include "widgets/panels/verdict_panel.h"
#include "widgets/training/run_settings.h"
#include "widgets/training/training_charts.h"
#include "widgets/playground/playground_workspace.h"
#include "widgets/workspaces/train_workspace.h"
#include "widgets/workspaces/workspaces.h"

namespace ts::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), session_(new TrainingSession(this)), hub_(new PanelHub(this)) {
  setWindowTitle(tr("TrainScope"));
  setObjectName("TrainScopeMainWindow");
  std::string why;
  gpus_ = list_cuda_devices();
  if (gpus_.empty()) {
    cuda_available(&why);
    // In the doctor's words where the PCI bus says more: no NVIDIA device at all is a state, not a
    // fault (the runtime's cudaErrorInsufficientDriver, "CUDA driver version is insufficient", read
    // as a driver to update on a laptop without an NVIDIA GPU, beside the doctor's "nothing wrong").
    no_gpu_hardware_ = doctor::no_nvidia_device();
    no_gpu_reason_ = no_gpu_hardware_ ? tr("no NVIDIA GPU on this machine")
                                      : QString::fromStdString(why.empty() ? "no CUDA device found" : why);
  }
  model_ = new ModelBuilder;
  settings_ = new RunSettingsPanel(gpus_, no_gpu_reason_);
  charts_ = new TrainingCharts;
  buildActions();
  buildWorkspaces();
  buildStatusBar();

  connect(model_, &ModelBuilder::validityChanged, this, &MainWindow::updateActions);
  connect(settings_, &RunSettingsPanel::dataChanged, this, &MainWindow::updateActions);
  connect(settings_->download(), &CifarDownload::failed, this, &MainWindow::updateActions);
  connect(session_, &TrainingSession::started, this, &MainWindow::onStarted);
  connect(session_, &TrainingSession::progress, charts_, &TrainingCharts::addUpdate);
  connect(session_, &TrainingSession::epochFinished, charts_, &TrainingCharts::addEpoch);
  connect(session_, &TrainingSession::finished, this, &MainWindow::onFinished);
  connect(session_, &TrainingSession::recordingStarted, hub_,
          [this](std::shared_ptr<const prof::EventStore> store) { hub_->setStore(std::move(store), true); });
  connect(session_, &TrainingSession::finished, hub_, [this] { hub_->setLive(false); });
  connect(settings_, &RunSettingsPanel::settingsChanged, this, &MainWindow::updateIdleStatus);
  connect(settings_, &RunSettingsPanel::runAgainRequested, sessions_, &SessionsController::runAgainWithSessionSettings);
  connect(settings_, &RunSettingsPanel::ownSettingsRequested, this, [this] {
    sessions_->showOwnSettings();
    updateIdleStatus();
  });
  connect(session_, &TrainingSession::engineMessage, this, [this](const QString& text) { showStatus(text, 10000); });
  connect(session_, &TrainingSession::progress, this, [this] {
    if (charts_->lossScale() > 0)
      amp_label_->setText(amp_text_ + tr(" · scale %1 · %2 skipped")
                                          .arg(static_cast<double>(charts_->lossScale()), 0, 'g', 6)
                                          .arg(charts_->skippedSteps().size()));
  });
  connectFixes();
  connect(session_, &TrainingSession::pausedChanged, this, [this](bool paused) {
    pause_->setText(paused ? tr("Resume") : tr("Pause"));
    showStatus(paused ? tr("Paused between steps") : tr("Resumed"), 3000);
  });

  setAcceptDrops(true);
  QSettings s;
  const bool restored = restoreGeometry(s.value("window/geometry").toByteArray());
  restoreState(s.value("window/state").toByteArray());  // the toolbars
  // Rows with a life of their own: a state saved while they showed must not bring them back empty.
  message_bar_->hide();
  workspaces_->restoreSettings();
  showVerdictRow();
  fitToScreen(!restored);
  applyPreferences();
  if (gpus_.empty())
    showMessage(no_gpu_hardware_ ? tr("No NVIDIA GPU on this machine: runs use the CPU backend (oneDNN).")
                                 : tr("No usable GPU (%1): runs use the CPU backend (oneDNN).").arg(no_gpu_reason_),
                false);
  updateActions();
}

MainWindow::~MainWindow() {
  // The controllers go first, while the frame they call is whole: what the window's own teardown
  // deletes later (the loader's thread, a profiled program, the tool windows) finds them disconnected.
  delete exports_;
  delete program_;
  delete setups_;
  delete lessons_;
  delete checkpoints_;
  delete sessions_;
}

void MainWindow::buildWorkspaces() {
  auto* train = new TrainWorkspace(model_, settings_, charts_);
  workspaces_ = new Workspaces(train, buildProfileWorkspace(), this);
  connect(workspaces_, &Workspaces::modeChanged, this, &MainWindow::showVerdictRow);
  playground_ = new PlaygroundWorkspace(!gpus_.empty(), no_gpu_reason_);
  workspaces_->setPlayground(playground_);
  setCentralWidget(workspaces_);
  buildViewMenu();
  // The workspace switch leads the first toolbar row (Qt Creator's mode selector, as a row).
  auto* bar = new QToolBar(tr("Workspace"), this);
  bar->setObjectName("toolbar.workspace");
  bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
  for (QAction* a : workspaces_->modeActions()) bar->addAction(a);
  insertToolBar(findChild<QToolBar*>("toolbar.run"), bar);
  lessons_->buildMenu(menuBar()->addMenu(tr("&Lessons")));
  auto* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(doctor_);
  help->addAction(about_);
}

void MainWindow::showVerdictRow() {
  // The row shows while the banner has something to say, and not in the Playground: a training run's
  // verdict says nothing about the kernels shown there.
  if (auto* row = findChild<QToolBar*>("toolbar.verdict"))
    row->setVisible(banner_->hasContent() && (!workspaces_ || workspaces_->mode() != Workspaces::Mode::playground));
}

namespace {
/// Fits a tool window's frame into the screen's available area after each show: a window manager's
/// frame (its title bar) pushed the bottom of a client sized to the whole area off a 1280x720
/// screen (the lesson window). A few looks while the window manager settles, from the show on (timed
/// from the window's creation, they ran out before a lesson that took a while to open was shown, and
/// a window shown again was never fitted).
class FrameFitter : public QObject {
 public:
  explicit FrameFitter(QWidget* tool) : QObject(tool), tool_(tool) {
    setObjectName(QStringLiteral("frame_fitter"));
    tool->installEventFilter(this);
  }

 protected:
  bool eventFilter(QObject* o, QEvent* e) override {
    if (o == tool_ && e->type() == QEvent::Show)
      for (int ms : {0, 150, 400, 900, 1800}) QTimer::singleShot(ms, this, [this] { fit(); });
    return QObject::eventFilter(o, e);
  }

 private:
  void fit() {
    QWidget* t = tool_;
    if (!t || !t->isVisible() || !t->windowHandle() || t->isMaximized() || t->isFullScreen()) return;
    const QScreen* s = t->screen();
    const QMargins frame = t->windowHandle()->frameMargins();
    if (!s || s->availableGeometry().contains(t->frameGeometry())) return;
    t->setGeometry(fit_window_geometry(s->availableGeometry(), frame, t->geometry(), t->minimumSizeHint(), false));
  }
  QPointer<QWidget> tool_;
};
}  // namespace

void MainWindow::fitToolWindow(QWidget* w, QSize want) const {
  const QScreen* scr = screen() ? screen() : QGuiApplication::primaryScreen();
  const QSize avail = scr ? scr->availableGeometry().size() : want;
  w->resize(want.boundedTo(avail).expandedTo(w->minimumSizeHint()).boundedTo(avail));
  if (!w->findChild<QObject*>(QStringLiteral("frame_fitter"), Qt::FindDirectChildrenOnly)) new FrameFitter(w);
}

void MainWindow::showOverFrame(QWidget* w) const {
  if (!w->findChild<QObject*>(QStringLiteral("frame_fitter"), Qt::FindDirectChildrenOnly)) new FrameFitter(w);
  // The window's place on its screen, so that the tool window fills the screen as the window does: a
  // lesson sized on its own opened at 1600x1000 in the corner of a 1920x1080 screen, beside a window
  // centred there or maximized.
  const QScreen* scr = screen() ? screen() : QGuiApplication::primaryScreen();
  const QRect avail = scr ? scr->availableGeometry() : normalGeometry();
  QRect g = isMaximized() || isFullScreen() ? normalGeometry() : geometry();  // a maximized one: its size once restored
  g.setSize(g.size().expandedTo(w->minimumSizeHint()).boundedTo(avail.size()));
  w->setGeometry(g);
  if (isMaximized() || isFullScreen()) w->showMaximized();
  else w->showNormal();
}

QRect fit_window_geometry(const QRect& avail, const QMargins& frame, const QRect& client, QSize minimum, bool center) {
  const QSize room = avail.size().shrunkBy(frame);
  // The area wins over the minimum: a screen smaller than the window's minimum gets the whole area
  // (Qt raises it to the minimum at the show; the title bar stays on the screen).
  const QSize size = client.size().boundedTo(room).expandedTo(minimum).boundedTo(room);
  QRect out(client.topLeft(), size);
  const QRect framed = out.marginsAdded(frame);
  QPoint at = framed.topLeft();
  if (center) {
    at = avail.topLeft() + QPoint((avail.width() - framed.width()) / 2, (avail.height() - framed.height()) / 2);
  } else {  // only as far as needed; a frame larger than the area keeps its top left (the title bar) in
    at.setX(std::max(avail.left(), std::min(at.x(), avail.right() + 1 - framed.width())));
    at.setY(std::max(avail.top(), std::min(at.y(), avail.bottom() + 1 - framed.height())));
  }
  at = QPoint(std::max(at.x(), avail.left()), std::max(at.y(), avail.top()));
  out.moveTopLeft(at + QPoint(frame.left(), frame.top()));
  return out;
}

void MainWindow::fitToScreen(bool first_run) {
  const QScreen* scr = screen() ? screen() : QGuiApplication::primaryScreen();
  if (!scr) return;
  first_run_ = first_run;
  // First run: 1600x1000 where it fits, else the whole available area (a laptop, a 1280x720
  // projector). The frame is not known before the window is mapped: fitFrameToScreen() fits again.
  const QRect client(geometry().topLeft(), first_run ? QSize(1600, 1000) : size());
  const QMargins frame = windowHandle() ? windowHandle()->frameMargins() : QMargins();
  const QRect avail = scr->availableGeometry();
  const bool off = !avail.intersects(frameGeometry());
  setGeometry(fit_window_geometry(avail, frame, client, minimumSizeHint(), first_run || off));
}

void MainWindow::fitFrameToScreen() {
  const QScreen* scr = screen();
  if (!scr || !windowHandle() || isMaximized() || isFullScreen()) return;
  const QMargins frame = windowHandle()->frameMargins();
  if (frame.isNull() || frame == fitted_frame_) return;
  fitted_frame_ = frame;
  const QRect avail = scr->availableGeometry();
  if (avail.contains(frameGeometry())) return;
  setGeometry(fit_window_geometry(avail, frame, geometry(), minimumSizeHint(), first_run_));
}

bool MainWindow::event(QEvent* e) {
  const bool r = QMainWindow::event(e);
  if (e->type() == QEvent::Show && !shown_clock_.isValid()) {
    shown_clock_.start();
    // A window manager reparents the window into its frame after the show, without a move when it
    // keeps the client where it was asked (openbox: the title bar above the screen's top): look
    // again a few times while it settles.
    for (int ms : {100, 300, 700, 1500}) QTimer::singleShot(ms, this, &MainWindow::fitFrameToScreen);
  }
  // The moves and resizes of the first two seconds may carry the frame's margins too.
  const bool geometry = e->type() == QEvent::Show || e->type() == QEvent::Move || e->type() == QEvent::Resize;
  if (geometry && shown_clock_.isValid() && shown_clock_.elapsed() < 2000)
    QTimer::singleShot(0, this, &MainWindow::fitFrameToScreen);
  return r;
}

void MainWindow::buildActions() {
  auto* st = style();
  new_run_ = new QAction(st->standardIcon(QStyle::SP_FileIcon), tr("&New run"), this);
  set_shortcut(new_run_, ShortcutId::new_run);
  new_run_->setToolTip(tr("Clear the charts and the message for a new run (settings are kept)"));
  start_ = new QAction(st->standardIcon(QStyle::SP_MediaPlay), tr("&Start"), this);
  set_shortcut(start_, ShortcutId::start_run);
  pause_ = new QAction(st->standardIcon(QStyle::SP_MediaPause), tr("Pause"), this);
  stop_ = new QAction(st->standardIcon(QStyle::SP_MediaStop), tr("S&top"), this);
  stop_->setToolTip(tr("Stop after the current step"));
  prefs_ = new QAction(tr("&Preferences…"), this);
  set_shortcut(prefs_, ShortcutId::preferences);
  about_ = new QAction(tr("&About TrainScope"), this);
  doctor_ = new QAction(tr("Environment &doctor…"), this);
  doctor_->setToolTip(tr("Check the driver, CUDA, cuDNN, CUPTI permissions and each GPU's health"));
  quit_ = new QAction(tr("&Quit"), this);
  set_shortcut(quit_, ShortcutId::quit);
  reset_layout_ = new QAction(tr("Reset layout"), this);

  connect(new_run_, &QAction::triggered, this, &MainWindow::newRun);
  connect(start_, &QAction::triggered, this, &MainWindow::startRun);
  connect(pause_, &QAction::triggered, this, [this] { session_->isPaused() ? session_->resume() : session_->pause(); });
  connect(stop_, &QAction::triggered, this, [this] {
    session_->stop();
    showStatus(tr("Stopping after the current step…"));
  });
  connect(prefs_, &QAction::triggered, this, &MainWindow::showPreferences);
  connect(about_, &QAction::triggered, this, &MainWindow::showAbout);
  connect(doctor_, &QAction::triggered, this, &MainWindow::showDoctor);
  connect(quit_, &QAction::triggered, this, &QWidget::close);
  connect(reset_layout_, &QAction::triggered, this, [this] { workspaces_->resetLayout(); });

  // The feature controllers (widgets/main), whose actions the menus below are assembled from.
  sessions_ = new SessionsController(*this, this);
  checkpoints_ = new CheckpointsController(*this, this);
  lessons_ = new LessonsController(*this, this);
  setups_ = new SetupsController(*this, *sessions_, *lessons_, this);
  program_ = new ProgramController(*this, *sessions_, this);
  exports_ = new ExportController(*this, *sessions_, this);
  jobs_ = new JobController(*this, this);
  connect(sessions_, &SessionsController::sessionOpened, jobs_, &JobController::leaveJob);
  // The status bar says what the job's rank in the analysis tabs ran on (not this machine's next run).
  connect(jobs_, &JobController::jobOpened, this, [this] {
    if (const prof::job::Job* job = jobs_->job(); job && jobs_->timelines()->count() > 0)
      for (const auto& f : job->ranks)
        if (f.rank == jobs_->timelines()->rankAt(0) && f.store) sessions_->showJobRank(f.store->meta(), f.rank);
  });
  connect(jobs_, &JobController::notAJob, sessions_, &SessionsController::compareSessions);
  auto* file = menuBar()->addMenu(tr("&File"));
  file->addAction(new_run_);
  file->addSeparator();
  file->addAction(sessions_->openAction());
  file->addAction(jobs_->openAction());
  file->addMenu(sessions_->recentMenu());
  file->addAction(sessions_->saveAction());
  file->addAction(sessions_->runAgainAction());
  file->addAction(sessions_->compareAction());
  program_->buildActions(file);
  file->addMenu(exports_->buildMenu());
  file->addSeparator();
  setups_->buildActions(file);
  file->addSeparator();
  file->addAction(prefs_);
  file->addSeparator();
  file->addAction(quit_);
  auto* run = menuBar()->addMenu(tr("&Run"));
  for (auto* a : {start_, pause_, stop_}) run->addAction(a);
  run->addSeparator();
  run->addAction(checkpoints_->saveAction());
  run->addAction(checkpoints_->resumeAction());

  auto* bar = addToolBar(tr("Run"));
  bar->setObjectName("toolbar.run");
  bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  bar->setIconSize(QSize(16, 16));  // a row of ~30 px: height the lanes need on a small screen
  for (auto* a : {new_run_, start_, pause_, stop_}) bar->addAction(a);

  addToolBarBreak();
  message_bar_ = addToolBar(tr("Messages"));
  message_bar_->setObjectName("toolbar.messages");
  message_bar_->setMovable(false);
  message_bar_->setIconSize(QSize(16, 16));
  // The label's width is ignored inside an expanding holder: a long message wraps on up to four
  // lines (a damaged file's message names the file twice and was cut at 1280 px before its advice),
  // and only a longer one is cut at a word; the whole text is the tooltip.
  auto* holder = new QWidget;
  holder->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  auto* holder_layout = new QHBoxLayout(holder);
  holder_layout->setContentsMargins(0, 0, 0, 0);
  message_label_ = new ElidedLabel;  // cut at a word with "…", never inside one
  message_label_->setObjectName("message");
  message_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message_label_->setContentsMargins(4, 1, 4, 1);
  message_label_->setMaxLines(kMessageLines);
  // Colours by palette (showMessage), not a style sheet: a style sheet fixes a widget's font at the
  // size it had, and the bar stayed at the desktop's size in classroom mode.
  message_bar_->setAutoFillBackground(true);
  message_bar_->setContentsMargins(0, 0, 0, 0);
  holder_layout->addWidget(message_label_);
  message_bar_->addWidget(holder);
  auto* dismiss = new QAction(st->standardIcon(QStyle::SP_DialogCloseButton), tr("Dismiss"), this);
  connect(dismiss, &QAction::triggered, message_bar_, &QWidget::hide);
  message_bar_->addAction(dismiss);
  message_bar_->toggleViewAction()->setVisible(false);
  message_bar_->hide();
}

void MainWindow::buildStatusBar() {
  // Squeezable: the device's name and the AMP line ("· scale 65536 · 3 skipped") lengthen when a
  // run starts; cut with "…" instead of widening the window (the status bar's fields count in its
  // minimum width).
  device_label_ = new SqueezeLabel({}, 60);
  device_label_->setObjectName("status.device");
  batch_label_ = new SqueezeLabel({}, 40);
  amp_label_ = new SqueezeLabel({}, 40);
  workers_label_ = new SqueezeLabel({}, 40);
  elapsed_label_ = new SqueezeLabel(tr("elapsed –"), 40);
  for (auto* l : {device_label_, batch_label_, amp_label_, workers_label_, elapsed_label_}) {
    // QStatusBar draws a long temporary message without clipping it at the permanent widgets:
    // filled labels cover the overflow instead of being written over.
    l->setAutoFillBackground(true);
    l->setContentsMargins(6, 0, 0, 0);
    statusBar()->addPermanentWidget(l);
    l->installEventFilter(this);  // its resizes move the room a message has
  }
  statusBar()->installEventFilter(this);
  elapsed_timer_ = new QTimer(this);
  elapsed_timer_->setInterval(500);
  connect(elapsed_timer_, &QTimer::timeout, this, &MainWindow::tickElapsed);
  updateIdleStatus();
}

void MainWindow::updateIdleStatus() {
  if (running_) return;  // during a run the labels show the run's values
  if (sessions_->showShownStatus()) return;  // a shown session or trace: its own values
  // The form's settings: beside a shown session, named as the next run's (as the session's device
  // is named "(session)"), since the charts still show the session.
  const RunSettings s = settings_->settings();
  const bool beside = sessions_->showsSession();
  const QString tip = beside ? tr("What Run settings hold for the next run (not the shown session's)") : QString();
  device_label_->setText((s.device == Device::cuda ? tr("device: CUDA %1").arg(s.cuda_device) : tr("device: CPU")) +
                         (beside ? tr(" (next run)") : QString()) + simulated_card_status(memory_limit_bytes(s)));
  batch_label_->setText(tr("batch size %1").arg(s.batch_size));
  amp_label_->setText(amp_status(s.amp, s.accumulate, s.deterministic));
  workers_label_->setText(tr("num_workers %1%2").arg(s.num_workers).arg(pinned_status_text(s)));
  for (QLabel* l : {device_label_, batch_label_, workers_label_}) l->setToolTip(tip);
  const QString amp_why = settings_->ampUnavailableReason();
  amp_label_->setToolTip(amp_why.isEmpty() ? tip : amp_why);
}

QString MainWindow::statusText() const {
  return QStringList{device_label_->text(), batch_label_->text(), amp_label_->text(), workers_label_->text()}.join(" | ");
}

void MainWindow::tickElapsed() { showElapsed(run_clock_.isValid() ? (run_clock_.elapsed() + 500) / 1000 : 0); }

void MainWindow::showElapsed(qint64 s) {
  elapsed_label_->setText(tr("elapsed %1:%2").arg(s / 60).arg(s % 60, 2, 10, QChar('0')));
}

QString MainWindow::message() const { return message_bar_->isHidden() ? QString() : message_label_->fullText(); }

void MainWindow::showMessage(const QString& text, bool error) {
  message_label_->setFullText(text);
  // An error: dark red, bold, on pink; a warning: dark brown on pale yellow (both >= 7:1, in the
  // presenter palette too, which leaves roles set on a widget alone). The font sets its weight only,
  // so its size still follows the application font (classroom mode).
  QPalette lp = message_label_->palette();
  lp.setColor(QPalette::WindowText, error ? QColor(0x8a, 0x00, 0x00) : QColor(0x5a, 0x40, 0x00));
  message_label_->setPalette(lp);
  QFont weight;
  weight.setBold(error);
  message_label_->setFont(weight);
  QPalette bp = message_bar_->palette();
  bp.setColor(QPalette::Window, error ? QColor(0xff, 0xe0, 0xe0) : QColor(0xff, 0xf4, 0xd0));
  message_bar_->setPalette(bp);
  message_bar_->show();
}

void MainWindow::hideMessage() { message_bar_->hide(); }

void MainWindow::showStatus(const QString& text, int timeout_ms) {
  status_full_ = text;
  status_until_ = timeout_ms > 0 ? QDeadlineTimer(timeout_ms) : QDeadlineTimer(QDeadlineTimer::Forever);
  status_shown_.clear();
  status_fresh_ = true;
  elideStatus();
}

void MainWindow::elideStatus() {
  // Only the message showStatus put there (not one shown since by another path), while it lasts.
  if (status_full_.isEmpty() || (!status_fresh_ && statusBar()->currentMessage() != status_shown_)) return;
  status_fresh_ = false;
  const qint64 left = status_until_.isForever() ? 0 : status_until_.remainingTime();
  if (!status_until_.isForever() && left <= 0) return;
  // A temporary message is drawn up to the permanent labels and cut there mid-word ("…streams.sqlit"):
  // elided in the middle to the room left of them, so a file name keeps its end.
  // The room is what lies left of the first permanent label as laid out (a sum of the labels' widths
  // missed the bar's margins and spacing: a run's first line was drawn cut, "20 steps per epoc").
  // Their resizes elide the message again (eventFilter), so a label whose text just changed counts
  // once the layout has given it its width.
  int labels_x = statusBar()->width() - 24;
  for (auto* l : {device_label_, batch_label_, amp_label_, workers_label_, elapsed_label_})
    if (l && l->isVisible() && l->width() > 0) labels_x = std::min(labels_x, l->geometry().left());
  const int room = labels_x - 2 * statusBar()->layout()->spacing() - 6;  // the message's own padding
  // Where the labels leave almost nothing (classroom mode's font at 1280), an ellipsis or nothing:
  // never text under them.
  status_shown_ = statusBar()->fontMetrics().elidedText(status_full_, Qt::ElideMiddle, std::max(room, 0));
  statusBar()->showMessage(status_shown_, static_cast<int>(left));
}

bool MainWindow::eventFilter(QObject* o, QEvent* e) {
  // The room changes with the window's width, the labels' texts and the font (classroom mode):
  // elided again once the labels have their new widths.
  const bool bar = o == statusBar(), label = o->parent() == statusBar() && o->isWidgetType();
  if ((bar || label) && !status_full_.isEmpty() &&
      (e->type() == QEvent::Resize || e->type() == QEvent::FontChange || e->type() == QEvent::LayoutRequest))
    QTimer::singleShot(0, this, &MainWindow::elideStatus);
  return QMainWindow::eventFilter(o, e);
}

void MainWindow::addStatusWidget(QWidget* w) { statusBar()->addWidget(w); }

StatusLabels MainWindow::statusLabels() const { return {device_label_, batch_label_, amp_label_, workers_label_}; }

void MainWindow::updateActions() {
  const bool loading = sessions_->isLoading();
  const bool viewing = settings_->showingSession();  // the form shows a session's settings, read only
  const bool can_start = !running_ && !loading && !viewing && model_->isValid() && settings_->dataProblem().isEmpty() &&
                         !settings_->download()->isRunning();
  start_->setEnabled(can_start);
  start_->setToolTip(can_start ? tr("Start training")
                     : running_ ? tr("A run is in progress")
                     : loading  ? tr("A session is being opened (Cancel it in the status bar)")
                     : viewing  ? tr("Run settings show the opened session's (read only): Run again with these settings, "
                                     "or Use my settings, in the Train workspace")
                     : !model_->isValid() ? tr("The model is invalid: %1").arg(model_->model()->error())
                                          : tr("The dataset is not usable: %1").arg(settings_->dataProblem()));
  pause_->setEnabled(running_);
  stop_->setEnabled(running_);
  // Not while a session opens: its store fills the panels that New run would clear, and the load
  // would then show the session over the cleared window.
  new_run_->setEnabled(!running_ && !loading);
  new_run_->setToolTip(loading ? tr("A session is being opened (Cancel it in the status bar)")
                               : tr("Clear the charts and the message for a new run (settings are kept)"));
  checkpoints_->updateActions(running_, !viewing && model_->isValid() && settings_->dataProblem().isEmpty() &&
                                            !settings_->download()->isRunning());
  sessions_->updateActions(running_);
  model_->setEditable(!running_ && !viewing);
  settings_->setRunning(running_ || settings_->download()->isRunning());
}

void MainWindow::startRun() {
  if (running_ || !start_->isEnabled()) return;
  startWith(settings_->settings());
}

void MainWindow::startWith(const RunSettings& settings) {
  RunSettings s = settings;
  if (s.record_session)
    s.session_path = default_session_dir() + "trainscope-" +
                     QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss-zzz") + ".tsession";
  message_bar_->hide();
  charts_->starting();
  if (!session_->start(s, model_->spec())) return;
  sessions_->leaveShownSession();
  jobs_->leaveJob();
  running_ = true;
  run_clock_.start();
  elapsed_timer_->start();
  pause_->setText(tr("Pause"));
  device_label_->setText(tr("device: loading…"));
  batch_label_->setText(tr("batch size %1").arg(s.batch_size));
  workers_label_->setText(tr("num_workers %1%2").arg(s.num_workers).arg(pinned_status_text(s)));
  showStatus(s.resume_path.isEmpty() ? tr("Loading the data and building the network…")
                                     : tr("Resuming from %1…").arg(s.resume_path));
  updateActions();
}

void MainWindow::onStarted(const RunInfo& info) {
  charts_->reset(info);
  const QString dev = info.device.device == Device::cuda
                          ? tr("CUDA %1: %2").arg(info.device.ordinal).arg(QString::fromStdString(info.device.name))
                          : tr("CPU (%1 threads)").arg(info.device.cpu_threads);
  device_label_->setText(tr("device: %1").arg(dev) + simulated_card_status(info.memory_limit_bytes));
  amp_text_ = amp_status(info.amp, info.accumulate, info.deterministic);
  amp_label_->setText(amp_text_);
  amp_label_->setToolTip(tr("The run's mixed precision (the engine's AMP mode)"));
  // Every line goes through showStatus: elided to the room left of the permanent labels (this one
  // was cut under them at 1280, "20 steps per e").
  // The data's name last: elided in the middle, a narrow bar keeps "(generated, NOT CIFAR-10)".
  showStatus(tr("Training on %1 training / %2 test images (%3 steps per epoch) of %4")
                 .arg(info.train_images)
                 .arg(info.test_images)
                 .arg(info.steps_per_epoch)
                 .arg(info.data_description));
  if (!info.warnings.isEmpty()) showMessage(info.warnings.join("; "), false);
}

void MainWindow::onFinished(const RunOutcome& o) {
  running_ = false;
  elapsed_timer_->stop();
  // The run's own time, as the charts say it ("stopped after 21 s" stood beside "elapsed 0:20": the
  // window's clock, truncated).
  if (o.elapsed_s > 0) showElapsed(static_cast<qint64>(o.elapsed_s + 0.5));
  else tickElapsed();
  charts_->finish(o);
  sessions_->runFinished(o);
  if (!o.session_error.isEmpty() && o.kind != RunOutcome::failed) showMessage(o.session_error, false);
  if (o.kind == RunOutcome::failed) {
    showMessage(o.message + " — " + o.fix, true);
    showStatus(tr("The run failed"));
  } else if (o.kind == RunOutcome::stopped) {
    showStatus(tr("Stopped by the user after %1 epoch(s)").arg(o.summary.epochs.size()));
  } else {
    showStatus(tr("Done: test accuracy %1 %, %2 img/s")
                   .arg(100.0 * o.summary.test_accuracy, 0, 'f', 2)
                   .arg(o.summary.images_per_s, 0, 'f', 0));
  }
  updateActions();
}

void MainWindow::newRun() {
  if (running_ || sessions_->isLoading()) return;
  // Clean as at start-up: the last run's (or the shown session's) verdict banner, panels and
  // progress line would read as the new run's.
  charts_->clear();
  jobs_->leaveJob();
  sessions_->leaveShownSession();
  hub_->clear();
  message_bar_->hide();
  run_clock_.invalidate();
  tickElapsed();
  showStatus(tr("Ready: change the model or the settings, then Start"), 5000);
}

void MainWindow::closeEvent(QCloseEvent* e) {
  QSettings s;
  s.setValue("window/geometry", saveGeometry());
  s.setValue("window/state", saveState());
  workspaces_->saveSettings();
  session_->stop();
  QMainWindow::closeEvent(e);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (!running_ && (!SessionsController::droppedSessions(e->mimeData()).isEmpty() ||
                    !SetupsController::droppedSetup(e->mimeData()).isEmpty()))
    e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  if (const QString setup = SetupsController::droppedSetup(e->mimeData()); !setup.isEmpty()) {
    e->acceptProposedAction();
    setups_->openSetup(setup);
    return;
  }
  const QStringList files = SessionsController::droppedSessions(e->mimeData());
  if (files.isEmpty()) return;
  e->acceptProposedAction();
  // Several files: the ranks of one job open as the job, anything else side by side (the job's
  // loader reads them off the GUI thread and says notAJob, connected to Compare).
  if (files.size() >= 2) jobs_->openDropped(files);
  else sessions_->openSession(files.front());
}

}  // namespace ts::gui
