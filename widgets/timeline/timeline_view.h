// TimelineView: the custom-painted kernel timeline. Lanes of host threads, CUDA runtime
// calls, CUDA streams, copies, memsets and synchronisation; steps as bands with their index;
// level-of-detail merging (lod.h) so a repaint costs O(pixels), not O(events); Perfetto's
// navigation: W/S zoom in/out around the mouse, A/D pan, Ctrl+wheel zoom, drag to pan, Shift+drag
// or a drag on the time ruler selects a range, Z zooms to it, F fits all, Esc clears.
//
// Data: a TimelineData built incrementally on the hub's grew() (rows up to hub->counts() only;
// never blocks the trainer). Linked axis: pan/zoom sets the hub's visible range, the hub's
// visibleRangeChanged moves this view; follow live keeps the newest events in view until the user
// pans or zooms. The hub's highlight is drawn as shaded intervals and outlined kernels.
// Painting lives in timeline_paint.cpp, input in timeline_input.cpp.
#pragma once
#include <QPointer>
#include <QRectF>
#include <QWidget>
#include <array>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "profiling/analysis/analysis.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/timeline/time_axis.h"
#include "widgets/timeline/timeline_data.h"

class QMenu;

namespace ts::gui {

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kHeaderWidth = 190;  // lane titles at the desktop's font (px); see headerWidth()
  static constexpr int kRulerHeight = 30;   // time ruler with step labels at the desktop's font (px); see rulerHeight()
  static constexpr int kRowHeight = 17;     // one row of events at the desktop's font (px); see rowHeight()
  static constexpr int kLanePad = 3;        // above and below a lane's rows (px)
  /// W/S zoom factor per key press (span × 0.8 in, ÷ 0.8 out) and A/D pan per press (10 % of the span).
  static constexpr double kKeyZoom = 0.8, kKeyPan = 0.10;

  explicit TimelineView(PanelHub* hub, QWidget* parent = nullptr);
  /// The lane titles' column (px), where the plot area starts: kHeaderWidth, or wider where the
  /// widget's font needs it to show a CUDA API lane's kind and a thread id's last four digits
  /// ("▾ CUDA API · …4567"; classroom mode's larger font). headerWidthChanged() when it changes.
  int headerWidth() const { return header_w_; }
  /// The time ruler's height (px): its two lines (ticks; steps) at the widget's font, kRulerHeight at
  /// the least. Lanes start under it.
  int rulerHeight() const { return ruler_h_; }
  /// A row of events (px): a line of the widget's font and a little, kRowHeight at the least, so a
  /// lane's title and the labels on its events are whole at classroom mode's font.
  int rowHeight() const { return row_h_; }
  PanelHub* hub() const { return hub_; }
  /// What the empty timeline says: no session; nothing yet (a live source); or why a finished session
  /// has no events (its gpu_activity meta when that says "none: ...").
  QString emptyText() const;
  const timeline::TimelineData& data() const { return data_; }
  const timeline::TimeAxis& axis() const { return axis_; }
  /// Visible time range (session ns).
  TimeSpan range() const { return {axis_.start(), axis_.end()}; }
  /// Shows [start, end) (clamped), updates the hub's range. Does not turn follow-live off.
  void setRange(TimeSpan r);
  void fitAll();
  /// The range an opened session (or a finished run) first shows: its steady-state steps, from the
  /// start of the first step after warmupSteps() to the end of up to kInitialSteps steps (start-up,
  /// cuDNN's search and the warm-up step stay off screen; Fit all shows them). The whole session when
  /// it has no steps after the warm-up.
  TimeSpan initialRange() const;
  static constexpr std::size_t kInitialSteps = 8;
  /// Leading steps the initial view leaves out: 1 for TrainScope sessions (the analysis's warm-up,
  /// VerdictPanel's options), 0 for an imported trace (torch.profiler records after its own warm-up).
  int warmupSteps() const;
  /// Zooms to the selected time range (if any); returns whether it did.
  bool zoomToSelection();
  /// Pulls new rows from the hub's store now (what grew() does).
  void pull();

