// JobRanks: a distributed job's per-rank figures and verdicts (profiling/job/job.h) for the Profile
// workspace's Ranks tab. The table: a row per rank with its medians over its step periods in ms/step
// (period = own work + waiting for the other ranks, compute, communication, exposed communication, GPU
// idle, data wait, host) and its step-start offset in µs, the straggler's row marked ("1 · straggler",
// bold); the verdicts list: the
// job's verdicts (straggler, communication_bound, input_imbalance) with severity colour, evidence and
// their PyTorch fixes; the notes (what the data could not tell) and the problems met while opening.
#pragma once
#include <QWidget>

#include <optional>

#include "profiling/job/job.h"
#include "widgets/panels/verdict_panel.h"

class QLabel;
class QTableWidget;
class QTreeWidget;

namespace ts::gui {

/// The job's verdicts as rows of `tree` ("rank 1 · Straggler: …", one column), each with its evidence and fix as
/// children; one row saying there is none when the report has none. Clears `tree` first.
void fill_job_verdicts(QTreeWidget* tree, const prof::job::JobReport& r);

/// The banner's line for a job: its most severe verdict (the report's order among equals: the straggler
/// first) in the job analysis's words, "Job: Straggler: rank 1 works … — fix: …  (+3 more job verdicts)";
/// nullopt when the job has no verdict (the shown rank's own verdicts lead then).
std::optional<BannerLead> job_banner_lead(const prof::job::JobReport& r);

class JobRanks : public QWidget {
  Q_OBJECT
 public:
  /// The table's columns after "rank", ms per step each (the step-start offset, in µs, follows them).
  static const QStringList& columnTitles();

  explicit JobRanks(QWidget* parent = nullptr);
  void setJob(const prof::job::Job& job, const prof::job::JobReport& report);
  void clear();
  QTableWidget* table() const { return table_; }
  QTreeWidget* verdicts() const { return verdicts_; }
  QString notesText() const;

 private:
  QLabel* summary_;
  QTableWidget* table_;
  QTreeWidget* verdicts_;
  QLabel* notes_;
};

}  // namespace ts::gui
