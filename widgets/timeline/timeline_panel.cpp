// TimelinePanel: toolbar + view + details pane + legend (see timeline_panel.h).
#include "widgets/timeline/timeline_panel.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStackedWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include "widgets/timeline/timeline_details.h"
#include "widgets/timeline/timeline_view.h"

namespace ts::gui {

namespace {
QToolButton* button(const QString& text, const QString& tip, QWidget* parent) {
  auto* b = new QToolButton(parent);
  b->setText(text);
  b->setToolTip(tip);
  b->setAutoRaise(true);
  return b;
}
}  // namespace

TimelinePanel::TimelinePanel(PanelHub* hub, QWidget* parent) : QWidget(parent), hub_(hub) {
  view_ = new TimelineView(hub, this);
  details_ = new DetailsPane(view_, this);
  legend_ = new TimelineLegend(this);
  search_ = new QLineEdit(this);
  search_->setPlaceholderText(tr("Find kernel, op, range…"));
  search_->setToolTip(tr("Find every slice by name: kernels, host ranges and CPU ops (DataLoader, aten::conv2d), CUDA "
                         "runtime calls, copies (Memcpy HtoD) and memsets; Enter: next, Shift+Enter: previous"));
  search_->setClearButtonEnabled(true);
  search_->setMinimumWidth(150);
  search_->setMaximumWidth(320);
  matches_ = new QLabel(this);
  auto* prev = button(tr("◀"), tr("Previous match (Shift+Enter)"), this);
  auto* next = button(tr("▶"), tr("Next match (Enter)"), this);
  auto* zoom_sel = button(tr("Zoom to selection"), tr("Zoom to the selected range (Z); drag on the ruler to select"), this);
  auto* fit = button(tr("Fit all"), tr("Show the whole session (F)"), this);
  lanes_button_ = button(tr("Lanes"), tr("Show or hide lanes (empty ones are hidden when a session opens)"), this);
  lanes_button_->setPopupMode(QToolButton::InstantPopup);
  auto* lane_menu = new QMenu(lanes_button_);
  lanes_button_->setMenu(lane_menu);
  connect(lane_menu, &QMenu::aboutToShow, this, [this, lane_menu] {
    lane_menu->clear();
    view_->fillLaneMenu(lane_menu, -1);
  });
  follow_ = button(tr("Follow live"), tr("Keep the newest events in view while the run trains; a pan or zoom stops it"), this);
  follow_->setCheckable(true);
  follow_->setChecked(hub_ && hub_->followLive());
  follow_->setEnabled(hub_ && hub_->isLive());

  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(4, 2, 4, 2);
  bar->addWidget(search_);
  bar->addWidget(prev);
  bar->addWidget(next);
  bar->addWidget(matches_);
  bar->addStretch(1);
  bar->addWidget(zoom_sel);
  bar->addWidget(fit);
  bar->addWidget(lanes_button_);
  bar->addWidget(follow_);

  // The lanes scroll (wheel, drag); the bar shows that there are more below (an imported trace's
  // python thread of 8 rows hid its kernel lanes) and moves them.
  scroll_ = new QScrollBar(Qt::Vertical, this);
  scroll_->setToolTip(tr("More lanes below: scroll (or use the mouse wheel over the lanes)"));
  auto* lanes = new QWidget(this);
  auto* lanes_row = new QHBoxLayout(lanes);
  lanes_row->setContentsMargins(0, 0, 0, 0);
  lanes_row->setSpacing(0);
  lanes_row->addWidget(view_, 1);
  lanes_row->addWidget(scroll_);
  scroll_->hide();  // shown by syncScrollBar when the lanes do not fit
  connect(scroll_, &QScrollBar::valueChanged, view_, &TimelineView::setScrollY);
  // After the paint, not inside it: showing or hiding the bar re-lays out the view.
  connect(view_, &TimelineView::painted, this, &TimelinePanel::syncScrollBar, Qt::QueuedConnection);
  column_ = new QSplitter(Qt::Vertical, this);
  column_->setObjectName("timeline.tracks");
  column_->setChildrenCollapsible(false);
  column_->addWidget(lanes);
  column_->setStretchFactor(0, 1);
  split_ = new QSplitter(Qt::Horizontal, this);
  split_->setObjectName("timeline.details");
  split_->addWidget(column_);
  // The details pane and, under it, the colour legend: beside the lanes and tracks rather than a
  // row under them (two lines of height the lanes need on a 720-line screen).
  side_ = new QWidget(this);
  auto* side = new QVBoxLayout(side_);
  side->setContentsMargins(0, 0, 0, 0);
  side->setSpacing(4);
  side->addWidget(details_, 1);
  side->addWidget(legend_);
  split_->addWidget(side_);
  split_->setStretchFactor(0, 1);
  split_->setStretchFactor(1, 0);
  split_->setCollapsible(0, false);
  split_->setSizes({900, 300});
  details_button_ = button(tr("Details"), tr("Show or hide the details pane (the selected event or range)"), this);
  details_button_->setCheckable(true);
  details_button_->setChecked(true);
  bar->addWidget(details_button_);
  connect(details_button_, &QToolButton::toggled, this, &TimelinePanel::setDetailsVisible);
  // A drag that collapses the pane unchecks the button.
  connect(split_, &QSplitter::splitterMoved, this, [this] {
    details_on_ = split_->sizes().value(1) > 0;
    const QSignalBlocker b(details_button_);
    details_button_->setChecked(details_on_);
  });

  // Page 0: the one-session timeline (toolbar, lanes, tracks, details); page 1: setAlternate()'s widget.
  auto* own = new QWidget(this);
  auto* lay = new QVBoxLayout(own);
  lay->setContentsMargins(0, 0, 0, 0);
  lay->setSpacing(2);
  lay->addLayout(bar);
  lay->addWidget(split_, 1);
  stack_ = new QStackedWidget(this);
  stack_->addWidget(own);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(stack_);

  connect(search_, &QLineEdit::textChanged, view_, &TimelineView::setSearch);
  connect(search_, &QLineEdit::returnPressed, view_, [this] {
    if (QApplication::keyboardModifiers() & Qt::ShiftModifier) view_->prevMatch();
    else view_->nextMatch();
  });
  connect(prev, &QToolButton::clicked, view_, &TimelineView::prevMatch);
  connect(next, &QToolButton::clicked, view_, &TimelineView::nextMatch);
  connect(view_, &TimelineView::searchChanged, this, &TimelinePanel::updateMatches);
  connect(zoom_sel, &QToolButton::clicked, view_, &TimelineView::zoomToSelection);
  connect(fit, &QToolButton::clicked, view_, &TimelineView::fitAll);
  if (hub_) {
    connect(follow_, &QToolButton::toggled, hub_, &PanelHub::setFollowLive);
    connect(hub_, &PanelHub::followLiveChanged, follow_, &QToolButton::setChecked);
    connect(hub_, &PanelHub::liveChanged, follow_, &QToolButton::setEnabled);
    connect(hub_, &PanelHub::grew, this, [this] {
      if (!search_->text().isEmpty()) updateMatches();
    });
  }
  updateMatches();
}

QWidget* TimelinePanel::addTrack(QWidget* track) {
  auto* row = new QWidget(this);
  auto* h = new QHBoxLayout(row);
  h->setContentsMargins(0, 0, 0, 0);
  h->setSpacing(0);
  h->addWidget(track, 1);
  auto* spacer = new QWidget(row);
  spacer->setFixedWidth(scroll_->sizeHint().width());
  spacer->setVisible(!scroll_->isHidden());
  h->addWidget(spacer);
  track_spacers_.push_back(spacer);
  column_->addWidget(row);
  column_->setStretchFactor(column_->count() - 1, 0);
  return row;
}

void TimelinePanel::setAlternate(QWidget* w) {
  if (alternate_ == w) return;
  if (alternate_) stack_->removeWidget(alternate_), alternate_->hide();
  alternate_ = w;
  if (w) stack_->addWidget(w), stack_->setCurrentWidget(w);
  else stack_->setCurrentIndex(0);
}

void TimelinePanel::setDetailsVisible(bool visible) {
  {
    const QSignalBlocker b(details_button_);
    details_button_->setChecked(visible);
  }
  if (visible == details_on_) return;
  details_on_ = visible;
  const QList<int> sizes = split_->sizes();
  const int total = std::max(sizes.value(0) + sizes.value(1), width());
  const int pane = std::min(std::max(details_->minimumSizeHint().width(), 300), std::max(total / 3, 1));
  side_->setVisible(visible);
  if (visible) split_->setSizes({total - pane, pane});
}

bool TimelinePanel::detailsVisible() const { return details_on_; }

void TimelinePanel::updateMatches() {
  matches_->setText(search_->text().isEmpty() ? QString() : tr("%n match(es)", nullptr, view_->matchCount()));
}

void TimelinePanel::syncScrollBar() {
  const QSignalBlocker block(scroll_);
  const int max = view_->maxScrollY();
  scroll_->setRange(0, max);
  scroll_->setPageStep(std::max(1, view_->height() - view_->rulerHeight()));
  scroll_->setSingleStep(view_->rowHeight());
  scroll_->setValue(view_->scrollY());
  scroll_->setVisible(max > 0);
  for (QWidget* s : track_spacers_) s->setVisible(max > 0);  // tracks end where the lanes end
}

}  // namespace ts::gui
