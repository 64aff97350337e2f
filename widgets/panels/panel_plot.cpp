// Shared plot plumbing of the panels: linked time axis, byte ticker, titles, colours.
#include "widgets/panels/panel_plot.h"

#include <algorithm>
#include <cmath>

namespace ts::gui {

QString format_bytes(double bytes, int precision) {
  const double a = std::fabs(bytes);
  if (a >= 1e12) return QString::number(bytes / 1e12, 'f', precision) + " TB";
  if (a >= 1e9) return QString::number(bytes / 1e9, 'f', precision) + " GB";
  if (a >= 1e6) return QString::number(bytes / 1e6, 'f', precision) + " MB";
  if (a >= 1e3) return QString::number(bytes / 1e3, 'f', precision) + " kB";
  return QString::number(bytes, 'f', 0) + " B";
}

double BytesTicker::getTickStep(const QCPRange& range) {
  step_ = QCPAxisTicker::getTickStep(range);
  return step_;
}

QString BytesTicker::getTickLabel(double tick, const QLocale&, QChar, int) {
  if (tick == 0) return "0";
  // Enough decimals to tell neighbouring ticks apart at this tick step.
  const double step = step_ > 0 ? step_ : std::fabs(tick);
  const double a = std::fabs(tick);
  const double unit = a >= 1e12 ? 1e12 : a >= 1e9 ? 1e9 : a >= 1e6 ? 1e6 : a >= 1e3 ? 1e3 : 1;
  const int decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(step / unit) - 1e-9)), 0, 3);
  return format_bytes(tick, decimals);
}

TimeAxisLink::TimeAxisLink(PanelHub* hub, QCustomPlot* plot, QList<QCPAxis*> axes)
    : QObject(plot), hub_(hub), plot_(plot), axes_(std::move(axes)) {
  for (QCPAxis* a : axes_)
    connect(a, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &TimeAxisLink::fromAxis);
  connect(hub_, &PanelHub::visibleRangeChanged, this, &TimeAxisLink::fromHub);
  connect(hub_, &PanelHub::storeChanged, this, [this] { extent_ = {}; });
}

void TimeAxisLink::setAxesRange(const QCPRange& r) {
  applying_ = true;
  for (QCPAxis* a : axes_) a->setRange(r);
  applying_ = false;
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

TimeSpan TimeAxisLink::shown() const {
  const TimeSpan v = hub_->visibleRange();
  return v.end > v.start ? v : extent_;
}

void TimeAxisLink::setDataExtent(qint64 lo_ns, qint64 hi_ns) {
  if (hi_ns <= lo_ns) hi_ns = lo_ns + 1'000'000;  // one sample: show 1 ms around it
  extent_ = {lo_ns, hi_ns};
  const TimeSpan v = hub_->visibleRange();
  if (v.end > v.start) fromHub(v);
  else setAxesRange(QCPRange(ns_to_s(lo_ns), ns_to_s(hi_ns)));
}

void TimeAxisLink::fromHub(TimeSpan r) {
  if (r.end <= r.start) {
    if (extent_.end > extent_.start) setAxesRange(QCPRange(ns_to_s(extent_.start), ns_to_s(extent_.end)));
    return;
  }
  setAxesRange(QCPRange(ns_to_s(r.start), ns_to_s(r.end)));
}

void TimeAxisLink::fromAxis(const QCPRange& r) {
  if (applying_) return;
  applying_ = true;  // keep the sibling axes with the one the user moved
  for (QCPAxis* a : axes_)
    if (a->range() != r) a->setRange(r);
  applying_ = false;
  hub_->setFollowLive(false);
  hub_->setVisibleRange({s_to_ns(r.lower), s_to_ns(r.upper)});
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void add_plot_title(QCustomPlot* plot, const QString& title) {
  plot->plotLayout()->insertRow(0);
  auto* t = new QCPTextElement(plot, title, QFont(plot->font().family(), plot->font().pointSize() + 1, QFont::Bold));
  plot->plotLayout()->addElement(0, 0, t);
}

void legend_below(QCustomPlot* plot, int columns) {
  auto* sub = new QCPLayoutGrid;
  plot->plotLayout()->addElement(1, 0, sub);
  plot->plotLayout()->setRowStretchFactor(1, 0.001);
  sub->setMargins(QMargins(5, 0, 5, 5));
  sub->addElement(0, 0, plot->legend);
  plot->legend->setVisible(true);
  plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  plot->legend->setWrap(columns);
  plot->legend->setBorderPen(Qt::NoPen);
  QFont lf = plot->font();
  lf.setPointSizeF(lf.pointSizeF() * 0.9);
  plot->legend->setFont(lf);
  plot->legend->setIconSize(14, 10);
}

QCPItemText* add_center_message(QCustomPlot* plot, QCPAxisRect* rect) {
  auto* t = new QCPItemText(plot);
  t->setClipToAxisRect(false);
  t->position->setAxisRect(rect);
  t->position->setType(QCPItemPosition::ptAxisRectRatio);
  t->position->setCoords(0.5, 0.5);
  t->setPositionAlignment(Qt::AlignCenter);
  t->setColor(QColor(90, 90, 90));
  QFont f = plot->font();
  f.setPointSize(f.pointSize() + 1);
  t->setFont(f);
  t->setVisible(false);
  return t;
}

QColor palette_color(int i) {
  static const QColor c[] = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b), QColor(0xe1, 0x57, 0x59),
                             QColor(0x76, 0xb7, 0xb2), QColor(0x59, 0xa1, 0x4f), QColor(0xed, 0xc9, 0x48),
                             QColor(0xb0, 0x7a, 0xa1), QColor(0xff, 0x9d, 0xa7), QColor(0x9c, 0x75, 0x5f),
                             QColor(0xba, 0xb0, 0xac)};
  return c[((i % 10) + 10) % 10];
}

}  // namespace ts::gui