  // Selection.
  std::optional<TimeSpan> timeSelection() const { return time_selection_; }
  void setTimeSelection(std::optional<TimeSpan> s);
  timeline::EventRef selectedEvent() const { return selected_; }
  void selectEvent(const timeline::EventRef& e);
  /// The GPU op / runtime call at the other end of the selection's correlation id (invalid if none).
  timeline::EventRef flowPartner() const;

  // Hit-testing and geometry (widget coordinates).
  timeline::EventRef eventAt(QPoint p) const;
  int laneAt(int y) const;
  /// The lane's rectangle (header + rows), empty when hidden or scrolled out.
  QRect laneRect(int lane) const;
  /// The lane's header line: its collapse arrow, then its title fitted to the header's width at the
  /// widget's font (timeline::fit_lane_title; classroom mode's is larger).
  QString laneHeaderText(int lane) const;
  /// y centre of `row` of `lane` (-1 when not shown).
  int rowCenterY(int lane, int row) const;
  double plotWidth() const { return axis_.width(); }

  // Lanes: order (lane indices into data().lanes(), hidden ones left out), collapse, hide, move.
  std::vector<int> laneOrder() const;
  void setLaneCollapsed(int lane, bool collapsed);
  bool isLaneCollapsed(int lane) const;
  void setLaneHidden(int lane, bool hidden);
  bool isLaneHidden(int lane) const;
  /// Moves the lane up (delta < 0) or down among the shown lanes.
  void moveLane(int lane, int delta);
  void showAllLanes();
  /// A lane with nothing to look at, hidden when a session has loaded (the lane menu lists it): no
  /// event of 1 ns or more, or — a trace's process marker such as Kineto's "PyTorch Profiler (0)"
  /// span — a host lane of one row whose few events cover >= 90 % of the session with nothing nested.
  bool isEmptyLane(int lane) const;
  int hiddenLaneCount() const { return static_cast<int>(hidden_.size()); }
  /// A lane whose events all lie outside the shown range (a helper stream that only ran cuDNN's
  /// algorithm search at start-up, a thread that only ran at the end): how many lie before and after
  /// it and the time they span (session ns). All zero when something of the lane is in view.
  struct OffView {
    std::size_t before = 0, after = 0;
    TimeSpan span;
  };
  OffView offView(int lane) const;
  /// What such a lane says in its row, so it does not look empty or broken: where its events are, on
  /// the ruler's clock ("◂ 6 kernels earlier, 5.150 s – 5.183 s · double-click: show them"); "" when
  /// something of it is in view.
  QString offViewNote(int lane) const;
  /// Shows a lane's events when none is in view (offView's span with a margin); false otherwise.
  bool showLaneEvents(int lane);
  /// The lane header's context menu (collapse, hide, move up/down, show all); caller owns it.
  QMenu* laneMenu(int lane, QWidget* parent);
  /// Adds the lane menu's actions to `m`: for `lane` >= 0 collapse, hide, move up/down; then Show all
  /// lanes and a checkable entry per lane ("lane:KEY"; unchecked = hidden, "(empty)" marks an empty
  /// lane). The panel's Lanes button shows it with lane = -1.
  void fillLaneMenu(QMenu* m, int lane);

  // Search: every slice whose name contains `text` (case-insensitive) is highlighted, the others
  // dimmed: kernels (demangled name), host ranges (name or layer: DataLoader, aten::conv2d, forward),
  // CUDA runtime calls (API name), copies ("Memcpy HtoD"), memsets ("Memset") and synchronisation
  // records ("Synchronization"); next/prev select and centre the next/previous match in time.
  void setSearch(const QString& text);
  QString search() const { return search_; }
  int matchCount();
  bool nextMatch();
  bool prevMatch();
  /// The fill of a solid event: its category's colour; host ranges of the "other" category (PyTorch's
  /// CPU ops, eval, loader batches) get one of a few shades of it by name; step ranges alternate.
  QColor eventColor(const timeline::Event& e) const;
  /// The name the search matches for event `e` ("" in overview mode).
  QString searchName(const timeline::Event& e) const;
  /// Whether the event `e` is a search match.
  bool isMatch(const timeline::EventRef& e);
  /// Kernels outlined for the hub's highlight().kernel_name.
  int outlinedCount();

