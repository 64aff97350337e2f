// ProfileWorkspace: the Profile workspace (reading a profile, live or opened). The timeline across
// the whole width with the memory graph and utilization as tracks under its lanes (same time axis,
// plot areas aligned to the pixel), the details pane beside them (collapsible), and the analysis
// tabs below (Verdicts, Step breakdown, Kernels, Layers, Python, Session details) that collapse to
// their tab bar: clicking the current tab collapses them, clicking any tab while collapsed opens them.
// Every tab stays in view: short titles where the full ones do not fit, never scroll arrows.
// Its splitter sizes, the collapsed state and which tab is current are its layout
// (saveLayout()/restoreLayout(); resetLayout() returns to the default for the current size).
#pragma once
#include <QByteArray>
#include <QPair>
#include <QWidget>
#include <vector>

class QSplitter;
class QTabWidget;

namespace ts::gui {

class MetricTrack;
class TimelinePanel;

class ProfileWorkspace : public QWidget {
  Q_OBJECT
 public:
  /// Takes the panels (reparented). `memory` and `utilization` become tracks of `timeline`; they
  /// must already be in track mode (their plot areas start at the lanes' TimelineView::headerWidth()).
  /// Where they are MetricTracks, their preferred heights set the default ones and they fold to
  /// their header lines when a tab leaves no room for their plots.
  ProfileWorkspace(TimelinePanel* timeline, QWidget* memory, QWidget* utilization, QWidget* parent = nullptr);
  /// Adds an analysis tab; a tall page is wrapped in a scroll area so it never sets the window's
  /// minimum height. `short_title` ("Breakdown" for "Step breakdown") is shown where the full titles
  /// do not fit the tabs' width (Side by side at classroom mode's font), the full one in the tooltip.
  void addTab(QWidget* page, const QString& title, bool scroll = false, const QString& short_title = {});
  /// The full title of tab `index`, whichever is shown.
  QString tabTitle(int index) const;
  /// Makes the tab of `page` current and opens the tabs if collapsed.
  void showTab(QWidget* page);
  QTabWidget* tabs() const { return tabs_; }
  QSplitter* mainSplitter() const { return split_; }  // [timeline | tabs]
  TimelinePanel* timeline() const { return timeline_; }
  QWidget* memoryTrack() const { return memory_row_; }
  QWidget* utilizationTrack() const { return util_row_; }

  /// Whether the tracks' heights are the user's (a drag of their handles, or a layout that restored
  /// one): kept until View ▸ Reset layout. Otherwise they follow the tracks' preferred heights.
  bool trackHeightsDragged() const { return user_heights_; }

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
  /// Full titles where they all fit the tabs' width, else the short ones (Qt cuts any still too
  /// long with "…"), so that no tab hides behind the tab bar's scroll arrows.
  void fitTabTitles();
  static QString collapseHint();
  int collapsedHeight() const;
  /// Lanes and tracks in the column's current height: with a tab open the lanes' room first (4
  /// lanes), the tracks at the user's heights (or the defaults) where they fit, else shrunk, each to
  /// its minimum at most, else folded to their header lines.
  void fitTracks();
  /// Heights (px) the tracks ask for, in the order of what they keep (fitTracks() takes the first the
  /// lanes leave room for): both preferred heights, utilization's preferred rows, its first measured
  /// row, the memory legend; the memory track folded to its header line where only its scale stands
  /// in the way of utilization's measured rows (a tab open); both minimums.
  struct TrackAsk {
    int memory, util;
    bool fold_memory;
  };
  std::vector<TrackAsk> trackAsks(int memory_min, int util_min) const;
  void setTracksFolded(bool folded);
  /// The least height of a track's row that shows its plot.
  static int trackMinimum(const QWidget* row, const MetricTrack* track);
  /// Takes the tracks' present heights as the wanted ones unless fitTracks() shrank them.
  void keepTrackHeights();
  /// The tracks' default heights for the column's height: 8 lanes above them where the tracks' preferred
  /// heights leave them, down to 4 for utilization's measured rows.
  void defaultTracks();
  /// The tracks' preferred heights (memory, utilization; 0 for a widget that is no MetricTrack).
  QPair<int, int> preferredHeights() const;
  /// What an open tab needs: its bar and the page that needs the most (pageOpenHeight()), whichever
  /// page is current, so that switching tabs moves nothing.
  int tabsOpenHeight() const;
  /// What page `page` needs under the tab bar: its controls, its table's header and kTabRows rows, its
  /// summary lines (from size hints at the tabs' width; estimated from the font for a page without a
  /// table).
  int pageOpenHeight(const QWidget* page) const;
  /// The timeline's height with a tab open: its tool row, kLanesOpen whole lanes, both tracks at their
  /// minimum where that leaves the tab its rows, else folded to their header lines
  /// (or what the widget shown in the timeline's place needs, TimelinePanel::setAlternate).
  int timelineOpenHeight() const;
  /// The height (px) of the ruler and the first `lanes` lanes.
  int lanesHeight(int lanes) const;

  TimelinePanel* timeline_;
  MetricTrack* memory_track_ = nullptr;
  MetricTrack* util_track_ = nullptr;
  QWidget* memory_row_;
  QWidget* util_row_;
  QSplitter* split_;
  QTabWidget* tabs_;
  bool collapsed_ = false, sized_ = false;
  int expanded_height_ = 0;  // the tabs' height before they collapsed
  int want_memory_ = 120, want_util_ = 240;  // the tracks' heights the user gave them (px)
  // fitTracks() made the tracks smaller than wanted (the lanes' room); true until the first fit: the
  // sizes the splitter gives the tracks before it (a window manager's resize after the first show)
  // are nobody's drag.
  bool shrunk_ = true;
  bool user_heights_ = false;  // want_memory_/want_util_ are a drag's (else the defaults, which follow the preferred heights)
  bool fit_queued_ = false;    // a fitTracks() after a track's layout request is on its way
  QPair<int, int> preferred_seen_;  // preferredHeights() when the defaults were last set
};

}  // namespace ts::gui
