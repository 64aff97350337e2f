// AlignedTimelines: the compare view's timelines (compare_view.h). One TimelineView per session,
// one above the other, each with its own PanelHub (its own store and visible range). Aligned at a
// chosen global step k: session i is drawn shifted so that its step k starts at the same x as the
// baseline's, using prof::compare::step_alignment_offset (offset_i = start_A(k) − start_i(k), ns).
// Every timeline shows the same span (same ns per pixel: the views have the same width), and a
// pan/zoom of any one moves the others by the same amount in aligned time: when view j shows
// [s, e), view i shows [s + offset_j − offset_i, e + offset_j − offset_i).
#pragma once
#include <QStringList>
#include <QWidget>
#include <memory>
#include <vector>

#include "profiling/event_store.h"
#include "widgets/panels/panel_hub.h"

class QLabel;
class QSpinBox;
class QSplitter;

namespace ts::gui {

class TimelineView;

class AlignedTimelines : public QWidget {
  Q_OBJECT
 public:
  explicit AlignedTimelines(QWidget* parent = nullptr);
  ~AlignedTimelines() override;

  /// One timeline per store (labels[i] above stores[i]; stores[0] is the baseline), aligned at
  /// `step` (or the first step every session has, when it is missing somewhere).
  void setSessions(const std::vector<std::shared_ptr<const prof::EventStore>>& stores, const QStringList& labels,
                   qint64 step);
  void clear();

  int count() const { return static_cast<int>(views_.size()); }
  TimelineView* view(int i) const { return views_[static_cast<std::size_t>(i)]; }
  PanelHub* hub(int i) const { return hubs_[static_cast<std::size_t>(i)]; }
  QSpinBox* stepBox() const { return step_box_; }
  QString infoText() const;

  /// Aligns every timeline at global step `step` and shows from its start a span covering the
  /// slowest session's steps k and k+1 (+5 %). False (nothing moves) when a session lacks the step.
  bool alignAt(qint64 step);
  qint64 alignedStep() const { return step_; }
  /// ns to add to session i's times to get the baseline's aligned time (0 for the baseline).
  qint64 offsetNs(int i) const { return offsets_[static_cast<std::size_t>(i)]; }

 signals:
  void aligned(qint64 step);

 private:
  void onRange(int index, TimeSpan r);
  void updateInfo();

  QSpinBox* step_box_;
  QLabel* info_;
  QSplitter* splitter_;
  std::vector<std::shared_ptr<const prof::EventStore>> stores_;
  std::vector<PanelHub*> hubs_;
  std::vector<TimelineView*> views_;
  std::vector<QWidget*> frames_;
  std::vector<qint64> offsets_;
  QStringList labels_;
  qint64 step_ = -1;
  bool syncing_ = false;
};

}  // namespace ts::gui
