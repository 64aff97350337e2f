// JobController (see job_controller.h).
#include "widgets/main/job_controller.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <exception>

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

std::vector<std::string> std_paths(const QStringList& paths) {
  std::vector<std::string> out;
  for (const QString& p : paths) out.push_back(QDir::cleanPath(p).toStdString());
  return out;
}

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
  auto* lay = new QVBoxLayout(section_);
  lay->setContentsMargins(0, 0, 0, 4);
  auto* title = new QLabel(tr("<b>Job verdicts</b> (all ranks; per-rank figures: the Ranks tab). Below them, the "
                              "verdicts of the first rank drawn, as one session."));
  title->setWordWrap(true);
  lay->addWidget(title);
  section_tree_ = new QTreeWidget;
  section_tree_->setObjectName("job.verdictsTab");
  section_tree_->setHeaderHidden(true);
  section_tree_->setWordWrap(true);
  section_tree_->setMinimumHeight(90);
  section_tree_->setMaximumHeight(160);
  lay->addWidget(section_tree_);
  section_->hide();
  return ranks_;
}

void JobController::chooseJob() {
  const QString dir = QFileDialog::getExistingDirectory(frame_.frameWindow(), tr("Open job (the folder of its ranks' files)"));
  if (!dir.isEmpty()) openJob({dir});
}

bool JobController::takeDroppedRanks(const QStringList& files) {
  dropped_.reset();
  dropped_paths_.clear();
  if (files.size() < 2) return false;
  try {
    auto job = std::make_shared<prof::job::Job>(prof::job::load_job(std_paths(files)));
    if (job->ranks.size() < 2) return false;
    dropped_ = std::move(job);
    dropped_paths_ = files;
    return true;
  } catch (const std::exception&) {
    return false;  // no rank among them: sessions to compare
  }
}

bool JobController::openJob(const QStringList& paths) {
  if (frame_.running()) {
    frame_.showMessage(tr("A run is going: open the job when it has ended"), true);
    return false;
  }
  std::shared_ptr<prof::job::Job> job;
  if (dropped_ && dropped_paths_ == paths) job = std::move(dropped_);
  dropped_.reset();
  dropped_paths_.clear();
  if (!job) {
    QApplication::setOverrideCursor(Qt::WaitCursor);
    try {
      job = std::make_shared<prof::job::Job>(prof::job::load_job(std_paths(paths)));
    } catch (const std::exception& e) {
      QApplication::restoreOverrideCursor();
      frame_.showMessage(tr("Cannot open the job: %1").arg(QString::fromUtf8(e.what())), true);
      return false;
    }
    QApplication::restoreOverrideCursor();
  }
  return show(std::move(job), job_name(paths));
}

bool JobController::show(std::shared_ptr<prof::job::Job> job, const QString& name) {
  if (!timeline_) return false;
  report_ = prof::job::analyze(*job);
  job_ = job;
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
  return true;
}

void JobController::leaveJob() {
  if (!job_) return;
  if (timeline_) timeline_->setAlternate(nullptr);
  if (VerdictPanel* v = frame_.verdictPanel(); v && v->section() == section_) v->setSection(nullptr);
  timelines_->clear();
  ranks_->clear();
  section_tree_->clear();
  job_.reset();
  report_ = {};
}

}  // namespace ts::gui
