// ProfileWorkspace: timeline with metric tracks, details pane, collapsible analysis tabs.
#include "widgets/workspaces/profile_workspace.h"

#include <QDataStream>
#include <QIODevice>
#include <QScrollArea>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/workspaces/layout_state.h"

namespace ts::gui {

namespace {
/// Default heights (px) of the tracks: the memory graph's header row and plot, and utilization's
/// three to five rows with their one-line legends.
constexpr int kMemoryTrackPx = 120, kUtilTrackPx = 240;
/// Below this workspace height the tabs start collapsed, so the lanes keep at least 8 lanes in view
/// beside the tracks on a 1366x768 screen.
constexpr int kTabsOpenMinHeight = 820;
}  // namespace

ProfileWorkspace::ProfileWorkspace(TimelinePanel* timeline, QWidget* memory, QWidget* utilization, QWidget* parent)
    : QWidget(parent), timeline_(timeline) {
  setObjectName("workspace.profile");
  memory_row_ = timeline_->addTrack(memory);
  memory_row_->setObjectName("track.memory");
  util_row_ = timeline_->addTrack(utilization);
  util_row_->setObjectName("track.utilization");
  tabs_ = new QTabWidget;
  tabs_->setObjectName("profile.tabs");
  tabs_->setDocumentMode(true);
  tabs_->tabBar()->setToolTip(tr("Click the current tab to collapse the tabs; click a tab to open them"));
  connect(tabs_->tabBar(), &QTabBar::tabBarClicked, this, &ProfileWorkspace::onTabClicked);
  split_ = new QSplitter(Qt::Vertical);
  split_->setObjectName("profile.main");
  split_->addWidget(timeline_);
  split_->addWidget(tabs_);
  split_->setStretchFactor(0, 1);
  split_->setStretchFactor(1, 0);
  split_->setCollapsible(0, false);
  split_->setCollapsible(1, false);
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

void ProfileWorkspace::addTab(QWidget* page, const QString& title, bool scroll) {
  QWidget* w = page;
  if (scroll) {
    auto* area = new QScrollArea;
    area->setWidget(page);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    w = area;
  }
  w->setMinimumHeight(60);  // explicit: the page's own minimum would become the window's
  tabs_->addTab(w, title);
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
    const int h = std::clamp(expanded_height_ > 0 ? expanded_height_ : total * 35 / 100, collapsedHeight() + 60,
                             std::max(collapsedHeight() + 60, total / 2));
    split_->setSizes({total - h, h});
  }
  emit tabsCollapsedChanged(collapsed);
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
  const int h = std::max(height(), 400);
  // The tabs first (open, or collapsed on a short screen), then the column's final height from it,
  // so the lanes and tracks are sized for what they will really get.
  const bool collapse = h < kTabsOpenMinHeight;
  expanded_height_ = h * 30 / 100;
  if (collapsed_ != collapse) setTabsCollapsed(collapse);
  const int tabs_h = collapse ? collapsedHeight() : expanded_height_;
  split_->setSizes({h - tabs_h, tabs_h});
  sizeTracks();
  // Once more when the tabs' change has reached the column: sized for what it really got.
  QTimer::singleShot(0, this, &ProfileWorkspace::sizeTracks);
  timeline_->setDetailsVisible(true);
}

void ProfileWorkspace::sizeTracks() {
  QSplitter* column = timeline_->trackSplitter();
  const int col = std::max(column->height() - (column->count() - 1) * column->handleWidth(), 200);
  // The lanes first: at least 8 lanes (two of them of two rows, as the trainer's and the first
  // stream's are) above the tracks; the tracks share what is left in the ratio of their default
  // heights, each at least its minimum.
  const int lanes_min = TimelineView::kRulerHeight + 8 * 2 * TimelineView::kLanePad + 10 * TimelineView::kRowHeight + 4;
  const int tracks = std::min(kMemoryTrackPx + kUtilTrackPx, std::max(col - lanes_min, 0));
  const int memory = std::max(tracks * kMemoryTrackPx / (kMemoryTrackPx + kUtilTrackPx), memory_row_->minimumSizeHint().height());
  const int util = std::max(tracks - memory, util_row_->minimumSizeHint().height());
  column->setSizes({col - memory - util, memory, util});
}

QByteArray ProfileWorkspace::saveLayout() const {
  QByteArray extra;
  QDataStream s(&extra, QIODevice::WriteOnly);
  s << collapsed_ << static_cast<qint32>(expanded_height_) << static_cast<qint32>(tabs_->currentIndex())
    << timeline_->detailsVisible();
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
    setTabsCollapsed(collapsed);  // applies the change and the sizes it needs
  }
  sized_ = true;
  return true;
}

}  // namespace ts::gui
