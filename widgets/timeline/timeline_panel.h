// TimelinePanel: the Timeline dock's content. A toolbar (kernel search with next/previous match and
// a match count, zoom to selection, fit all, follow live), the TimelineView with a vertical scroll
// bar for its lanes, the details pane for the selection (an event's fields or a range's breakdown)
// and the colour legend.
#pragma once
#include <QWidget>

#include "widgets/panel_hub.h"

class QLineEdit;
class QLabel;
class QScrollBar;
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
};

}  // namespace ts::gui
