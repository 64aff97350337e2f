// ProfileWorkspace: timeline with metric tracks, details pane, collapsible analysis tabs.
#include "widgets/workspaces/profile_workspace.h"

#include <QAbstractItemView>
#include <QDataStream>
#include <QHeaderView>
#include <QEvent>
#include <QFontMetrics>
#include <QIODevice>
#include <QScrollArea>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <vector>

#include "widgets/panels/metric_track.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/workspaces/layout_state.h"

namespace ts::gui {

namespace {
/// Default heights (px) of the tracks at the least: the memory graph's header row and plot, and
/// utilization's three to five rows with their one-line legends. Taller where a track prefers it
/// (MetricTrack::preferredTrackHeight: the memory legend's lines, the measured rows).
constexpr int kMemoryTrackPx = 120, kUtilTrackPx = 240;
/// Below this workspace height the tabs start collapsed, so the lanes keep at least 8 lanes in view
/// beside the tracks on a 1366x768 screen.
constexpr int kTabsOpenMinHeight = 820;
/// Whole lanes in view above the tracks: 8 at the tracks' default heights, 4 at least (with a tab
/// open, tracks dragged taller, or the measured rows of utilization's default height: the trainer,
/// its runtime calls, the first GPU stream and one more -- the default lane order puts the GPU's
/// lanes right under the launching threads).
constexpr int kLanesCollapsed = 8, kLanesOpen = 4;
/// Rows of a table an open tab shows at least, under its page's row of controls and its header.
constexpr int kTabRows = 3;

int around_view(const QLayout* layout, const QWidget* view, const QWidget* page, int width);

/// What widget `w` (holding `view`, or being it) shows around it at `width` px: see the layout's.
int around_view(const QWidget* w, const QWidget* view, const QWidget* page, int width) {
  if (w == view) return 0;
  if (!w->isAncestorOf(view)) return -1;
  if (w->layout()) return around_view(w->layout(), view, page, width);
  // No layout (a splitter beside the view's neighbours): its child that holds the view is as tall as it.
  for (QObject* o : w->children())
    if (auto* c = qobject_cast<QWidget*>(o); c && (c == view || c->isAncestorOf(view))) return around_view(c, view, page, width);
  return 0;
}

/// The height (px) that `layout`, `width` px wide, gives to what is not the item holding `view` (a
/// page's row of controls, its summary lines), with its margins and spacing, from the items' size
/// hints (heights for their width where they wrap): the same whether the page is shown or not. -1
/// when `view` is not in it. Rows of a vertical box add up; a horizontal one stands beside the view.
int around_view(const QLayout* layout, const QWidget* view, const QWidget* page, int width) {
  const QMargins m = layout->contentsMargins();
  const int inner = std::max(1, width - m.left() - m.right());
  const auto* box = qobject_cast<const QBoxLayout*>(layout);
  const bool rows = box && (box->direction() == QBoxLayout::TopToBottom || box->direction() == QBoxLayout::BottomToTop);
  int found = -1, others = 0, shown = 0;
  for (int i = 0; i < layout->count(); ++i) {
    QLayoutItem* item = layout->itemAt(i);
    if (QWidget* w = item->widget(); w && !w->isVisibleTo(page)) continue;
    if (item->isEmpty() && !item->widget()) continue;
    ++shown;
    const int inside = item->widget()   ? around_view(item->widget(), view, page, inner)
                       : item->layout() ? around_view(item->layout(), view, page, inner)
                                        : -1;
    if (inside >= 0) found = inside;
    else if (rows) others += item->hasHeightForWidth() ? item->heightForWidth(inner) : item->sizeHint().height();
  }
  if (found < 0) return -1;
  return found + m.top() + m.bottom() + (rows ? others + std::max(0, shown - 1) * std::max(0, layout->spacing()) : 0);
}
}  // namespace

ProfileWorkspace::ProfileWorkspace(TimelinePanel* timeline, QWidget* memory, QWidget* utilization, QWidget* parent)
    : QWidget(parent), timeline_(timeline) {
  setObjectName("workspace.profile");
  memory_track_ = dynamic_cast<MetricTrack*>(memory);
  util_track_ = dynamic_cast<MetricTrack*>(utilization);
  memory_row_ = timeline_->addTrack(memory);
  memory_row_->setObjectName("track.memory");
  util_row_ = timeline_->addTrack(utilization);
  util_row_->setObjectName("track.utilization");
  // A track's preferred height changed (the session's measured rows arrived, the legend's lines):
  // the default heights follow it.
  memory_row_->installEventFilter(this);
  util_row_->installEventFilter(this);
  tabs_ = new QTabWidget;
  tabs_->setObjectName("profile.tabs");
  tabs_->setDocumentMode(true);
  tabs_->tabBar()->setToolTip(collapseHint());
  // Every tab in view, none behind scroll arrows: short titles where the full ones do not fit
  // (fitTabTitles), cut with "…" only where even those do not; the full title is each tab's tooltip.
  tabs_->setUsesScrollButtons(false);
  tabs_->setElideMode(Qt::ElideRight);
  tabs_->installEventFilter(this);
  connect(tabs_->tabBar(), &QTabBar::tabBarClicked, this, &ProfileWorkspace::onTabClicked);
  // (Another page needs no other height: the tabs take the one the neediest page asks for, and a
  // page's change of content fits them again, eventFilter().)
  split_ = new QSplitter(Qt::Vertical);
  split_->setObjectName("profile.main");
  split_->addWidget(timeline_);
  split_->addWidget(tabs_);
  split_->setStretchFactor(0, 1);
  split_->setStretchFactor(1, 0);
  split_->setCollapsible(0, false);
  split_->setCollapsible(1, false);
  // A drag of the tracks' handles is the user's height for them, kept (and saved) until the next drag
  // or View ▸ Reset layout; an open tab takes from it only what the lanes need (fitTracks()).
  QSplitter* column = timeline_->trackSplitter();
  column->installEventFilter(this);
  connect(column, &QSplitter::splitterMoved, this, [this, column] {
    const QList<int> s = column->sizes();
    if (s.size() >= 3) want_memory_ = s[1], want_util_ = s[2], shrunk_ = false, user_heights_ = true;
  });
  connect(split_, &QSplitter::splitterMoved, this, [this] {
    // Dragging the collapsed bar open opens the tabs.
    if (collapsed_ && split_->sizes().value(1) > collapsedHeight() + 20) {
      expanded_height_ = split_->sizes().value(1);
      setTabsCollapsed(false);
    }
  });
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(0, 0, 0, 0);
  lay->addWidget(split_);
}

void ProfileWorkspace::addTab(QWidget* page, const QString& title, bool scroll, const QString& short_title) {
  QWidget* w = page;
  if (scroll) {
    auto* area = new QScrollArea;
    area->setWidget(page);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    w = area;
  }
  w->setMinimumHeight(60);  // explicit: the page's own minimum would become the window's
  // Its controls or summary lines changed (a job's notes, the Python tab's table in place of its
  // message): the tabs' height follows, shown or not (a scrolled page's is estimated from the font).
  if (!scroll) page->installEventFilter(this);
  const int i = tabs_->addTab(w, title);
  tabs_->tabBar()->setTabData(i, QStringList{title, short_title});
  tabs_->setTabToolTip(i, title + "\n" + collapseHint());
  fitTabTitles();
}

QString ProfileWorkspace::tabTitle(int index) const { return tabs_->tabBar()->tabData(index).toStringList().value(0); }

QString ProfileWorkspace::collapseHint() { return tr("Click the current tab to collapse the tabs; click a tab to open them"); }

void ProfileWorkspace::fitTabTitles() {
  QTabBar* bar = tabs_->tabBar();
  // The bar's width with every full title: its size hint, less the short titles shown, plus the full.
  const QFontMetrics fm(bar->font());
  int full = bar->sizeHint().width();
  for (int i = 0; i < bar->count(); ++i)
    if (const QString title = tabTitle(i); bar->tabText(i) != title)
      full += fm.horizontalAdvance(title) - fm.horizontalAdvance(bar->tabText(i));
  const bool shorten = full > tabs_->width();
  for (int i = 0; i < bar->count(); ++i) {
    const QStringList titles = bar->tabData(i).toStringList();
    const QString want = shorten && !titles.value(1).isEmpty() ? titles.value(1) : titles.value(0);
    if (bar->tabText(i) != want) bar->setTabText(i, want);
  }
}

void ProfileWorkspace::showTab(QWidget* page) {
  for (int i = 0; i < tabs_->count(); ++i) {
    QWidget* w = tabs_->widget(i);
    auto* area = qobject_cast<QScrollArea*>(w);
    if (w == page || (area && area->widget() == page)) tabs_->setCurrentIndex(i);
  }
  setTabsCollapsed(false);
}

int ProfileWorkspace::collapsedHeight() const { return tabs_->tabBar()->sizeHint().height() + 2; }

void ProfileWorkspace::onTabClicked(int index) {
  if (collapsed_) setTabsCollapsed(false);
  else if (index == tabs_->currentIndex()) setTabsCollapsed(true);
}

void ProfileWorkspace::setTabsCollapsed(bool collapsed) {
  if (collapsed == collapsed_) return;
  keepTrackHeights();
  const QList<int> sizes = split_->sizes();
  const int total = sizes.value(0) + sizes.value(1);
  collapsed_ = collapsed;
  for (int i = 0; i < tabs_->count(); ++i) tabs_->widget(i)->setVisible(!collapsed && i == tabs_->currentIndex());
  if (collapsed) {
    if (sizes.value(1) > collapsedHeight() + 20) expanded_height_ = sizes.value(1);
    tabs_->setMaximumHeight(collapsedHeight());
    tabs_->setMinimumHeight(collapsedHeight());
    split_->setSizes({total - collapsedHeight(), collapsedHeight()});
  } else {
    tabs_->setMinimumHeight(0);
    tabs_->setMaximumHeight(QWIDGETSIZE_MAX);
    // Tall enough for a table's rows, and no taller than what leaves the lanes and the tracks (at
    // their smallest) their room.
    const int want = std::max(expanded_height_ > 0 ? expanded_height_ : total * 35 / 100, tabsOpenHeight());
    const int floor = collapsedHeight() + 60;
    const int h = std::clamp(want, floor, std::max(floor, total - split_->handleWidth() - timelineOpenHeight()));
    split_->setSizes({total - h, h});
  }
  fitTracks();
  // Once more when the column has its new height: the lanes and tracks fitted to what it got.
  QTimer::singleShot(0, this, &ProfileWorkspace::fitTracks);
  emit tabsCollapsedChanged(collapsed);
}

int ProfileWorkspace::tabsOpenHeight() const {
  // The page that needs the most: one height for every tab, so that switching tabs moves neither the
  // tab bar nor the tracks (the Ranks tab's two-line header and notes raised the bar by 47 px).
  int page = 0;
  for (int i = 0; i < tabs_->count(); ++i) page = std::max(page, pageOpenHeight(tabs_->widget(i)));
  return collapsedHeight() + page;
}

int ProfileWorkspace::pageOpenHeight(const QWidget* page) const {
  // A page's table or tree: its header and kTabRows of its rows, and what the page shows around it
  // (its controls, its summary lines), from size hints at the tabs' width, whether it is the current
  // page or not.
  auto* view = qobject_cast<const QAbstractItemView*>(page);
  if (!view && !qobject_cast<const QScrollArea*>(page)) view = page->findChild<QAbstractItemView*>();
  const int around = view && view->isVisibleTo(page) ? around_view(page, view, page, std::max(tabs_->width(), 200)) : -1;
  if (around >= 0) {
    auto* table = qobject_cast<const QTableView*>(view);
    auto* tree = qobject_cast<const QTreeView*>(view);
    // (An empty tree has no row to measure: a line of its font.)
    const int row = table ? table->verticalHeader()->defaultSectionSize()
                          : std::max(view->sizeHintForRow(0), view->fontMetrics().height() + 4);
    const QHeaderView* header = table ? table->horizontalHeader() : tree ? tree->header() : nullptr;
    const int header_h = header && header->isVisibleTo(page) ? header->sizeHint().height() : 0;
    return around + 2 * view->frameWidth() + header_h + kTabRows * row + 2;
  }
  // Else (a scrolled page, a text): a page's row of controls, a table's header and kTabRows rows, a
  // line of summary.
  const int line = fontMetrics().height();
  return (line + 14) + (line + 10) + kTabRows * (line + 12) + line + 12;
}

int ProfileWorkspace::lanesHeight(int lanes) const {
  // The lanes' own rectangles when there are that many (the first ones may have two rows or more),
  // else two lanes of two rows and the rest of one.
  const TimelineView* view = timeline_->view();
  const std::vector<int> order = view->laneOrder();
  if (static_cast<int>(order.size()) >= lanes) {
    const QRect last = view->laneRect(order[static_cast<std::size_t>(lanes - 1)]);
    const QRect first = view->laneRect(order.front());
    if (!last.isEmpty() && !first.isEmpty()) return view->rulerHeight() + last.bottom() - first.top() + 2;
  }
  return view->rulerHeight() + lanes * 2 * TimelineView::kLanePad + (lanes + 2) * view->rowHeight() + 4;
}

int ProfileWorkspace::timelineOpenHeight() const {
  // Another view in the timeline's place (a distributed job's ranks): what it needs, not the lanes and tracks.
  if (const QWidget* alt = timeline_->alternate()) return std::max(alt->minimumSizeHint().height(), 200);
  const QSplitter* column = timeline_->trackSplitter();
  const int above = std::max(0, timeline_->height() - column->height());  // the timeline's tool row
  const int base = above + lanesHeight(kLanesOpen) + 2 * column->handleWidth();
  // The tracks' plots where they fit beside the tab's rows; else their header lines (fitTracks()
  // folds them: classroom mode's font at 1280x720).
  const QList<int> sizes = split_->sizes();
  const int total = sizes.value(0) + sizes.value(1);
  const int plots = trackMinimum(memory_row_, memory_track_) + trackMinimum(util_row_, util_track_);
  const int folded = memory_track_ && util_track_ ? memory_track_->foldedHeight() + util_track_->foldedHeight() : plots;
  return base + (base + plots <= total - split_->handleWidth() - tabsOpenHeight() ? plots : folded);
}

int ProfileWorkspace::trackMinimum(const QWidget* row, const MetricTrack* track) {
  return track ? track->plotMinimumHeight() : row->minimumSizeHint().height();
}

void ProfileWorkspace::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  // After the window's layout has settled: the sizes are computed from the real heights.
  if (!sized_) {
    sized_ = true;
    QTimer::singleShot(0, this, &ProfileWorkspace::resetLayout);
  }
}

