// JobController (see job_controller.h).
#include "widgets/main/job_controller.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "widgets/common/elided_label.h"
#include "widgets/common/wrap_tree.h"
#include "widgets/job/job_loader.h"
#include "widgets/job/job_ranks.h"
#include "widgets/job/job_timelines.h"
#include "widgets/main/main_frame.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/panels/verdict_panel.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/workspaces/profile_workspace.h"
#include "widgets/workspaces/workspaces.h"

namespace ts::gui {

namespace {

/// A job's name for the title bar: its folder's, or its first file's folder.
QString job_name(const QStringList& paths) {
  const QFileInfo f(paths.value(0));
  return f.isDir() ? f.fileName() : f.dir().dirName();
}

}  // namespace

JobController::JobController(MainFrame& frame, QObject* parent) : QObject(parent), frame_(frame) {
  open_ = new QAction(tr("Open &job…"), this);
  open_->setObjectName("action.openJob");
  open_->setToolTip(tr("Open a distributed job: the folder of its ranks' sessions or traces (torchrun, mpirun, "
                       "srun), shown as one job on one time axis"));
  connect(open_, &QAction::triggered, this, &JobController::chooseJob);
  loader_ = new JobLoader(this);
  connect(loader_, &JobLoader::progress, this, [this](qint64 done, qint64 total) {
    if (!load_bar_) return;
    load_bar_->setRange(0, static_cast<int>(std::max<qint64>(total, 1)));
    load_bar_->setValue(static_cast<int>(done));
  });
  connect(loader_, &JobLoader::loaded, this, &JobController::loaded);
  connect(loader_, &JobLoader::failed, this, &JobController::loadFailed);
}

JobController::~JobController() {
  // The widgets shown in place of the timeline and above the verdicts belong to the workspace's
  // widgets while shown; hand them back before they go.
  if (timeline_) timeline_->setAlternate(nullptr);
  if (frame_.verdictPanel()) frame_.verdictPanel()->setSection(nullptr);
  delete timelines_;
  delete section_;
}

QWidget* JobController::buildPage(TimelinePanel* timeline) {
  timeline_ = timeline;
  timelines_ = new JobTimelines;
  timelines_->hide();
  ranks_ = new JobRanks;
  section_ = new QWidget;
  section_->setObjectName("job.verdictSection");
  // Its height by the stretch it shares with the rank's verdicts, not by its rows (a long job
  // list's size hint took the whole tab).
  section_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Ignored);
  auto* lay = new QVBoxLayout(section_);
  lay->setContentsMargins(0, 0, 0, 4);
  // One line, cut at a word where narrow (the whole text is its tooltip): a word-wrapped label gave
  // the panel a height-for-width, and its tab's scroll area grew the panel to that height.
  auto* title = new ElidedLabel;
  title->setFullText(tr("Job verdicts (all ranks; per-rank figures: the Ranks tab). Below them, the verdicts of the "
                        "first rank drawn, as one session."));
  lay->addWidget(title);
  section_tree_ = new QTreeWidget;
  section_tree_->setObjectName("job.verdictsTab");
  section_tree_->setHeaderHidden(true);
  wrap_tree_items(section_tree_);  // evidence and fix wrap at the tab's width (they were cut with "…")
  // The job's tree and the first rank's share the tab's height (the verdict panel stretches both):
  // a fixed cap left the rank's list one row at 1280x720.
  section_tree_->setMinimumHeight(60);
  lay->addWidget(section_tree_, 1);
  section_->hide();
  return ranks_;
}

void JobController::chooseJob() {
  const QString dir = QFileDialog::getExistingDirectory(frame_.frameWindow(), tr("Open job (the folder of its ranks' files)"));
  if (!dir.isEmpty()) openJob({dir});
}

void JobController::buildLoadProgress() {
  load_box_ = new QWidget;
  load_box_->setObjectName("job.loadProgress");
  auto* row = new QHBoxLayout(load_box_);
  row->setContentsMargins(0, 0, 0, 0);
  load_label_ = new SqueezeLabel({}, 60);  // a long folder name is cut, not widening the window
  load_bar_ = new QProgressBar;
  load_bar_->setMaximumWidth(200);
  load_bar_->setFormat(tr("%v of %m files"));
  auto* cancel = new QPushButton(tr("Cancel"));
  cancel->setToolTip(tr("Stop opening the job; the one shown stays"));
  connect(cancel, &QPushButton::clicked, this, &JobController::cancelLoad);
  row->addWidget(load_label_);
  row->addWidget(load_bar_);
  row->addWidget(cancel);
  frame_.addStatusWidget(load_box_);
  load_box_->hide();
}