  /// The step-row labels of the time ruler the last paint drew (step indices, the selection's
  /// length), widget coordinates: they never overlap.
  const std::vector<QRectF>& rulerLabels() const { return ruler_labels_; }
  /// The time ruler's tick labels the last paint drew ("0", "+500.0 µs"), widget coordinates: each
  /// whole inside the widget (one the right edge would cut is left out).
  const std::vector<QRectF>& rulerTickLabels() const { return tick_labels_; }
  /// The ruler's header line the last paint drew: the first tick's time on the ruler's clock
  /// ("at 12.000 s"; the tick labels count from it).
  const QString& rulerAtText() const { return ruler_at_; }
  /// End (session ns) of the newest event drawn by the last paint (0 before the first).
  qint64 newestShownEnd() const { return newest_shown_; }
  /// The device properties used for occupancy (from the store's meta).
  const prof::analysis::DeviceProps& deviceProps() const { return props_; }

  /// ns added to the session's times in the time ruler's ticks and its "at" label (0: the session's
  /// clock). A job's rank sets its shift onto the job's aligned axis, so the ranks' ticks line up.
  void setRulerOrigin(std::int64_t ns) { ruler_origin_ = ns, update(); }
  std::int64_t rulerOrigin() const { return ruler_origin_; }

  /// Vertical scrolling of the lanes, px: [0, maxScrollY()] (the panel's scroll bar drives it).
  int scrollY() const { return scroll_y_; }
  int maxScrollY() const;
  void setScrollY(int y);

 signals:
  /// After each paint: the newest event end drawn (the lead's ≤ 0.5 s latency check).
  void painted(qint64 newest_event_end_ns);
  void selectionChanged();
  void timeSelectionChanged();
  void rangeChanged(ts::gui::TimeSpan range);
  void searchChanged();
  /// The header's width changed (a font change): tracks aligned under the lanes follow it.
  void headerWidthChanged(int px);

