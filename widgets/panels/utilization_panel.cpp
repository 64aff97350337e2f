// UtilizationPanel: bucketed GPU activity (worker thread), sampled CPU % and NVML series.
#include "widgets/panels/utilization_panel.h"

#include "base/nvml.h"

#include <algorithm>

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QTimer>
#include <QVBoxLayout>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <qcustomplot.h>

#include "engine/host_trace.h"
#include "widgets/common/elided_label.h"
#include "widgets/panels/panel_plot.h"
#include "widgets/panels/traced_buckets.h"

namespace ts::gui {

namespace {

using prof::analysis::SeriesPoint;

/// Re-bucketing while live: at most every 500 ms (<= 2 Hz); a moved range: 100 ms after it settles.
constexpr int kLiveMs = 500, kRangeDebounceMs = 100;
/// QCustomPlot's spacing between layout rows (px).
constexpr int kRowSpacingPx = 5;

/// NVML series shown (sample name, legend label, row: 0 GPU %, 1 clock, 2 power; clock and power
/// have a row each so that their axes never share one strip).
struct NvmlSeries {
  const char* name;
  const char* label;
  int row;
};
const NvmlSeries kNvml[] = {{"gpu.utilization", "NVML GPU utilization (sampled)", 0},
                            {"gpu.memory_utilization", "NVML memory utilization (sampled)", 0},
                            {"gpu.sm_clock", "NVML SM clock (MHz)", 1},
                            {"gpu.power", "NVML power (W)", 2}};

/// A row legend: it sits in the plot layout above its axis rect (arrange()), so it never hides data.
QCPLegend* row_legend(QCustomPlot* plot) {
  auto* l = new QCPLegend;
  l->setBorderPen(Qt::NoPen);
  l->setBrush(Qt::NoBrush);
  QFont f = plot->font();
  f.setPointSizeF(f.pointSizeF() * 0.85);
  l->setFont(f);
  l->setIconSize(14, 8);
  l->setRowSpacing(0);
  l->setMargins(QMargins(4, 1, 4, 5));  // room under the text: the rect below starts right after
  l->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  l->setWrap(3);
  return l;
}

/// A row's legend lists its graphs that have data, in the order they were added (absent series stay
/// out of the legend too).
void sync_legend(QCPLegend* l, const std::vector<QCPGraph*>& graphs) {
  l->clearItems();
  for (QCPGraph* g : graphs)
    if (!g->data()->isEmpty()) l->addItem(new QCPPlottableLegendItem(l, g));
}

void set_steps(QCPGraph* g, const std::vector<SeriesPoint>& pts) {
  QVector<double> k, v;
  for (const auto& p : pts) k.push_back(ns_to_s(p.t)), v.push_back(p.v);
  g->setData(k, v, true);
}

/// Bucket values as a step line: a point at each bucket start and one closing the last bucket.
void set_buckets(QCPGraph* g, const prof::analysis::GpuBuckets& b, const std::vector<double>& vals, double scale) {
  QVector<double> k, v;
  for (std::size_t i = 0; i < vals.size(); ++i)
    k.push_back(ns_to_s(b.from + static_cast<qint64>(i) * b.bucket_ns)), v.push_back(vals[i] * scale);
  if (!vals.empty()) k.push_back(ns_to_s(b.from + static_cast<qint64>(vals.size()) * b.bucket_ns)), v.push_back(vals.back() * scale);
  g->setData(k, v, true);
}

}  // namespace

UtilizationPanel::UtilizationPanel(PanelHub* hub, QWidget* parent) : QWidget(parent), hub_(hub) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  status_ = new SqueezeLabel;
  status_->setWordWrap(true);
  status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  nvml_box_ = new QCheckBox(tr("SM clock && power (NVML)"));
  nvml_box_->setToolTip(tr("Show NVML's sampled SM clock (MHz) and board power (W), a row each"));
  nvml_box_->setChecked(true);
  nvml_box_->setVisible(false);  // only where NVML sampled them
  connect(nvml_box_, &QCheckBox::toggled, this, [this] {
    arranged_ = false;
    arrange();
    plot_->replot(QCustomPlot::rpQueuedReplot);
  });
  header_ = new QHBoxLayout;
  header_->setSpacing(layout->spacing());  // its own: a child layout's spacing is its parent's (0 in head_)
  header_->addWidget(status_, 1);
  header_->addWidget(nvml_box_);
  head_ = new QVBoxLayout;
  head_->setSpacing(0);
  head_->addLayout(header_);
  layout->addLayout(head_);
  status_place_.emplace(head_, header_, status_);
  plot_ = new QCustomPlot;
  plot_->setMinimumSize(320, 280);
  plot_->setNoAntialiasingOnDrag(true);
  layout->addWidget(plot_, 1);
  setupRects();
  throttle_ = new QTimer(this);
  throttle_->setSingleShot(true);
  connect(throttle_, &QTimer::timeout, this, &UtilizationPanel::requestBuckets);
  range_debounce_ = new QTimer(this);
  range_debounce_->setSingleShot(true);
  range_debounce_->setInterval(kRangeDebounceMs);
  connect(range_debounce_, &QTimer::timeout, this, &UtilizationPanel::requestBuckets);
  connect(hub_, &PanelHub::storeChanged, this, [this] {
    ++generation_;
    series_.clear();
    metrics_.clear();
    measured_index_.clear();
    dram_sum_.clear();
    buckets_ = {};
    traced_.clear();
    trainer_known_ = false;
    have_buckets_ = false;
    cpu_run_store_ = nullptr;  // (a new store may sit where the old one was)
    fillSamples();
    fillBuckets();  // empty until the first grew (setStore ticks at once) brings rows
  });
  connect(hub_, &PanelHub::grew, this, [this] {
    if (!isVisible() && hub_->isLive()) {  // hidden during a live run: brought up to date when shown
      hidden_dirty_ = true;
      return;
    }
    fillSamples();
    if (!throttle_->isActive()) throttle_->start(hub_->isLive() ? kLiveMs : 0);
  });
  connect(hub_, &PanelHub::visibleRangeChanged, this, [this] { range_debounce_->start(); });
  connect(hub_, &PanelHub::liveChanged, this, [this](bool live) {
    if (!live) rebuild();
  });
  rebuild();
}