void ProfileWorkspace::resetLayout() {
  sized_ = true;
  user_heights_ = false;
  const int h = std::max(height(), 400);
  // The tabs first (open, or collapsed on a short screen), then the column's final height from it,
  // so the lanes and tracks are sized for what they will really get.
  const bool collapse = h < kTabsOpenMinHeight;
  expanded_height_ = h * 30 / 100;
  if (collapsed_ != collapse) setTabsCollapsed(collapse);
  const int tabs_h = collapse ? collapsedHeight() : expanded_height_;
  split_->setSizes({h - tabs_h, tabs_h});
  defaultTracks();
  fitTracks();
  // Once more when the tabs' change has reached the column: sized for what it really got.
  QTimer::singleShot(0, this, [this] {
    defaultTracks();
    fitTracks();
  });
  timeline_->setDetailsVisible(true);
}

bool ProfileWorkspace::eventFilter(QObject* o, QEvent* e) {
  // The column's height changed (a tab opened or closed, the window resized; the splitter gave the
  // change to the lanes): the lanes and tracks fitted to it, once its children have their sizes.
  // The tabs' width or font changed: the titles that fit it.
  if (o == tabs_ && (e->type() == QEvent::Resize || e->type() == QEvent::FontChange)) fitTabTitles();
  if (o == timeline_->trackSplitter() && e->type() == QEvent::Resize && sized_) {
    keepTrackHeights();  // before the splitter hands the change out (an event filter runs first)
    // What the splitter hands the tracks until the fit runs is its share, not a drag: a second resize
    // before it (the window resized, then a tab opened) took those sizes as the user's.
    shrunk_ = true;
    QTimer::singleShot(0, this, &ProfileWorkspace::fitTracks);
  }
  // A track's minimum or preferred height changed (its rows, its font): fitted again, and the default
  // heights follow a new preferred one (the session's measured rows arrived) until the user drags a
  // track or a saved layout restores a drag's heights. A tab's page changed what it shows around its
  // table: the tabs' height may follow.
  if (e->type() == QEvent::LayoutRequest && sized_ && !fit_queued_ &&
      (o == memory_row_ || o == util_row_ || (o->isWidgetType() && tabs_->indexOf(static_cast<QWidget*>(o)) >= 0))) {
    fit_queued_ = true;
    QTimer::singleShot(0, this, [this] {
      fit_queued_ = false;
      keepTrackHeights();  // heights set meanwhile by someone else are theirs
      if (!user_heights_ && preferredHeights() != preferred_seen_) defaultTracks();
      fitTracks();
    });
  }
  return QWidget::eventFilter(o, e);
}

