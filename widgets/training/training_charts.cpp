// TrainingCharts: three QCustomPlots and the progress line; the legends sit outside the plot areas
// (under them, or beside a short one), never over a curve.
#include "widgets/training/training_charts.h"

#include <QGridLayout>
#include <QLabel>
#include <QProgressBar>
#include <QTimer>
#include <cmath>
#include <qcustomplot.h>

#include "widgets/common/count_ticker.h"
#include "widgets/common/elided_label.h"
#include "widgets/panels/panel_plot.h"

namespace ts::gui {
namespace {

QCustomPlot* make_plot(const QString& title, const QString& x_label, const QString& y_label) {
  auto* p = new QCustomPlot;
  p->setMinimumSize(200, 150);
  p->plotLayout()->insertRow(0);
  auto* t = new QCPTextElement(p, title, QFont(p->font().family(), p->font().pointSize() + 1, QFont::Bold));
  p->plotLayout()->addElement(0, 0, t);
  p->xAxis->setLabel(x_label);
  p->yAxis->setLabel(y_label);
  p->setNoAntialiasingOnDrag(true);
  return p;
}

QString eta_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "–";
  const int s = static_cast<int>(seconds + 0.5);
  return s >= 3600 ? QString("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60)
         : s >= 60 ? QString("%1 min %2 s").arg(s / 60).arg(s % 60)
                   : QString("%1 s").arg(s);
}

/// The least plot area (px high) that a legend row under it may leave; a shorter chart (classroom
/// mode's font x2 at 1280x680: 190 px for the Throughput chart's title, axes and legend) takes the
/// legend in a column right of the plot area instead, where its width is cheaper than its height.
constexpr int kMinPlotAreaPx = 60;

/// Moves `plot`'s legend holder (legend_out_of_the_plot's) under the axis rect, entries side by side
/// in as many columns as the width holds, or in a column right of it, entries one under the other,
/// where the row would leave less than kMinPlotAreaPx of plot area (margins as last laid out).
void place_legend(QCustomPlot* plot) {
  if (plot->width() < 100) return;  // not laid out yet
  QCPLegend* legend = plot->legend;
  auto* holder = qobject_cast<QCPLayoutGrid*>(legend->layout());
  QCPLayoutGrid* layout = plot->plotLayout();
  const auto set_wrap = [legend](int columns) {
    if (legend->wrap() == columns) return;
    legend->setWrap(columns);
    legend->setFillOrder(legend->fillOrder(), true);  // re-flows the entries there
  };
  set_wrap(legend_columns_for(legend, plot->width()));
  const QMargins m = plot->axisRect()->margins();
  const int title_h = layout->element(0, 0)->minimumOuterSizeHint().height();
  const int row_h = holder->minimumOuterSizeHint().height() + layout->rowSpacing();
  const bool below = plot->height() - title_h - row_h - m.top() - m.bottom() >= kMinPlotAreaPx;
  if (!below) set_wrap(1);
  const int row = below ? 2 : 1, column = below ? 0 : 1;
  if (layout->hasElement(row, column) && layout->element(row, column) == holder) return;
  layout->take(holder);
  layout->simplify();  // the empty row or column it leaves
  layout->addElement(row, column, holder);
  if (below) layout->setRowStretchFactor(row, 0.001);  // as high as its lines, the rest to the plot
  else layout->setColumnStretchFactor(column, 0.001);  // as wide as its entries
}

/// Puts `plot`'s legend out of the plot area, borderless: it never covers a curve, however small the
/// plot or large the font. Inside the axis rect it hid points in whichever corner it went (the
/// Throughput chart's in Side by side), and at classroom mode's font it covered most of a small
/// plot. place_legend() puts it under or beside the plot area before each replot's layout (a
/// resize, classroom mode's font, an entry added later).
void legend_out_of_the_plot(QCustomPlot* plot) {
  QCPLegend* legend = plot->legend;
  plot->axisRect()->insetLayout()->take(legend);
  plot->axisRect()->insetLayout()->simplify();
  auto* holder = new QCPLayoutGrid;
  holder->setMargins(QMargins(5, 0, 5, 4));
  holder->setRowSpacing(0);
  holder->addElement(0, 0, legend);
  holder->addElement(1, 0, new QCPLayoutElement(plot));  // keeps a column's entries at its top
  holder->setRowStretchFactor(0, 0.01);
  plot->plotLayout()->addElement(2, 0, holder);  // under the title (row 0) and the axis rect
  plot->plotLayout()->setRowStretchFactor(2, 0.001);
  legend->setVisible(true);
  legend->setBorderPen(Qt::NoPen);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  QFont f = plot->font();
  f.setPointSizeF(f.pointSizeF() * 0.9);
  legend->setFont(f);
  legend->setIconSize(18, 10);
  QObject::connect(plot, &QCustomPlot::beforeReplot, plot, [plot] { place_legend(plot); });
}

}  // namespace

TrainingCharts::TrainingCharts(QWidget* parent) : QWidget(parent) {
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(4, 4, 4, 4);
  progress_ = new QProgressBar;
  // The img/s, loss and ETA line lengthens during a run: squeezed, it is cut with "…" rather than
  // raising the charts' (and so the window's) minimum width.
  eta_ = new SqueezeLabel({}, 60);  // clear() says "No run yet"
  grid->addWidget(progress_, 0, 0);
  grid->addWidget(eta_, 0, 1);

  loss_ = make_plot(tr("Training loss"), tr("step"), tr("loss"));
  loss_->addGraph();
  loss_->graph(0)->setName(tr("loss per step"));
  loss_->graph(0)->setPen(QPen(QColor(120, 170, 230), 1));
  loss_->addGraph();
  loss_->graph(1)->setName(tr("smoothed"));
  loss_->graph(1)->setPen(QPen(QColor(10, 60, 160), 2));
  loss_->addGraph();
  loss_->graph(2)->setName(tr("skipped step (fp16 overflow)"));
  loss_->graph(2)->setLineStyle(QCPGraph::lsNone);
  loss_->graph(2)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangleInverted, QColor(230, 120, 0),
                                                   QColor(255, 160, 40), 9));
  loss_->graph(2)->removeFromLegend();
  legend_out_of_the_plot(loss_);

  accuracy_ = make_plot(tr("Test accuracy"), tr("epoch"), tr("accuracy (%)"));
  accuracy_->addGraph();
  accuracy_->graph(0)->setPen(QPen(QColor(20, 130, 60), 2));
  accuracy_->graph(0)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 7));
  accuracy_->yAxis->setRange(0, 100);
  accuracy_->xAxis->setRange(0.5, 1.5);
  accuracy_->xAxis->ticker()->setTickCount(5);
  QSharedPointer<QCPAxisTickerFixed> epochs(new QCPAxisTickerFixed);
  epochs->setTickStep(1.0);
  epochs->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  accuracy_->xAxis->setTicker(epochs);

  // Per step (live: per update interval) with a smoothed line, live and replayed alike. Named "per
  // step" on the axis and explained in the tooltip: Compare's "images/s (training time)" is another
  // figure (all images ÷ all training time) and reads differently for the same run.
  throughput_ = make_plot(tr("Throughput"), tr("step"), throughputAxisLabel());
  throughput_->setToolTip(throughputToolTip());
  throughput_->addGraph();
  throughput_->graph(0)->setPen(QPen(QColor(230, 159, 0, 150), 1));  // Okabe-Ito orange, light
  throughput_->graph(0)->setName(tr("per step"));
  throughput_->addGraph();
  throughput_->graph(1)->setPen(QPen(QColor(213, 94, 0), 2));  // vermillion
  throughput_->graph(1)->setName(tr("smoothed"));
  legend_out_of_the_plot(throughput_);

  // Ticks that fit each axis at any font size ("250k", not "250000"; fewer where the chart is short).
  for (QCPAxis* a : {loss_->xAxis, loss_->yAxis, accuracy_->yAxis, throughput_->xAxis, throughput_->yAxis})
    a->setTicker(QSharedPointer<QCPAxisTicker>(new CountTicker(a, a == loss_->xAxis || a == throughput_->xAxis)));

  grid->addWidget(loss_, 1, 0, 1, 2);
  grid->addWidget(accuracy_, 2, 0);
  grid->addWidget(throughput_, 2, 1);
  grid->setColumnStretch(0, 1);  // accuracy and throughput share the width (throughput was squeezed)
  grid->setColumnStretch(1, 1);
  grid->setRowStretch(1, 3);
  grid->setRowStretch(2, 2);

  timer_ = new QTimer(this);
  timer_->setInterval(33);  // ≤ 30 redraws per second
  connect(timer_, &QTimer::timeout, this, &TrainingCharts::replotIfDirty);
  timer_->start();
  clear();
}