void UtilizationPanel::setupRects() {
  auto* margins = new QCPMarginGroup(plot_);
  auto make = [&](const QString& y_label) {
    // The plot's own axis rect is the GPU row (removing it leaves QCustomPlot without a default rect).
    auto* r = plot_->axisRectCount() == 1 && plot_->axisRect()->graphs().isEmpty() && !gpu_made_ ? plot_->axisRect()
                                                                                                 : new QCPAxisRect(plot_);
    gpu_made_ = true;
    r->axis(QCPAxis::atLeft)->setLabel(y_label);
    r->setRangeDrag(Qt::Horizontal);
    r->setRangeZoom(Qt::Horizontal);
    r->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    r->axis(QCPAxis::atRight)->setVisible(false);
    for (QCPAxis* a : r->axes()) a->setLayer("axes");
    return r;
  };
  gpu_ = make(tr("GPU %"));
  meas_ = make(tr("meas. %"));
  meas_bw_ = make(tr("meas. /s"));
  cpu_ = make(tr("CPU %"));
  h2d_ = make(tr("H2D"));
  nvml_ = make(tr("MHz"));
  power_ = make(tr("W"));
  gpu_->axis(QCPAxis::atLeft)->setRange(0, 105);
  meas_->axis(QCPAxis::atLeft)->setRange(0, 105);
  h2d_->axis(QCPAxis::atLeft)->setTicker(QSharedPointer<QCPAxisTicker>(new BytesTicker(nullptr, QStringLiteral("/s"))));
  meas_bw_->axis(QCPAxis::atLeft)->setTicker(QSharedPointer<QCPAxisTicker>(new BytesTicker(nullptr, QStringLiteral("/s"))));
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  gpu_legend_ = row_legend(plot_);
  meas_legend_ = row_legend(plot_);
  meas_bw_legend_ = row_legend(plot_);
  cpu_legend_ = row_legend(plot_);
  h2d_legend_ = row_legend(plot_);
  nvml_legend_ = row_legend(plot_);
  power_legend_ = row_legend(plot_);
  QColor busy = palette_color(0);
  // "any GPU work": kernels, copies and memsets, as the analysis counts GPU busy (a longer legend wraps and
  // takes the memory track's room at 1280x720).
  QCPGraph* g = addGraph(gpu_, gpu_legend_, "gpu.busy", tr("GPU busy: any GPU work (CUPTI)"), busy);
  busy.setAlpha(90);
  g->setBrush(busy);
  addGraph(gpu_, gpu_legend_, "gpu.sm_efficiency", tr("est. SM efficiency"), palette_color(1));
  addGraph(gpu_, gpu_legend_, "gpu.achieved_occupancy", tr("est. achieved occupancy"), palette_color(4));
  addGraph(cpu_, cpu_legend_, "cpu.trainer", tr("trainer thread"), palette_color(0));
  addGraph(cpu_, cpu_legend_, "cpu.loaders", tr("loader workers (sum)"), palette_color(5), Qt::DashLine);
  QColor h2d = palette_color(2);
  g = addGraph(h2d_, h2d_legend_, "h2d", tr("H2D throughput /s (CUPTI memcpy)"), h2d);
  h2d.setAlpha(90);
  g->setBrush(h2d);
  for (const auto& s : kNvml) {
    QCPAxisRect* r = s.row == 0 ? gpu_ : s.row == 1 ? nvml_ : power_;
    QCPLegend* l = s.row == 0 ? gpu_legend_ : s.row == 1 ? nvml_legend_ : power_legend_;
    const QColor c = s.row == 0 ? (std::string(s.name) == "gpu.utilization" ? QColor(40, 40, 40) : QColor(130, 130, 130))
                                : s.row == 1 ? palette_color(0) : palette_color(5);
    addGraph(r, l, s.name, tr(s.label), c, s.row == 0 ? Qt::DashLine : Qt::SolidLine);
  }
  add_health_graphs();
  add_measured_graphs();
  gpu_absent_ = add_center_message(plot_, gpu_);
  cpu_absent_ = add_center_message(plot_, cpu_);
  // Every legend and row in the layout once, so each has its parent plot before arrange() picks rows.
  int at = plot_->plotLayout()->rowCount();
  for (QCPLegend* l : {gpu_legend_, meas_legend_, meas_bw_legend_, cpu_legend_, h2d_legend_, nvml_legend_, power_legend_})
    plot_->plotLayout()->addElement(at++, 0, l);
  for (QCPAxisRect* r : {meas_, meas_bw_, cpu_, h2d_, nvml_, power_}) plot_->plotLayout()->addElement(at++, 0, r);
  link_ = new TimeAxisLink(hub_, plot_,
                           {gpu_->axis(QCPAxis::atBottom), meas_->axis(QCPAxis::atBottom), meas_bw_->axis(QCPAxis::atBottom),
                            cpu_->axis(QCPAxis::atBottom), h2d_->axis(QCPAxis::atBottom), nvml_->axis(QCPAxis::atBottom),
                            power_->axis(QCPAxis::atBottom)});
  keep_readable(plot_, {{gpu_legend_, meas_legend_, meas_bw_legend_, cpu_legend_, h2d_legend_, nvml_legend_, power_legend_},
                        {{gpu_absent_, gpu_}, {cpu_absent_, cpu_}},
                        {gpu_, meas_, meas_bw_, cpu_, h2d_, nvml_, power_}});
  arrange();
}

