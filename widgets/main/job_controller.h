// The main window's distributed jobs (job_controller.cpp): File ▸ Open job… (a folder of one job's
// rank files), several dropped rank files of one job, `trainscope DIR`. A job opens through
// profiling's prof::job::load_job and analyze (the same as `trainscope-run --analyze DIR`) on a
// worker thread (JobLoader), with the files opened so far and Cancel in the status bar, as a session
// opens; the job shown before stays shown until the new one is ready, and stays when the open fails
// (the reason in the message bar, one line) or is cancelled. A second open while one loads wins: the
// first is cancelled and never shown. What could not be taken in (a missing rank, a duplicate, a
// damaged file, another job's file) is said in the message bar, one line each, and the rest opens.
// Shown in the Profile workspace: the ranks as groups of lanes on one aligned time axis in place of
// the one-session timeline (JobTimelines), the per-rank table in the Ranks tab (JobRanks) and the
// job's verdicts above the Verdicts tab's; the verdict banner leads with the job's most severe verdict
// (job_banner_lead), in the job analysis's words. The analysis panels show the first rank drawn (the
// straggler, else the slowest) as a session; opening a session or starting a run leaves the job.
#pragma once
#include <QObject>
#include <QStringList>
#include <memory>

#include "profiling/job/job.h"

class QAction;
class QLabel;
class QProgressBar;
class QTreeWidget;
class QWidget;

namespace ts::gui {

class JobLoader;
class JobRanks;
struct LoadedJob;
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

  /// Starts opening the job in `paths` (a folder, or several rank files) on a worker: false, with the
  /// reason in the message bar, while a run goes. Then jobOpened or jobFailed follows (problems of
  /// some files are said in the message bar, one line each, and the others open), unless a later
  /// openJob() or openDropped() replaces this one.
  bool openJob(const QStringList& paths);
  /// Files dropped together: opened as a job when they hold two or more ranks of one job; otherwise
  /// notAJob(files) follows (the window compares them) and nothing is said.
  void openDropped(const QStringList& files);
  /// Stops the job load in progress (jobFailed(..., true)); the job shown stays.
  void cancelLoad();
  bool isLoading() const;
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
  /// Opening a job failed (`message`: the one line in the message bar) or was cancelled.
  void jobFailed(const QString& message, bool cancelled);
  /// Dropped files (openDropped) that are not two or more ranks of one job.
  void notAJob(const QStringList& files);

 private:
  void chooseJob();
  void startLoad(const QStringList& paths, bool dropped);
  void buildLoadProgress();
  void loaded(const LoadedJob& loaded);
  void loadFailed(const QString& message, bool cancelled);
  void show(const LoadedJob& loaded);

  MainFrame& frame_;
  QAction* open_;
  JobLoader* loader_;
  QWidget* load_box_ = nullptr;  // status bar: "Opening job …" + progress bar + Cancel
  QLabel* load_label_ = nullptr;
  QProgressBar* load_bar_ = nullptr;
  TimelinePanel* timeline_ = nullptr;
  JobTimelines* timelines_ = nullptr;
  JobRanks* ranks_ = nullptr;
  QWidget* section_ = nullptr;
  QTreeWidget* section_tree_ = nullptr;
  std::shared_ptr<const prof::job::Job> job_;
  prof::job::JobReport report_;
  QStringList dropped_;  // the load in progress's paths when they were dropped (openDropped)
};

}  // namespace ts::gui
