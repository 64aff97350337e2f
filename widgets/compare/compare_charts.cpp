// The compare view's plots (see compare_charts.h).
#include "widgets/compare/compare_charts.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <qcustomplot.h>

#include "profiling/compare/compare_text.h"
#include "widgets/common/count_ticker.h"
#include "widgets/compare/compare_tables.h"
#include "widgets/compare/compare_view.h"
#include "widgets/common/plot_export.h"
#include "widgets/panels/panel_plot.h"

namespace ts::gui {

namespace pa = prof::analysis;
namespace pc = prof::compare;

QColor okabe_ito_color(int i) {
  static const QColor c[] = {QColor(0x00, 0x72, 0xb2), QColor(0xe6, 0x9f, 0x00), QColor(0x56, 0xb4, 0xe9),
                             QColor(0xd5, 0x5e, 0x00), QColor(0x00, 0x9e, 0x73), QColor(0xcc, 0x79, 0xa7),
                             QColor(0xf0, 0xe4, 0x42), QColor(0x99, 0x99, 0x99)};
  return c[((i % 8) + 8) % 8];
}

namespace {

/// Tick labels "A\ngpu_b128_nw4" at keys 0..n-1.
QSharedPointer<QCPAxisTickerText> session_ticker(const pc::Comparison& c) {
  QSharedPointer<QCPAxisTickerText> t(new QCPAxisTickerText);
  for (int i = 0; i < static_cast<int>(c.sessions.size()); ++i)
    t->addTick(i, session_letter(i) + "\n" + short_session_label(QString::fromStdString(c.sessions[static_cast<std::size_t>(i)].label)));
  return t;
}

QCustomPlot* make_plot(QWidget* parent, const QString& y_label) {
  auto* plot = new QCustomPlot(parent);
  plot->setMinimumHeight(260);
  plot->yAxis->setLabel(y_label);
  plot->xAxis->grid()->setVisible(false);
  plot->xAxis->setTickLength(0, 0);
  plot->xAxis->setSubTicks(false);
  plot->yAxis->grid()->setSubGridVisible(false);
  install_plot_export(plot);
  return plot;
}

/// The legend in its own column right of the axis rect, so it never covers a bar.
void legend_right(QCustomPlot* plot) {
  plot->legend->setVisible(true);
  auto* side = new QCPLayoutGrid;
  plot->plotLayout()->addElement(0, 1, side);
  plot->plotLayout()->setColumnStretchFactor(1, 0.01);
  side->addElement(0, 0, plot->legend);
  side->addElement(1, 0, new QCPLayoutElement(plot));  // pushes the legend to the top
  side->setRowStretchFactor(0, 0.01);
  plot->legend->setBorderPen(Qt::NoPen);
}

QCPItemText* value_label(QCustomPlot* plot, QCPBars* bars) {
  auto* t = new QCPItemText(plot);
  t->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
  t->position->setAxes(bars->keyAxis(), bars->valueAxis());
  t->setPadding(QMargins(0, 0, 0, 3));
  t->setClipToAxisRect(false);
  return t;
}

}  // namespace

CompareBreakdownChart::CompareBreakdownChart(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  // The mean step window over the analysed steps (a host step and the GPU work it launched,
  // analysis.h), named apart from the host step time the headline and Throughput show: without a sync
  // per step the GPU finishes after the host (out_of_memory's accumulate run: 10.9 ms host step, 29.7
  // ms window).
  plot_ = make_plot(this, tr("mean ms per step window (analysed steps)"));
  layout->addWidget(plot_);
  legend_right(plot_);
  QCPBars* below = nullptr;
  for (int k = 0; k < pa::kCategoryCount; ++k) {
    const auto cat = static_cast<pa::Category>(k);
    auto* b = new QCPBars(plot_->xAxis, plot_->yAxis);
    b->setName(step_category_label(static_cast<int>(cat)));
    b->setBrush(step_category_color(static_cast<int>(cat)));
    b->setPen(QPen(step_category_color(static_cast<int>(cat)).darker(130), 1));
    b->setWidth(0.55);
    b->setStackingGap(0);
    if (below) b->moveAbove(below);
    below = b;
    bars_.push_back(b);
  }
  plot_->installEventFilter(this);
  plot_->setMouseTracking(true);
}

QCPAxis* CompareBreakdownChart::valueAxis() const { return plot_->yAxis; }

void CompareBreakdownChart::setComparison(const pc::Comparison& c) {
  reports_.clear();
  names_.clear();
  for (auto* t : totals_) plot_->removeItem(t);
  totals_.clear();
  for (auto* b : bars_) b->data()->clear();
  const int n = static_cast<int>(c.sessions.size());
  double top = 0;
  for (int i = 0; i < n; ++i) {
    const pa::Report& r = c.sessions[static_cast<std::size_t>(i)].report;
    reports_.push_back(r);
    names_ << session_header(c, i);
    for (int k = 0; k < pa::kCategoryCount; ++k)
      bars_[static_cast<std::size_t>(k)]->addData(i, r.steps > 0 ? r.breakdown.ns[k] / 1e6 / r.steps : 0.0);
    const double total = totalMsPerStep(i);
    top = std::max(top, total);
    auto* label = value_label(plot_, bars_.back());
    label->position->setCoords(i, total);
    label->setText(r.steps > 0 ? tr("%1 ms").arg(QString::fromStdString(pc::ms_text(total * 1e6))) : tr("no analysed steps"));
    totals_.push_back(label);
  }
  plot_->xAxis->setTicker(session_ticker(c));
  plot_->xAxis->setRange(-0.6, n - 0.4);
  plot_->yAxis->setRange(0, top > 0 ? top * 1.15 : 1.0);  // room for the totals above the bars
  plot_->replot();
}

double CompareBreakdownChart::totalMsPerStep(int session) const {
  if (session < 0 || session >= static_cast<int>(reports_.size())) return 0;
  const pa::Report& r = reports_[static_cast<std::size_t>(session)];
  return r.steps > 0 ? r.breakdown.total() / 1e6 / r.steps : 0.0;
}

int CompareBreakdownChart::sessionAtPixel(double x) const {
  const double key = plot_->xAxis->pixelToCoord(x);
  const int i = static_cast<int>(std::lround(key));
  if (i < 0 || i >= static_cast<int>(reports_.size()) || std::abs(key - i) > bars_[0]->width() / 2) return -1;
  return i;
}

QString CompareBreakdownChart::hoverText(int session) const {
  if (session < 0 || session >= static_cast<int>(reports_.size())) return {};
  const pa::Report& r = reports_[static_cast<std::size_t>(session)];
  QString s = tr("<b>%1</b><br>%2 analysed steps, mean %3 ms per step")
                  .arg(names_[session])
                  .arg(r.steps)
                  .arg(QString::fromStdString(pc::ms_text(totalMsPerStep(session) * 1e6)));
  const double total = static_cast<double>(r.breakdown.total());
  for (int k = pa::kCategoryCount - 1; k >= 0; --k)  // top of the stack first, as drawn
    s += QStringLiteral("<br>%1: %2 ms (%3 %)")
             .arg(bars_[static_cast<std::size_t>(k)]->name())
             .arg(QString::fromStdString(pc::ms_text(r.steps > 0 ? static_cast<double>(r.breakdown.ns[k]) / r.steps : 0.0)))
             .arg(total > 0 ? r.breakdown.ns[k] / total * 100 : 0.0, 0, 'f', 1);
  return s;
}

bool CompareBreakdownChart::eventFilter(QObject* o, QEvent* e) {
  if (o == plot_ && e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    const int i = sessionAtPixel(he->pos().x());
    if (i >= 0) QToolTip::showText(he->globalPos(), hoverText(i), plot_);
    else QToolTip::hideText();
    return true;
  }
  return QWidget::eventFilter(o, e);
}

CompareThroughputChart::CompareThroughputChart(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  plot_ = make_plot(this, training_rate_label());
  plot_->setToolTip(training_rate_tooltip());
  layout->addWidget(plot_);
  rate_ = new QCPBars(plot_->xAxis, plot_->yAxis);
  rate_->setName(training_rate_label());
  rate_->setWidth(0.45);
  rate_->setBrush(okabe_ito_color(0));
  rate_->setPen(QPen(okabe_ito_color(0).darker(130), 1));
  // Ticks as Train's img/s axis writes them ("300k", never "300000"), as many as the axis has room for.
  plot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new CountTicker(plot_->yAxis)));
}

void CompareThroughputChart::setComparison(const pc::Comparison& c) {
  for (auto* t : labels_) plot_->removeItem(t);
  labels_.clear();
  rate_->data()->clear();
  const int n = static_cast<int>(c.sessions.size());
  double top = 0;
  for (int i = 0; i < n; ++i) {
    const auto& rate = c.sessions[static_cast<std::size_t>(i)].throughput.training.img_per_s;
    rate_->addData(i, rate.value_or(0));
    top = std::max(top, rate.value_or(0));
    auto* t = value_label(plot_, rate_);
    t->position->setCoords(i, rate.value_or(0));
    t->setText(rate ? QString::fromStdString(pc::training_rate_text(c.sessions[static_cast<std::size_t>(i)].throughput))
                    : tr("not recorded"));
    labels_.push_back(t);
  }
  plot_->xAxis->setTicker(session_ticker(c));
  plot_->xAxis->setRange(-0.6, n - 0.4);
  plot_->yAxis->setRange(0, top > 0 ? top * 1.15 : 1.0);
  plot_->replot();
}

}  // namespace ts::gui