QPair<int, int> ProfileWorkspace::preferredHeights() const {
  return {memory_track_ ? memory_track_->preferredTrackHeight() : 0, util_track_ ? util_track_->preferredTrackHeight() : 0};
}

void ProfileWorkspace::defaultTracks() {
  preferred_seen_ = preferredHeights();
  QSplitter* column = timeline_->trackSplitter();
  const int col = std::max(column->height() - (column->count() - 1) * column->handleWidth(), 200);
  const int memory_min = trackMinimum(memory_row_, memory_track_);
  const int want_m = std::max(kMemoryTrackPx, preferred_seen_.first), want_u = std::max(kUtilTrackPx, preferred_seen_.second);
  // At least kLanesCollapsed lanes above the tracks, which take up to their wanted heights...
  int tracks = std::min(want_m + want_u, std::max(col - lanesHeight(kLanesCollapsed), 0));
  // ...but utilization's preferred rows (the measured ones beside the estimates) and the memory scale
  // under the lanes take from them down to kLanesOpen.
  const int util_pref = preferred_seen_.second;
  if (tracks < util_pref + memory_min) tracks = std::min(util_pref + memory_min, std::max(col - lanesHeight(kLanesOpen), 0));
  // Utilization its preferred rows first, then the memory scale and legend, then utilization's other rows.
  const int util = std::min(util_pref, std::max(tracks - memory_min, 0));
  want_memory_ = std::max(0, std::min(want_m, tracks - util));
  want_util_ = std::max(0, tracks - want_memory_);
  shrunk_ = true;  // fitTracks() brings the tracks to these heights (or as near as the lanes allow)
}