bool JobController::isLoading() const { return loader_->isLoading(); }

void JobController::cancelLoad() {
  dropped_.clear();
  loader_->cancel();
}

bool JobController::openJob(const QStringList& paths) {
  if (frame_.running()) {
    frame_.showMessage(tr("A run is going: open the job when it has ended"), true);
    return false;
  }
  startLoad(paths, false);
  return true;
}

void JobController::openDropped(const QStringList& files) {
  if (frame_.running()) return;
  startLoad(files, true);
}

void JobController::startLoad(const QStringList& paths, bool dropped) {
  dropped_ = dropped ? paths : QStringList();
  if (!load_box_) buildLoadProgress();
  load_label_->setText(tr("Opening job %1").arg(job_name(paths)));
  load_bar_->setRange(0, 0);  // busy until the first progress report
  load_box_->show();
  loader_->start(paths);  // one loading already: this one replaces it (the later one wins)
}

void JobController::loaded(const LoadedJob& loaded) {
  load_box_->hide();
  const bool dropped = !dropped_.isEmpty() && loaded.paths == dropped_;
  dropped_.clear();
  if (dropped && loaded.job->ranks.size() < 2) {
    emit notAJob(loaded.paths);
    return;
  }
  if (frame_.running()) {  // a run started while the job loaded: the run's panels stay
    frame_.showStatus(tr("The job opened while a run goes: not shown"), 5000);
    emit jobFailed(tr("a run is going"), true);
    return;
  }
  show(loaded);
}

void JobController::loadFailed(const QString& message, bool cancelled) {
  load_box_->hide();
  const QStringList dropped = dropped_;
  dropped_.clear();
  // The job shown before (if any) was not touched by the load: it stays as it was.
  if (!dropped.isEmpty() && !cancelled) {
    emit notAJob(dropped);  // no rank among the dropped files: sessions to compare
    return;
  }
  if (cancelled) frame_.showStatus(tr("Opening the job was cancelled"), 5000);
  else frame_.showMessage(tr("Cannot open the job: %1").arg(message), true);
  emit jobFailed(message, cancelled);
}

void JobController::show(const LoadedJob& loaded) {
  if (!timeline_) return;
  const QString name = job_name(loaded.paths);
  report_ = loaded.report;
  job_ = loaded.job;
  timelines_->setJob(job_, report_);
  ranks_->setJob(*job_, report_);
  fill_job_verdicts(section_tree_, report_);
  timeline_->setAlternate(timelines_);
  // The analysis tabs (Verdicts, Kernels, Layers ...) show the first rank drawn as a session.
  if (timelines_->count() > 0) {
    const std::int32_t first = timelines_->rankAt(0);
    for (const auto& f : job_->ranks)
      if (f.rank == first) frame_.panelHub()->setStore(f.store, false);
    if (VerdictPanel* v = frame_.verdictPanel()) {
      v->setSourceNote(tr("rank %1 of the job").arg(first));
      v->setBannerLead(job_banner_lead(report_));  // the job's finding leads the banner, the rank's follow
      v->setSection(section_);
    }
  }
  if (frame_.workspaces()) frame_.workspaces()->setMode(Workspaces::Mode::profile);
  frame_.frameWindow()->setWindowTitle(tr("%1 (job of %n rank(s)) — TrainScope", nullptr, static_cast<int>(job_->ranks.size())).arg(name));
  QStringList lines;
  for (const auto& p : job_->problems) lines << QString::fromStdString(p);
  if (lines.isEmpty()) frame_.hideMessage();
  else frame_.showMessage(lines.join('\n'), true);
  frame_.showStatus(tr("Job opened: %n rank(s)", nullptr, static_cast<int>(job_->ranks.size())), 5000);
  emit jobOpened();
}

void JobController::leaveJob() {
  if (!job_) return;
  if (timeline_) timeline_->setAlternate(nullptr);
  if (VerdictPanel* v = frame_.verdictPanel(); v && v->section() == section_) v->setSection(nullptr), v->setBannerLead({});
  timelines_->clear();
  ranks_->clear();
  section_tree_->clear();
  job_.reset();
  report_ = {};
}

}  // namespace ts::gui