void UtilizationPanel::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (hidden_dirty_) {
    hidden_dirty_ = false;
    rebuild();
  }
}

void UtilizationPanel::setTrackMode(int left_px) {
  layout()->setContentsMargins(0, 0, 0, 0);
  track_title_ = new QLabel(tr("<b>Utilization</b>"));
  track_title_->setContentsMargins(6, 0, 0, 0);
  header_->insertWidget(0, track_title_);
  // One line, cut at a word (the whole line is its tooltip): wrapped, its second line was cut by
  // the track's header row at classroom mode's font.
  status_->setWordWrap(false);
  status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  track_mode_ = true;
  setTrackLeft(left_px);
  connect(plot_, &QCustomPlot::beforeReplot, this, &UtilizationPanel::fitRows);
  // The legends' lines at the width the layout gave them: the preferred height follows them.
  connect(plot_, &QCustomPlot::afterReplot, this, [this] {
    if (const int h = preferredTrackHeight(); h != preferred_px_) preferred_px_ = h, updateGeometry();
  });
  nvml_box_->setChecked(false);  // a short track: clock and power rows on demand
  arranged_ = false;
  arrange();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void UtilizationPanel::setTrackLeft(int left_px) {
  left_px_ = left_px;
  track_title_->setFixedWidth(left_px - 6);
  for (QCPAxisRect* r : {gpu_, meas_, meas_bw_, cpu_, h2d_, nvml_, power_}) align_rect_left(r, left_px);
  fitMinimum();  // the rows' heights and the plot's minimum width
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

QCPGraph* UtilizationPanel::addGraph(QCPAxisRect* r, QCPLegend* legend, const QString& key, const QString& name,
                                     const QColor& c, Qt::PenStyle style) {
  QCPGraph* g = plot_->addGraph(r->axis(QCPAxis::atBottom), r->axis(QCPAxis::atLeft));
  g->setPen(QPen(c, style == Qt::SolidLine ? 1.6 : 1.3, style));
  g->setLineStyle(QCPGraph::lsStepLeft);
  g->setName(name);
  g->removeFromLegend();  // the main legend is unused: each row has its own
  legend_graphs_[legend].push_back(g);
  graphs_[key] = g;
  return g;
}

/// The rows shown: GPU, CPU always, H2D but on a CPU run (no copies to show: an empty row); the measured rows (under the GPU row, the estimates
/// beside them) only where the session has measured metrics; NVML clock/power only where NVML was
/// sampled.
void UtilizationPanel::arrange() {
  const bool sampled = graphFor("gpu.sm_clock") || graphFor("gpu.power");
  nvml_box_->setVisible(sampled);
  const bool nvml = sampled && nvml_box_->isChecked();
  const bool measured = meas_legend_->itemCount() + meas_bw_legend_->itemCount() > 0;
  // An empty legend stays out of the layout: QCustomPlot takes an empty grid's maximum size as
  // its column's, and the rows shrank to a part of the track's width (an imported trace without
  // CPU samples).
  unsigned legends_shown = 0, bit = 1;
  for (QCPLegend* l : {gpu_legend_, meas_legend_, meas_bw_legend_, cpu_legend_, h2d_legend_, nvml_legend_, power_legend_}) {
    if (l->itemCount() > 0) legends_shown |= bit;
    bit <<= 1;
  }
  // (The measured rows come and go with their legends: legends_shown.)
  const bool cpu_first = track_mode_ && cpuRun();
  if (nvml == nvml_shown_ && arranged_ && legends_shown == legends_shown_ && rows_fit_ == rows_arranged_ &&
      cpu_first == cpu_first_)
    return;
  arranged_ = true;
  cpu_first_ = cpu_first;
  rows_arranged_ = rows_fit_;
  updateGeometry();  // the track's preferred height (its rows) may have changed
  nvml_shown_ = nvml;
  legends_shown_ = legends_shown;
  auto* grid = plot_->plotLayout();
  for (QCPLayoutElement* e : std::initializer_list<QCPLayoutElement*>{
           gpu_, meas_, meas_bw_, cpu_, h2d_, nvml_, power_, gpu_legend_, meas_legend_, meas_bw_legend_, cpu_legend_,
           h2d_legend_, nvml_legend_, power_legend_})
    for (int i = 0; i < grid->elementCount(); ++i)
      if (grid->elementAt(i) == e) grid->take(e);
  grid->simplify();
  QList<QCPAxisRect*> rows = {gpu_};
  QList<QCPLegend*> legends = {gpu_legend_};
  if (measured) rows << meas_ << meas_bw_, legends << meas_legend_ << meas_bw_legend_;
  rows << cpu_, legends << cpu_legend_;
  if (h2dRow()) rows << h2d_, legends << h2d_legend_;
  if (nvml) rows << nvml_ << power_, legends << nvml_legend_ << power_legend_;
  // Folded: the rows past the first rows_fit_ the track keeps (trackRows(): a CPU run keeps its CPU row
  // before its GPU row), out of the layout; the others stay in their order.
  QList<QCPLegend*> order_legends;
  QList<QCPAxisRect*> order;
  trackRows(order_legends, order);
  const bool all = !track_mode_ || rows_fit_ >= rows.size();
  const QCPAxisRect* first = track_mode_ && !order.isEmpty() ? order.first() : gpu_;
  for (int i = rows.size() - 1; i >= 0; --i) {
    const auto kept_at = order.indexOf(rows[i]);
    if (all || rows[i] == first || (kept_at >= 0 && kept_at < rows_fit_)) continue;
    rows[i]->setVisible(false);
    legends[i]->setVisible(false);
    rows.removeAt(i), legends.removeAt(i);
  }
  int at = 0;
  for (int i = 0; i < rows.size(); ++i) {
    legends[i]->setVisible(legends[i]->itemCount() > 0);
    if (legends[i]->itemCount() > 0) {
      grid->addElement(at, 0, legends[i]);
      grid->setRowStretchFactor(at++, 0.001);
    }
    grid->addElement(at, 0, rows[i]);
    grid->setRowStretchFactor(at++, rows[i] == first ? 1.4 : 1.0);  // the row kept first the tallest
    QCPAxis* x = rows[i]->axis(QCPAxis::atBottom);
    const bool last = i == rows.size() - 1;
    x->setTickLabels(last && !track_mode_);  // a track: the timeline's ruler above is the time axis
    x->setLabel(last && !track_mode_ ? tr("session time (s)") : QString());
    rows[i]->setVisible(true);
  }
  for (QCPAxisRect* e : {nvml_, power_, meas_, meas_bw_, h2d_}) e->setVisible(rows.contains(e));
  for (QCPLegend* l : {nvml_legend_, power_legend_, meas_legend_, meas_bw_legend_, h2d_legend_})
    if (!legends.contains(l)) l->setVisible(false);
  showRowMessages();
}

void UtilizationPanel::showRowMessages() {
  // A row folded out of the layout keeps the rectangle it was last laid out in: its message, drawn
  // there, stood half under the track's bottom edge ("No CPU samples" in classroom mode at 1280x720).
  gpu_absent_->setVisible(gpu_said_ && gpu_->visible());
  cpu_absent_->setVisible(cpu_said_ && cpu_->visible());
}

void UtilizationPanel::fitMinimum() {
  // The GPU row with a legend line at the widget's font (the legends' is 0.85 of it), at the least:
  // rows that do not fit whole fold away (fitRows()).
  const int label_h = fontMetrics().height();  // the tick labels' (the plot's texts scale with the font)
  const int legend_h = std::max(label_h + 6, gpu_legend_->minimumOuterSizeHint().height());
  // A row's plot area holds two tick labels apart ("0" and "100"; a ticker may round the one step
  // over the axis down to 0.7 of it) and never less than QCustomPlot's 24 px; above and below it
  // keep_readable's margins of half a label each hold the top and bottom labels whole.
  row_px_ = std::max(24, label_h * 3 / 2 + 2);
  for (QCPAxisRect* r : {gpu_, meas_, meas_bw_, cpu_, h2d_, nvml_, power_}) r->setMinimumSize(50, row_px_);
  const int h = legend_h + kRowSpacingPx + row_px_ + 2 * tick_label_margin(label_h) + kRowSpacingPx;
  if (plot_->minimumHeight() != h) plot_->setMinimumSize(left_px_ + 200, h);
}

void UtilizationPanel::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() == QEvent::FontChange && track_mode_) fitMinimum();
  if (e->type() == QEvent::FontChange) placeStatus();
}