void ProfileWorkspace::keepTrackHeights() {
  // The tracks' heights before a change of the column, unless fitTracks() shrank them: those are
  // the wanted ones (a drag, a restored layout, the defaults) that come back when there is room.
  // Heights other than the wanted ones were set by someone else (a restored splitter, a test): kept
  // as the user's.
  const QList<int> s = timeline_->trackSplitter()->sizes();
  if (shrunk_ || s.size() < 3 || s[1] <= 0 || s[2] <= 0) return;
  // A row the splitter raised towards its grown minimum (the measured rows' legends arrived after the
  // defaults were set, the minimum growing in steps) is no one's choice: taken as a drag, it froze
  // utilization at that minimum with its measured rows folded beside a half-empty tab.
  const auto raised = [](int size, int want, const QWidget* row, int track_min) {
    return size > want && size <= std::max(track_min, row->minimumSizeHint().height());
  };
  const bool memory_raised = raised(s[1], want_memory_, memory_row_, trackMinimum(memory_row_, memory_track_));
  const bool util_raised = raised(s[2], want_util_, util_row_, trackMinimum(util_row_, util_track_));
  if ((s[1] == want_memory_ || memory_raised) && (s[2] == want_util_ || util_raised)) return;
  user_heights_ = true;
  want_memory_ = s[1], want_util_ = s[2];
}

