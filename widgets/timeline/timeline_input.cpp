// TimelineView input: Perfetto's keys (W/S zoom around the mouse, A/D pan), Ctrl+wheel zoom,
// Shift+wheel pan, wheel scrolls lanes, drag pans, Shift+drag or a drag on the ruler selects a
// range (Z zooms to it, F fits all, Esc clears), click selects an event, a double-click on a lane with
// nothing in view shows its events, the lane header's context menu, and hover tooltips.
#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "widgets/timeline/timeline_details.h"
#include "widgets/timeline/timeline_view.h"

namespace ts::gui {

using namespace timeline;

void TimelineView::keyPressEvent(QKeyEvent* e) {
  // Zoom around the mouse when it is over the plot, else around the centre.
  const QPoint mouse = last_mouse_;
  const double anchor = rect().contains(mouse) && mouse.x() >= header_w_ ? mouse.x() - header_w_ : axis_.width() / 2;
  switch (e->key()) {
    case Qt::Key_W: axis_.zoom(kKeyZoom, anchor); break;
    case Qt::Key_S: axis_.zoom(1 / kKeyZoom, anchor); break;
    case Qt::Key_A: axis_.panPx(-kKeyPan * axis_.width()); break;
    case Qt::Key_D: axis_.panPx(kKeyPan * axis_.width()); break;
    case Qt::Key_F: fitAll(); return;
    case Qt::Key_Z:
      if (!zoomToSelection()) QWidget::keyPressEvent(e);
      return;
    case Qt::Key_Escape:
      setTimeSelection(std::nullopt);
      selectEvent({});
      return;
    default: QWidget::keyPressEvent(e); return;
  }
  userMoved();
}

void TimelineView::wheelEvent(QWheelEvent* e) {
  const double steps = e->angleDelta().y() / 120.0;
  if (e->modifiers() & Qt::ControlModifier) {
    const double anchor = std::max(0.0, e->position().x() - header_w_);
    axis_.zoom(std::pow(kKeyZoom, steps), anchor);
    userMoved();
  } else if (e->modifiers() & Qt::ShiftModifier) {
    const double d = e->angleDelta().y() != 0 ? e->angleDelta().y() : e->angleDelta().x();
    axis_.panPx(-d / 120.0 * kKeyPan * axis_.width());
    userMoved();
  } else {
    const int max_scroll = std::max(0, contentHeight() - (height() - ruler_h_));
    scroll_y_ = std::clamp(scroll_y_ - static_cast<int>(steps * 3 * row_h_), 0, max_scroll);
    update();
  }
  e->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* e) {
  setFocus();
  if (e->button() != Qt::LeftButton) return;
  press_pos_ = e->position().toPoint();
  moved_ = false;
  press_t_ = axis_.t(press_pos_.x() - header_w_);
  if (press_pos_.x() < header_w_) {  // header: click toggles collapse
    drag_ = Drag::none;
    const int lane = laneAt(press_pos_.y());
    if (lane >= 0) setLaneCollapsed(lane, !isLaneCollapsed(lane));
    return;
  }
  drag_ = (press_pos_.y() < ruler_h_ || (e->modifiers() & Qt::ShiftModifier)) ? Drag::select : Drag::pan;
}

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
  const QPoint p = e->position().toPoint();
  last_mouse_ = p;
  if (drag_ == Drag::none) return;
  if (!moved_ && (p - press_pos_).manhattanLength() < 3) return;
  moved_ = true;
  if (drag_ == Drag::pan) {
    axis_.panPx(-(p.x() - press_pos_.x()));
    scroll_y_ = std::clamp(scroll_y_ - (p.y() - press_pos_.y()), 0,
                           std::max(0, contentHeight() - (height() - ruler_h_)));
    press_pos_ = p;
    userMoved();
  } else {
    const std::int64_t t = axis_.t(p.x() - header_w_);
    setTimeSelection(TimeSpan{std::min(press_t_, t), std::max(press_t_, t)});
  }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton) return;
  const Drag d = drag_;
  drag_ = Drag::none;
  if (d == Drag::none || moved_) return;
  // A click: select the event under the mouse (or clear), and clear a range selection.
  if (time_selection_) setTimeSelection(std::nullopt);
  selectEvent(eventAt(e->position().toPoint()));
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* e) {
  const QPoint p = e->position().toPoint();
  if (e->button() == Qt::LeftButton && p.x() >= header_w_ && showLaneEvents(laneAt(p.y()))) return;
  QWidget::mouseDoubleClickEvent(e);
}

