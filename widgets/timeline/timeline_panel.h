// TimelinePanel: the Profile workspace's timeline. A toolbar (search of every slice with next/previous
// match and a match count, zoom to selection, fit all, a Lanes menu, follow live, show/hide details), the TimelineView
// with a vertical scroll bar for its lanes, metric tracks under the lanes (addTrack: the memory graph
// and utilization, drawn on the same time axis and aligned with the lanes' plot area, as Perfetto and
// Nsight Systems draw counter tracks), and to the right of lanes and tracks the collapsible details
// pane for the selection (an event's fields or a range's breakdown) above the colour legend.
#pragma once
#include <QWidget>
#include <vector>

#include "widgets/panels/panel_hub.h"

class QLineEdit;
class QLabel;
class QScrollBar;
class QSplitter;
class QStackedWidget;
class QToolButton;

namespace ts::gui {

class TimelineView;
class DetailsPane;
class TimelineLegend;

class TimelinePanel : public QWidget {
  Q_OBJECT
 public:
  explicit TimelinePanel(PanelHub* hub, QWidget* parent = nullptr);
  TimelineView* view() const { return view_; }
  DetailsPane* details() const { return details_; }
  QLineEdit* searchBox() const { return search_; }
  QToolButton* followButton() const { return follow_; }
  QLabel* matchLabel() const { return matches_; }
  /// The lanes' vertical scroll bar (hidden when every lane fits).
  QScrollBar* laneScrollBar() const { return scroll_; }
  /// Adds `track` under the lanes (and the tracks added before). Its content must start its plot
  /// area view()->headerWidth() px from its left edge, following headerWidthChanged(); the panel
  /// keeps its right edge at the lanes' right edge (left of the lanes' scroll bar when that shows).
  /// Returns the track's row.
  QWidget* addTrack(QWidget* track);
  /// The vertical splitter of lanes (index 0) and tracks (for the workspace's saved layout).
  QSplitter* trackSplitter() const { return column_; }
  /// The horizontal splitter of lanes+tracks (0) and the details pane with the colour legend (1).
  QSplitter* detailsSplitter() const { return split_; }
  /// Shows or collapses the details pane (the toolbar's Details button does the same).
  void setDetailsVisible(bool visible);
  bool detailsVisible() const;
  QToolButton* detailsButton() const { return details_button_; }
  /// Shows `w` in place of the one-session timeline (toolbar, lanes, tracks and details), e.g. a
  /// distributed job's ranks (widgets/job); nullptr shows the timeline again. Not owned: the caller
  /// keeps it (it is reparented while shown and hidden when replaced).
  void setAlternate(QWidget* w);
  QWidget* alternate() const { return alternate_; }
  /// The toolbar's Lanes button (its menu: TimelineView::fillLaneMenu(menu, -1)).
  QToolButton* lanesButton() const { return lanes_button_; }

 private:
  void updateMatches();
  void syncScrollBar();
  PanelHub* hub_;
  TimelineView* view_;
  DetailsPane* details_;
  TimelineLegend* legend_;
  QLineEdit* search_;
  QLabel* matches_;
  QToolButton* follow_;
  QScrollBar* scroll_;
  QSplitter* column_;
  QSplitter* split_;
  QWidget* side_;  // details pane + legend
  QToolButton* details_button_;
  QToolButton* lanes_button_;
  std::vector<QWidget*> track_spacers_;
  QStackedWidget* stack_;
  QWidget* alternate_ = nullptr;
  bool details_on_ = true;  // one per track: the width of the lanes' scroll bar
};

}  // namespace ts::gui