 protected:
  void paintEvent(QPaintEvent*) override;
  void resizeEvent(QResizeEvent*) override;
  void changeEvent(QEvent*) override;  // a font change: fitHeader()
  void keyPressEvent(QKeyEvent*) override;
  void wheelEvent(QWheelEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  void mouseReleaseEvent(QMouseEvent*) override;
  void mouseDoubleClickEvent(QMouseEvent*) override;  // on a lane with nothing in view: showLaneEvents
  void contextMenuEvent(QContextMenuEvent*) override;
  void leaveEvent(QEvent*) override;
  bool event(QEvent*) override;

 private:
  struct LaneGeom {
    int lane;
    int y, height;
    int rows;  // rows drawn (1 when collapsed)
  };
  std::vector<LaneGeom> layout() const;
  int contentHeight() const;
  void onStoreChanged();
  void onGrew();
  /// Puts back what the user had of a store shown before (restore_), once its events are in.
  void applyKept();
  /// Overview mode while an opened session with an overview loads; true when it is shown.
  bool showOverview();
  timeline::EventRef findFlowPartner() const;
  void paintOverviewRow(QPainter& p, const timeline::Row& row, int y);
  void onHubRange(TimeSpan r);
  void onHighlight();
  void userMoved();  // a user pan/zoom: follow live off, hub range updated
  /// The span shown while following a live run: its last kFollowSteps steps.
  std::int64_t followSpan() const;
  static constexpr std::size_t kFollowSteps = 4;
  static constexpr std::int64_t kFollowDefaultNs = 2'000'000'000;
  static constexpr std::int64_t kFollowMinNs = 100'000;  // 100 us: a few kernels even at b16 on an H200
  void publishRange();
  void syncOrder();
  void refreshMarks();
  void centerOn(const timeline::EventRef& e);
  void hideEmptyLanes();
  /// Whether `e` (a search candidate) matches the needle (cached per string id).
  bool searchHit(const timeline::Event& e, const std::string& needle);
  bool stepMatch(int direction);
  QString tooltipAt(QPoint p) const;
  // Painting (timeline_paint.cpp).
  void paintSteps(QPainter& p, int top, int bottom);
  void paintHighlightBands(QPainter& p, int top, int bottom);
  void paintLane(QPainter& p, const LaneGeom& g);
  /// Sets headerWidth(), rulerHeight() and rowHeight() for the widget's font; the plot area gives way.
  void fitHeader();
  /// The header's collapse arrow of `lane` ("▾ ", "▸ ", or spaces for a lane of one row).
  QString headerArrow(int lane) const;
  void paintRow(QPainter& p, const timeline::Row& row, int y, const std::vector<std::uint32_t>* marks,
                const std::vector<std::uint32_t>* outlined);
  void paintMarks(QPainter& p, const timeline::Row& row, const std::vector<std::uint32_t>& marks, int y, bool outline);
  void paintSelection(QPainter& p);
  void paintRuler(QPainter& p);
  QString eventLabel(const timeline::Event& e) const;

  PanelHub* hub_;
  std::shared_ptr<const prof::EventStore> store_;
  /// What the user had of a store this view showed (scroll, selections, the lanes' one-time hiding),
  /// put back when that store comes back: a failed open restores the session shown before.
  struct Kept {
    std::weak_ptr<const prof::EventStore> store;
    int scroll_y = 0;
    bool selected = false;
    timeline::Source source = timeline::Source::kernel;
    std::uint32_t row = 0;
    std::optional<TimeSpan> time_selection;
    bool empty_lanes_hidden = false;
  };
  std::array<Kept, 2> kept_;       // the last two stores shown before this one
  std::optional<Kept> restore_;    // the shown store's, until applyKept()
  timeline::TimelineData data_;
  timeline::TimelineData loading_;  // while data_ shows an opened session's overview: its events so far
  timeline::TimeAxis axis_;
  prof::analysis::DeviceProps props_;
  bool have_range_ = false;
  int scroll_y_ = 0;
  int header_w_ = kHeaderWidth, ruler_h_ = kRulerHeight, row_h_ = kRowHeight;
  // Lanes by key (keys survive a re-read of the same store).
  std::vector<std::string> custom_order_;  // empty: default order
  std::set<std::string> collapsed_, hidden_;
  bool empty_lanes_hidden_ = false;  // hideEmptyLanes() ran for this store
  // Selection and interaction.
  timeline::EventRef selected_;
  mutable timeline::EventRef partner_for_, partner_;  // flowPartner()'s last answer
  mutable std::uint64_t partner_version_ = 0;
  std::uint32_t selected_row_ = 0;  // store row + source of the selection (lanes re-stack on grow)
  timeline::Source selected_source_ = timeline::Source::kernel;
  std::optional<TimeSpan> time_selection_;
  enum class Drag { none, pan, select } drag_ = Drag::none;
  QPoint press_pos_, last_mouse_{-1, -1};
  std::int64_t press_t_ = 0;
  bool moved_ = false;
  // Search and highlight marks: per lane, per row, indices of matching kernel events.
  QString search_;
  std::vector<std::int8_t> name_match_, name_highlight_;  // per string id: -1 unknown, 0/1
  std::vector<std::vector<std::vector<std::uint32_t>>> marks_, outlined_;
  std::uint64_t marks_version_ = ~0ull;
  QString marks_search_, marks_highlight_;
  qint64 newest_shown_ = 0;
  std::int64_t ruler_origin_ = 0;
  std::vector<QRectF> ruler_labels_, tick_labels_;
  QString ruler_at_;
  mutable std::vector<QString> short_names_;  // per string id (kernel labels)
  mutable std::vector<std::int8_t> name_shade_;  // per string id: host op shade, -1 unknown
};

}  // namespace ts::gui