void TimelineView::leaveEvent(QEvent* e) {
  last_mouse_ = {-1, -1};
  QWidget::leaveEvent(e);
}

QMenu* TimelineView::laneMenu(int lane, QWidget* parent) {
  auto* m = new QMenu(parent);
  fillLaneMenu(m, lane);
  return m;
}

void TimelineView::fillLaneMenu(QMenu* m, int lane) {
  if (lane >= 0) {
    const bool collapsed = isLaneCollapsed(lane);
    m->addAction(collapsed ? tr("Expand") : tr("Collapse"), this, [this, lane, collapsed] { setLaneCollapsed(lane, !collapsed); })
        ->setObjectName("collapse");
    m->addAction(tr("Hide"), this, [this, lane] { setLaneHidden(lane, true); })->setObjectName("hide");
    m->addAction(tr("Move up"), this, [this, lane] { moveLane(lane, -1); })->setObjectName("up");
    m->addAction(tr("Move down"), this, [this, lane] { moveLane(lane, +1); })->setObjectName("down");
    m->addSeparator();
  }
  QAction* all = m->addAction(tr("Show all lanes (%1 hidden)").arg(hiddenLaneCount()), this, &TimelineView::showAllLanes);
  all->setObjectName("show_all");
  all->setEnabled(hiddenLaneCount() > 0);
  // Every lane, checked when shown (the empty lanes hidden on load are here, unchecked).
  m->addSection(tr("Lanes"));
  for (int l : data_.defaultOrder()) {
    const Lane& info = data_.lanes()[static_cast<std::size_t>(l)];
    QString title = data_.laneTitle(l);
    if (title.trimmed().isEmpty() || title == "/") title = QString::fromStdString(info.key);
    if (isEmptyLane(l)) title += tr(" (empty)");
    QAction* a = m->addAction(title);
    a->setObjectName(QString::fromStdString("lane:" + info.key));
    a->setCheckable(true);
    a->setChecked(!isLaneHidden(l));
    connect(a, &QAction::toggled, this, [this, l](bool on) { setLaneHidden(l, !on); });
  }
}

void TimelineView::contextMenuEvent(QContextMenuEvent* e) {
  if (e->pos().x() >= header_w_) return;
  QMenu* m = laneMenu(laneAt(e->pos().y()), this);
  m->setAttribute(Qt::WA_DeleteOnClose);
  m->popup(e->globalPos());
}

QString TimelineView::tooltipAt(QPoint p) const {
  if (!store_) return {};
  const EventRef r = eventAt(p);
  if (r.valid()) return event_tooltip(*store_, data_, props_, r);
  const int lane = laneAt(p.y());
  if (QString note = lane >= 0 && p.x() >= header_w_ ? offViewNote(lane) : QString(); !note.isEmpty())
    return tr("Nothing of %1 in view: %2").arg(data_.laneTitle(lane), note.remove(QStringLiteral("◂ ")).remove(QStringLiteral(" ▸")));
  if (lane >= 0 && p.x() < header_w_) {
    const Lane& l = data_.lanes()[static_cast<std::size_t>(lane)];
    QString what = data_.laneTitle(lane);
    if (l.kind == LaneKind::runtime)
      what += tr(" (CUDA runtime calls of thread %1%2)")
                  .arg(l.id)
                  .arg(data_.hasHostThread(l.id) ? QString()
                                                 : tr("; no host range uses this id (older CUPTI thread ids): the "
                                                      "thread with the most kernel launches is the trainer's"));
    return tr("%1 — %2 events. Click: collapse/expand; right-click: hide, move, show all").arg(what).arg(l.events());
  }
  return {};
}

bool TimelineView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    const QString text = tooltipAt(he->pos());
    if (text.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(he->globalPos(), text, this);
    return true;
  }
  return QWidget::event(e);
}

}  // namespace ts::gui