void TrainingCharts::clear() {
  for (auto* p : {loss_, accuracy_, throughput_})
    for (int i = 0; i < p->graphCount(); ++i) p->graph(i)->data()->clear();
  loss_->clearItems();
  amp_text_ = new QCPItemText(loss_);
  amp_text_->setColor(QColor(170, 80, 0));
  amp_text_->setBrush(QBrush(QColor(255, 255, 255, 200)));
  amp_text_->position->setType(QCPItemPosition::ptAxisRectRatio);
  amp_text_->position->setCoords(0.99, 0.98);  // bottom right: below the falling loss curve
  amp_text_->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
  amp_text_->setPadding(QMargins(4, 2, 4, 2));
  non_finite_.clear();
  skipped_.clear();
  loss_scale_ = 0;
  first_step_ = -1;
  loss_->graph(2)->removeFromLegend();
  updateAmpText();
  ema_ = ema_weight_ = 0;
  rate_ema_ = rate_ema_weight_ = 0;
  last_loss_ = 0;
  loss_->xAxis->setRange(0, 10);
  loss_->yAxis->setRange(0, 2.5);
  throughput_->xAxis->setRange(0, 10);
  throughput_->yAxis->setRange(0, 100);
  accuracy_->xAxis->setRange(0.5, 1.5);
  // The progress line as before any run: the last run's "epoch 2/2: step 20/20" and "done in …"
  // said a new run had already finished.
  steps_per_epoch_ = total_steps_ = 0;
  progress_->setRange(0, 100);
  progress_->setValue(0);
  progress_->setFormat(tr("epoch –"));
  eta_->setText(tr("No run yet: press Start."));
  dirty_ = true;
}