void UtilizationPanel::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  placeStatus();
}

void UtilizationPanel::placeStatus() {
  if (!track_mode_ || !status_place_) return;  // in the dock it wraps under nothing
  // Beside the title and the NVML box where its shortest form fits there, else across the track.
  const QStringList forms = QStringList{status_->text()} + status_->shorterTexts();
  const QMargins m = layout()->contentsMargins();
  const bool beside = status_->fontMetrics().horizontalAdvance(forms.back()) <= status_place_->roomBeside(width(), m.left() + m.right());
  if (status_place_->place(!beside)) updateGeometry();  // the header's height: the tracks' heights follow
}

void UtilizationPanel::trackRows(QList<QCPLegend*>& legends, QList<QCPAxisRect*>& rects) const {
  if (cpuRun()) legends = {cpu_legend_, gpu_legend_}, rects = {cpu_, gpu_};  // the CPU row's numbers first
  else legends = {gpu_legend_}, rects = {gpu_};
  if (meas_legend_->itemCount() + meas_bw_legend_->itemCount() > 0)
    legends << meas_legend_ << meas_bw_legend_, rects << meas_ << meas_bw_;
  if (!cpuRun()) legends << cpu_legend_, rects << cpu_;
  if (h2dRow()) legends << h2d_legend_, rects << h2d_;
  if (nvml_box_->isVisible() && nvml_box_->isChecked()) legends << nvml_legend_ << power_legend_, rects << nvml_ << power_;
}