void ProfileWorkspace::setTracksFolded(bool folded) {
  if (memory_track_) memory_track_->setPlotFolded(folded);
  if (util_track_) util_track_->setPlotFolded(folded);
}

std::vector<ProfileWorkspace::TrackAsk> ProfileWorkspace::trackAsks(int memory_min, int util_min) const {
  // By default (no drag) the preferred heights: utilization's measured rows beside the estimates, the
  // GPU row with its first measured row (where a tab leaves no room for both at 1280x720), the memory
  // legend's lines; the user's heights ask for the minimums only.
  const int util_pref = !user_heights_ && util_track_ ? std::max(util_min, util_track_->preferredTrackHeight()) : util_min;
  const int memory_pref =
      !user_heights_ && memory_track_ ? std::max(memory_min, memory_track_->preferredTrackHeight()) : memory_min;
  const int util_part = !user_heights_ && util_track_ ? std::clamp(util_track_->partialTrackHeight(), util_min, util_pref) : util_min;
  std::vector<TrackAsk> asks = {{memory_pref, util_pref, false}, {memory_min, util_pref, false},
                                {memory_pref, util_part, false}, {memory_min, util_part, false}};
  // A measured row is worth more than the memory scale beside a tab: the memory track's header line
  // keeps its peaks (card used, allocated) in words.
  if (!collapsed_ && util_part > util_min && memory_track_) {
    const int memory_folded = memory_track_->foldedHeight();
    asks.push_back({memory_folded, util_pref, true});
    asks.push_back({memory_folded, util_part, true});
  }
  asks.push_back({memory_pref, util_min, false});
  asks.push_back({memory_min, util_min, false});
  return asks;
}