void TrainingCharts::starting() {
  clear();
  eta_->setText(tr("starting…"));
}

namespace {
/// The epoch progress bar's text; `epochs` < `epoch` when the run's epoch count is unknown (an
/// imported trace knows its steps, not how many epochs the run had).
QString progress_format(std::int64_t epoch, std::int64_t epochs) {
  return epochs >= epoch ? QObject::tr("epoch %1/%2: step %v/%m").arg(epoch).arg(epochs)
                         : QObject::tr("epoch %1: step %v/%m").arg(epoch);
}
}  // namespace

void TrainingCharts::reset(const RunInfo& info) {
  starting();
  steps_per_epoch_ = info.steps_per_epoch;
  total_steps_ = info.steps_per_epoch * info.epochs;
  loss_->xAxis->setRange(0, std::max<std::int64_t>(total_steps_, 10));
  throughput_->xAxis->setRange(0, std::max<std::int64_t>(total_steps_, 10));
  accuracy_->xAxis->setRange(0.5, info.epochs + 0.5);
  progress_->setRange(0, static_cast<int>(std::max<std::int64_t>(steps_per_epoch_, 1)));
  progress_->setFormat(progress_format(1, info.epochs));
}

void TrainingCharts::markNonFinite(std::int64_t step, float loss) {
  non_finite_.push_back(step);
  auto* line = new QCPItemStraightLine(loss_);
  line->setPen(QPen(QColor(200, 0, 0), 2, Qt::DashLine));
  line->point1->setCoords(static_cast<double>(step), 0);
  line->point2->setCoords(static_cast<double>(step), 1);
  auto* label = new QCPItemText(loss_);
  label->setColor(QColor(200, 0, 0));
  label->setText(tr("%1 loss at step %2").arg(std::isnan(loss) ? "NaN" : "infinite").arg(step));
  label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  label->position->setCoords(static_cast<double>(step), 0.08);
  label->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
  label->setPadding(QMargins(4, 2, 4, 2));
}