int UtilizationPanel::rowHeight(const QCPLegend* legend, const QCPAxisRect* rect) const {
  // The rect's margins (half a tick label each, which add up over five rows or more); a row not laid
  // out yet has none: keep_readable's are counted for it.
  const int label_margins = 2 * tick_label_margin(fontMetrics().height());
  const QMargins m = rect->margins();
  return (legend->itemCount() > 0 ? legend->minimumOuterSizeHint().height() + kRowSpacingPx : 0) + row_px_ + kRowSpacingPx +
         std::max(m.top() + m.bottom(), label_margins);
}

void UtilizationPanel::fitRows() {
  if (!track_mode_ || !plot_->isVisible() || plot_->height() <= 1) return;
  fitMinimum();  // the GPU row's legend may wrap to more lines at this width
  QList<QCPLegend*> legends;
  QList<QCPAxisRect*> rects;
  trackRows(legends, rects);
  // Each row whole, as many as the track holds.
  int used = 0, fit = 0;
  for (int i = 0; i < legends.size(); ++i) {
    const int need = rowHeight(legends[i], rects[i]);
    if (fit > 0 && used + need > plot_->height()) break;
    used += need, ++fit;
  }
  const int all = static_cast<int>(legends.size());
  if (fit >= all) fit = 99;  // every row: nothing folded
  if (fit == rows_fit_) return;
  rows_fit_ = fit;
  plot_->setToolTip(fit < all ? tr("Drag the track taller (the handle above it) to see the %n folded row(s)", nullptr, all - fit)
                              : QString());
  arrange();
  updateStatus();  // says when the measured rows are folded
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

int UtilizationPanel::foldedHeight() const {
  const QMargins m = layout()->contentsMargins();
  return head_->sizeHint().height() + m.top() + m.bottom();
}

int UtilizationPanel::plotMinimumHeight() const { return foldedHeight() + layout()->spacing() + plot_->minimumHeight(); }

int UtilizationPanel::preferredTrackHeight() const {
  // The GPU row, and the measured rows beside it where the session has them; a CPU run's CPU row
  // beside its GPU row (which only says there is no GPU activity: the CPU row was folded under it).
  if (meas_legend_->itemCount() + meas_bw_legend_->itemCount() > 0) return trackHeight(3);
  return trackHeight(cpuRun() ? 2 : 1);
}

bool UtilizationPanel::h2dRow() const { return !cpuRun() || h2d_legend_->itemCount() > 0; }

QStringList UtilizationPanel::shownRows() const {
  QStringList out;
  auto* grid = plot_->plotLayout();
  for (int i = 0; i < grid->elementCount(); ++i)
    if (auto* r = qobject_cast<QCPAxisRect*>(grid->elementAt(i)); r && r->visible())
      out << r->axis(QCPAxis::atLeft)->label();
  return out;
}

bool UtilizationPanel::cpuRun() const {
  // Asked on every replot (preferredTrackHeight) and status line: the meta (a copy under its lock) is
  // read again only when it changed or the store did.
  const auto store = hub_->store();
  if (!store) return false;
  const std::uint64_t version = store->meta_version();
  if (store.get() != cpu_run_store_ || version != cpu_run_version_) {
    cpu_run_store_ = store.get(), cpu_run_version_ = version;
    cpu_run_ = cpu_run(store->meta());
  }
  return cpu_run_;
}

int UtilizationPanel::partialTrackHeight() const {
  // The GPU row and the first measured row (SM active, tensor active, warp occupancy, DRAM % of peak).
  return trackHeight(meas_legend_->itemCount() + meas_bw_legend_->itemCount() > 0 ? 2 : 1);
}

int UtilizationPanel::trackHeight(int rows) const {
  QList<QCPLegend*> legends;
  QList<QCPAxisRect*> rects;
  trackRows(legends, rects);
  int h = 0;
  for (int i = 0; i < rows && i < legends.size(); ++i) h += rowHeight(legends[i], rects[i]);
  return foldedHeight() + layout()->spacing() + std::max(h, plot_->minimumHeight());
}

void UtilizationPanel::setPlotFolded(bool folded) {
  if (folded == folded_) return;
  folded_ = folded;
  plot_->setVisible(!folded);
  if (track_title_)
    track_title_->setToolTip(folded ? tr("The rows are folded while a tab below takes the room: close the tab (click it) "
                                         "or drag the handle above the tabs down")
                                    : QString());
  if (!folded) plot_->replot(QCustomPlot::rpQueuedReplot);
}

void UtilizationPanel::updateStatus() {
  const QStringList parts = statusParts();
  const QString text = parts.join(QStringLiteral(" · "));
  // Squeezed (Side by side at classroom mode's font): whole parts from the left, then the GPU busy
  // figure without what it is of; the whole line is the tooltip.
  QStringList shorter;
  for (qsizetype n = parts.size() - 1; n >= 1; --n) shorter << parts.mid(0, n).join(QStringLiteral(" · "));
  if (const qsizetype of = parts.value(0).indexOf(tr(" of the ")); of > 0) shorter << parts[0].left(of);
  status_->setTexts(text, shorter);
  placeStatus();
  status_->setToolTip(track_mode_ ? QStringList{text, status_tip_}.join('\n').trimmed() : status_tip_);
}

QCPGraph* UtilizationPanel::graphFor(const QString& key) const {
  auto it = graphs_.find(key);
  return it != graphs_.end() && !it->second->data()->isEmpty() ? it->second : nullptr;
}

void UtilizationPanel::rebuild() {
  fillSamples();
  requestBuckets();
}

void UtilizationPanel::fillSamples() {
  const auto store = hub_->store();
  if (store) series_.update(*store, hub_->counts().series, hub_->counts().samples);
  if (store && !trainer_known_) {  // the trainer: the thread of the step ranges
    const std::size_t n = std::min(hub_->counts().host_ranges, store->host_ranges.size());
    for (std::size_t i = 0; i < n && !trainer_known_; ++i)
      if (store->host_ranges[i].kind == static_cast<std::uint8_t>(trace::RangeKind::step))
        trainer_tid_ = store->host_ranges[i].thread, trainer_known_ = true;
  }
  const auto threads = prof::analysis::cpu_by_thread(series_);
  std::vector<SeriesPoint> trainer;
  std::map<std::int64_t, double> loaders;  // one sampler round writes every thread at one time
  std::map<std::int64_t, int> alive;       // loader threads sampled in that round
  for (const auto& [tid, t] : threads) {
    if (trainer_known_ ? tid == trainer_tid_ : t.comm == "trainer") trainer = t.points;
    else if (t.comm.rfind("loader", 0) == 0) {
      for (const auto& p : t.points) loaders[p.t] += p.v, ++alive[p.t];
    }
  }
  set_steps(graphs_["cpu.trainer"], trainer);
  std::vector<SeriesPoint> sum;
  for (const auto& [t, v] : loaders) sum.push_back({t, v});
  set_steps(graphs_["cpu.loaders"], sum);
  // The label counts the workers alive at once (num_workers), not every thread id seen: each epoch
  // starts new loader threads, so a 2-worker run of 3 epochs has 6 ids but never more than 2 at a time.
  int at_once = 0;
  for (const auto& [t, n] : alive) at_once = std::max(at_once, n);
  graphs_["cpu.loaders"]->setName(tr("loader workers: sum of %n thread(s)", nullptr, at_once));
  double cpu_max = 100;
  for (const auto& p : trainer) cpu_max = std::max(cpu_max, p.v);
  for (const auto& p : sum) cpu_max = std::max(cpu_max, p.v);
  cpu_->axis(QCPAxis::atLeft)->setRange(0, cpu_max * 1.08);
  cpu_absent_->setText(store ? tr("No CPU samples") : QString());
  cpu_said_ = trainer.empty() && sum.empty();
  showRowMessages();
  double clock_max = 0, power_max = 0;
  for (const auto& s : kNvml) {
    const auto* ser = series_.find(s.name);
    set_steps(graphs_[s.name], ser ? ser->points : std::vector<SeriesPoint>{});
    if (ser)
      for (const auto& p : ser->points) (s.row == 1 ? clock_max : power_max) = std::max(s.row == 1 ? clock_max : power_max, p.v);
  }
  clock_max = std::max(clock_max, fill_health());
  fill_measured();
  nvml_->axis(QCPAxis::atLeft)->setRange(0, nice_upper(std::max(clock_max, 1.0)));
  power_->axis(QCPAxis::atLeft)->setRange(0, nice_upper(std::max(power_max, 1.0)));
  for (const auto& [legend, graphs] : legend_graphs_) sync_legend(legend, graphs);
  // Before the first buckets the GPU row's message follows the meta as it arrives (a live CPU run's
  // device.kind: "the run is on the CPU" rather than "No events yet" until a bucket job ran).
  if (!have_buckets_) fillBuckets();
  arrange();
  updateStatus();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void UtilizationPanel::requestBuckets() {
  if (!hub_->store()) {
    buckets_ = {};
    traced_.clear();
    fillBuckets();
    return;
  }
  if (running_) {
    pending_ = true;
    return;
  }
  startJob();
}

void UtilizationPanel::startJob() {
  running_ = true;
  pending_ = false;
  const auto store = hub_->store();
  const prof::StoreCounts counts = hub_->counts();
  const TimeSpan vis = hub_->visibleRange();
  const int target = target_buckets_;
  const quint64 gen = generation_;
  post_job<Job>(
      this,
      [store, counts, vis, target]() {
        const auto t0 = std::chrono::steady_clock::now();
        Job j;
        qint64 lo = INT64_MAX, hi = INT64_MIN;
        auto span = [&](qint64 a, qint64 b) { lo = std::min(lo, a), hi = std::max(hi, b); };
        const std::size_t nk = std::min(counts.kernels, store->kernels.size());
        const std::size_t nc = std::min(counts.memcpys, store->memcpys.size());
        const std::size_t ns = std::min(counts.memsets, store->memsets.size());
        const std::size_t nst = std::min(counts.steps, store->steps.size());
        for (std::size_t i = 0; i < nk; ++i) span(store->kernels[i].start, store->kernels[i].end);
        for (std::size_t i = 0; i < nc; ++i) span(store->memcpys[i].start, store->memcpys[i].end);
        for (std::size_t i = 0; i < ns; ++i) span(store->memsets[i].start, store->memsets[i].end);
        for (std::size_t i = 0; i < nst; ++i) span(store->steps[i].start, store->steps[i].end);
        j.has_extent = lo < hi;
        j.extent_lo = lo, j.extent_hi = hi;
        const auto dev = prof::analysis::device_props(store->meta());
        if (j.has_extent) {
          const qint64 from = vis.end > vis.start ? std::max(vis.start, lo) : lo;
          const qint64 to = vis.end > vis.start ? std::min(vis.end, hi) : hi;
          if (to > from) {
            const qint64 b = prof::analysis::nice_bucket_ns(to - from, target);
            const qint64 aligned = from / b * b;  // buckets on round times: stable while panning
            j.buckets = prof::analysis::bucket_gpu(*store, counts, aligned, to, b, dev);
            j.traced = traced_buckets(*store, counts, j.buckets.from, j.buckets.bucket_ns, j.buckets.busy.size());
          }
        }
        if (j.buckets.bucket_ns == 0) j.buckets.gpu_present = nk + nc + ns > 0;
        j.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return j;
      },
      [this, gen](Job j) { jobDone(gen, std::move(j)); });
}

void UtilizationPanel::jobDone(quint64 gen, Job job) {
  running_ = false;
  if (gen == generation_) {
    buckets_ = std::move(job.buckets);
    traced_ = std::move(job.traced);
    last_job_ms_ = job.ms;
    ++jobs_done_;
    have_buckets_ = true;
    if (job.has_extent) link_->setDataExtent(job.extent_lo, job.extent_hi);
    fillBuckets();
    emit updated();
  }
  if (pending_ || gen != generation_) requestBuckets();
}

void UtilizationPanel::fillBuckets() {
  const auto store = hub_->store();
  gpu_message_.clear();
  // A CPU run says so from its start (a live one has no gpu_activity yet): not "No events yet".
  if (store && !buckets_.gpu_present && (have_buckets_ || cpuRun())) {
    QString why = gpu_absence_reason(store->meta());
    if (why.isEmpty()) why = cpuRun() ? tr("the run is on the CPU") : tr("no kernels or copies in the session");
    gpu_message_ = tr("No GPU activity recorded: %1").arg(why);
  } else if (store && !have_buckets_) {
    gpu_message_ = tr("No events yet");
  } else if (!store) {
    gpu_message_ = tr("No session: open one or start a run");
  }
  const bool show = gpu_message_.isEmpty();
  const auto traced_only = [&](const std::vector<double>& v) { return show ? untraced_as_gaps(v, traced_) : std::vector<double>{}; };
  set_buckets(graphs_["gpu.busy"], buckets_, traced_only(buckets_.busy), 100);
  set_buckets(graphs_["gpu.sm_efficiency"], buckets_, traced_only(buckets_.sm_efficiency), 100);
  set_buckets(graphs_["gpu.achieved_occupancy"], buckets_, traced_only(buckets_.achieved_occupancy), 100);
  set_buckets(graphs_["h2d"], buckets_, show ? buckets_.h2d_bytes_per_s : std::vector<double>{}, 1);
  double h2d_max = 0;
  for (double v : buckets_.h2d_bytes_per_s) h2d_max = std::max(h2d_max, v);
  h2d_bucket_max_ = h2d_max;
  h2d_->axis(QCPAxis::atLeft)->setRange(0, nice_upper(std::max({h2d_max, pcie_max_, 1e6})));
  drawMeasured();  // the measured rows on the new buckets (a moved range, a grown store)
  for (const auto& [legend, graphs] : legend_graphs_) sync_legend(legend, graphs);
  arrange();
  gpu_absent_->setText(gpu_message_);
  gpu_absent_->setProperty(Readability::kFullTextProperty, gpu_message_);
  // A short GPU row (a CPU run's in Side by side at 1280x720) ran the wrapped message over its axis.
  gpu_absent_->setProperty(Readability::kShortTextProperty, cpuRun() ? tr("No GPU activity: a CPU run") : QString());
  gpu_said_ = !show;
  showRowMessages();
  updateStatus();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

// GPU health from the samplers: NVML's PCIe throughput in the H2D row, the SM clock's
// maximum and the samples whose clock-event reasons hold the clock down (base/nvml.h's
// kThrottleMask: any reason but idle / applications clocks) as red marks on the SM clock row.
void UtilizationPanel::add_health_graphs() {
  addGraph(h2d_, h2d_legend_, "gpu.pcie_rx", tr("NVML PCIe RX: host to GPU /s"), palette_color(3), Qt::DashLine);
  addGraph(h2d_, h2d_legend_, "gpu.pcie_tx", tr("NVML PCIe TX: GPU to host /s"), palette_color(6), Qt::DotLine);
  addGraph(nvml_, nvml_legend_, "gpu.sm_clock_max", tr("SM clock max (MHz)"), QColor(130, 130, 130), Qt::DashLine);
  QCPGraph* marks = addGraph(nvml_, nvml_legend_, "gpu.throttled", tr("clock held down (NVML clock-event reasons)"),
                             QColor(200, 30, 30));
  marks->setLineStyle(QCPGraph::lsNone);
  marks->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
}

double UtilizationPanel::fill_health() {
  pcie_max_ = 0;
  for (const char* n : {"gpu.pcie_rx", "gpu.pcie_tx"}) {
    const auto* ser = series_.find(n);
    set_steps(graphs_[n], ser ? ser->points : std::vector<SeriesPoint>{});
    if (ser)
      for (const auto& p : ser->points) pcie_max_ = std::max(pcie_max_, p.v);
  }
  const auto* mx = series_.find("gpu.sm_clock_max");
  set_steps(graphs_["gpu.sm_clock_max"], mx ? mx->points : std::vector<SeriesPoint>{});
  double clock_max = 0;
  if (mx)
    for (const auto& p : mx->points) clock_max = std::max(clock_max, p.v);
  std::vector<SeriesPoint> marks;
  const auto* reasons = series_.find("gpu.clock_event_reasons");
  const auto* clock = series_.find("gpu.sm_clock");
  if (reasons) {
    std::size_t c = 0;
    for (const auto& p : reasons->points) {
      if (!(p.v >= 0 && p.v < 1.8e19) || !(static_cast<std::uint64_t>(p.v) & nvml::kThrottleMask)) continue;
      while (clock && c + 1 < clock->points.size() && clock->points[c + 1].t <= p.t) ++c;  // the clock at that round
      marks.push_back({p.t, clock && !clock->points.empty() ? clock->points[c].v : clock_max});
    }
  }
  set_steps(graphs_["gpu.throttled"], marks);
  h2d_->axis(QCPAxis::atLeft)->setRange(0, nice_upper(std::max({h2d_bucket_max_, pcie_max_, 1e6})));
  return clock_max;
}

QString UtilizationPanel::statusText() const { return statusParts().join(QStringLiteral(" · ")); }

QString UtilizationPanel::shownStatusText() const { return status_->shownText(); }

QStringList UtilizationPanel::statusParts() const {
  QStringList parts;
  if (buckets_.bucket_ns > 0 && gpu_message_.isEmpty()) {
    const double b = static_cast<double>(buckets_.bucket_ns);
    const QString bucket =
        b >= 1e9 ? tr("bucket %1 s").arg(b / 1e9) : b >= 1e6 ? tr("bucket %1 ms").arg(b / 1e6) : tr("bucket %1 µs").arg(b / 1e3);
    double busy = 0;
    std::size_t counted = 0;
    for (std::size_t i = 0; i < buckets_.busy.size(); ++i)
      if (traced_.empty() || (i < traced_.size() && traced_[i])) busy += buckets_.busy[i], ++counted;
    if (!traced_.empty() && counted == 0)
      parts << tr("no traced step in the shown range (profile schedule)");
    else if (!traced_.empty() && counted < buckets_.busy.size())
      parts << tr("GPU busy %1 % of the traced steps shown (profile schedule)").arg(100 * busy / counted, 0, 'f', 1);
    else if (counted > 0)
      parts << tr("GPU busy %1 % of the shown range").arg(100 * busy / counted, 0, 'f', 1);
    parts << bucket;  // after the figure: a squeezed header keeps the figure (updateStatus)
  }
  // A run on the CPU has no GPU to sample: said as that, not as NVML's failure and the measured
  // metrics' absence ("NVML: NVML series missing: not a GPU run · measured: none, ...", which the
  // track's header cut at 1280 px in Side by side).
  const bool cpu_run = cpuRun();
  const bool cpu_row = !track_mode_ || cpu_->visible();
  // The CPU row's scale while it shows samples (no-break spaces: it wrapped as "100 / % = one core"),
  // before the notes of what was not recorded, which the track's one-line header cuts first at
  // 1280 px (a trace read "... measured: not recorded (hover) · CPU…"; they stay in the tooltip).
  if (cpu_row && !cpu_run && !cpu_said_) parts << tr("CPU: 100\u00a0%\u00a0=\u00a0one\u00a0core");
  if (cpu_run) {
    parts << (cpu_row ? tr("CPU run: 100\u00a0%\u00a0=\u00a0one\u00a0core") : tr("CPU run"));
  } else if (hub_->store() && !series_.find("gpu.utilization") && !series_.find("gpu.sm_clock")) {
    const auto meta = hub_->store()->meta();
    auto it = meta.find("samplers.nvml");
    parts << tr("NVML: %1").arg(it != meta.end() ? QString::fromStdString(it->second) : tr("not sampled"));
  }
  if (const QString m = measured_status(); !m.isEmpty() && !cpu_run) parts << m;
  return parts;
}

}  // namespace ts::gui