void ProfileWorkspace::fitTracks() {
  QSplitter* column = timeline_->trackSplitter();
  if (column->count() < 3 || !isVisible()) return;
  const int col = column->height() - (column->count() - 1) * column->handleWidth();
  if (col <= 0) return;
  const QList<int> now = column->sizes();
  // With a tab open the lanes first (kLanesOpen whole lanes); the tracks at their wanted heights
  // where that leaves the lanes their room, else sharing what is left, each at least its minimum (a
  // scale, a row with its legend); where not even their minimums fit, folded to their header lines.
  // With the tabs collapsed the wanted heights as they are: the user's drag decides how many lanes show.
  const int memory_min = trackMinimum(memory_row_, memory_track_), util_min = trackMinimum(util_row_, util_track_);
  // (The lanes' widget has a minimum height of its own, which the splitter keeps.)
  const int lanes_min = column->widget(0)->minimumSizeHint().height();
  const int lanes = collapsed_ ? lanes_min : std::max(lanes_min, lanesHeight(kLanesOpen));
  // The first ask the lanes leave room for, with what a tab can give beyond its rows (a legend that
  // wrapped to another line at this width); where not even the minimums fit, the tracks fold. Which
  // one fits does not depend on where the handle between tab and timeline is, so giving and folding
  // never take turns.
  const std::vector<TrackAsk> asks = trackAsks(memory_min, util_min);
  const QList<int> split = split_->sizes();
  // What the tab has beyond its rows; below 0, what they lack (its page grew a line of notes or a
  // scroll bar since it opened): the tracks leave it that.
  const int spare = collapsed_ ? 0 : split.value(1) - tabsOpenHeight();
  const TrackAsk* ask = nullptr;
  for (const TrackAsk& a : asks)
    if (!ask && a.memory + a.util <= col - lanes + spare) ask = &a;
  // > 0: from the tab to the tracks. Never the other way for room the ask leaves over: that room is
  // the lanes' and the tracks' wanted heights (handed to the tab, a 1920x1080 window showed 4 lanes
  // and two squeezed tracks above a Verdicts tab half empty).
  int give = ask ? std::max(0, ask->memory + ask->util - (col - lanes)) : 0;
  if (ask && spare < 0) give = spare;  // < 0: back to the tab, what its rows lack
  if (!collapsed_ && give != 0) {
    // The tracks' sizes until the column's resize fits them are the splitter's, not a drag's (the
    // resize, in setSizes, keeps the tracks' heights as the user's otherwise).
    shrunk_ = true;
    split_->setSizes({split.value(0) + give, split.value(1) - give});
    return;  // the column's resize fits the tracks again
  }
  const bool fold = !collapsed_ && !ask && memory_track_ && util_track_;
  // (Each track's state set once: a plot shown and hidden again asks for another layout, and a fit.)
  if (memory_track_) memory_track_->setPlotFolded(fold || (ask && ask->fold_memory));
  if (util_track_) util_track_->setPlotFolded(fold);
  // The rows' minimums as folded now: the splitter reads their layouts' cached ones (the memory row
  // kept its plot's 76 px until the next event loop and took them from utilization's measured row).
  for (QWidget* row : {memory_row_, util_row_})
    if (row->layout()) row->layout()->activate();
  int memory = 0, util = 0;
  if (fold) {
    memory = memory_track_->foldedHeight(), util = util_track_->foldedHeight();
    // The tab takes what the lanes' room leaves (its table shows more rows); the column's resize
    // fits the lanes and tracks again.
    const int extra = col - lanes - memory - util;
    if (extra > 0 && split.value(0) > extra) split_->setSizes({split.value(0) - extra, split.value(1) + extra});
  } else {
    memory = std::max(want_memory_, memory_min), util = std::max(want_util_, util_min);
    // With a tab open the defaults hold what the ask keeps (they were set for another column height:
    // a tab taller than this one had left utilization 111 px, its measured rows folded beside 8 lanes).
    if (ask && !collapsed_ && !user_heights_) memory = std::max(memory, ask->memory), util = std::max(util, ask->util);
    const int room = std::max(col - lanes, memory_min + util_min);
    if (memory + util > room && user_heights_) {  // the user's heights shrink in their ratio
      const int wanted = memory + util;
      memory = std::max(memory_min, room * memory / wanted);
      util = std::max(util_min, room - memory);
      memory = std::max(memory_min, room - util);
    } else if (ask && ask->fold_memory) {  // the memory track's header line; utilization the rest
      memory = ask->memory, util = std::max(util_min, room - memory);
    } else if (memory + util > room) {  // the defaults keep what the ask keeps
      memory = std::clamp(ask ? ask->memory : memory_min, memory_min, std::max(memory_min, room - util_min));
      util = room - memory;
    }
  }
  shrunk_ = memory != want_memory_ || util != want_util_;
  if (now.value(1) == memory && now.value(2) == util) return;
  column->setSizes({col - memory - util, memory, util});
}