void TrainingCharts::markSkipped(std::int64_t step, float loss) {
  if (skipped_.empty()) loss_->graph(2)->addToLegend();
  skipped_.push_back(step);
  if (std::isfinite(loss)) loss_->graph(2)->addData(static_cast<double>(step), loss);
  if (skipped_.size() > 200) return;  // the markers and the count keep the rest visible
  auto* line = new QCPItemStraightLine(loss_);
  line->setPen(QPen(QColor(230, 120, 0, 160), 1, Qt::DotLine));
  line->point1->setCoords(static_cast<double>(step), 0);
  line->point2->setCoords(static_cast<double>(step), 1);
  if (skipped_.size() > 1) return;
  auto* label = new QCPItemText(loss_);
  label->setColor(QColor(190, 90, 0));
  label->setText(tr("step %1 skipped (fp16 overflow)").arg(step));
  label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  label->position->setCoords(static_cast<double>(step), 0.92);
  label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
  label->setPadding(QMargins(4, 2, 4, 2));
}

QString TrainingCharts::ampText() const {
  if (loss_scale_ == 0 && skipped_.empty()) return {};
  return tr("fp16 · loss scale %1 · %n skipped step(s)", nullptr, static_cast<int>(skipped_.size()))
      .arg(static_cast<double>(loss_scale_), 0, 'g', 6);
}

QString TrainingCharts::progressText() const { return eta_->text(); }
QString TrainingCharts::shownProgressText() const { return eta_->shownText(); }
QString TrainingCharts::progressFormat() const { return progress_->format(); }
int TrainingCharts::progressValue() const { return progress_->value(); }

void TrainingCharts::updateAmpText() {
  const QString t = ampText();
  amp_text_->setText(t);
  amp_text_->setVisible(!t.isEmpty());
}

void TrainingCharts::addUpdate(const TrainingUpdate& u) {
  auto raw = loss_->graph(0)->data();
  auto smooth = loss_->graph(1)->data();
  if (first_step_ < 0 && !u.losses.empty()) first_step_ = u.losses.front().first;
  const bool scaled = u.loss_scales.size() == u.losses.size();
  for (std::size_t i = 0; i < u.losses.size(); ++i) {
    const auto [step, loss] = u.losses[i];
    if (scaled && u.loss_scales[i] != 0) {
      loss_scale_ = std::abs(u.loss_scales[i]);
      if (u.loss_scales[i] < 0) markSkipped(step, loss);
    }
    if (!std::isfinite(loss)) {
      markNonFinite(step, loss);
      continue;
    }
    raw->add(QCPGraphData(static_cast<double>(step), loss));
    // Debiased EMA (TensorBoard's smoothing): ema / (1 - s^n).
    ema_ = smoothing_ * ema_ + (1 - smoothing_) * loss;
    ema_weight_ = smoothing_ * ema_weight_ + (1 - smoothing_);
    smooth->add(QCPGraphData(static_cast<double>(step), ema_ / ema_weight_));
    last_loss_ = loss;
  }
  if (u.global_step > 0 && u.step_images_per_s > 0) {
    const double x = static_cast<double>(u.global_step), v = u.step_images_per_s;
    throughput_->graph(0)->addData(x, v);
    // The loss chart's debiased EMA, with the same smoothing.
    rate_ema_ = smoothing_ * rate_ema_ + (1 - smoothing_) * v;
    rate_ema_weight_ = smoothing_ * rate_ema_weight_ + (1 - smoothing_);
    throughput_->graph(1)->addData(x, rate_ema_ / rate_ema_weight_);
  }
  if (u.steps_in_epoch > 0) {
    progress_->setRange(0, static_cast<int>(u.steps_in_epoch));
    progress_->setValue(static_cast<int>(u.step));
    const int epochs = steps_per_epoch_ > 0 ? static_cast<int>(total_steps_ / steps_per_epoch_) : u.epoch;
    progress_->setFormat(progress_format(u.epoch, epochs));
    const double steps_left = static_cast<double>(total_steps_ - u.global_step);
    const double done = static_cast<double>(u.global_step - std::max<std::int64_t>(first_step_, 1) + 1);
    const double per_step = done > 0 ? u.elapsed_s / done : 0;
    const QString scale = loss_scale_ > 0 ? tr(" · scale %1").arg(static_cast<double>(loss_scale_), 0, 'g', 6) : QString();
    const QString rate = tr("%1 img/s").arg(u.images_per_s, 0, 'f', 0), loss = tr("loss %1").arg(last_loss_, 0, 'f', 3);
    const QString eta = tr("ETA %1").arg(eta_text(steps_left * per_step));
    // Squeezed, what the charts beside show goes first: the mean's note, the loss scale, the img/s.
    eta_->setTexts(tr("%1 (epoch mean) · %2%3 · %4").arg(rate, loss, scale, eta),
                   {QStringLiteral("%1 · %2%3 · %4").arg(rate, loss, scale, eta), QStringLiteral("%1 · %2 · %3").arg(rate, loss, eta),
                    QStringLiteral("%1 · %2").arg(loss, eta), eta});
  }
  updateAmpText();
  dirty_ = true;
}

