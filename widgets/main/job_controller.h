// The main window's distributed jobs (job_controller.cpp): File ▸ Open job… (a folder of one job's
// rank files), several dropped rank files of one job, `trainscope DIR`. A job opens through
// profiling's prof::job::load_job and analyze (the same as `trainscope-run --analyze DIR`); what
// could not be taken in (a missing rank, a duplicate, a damaged file, another job's file) is said in
// the message bar, one line each, and the rest opens. Shown in the Profile workspace: the ranks as
// groups of lanes on one aligned time axis in place of the one-session timeline (JobTimelines), the
// per-rank table in the Ranks tab (JobRanks) and the job's verdicts above the Verdicts tab's. The
// analysis panels show the first rank drawn (the straggler, else the slowest) as a session; opening a
// session or starting a run leaves the job.
#pragma once
#include <QObject>
#include <QStringList>
#include <memory>

#include "profiling/job/job.h"

class QAction;
class QTreeWidget;
class QWidget;

namespace ts::gui {

class JobRanks;
class JobTimelines;
class MainFrame;
class TimelinePanel;

class JobController : public QObject {
  Q_OBJECT
 public:
  JobController(MainFrame& frame, QObject* parent);
  ~JobController() override;

  QAction* openAction() const { return open_; }
  /// The Ranks tab of the Profile workspace (made once, while the frame builds it); `timeline` is the
  /// workspace's timeline panel, where the ranks' lanes are shown in place of a session's.
  QWidget* buildPage(TimelinePanel* timeline);

  /// Opens the job in `paths` (a folder, or several rank files): false, with the reason in the
  /// message bar, when none of them is a rank or a run goes; problems of some files are said in the
  /// message bar, one line each, and the others open.
  bool openJob(const QStringList& paths);
  /// Whether `files` (dropped together) are two or more ranks of one job: then openJob(files) opens
  /// them (the job is kept for that call, so the files are read once); otherwise they are compared.
  bool takeDroppedRanks(const QStringList& files);
  /// Back to the one-session timeline (a session opens, a run starts).
  void leaveJob();
  bool jobShown() const { return job_ != nullptr; }

  const prof::job::Job* job() const { return job_.get(); }
  const prof::job::JobReport& report() const { return report_; }
  JobTimelines* timelines() const { return timelines_; }
  JobRanks* ranks() const { return ranks_; }
  /// The job's verdicts above the Verdicts tab's.
  QTreeWidget* verdictsSection() const { return section_tree_; }

 signals:
  void jobOpened();

 private:
  void chooseJob();
  bool show(std::shared_ptr<prof::job::Job> job, const QString& name);

  MainFrame& frame_;
  QAction* open_;
  TimelinePanel* timeline_ = nullptr;
  JobTimelines* timelines_ = nullptr;
  JobRanks* ranks_ = nullptr;
  QWidget* section_ = nullptr;
  QTreeWidget* section_tree_ = nullptr;
  std::shared_ptr<const prof::job::Job> job_;
  prof::job::JobReport report_;
  std::shared_ptr<prof::job::Job> dropped_;  // takeDroppedRanks()'s job, for the openJob() that follows
  QStringList dropped_paths_;
};

}  // namespace ts::gui
