// JobTimelines: a distributed job's ranks on one time axis (profiling/job/job.h). Each rank is a
// group: a header row (its rank, "straggler" for the slow one, its step period = own work + waiting,
// and how far it is drawn from its own clock) that collapses and expands the group, and under it the
// rank's own TimelineView (its threads and streams as lanes, its steps as bands) with its own PanelHub,
// as Compare's aligned timelines do (widgets/compare/aligned_timelines.h). Clocks: the axis is the
// lowest rank's session clock; rank i is drawn shifted by shiftNs(i) = RankFigures::axis_shift_ns(), its
// session start on the job's common clock plus its step-start offset, so the same step starts at the
// same x in every group to within the residual skew that the top row states. Every group shows the same span, and a pan/zoom of one moves the others (in aligned time).
// A rank's lanes start one row each with its GPU streams under the stepping thread (a click on a
// lane's header expands it). Order: the straggler first, else the rank with the longest step period, then by rank. With more
// than kExpandedRanks ranks only the first ones start expanded, so 8 ranks fit a 1280x720 window;
// the groups scroll when the expanded ones need more height than there is.
#pragma once
#include <QWidget>
#include <memory>
#include <vector>

#include "profiling/job/job.h"
#include "widgets/panels/panel_hub.h"

class QLabel;
class QToolButton;
class QVBoxLayout;

namespace ts::gui {

class TimelineView;

/// The rank a job's report names straggler (-1 none).
std::int32_t straggler_rank(const prof::job::JobReport& r);
/// "3.21 ms" for ns.
QString job_ms(std::int64_t ns);
/// "+107.288 ms" / "−0.063 ms" for ns, with `decimals` decimals.
QString signed_ms(std::int64_t ns, int decimals);
/// A rank's step-start offset (RankFigures::step_start_offset_ns) as shown: "+63.1 µs".
QString step_start_offset_text(std::int64_t ns);
/// How the step-start offset is computed, for tooltips (the Ranks tab's column, a rank's header).
QString step_start_offset_tooltip(const prof::job::JobReport& r);
/// How a rank's period, own work and waiting are computed and why they add up, for tooltips.
QString period_parts_tooltip(const prof::job::JobReport& r);
/// What "drawn +X ms on rank 0's clock" in a rank's header is (RankFigures::axis_shift_ns) and its
/// parts: where its session began on the common clock, plus its step-start offset.
QString axis_shift_tooltip(const prof::job::RankFigures& f, const prof::job::JobReport& r);

class JobTimelines : public QWidget {
  Q_OBJECT
 public:
  /// Ranks expanded when a job opens (the first ones in drawing order); the others start collapsed.
  static constexpr int kExpandedRanks = 4, kExpandedWhenMany = 2;
  /// A group's lanes are never squeezed below this (px): the ruler and about three lanes.
  static constexpr int kMinViewHeight = 90;

  explicit JobTimelines(QWidget* parent = nullptr);
  ~JobTimelines() override;

  /// Shows `job` (kept alive here) with its report; replaces what was shown.
  void setJob(std::shared_ptr<const prof::job::Job> job, const prof::job::JobReport& report);
  void clear();

  int count() const { return static_cast<int>(groups_.size()); }
  /// Group i in drawing order: its rank, header, view and hub.
  std::int32_t rankAt(int i) const { return groups_[static_cast<std::size_t>(i)].rank; }
  QToolButton* header(int i) const { return groups_[static_cast<std::size_t>(i)].header; }
  TimelineView* view(int i) const { return groups_[static_cast<std::size_t>(i)].view; }
  PanelHub* hub(int i) const { return groups_[static_cast<std::size_t>(i)].hub; }
  /// ns added to group i's session times to put it on the job's aligned axis.
  std::int64_t shiftNs(int i) const { return groups_[static_cast<std::size_t>(i)].shift; }
  void setRankCollapsed(int i, bool collapsed);
  bool isRankCollapsed(int i) const;
  /// The top row: ranks, clock, residual skew.
  QString infoText() const;
  /// Every group shows [start, end) of the aligned axis.
  void setAlignedRange(std::int64_t start, std::int64_t end);

 private:
  struct Group {
    std::int32_t rank = -1;
    std::int64_t shift = 0;
    QWidget* frame = nullptr;
    QToolButton* header = nullptr;
    TimelineView* view = nullptr;
    PanelHub* hub = nullptr;
  };
  void onRange(int index, TimeSpan r);
  void fitAligned();
  /// The space under the groups goes to the expanded ones; to a spacer only when all are collapsed.
  void updateStretch();
  /// Every view to the range of the first expanded one other than `except` (the one just expanded).
  void resync(int except);

  QLabel* info_;
  QVBoxLayout* groups_layout_;
  std::vector<Group> groups_;
  std::shared_ptr<const prof::job::Job> job_;
  bool syncing_ = false;
};

}  // namespace ts::gui