void TrainingCharts::addEpoch(const EpochResult& e) {
  accuracy_->graph(0)->addData(e.epoch, 100.0 * e.test_accuracy);
  dirty_ = true;
}

void TrainingCharts::finish(const RunOutcome& o) {
  const double acc = o.summary.epochs.empty() ? 0 : 100.0 * o.summary.test_accuracy;
  switch (o.kind) {
    case RunOutcome::completed:
      progress_->setValue(progress_->maximum());
    {
      // Squeezed, the test accuracy stays (the status bar says the time too).
      const QString done = tr("done in %1").arg(eta_text(o.elapsed_s));
      const QString what = o.summary.epochs.empty() ? tr("no test accuracy recorded")
                                                    : tr("test accuracy %1\u00a0%").arg(acc, 0, 'f', 2);
      eta_->setTexts(done + QStringLiteral(" · ") + what, {what, o.summary.epochs.empty() ? tr("done") : tr("accuracy %1\u00a0%").arg(acc, 0, 'f', 2)});
      break;
    }
    case RunOutcome::stopped: eta_->setText(tr("stopped after %1").arg(eta_text(o.elapsed_s))); break;
    case RunOutcome::failed: eta_->setText(tr("failed: see the message above")); break;
  }
  dirty_ = true;
  replotIfDirty();
}

int TrainingCharts::lossPoints() const { return loss_->graph(0)->dataCount(); }
int TrainingCharts::accuracyPoints() const { return accuracy_->graph(0)->dataCount(); }
QString TrainingCharts::throughputAxisLabel() { return tr("img/s per step"); }

QString TrainingCharts::throughputToolTip() {
  return tr("img/s per step: a step's images ÷ that step's time (live: over the steps since the last update, "
            "within an epoch); smoothed: their moving average.\n"
            "Compare's \"images/s (training time)\" is another figure: all images trained ÷ all training time "
            "(every epoch, the first step's warm-up and the time between steps included, evaluation "
            "excluded), so it can read lower than this chart.");
}

int TrainingCharts::throughputPoints() const { return throughput_->graph(0)->dataCount(); }
int TrainingCharts::smoothedThroughputPoints() const { return throughput_->graph(1)->dataCount(); }

void TrainingCharts::replotIfDirty() {
  if (!dirty_) return;
  dirty_ = false;
  bool found = false;
  const QCPRange y = loss_->graph(0)->data()->valueRange(found);
  if (found) loss_->yAxis->setRange(std::min(0.0, y.lower), y.upper * 1.05 + 1e-6);
  const QCPRange x = loss_->graph(0)->data()->keyRange(found);
  if (found && x.upper > loss_->xAxis->range().upper) loss_->xAxis->setRange(0, x.upper * 1.1);
  const QCPRange t = throughput_->graph(0)->data()->valueRange(found);
  if (found) throughput_->yAxis->setRange(0, t.upper * 1.15);
  if (found && throughput_->graph(0)->data()->keyRange(found).upper > throughput_->xAxis->range().upper)
    throughput_->xAxis->setRange(0, loss_->xAxis->range().upper);
  for (auto* p : {loss_, accuracy_, throughput_}) p->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace ts::gui
