// ProfileWorkspace: the Profile workspace (reading a profile, live or opened). The timeline across
// the whole width with the memory graph and utilization as tracks under its lanes (same time axis,
// plot areas aligned to the pixel), the details pane beside them (collapsible), and the analysis
// tabs below (Verdicts, Step breakdown, Kernels, Layers, Python, Session details) that collapse to
// their tab bar: clicking the current tab collapses them, clicking any tab while collapsed opens them.
// Its splitter sizes, the collapsed state and which tab is current are its layout
// (saveLayout()/restoreLayout(); resetLayout() returns to the default for the current size).
#pragma once
#include <QByteArray>
#include <QWidget>

class QSplitter;
class QTabWidget;

namespace ts::gui {

class TimelinePanel;

class ProfileWorkspace : public QWidget {
  Q_OBJECT
 public:
  /// Takes the panels (reparented). `memory` and `utilization` become tracks of `timeline`; they
  /// must already be in track mode (their plot areas start at the lanes' TimelineView::headerWidth()).
  ProfileWorkspace(TimelinePanel* timeline, QWidget* memory, QWidget* utilization, QWidget* parent = nullptr);
  /// Adds an analysis tab; a tall page is wrapped in a scroll area so it never sets the window's
  /// minimum height.
  void addTab(QWidget* page, const QString& title, bool scroll = false);
  /// Makes the tab of `page` current and opens the tabs if collapsed.
  void showTab(QWidget* page);
  QTabWidget* tabs() const { return tabs_; }
  QSplitter* mainSplitter() const { return split_; }  // [timeline | tabs]
  TimelinePanel* timeline() const { return timeline_; }
  QWidget* memoryTrack() const { return memory_row_; }
  QWidget* utilizationTrack() const { return util_row_; }

  void setTabsCollapsed(bool collapsed);
  bool tabsCollapsed() const { return collapsed_; }

  QByteArray saveLayout() const;
  bool restoreLayout(const QByteArray& state);
  void resetLayout();

 signals:
  void tabsCollapsedChanged(bool collapsed);

 protected:
  void showEvent(QShowEvent* e) override;
  bool eventFilter(QObject* o, QEvent* e) override;

 private:
  void onTabClicked(int index);
  int collapsedHeight() const;
  /// Lanes and tracks in the column's current height: with a tab open the lanes' room first (6
  /// lanes), the tracks at the user's heights where they fit, else shrunk, each to its minimum at most.
  void fitTracks();
  /// Takes the tracks' present heights as the wanted ones unless fitTracks() shrank them.
  void keepTrackHeights();
  /// The tracks' default heights for the column's height (resetLayout()): 8 lanes above them.
  void defaultTracks();
  /// What an open tab needs: its bar, a page's controls, a table's header, kTabRows rows, a summary line.
  int tabsOpenHeight() const;
  /// The timeline's height with a tab open: its tool row, 6 whole lanes, both tracks at their minimum
  /// (or what the widget shown in the timeline's place needs, TimelinePanel::setAlternate).
  int timelineOpenHeight() const;
  /// The height (px) of the ruler and the first `lanes` lanes.
  int lanesHeight(int lanes) const;

  TimelinePanel* timeline_;
  QWidget* memory_row_;
  QWidget* util_row_;
  QSplitter* split_;
  QTabWidget* tabs_;
  bool collapsed_ = false, sized_ = false;
  int expanded_height_ = 0;  // the tabs' height before they collapsed
  int want_memory_ = 120, want_util_ = 240;  // the tracks' heights the user gave them (px)
  bool shrunk_ = false;  // fitTracks() made the tracks smaller than wanted (the lanes' room)
};

}  // namespace ts::gui