QByteArray ProfileWorkspace::saveLayout() const {
  QByteArray extra;
  QDataStream s(&extra, QIODevice::WriteOnly);
  s << collapsed_ << static_cast<qint32>(expanded_height_) << static_cast<qint32>(tabs_->currentIndex())
    << timeline_->detailsVisible() << static_cast<qint32>(want_memory_) << static_cast<qint32>(want_util_)
    << user_heights_;
  return save_splitters({split_, timeline_->trackSplitter(), timeline_->detailsSplitter()}, extra);
}

bool ProfileWorkspace::restoreLayout(const QByteArray& state) {
  QByteArray extra;
  if (!restore_splitters(state, {split_, timeline_->trackSplitter(), timeline_->detailsSplitter()}, &extra)) return false;
  QDataStream s(extra);
  bool collapsed = false, details = true;
  qint32 expanded = 0, current = 0;
  s >> collapsed >> expanded >> current >> details;
  if (s.status() == QDataStream::Ok) {
    timeline_->setDetailsVisible(details);
    if (current >= 0 && current < tabs_->count()) tabs_->setCurrentIndex(current);
    expanded_height_ = expanded;
    // The tracks' heights the user dragged (a layout saved before they were kept: as restored).
    const QList<int> restored = timeline_->trackSplitter()->sizes();
    qint32 memory = restored.value(1, kMemoryTrackPx), util = restored.value(2, kUtilTrackPx);
    QDataStream more(extra);
    bool c = false, d = false;
    qint32 x = 0, y = 0;
    more >> c >> x >> y >> d >> memory >> util;
    if (more.status() == QDataStream::Ok) want_memory_ = memory, want_util_ = util;
    else want_memory_ = restored.value(1, kMemoryTrackPx), want_util_ = restored.value(2, kUtilTrackPx);
    // Whether those are a drag's (a layout saved before this was kept: taken as a drag's).
    bool user = true;
    if (more.status() == QDataStream::Ok) {
      more >> user;
      if (more.status() != QDataStream::Ok) user = true;
    }
    user_heights_ = user;
    shrunk_ = want_memory_ != restored.value(1) || want_util_ != restored.value(2);
    setTabsCollapsed(collapsed);  // applies the change and the sizes it needs
  }
  sized_ = true;
  return true;
}

}  // namespace ts::gui
