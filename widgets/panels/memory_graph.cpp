// MemoryGraph: stacked allocator categories, device memory used, CUPTI's cudaMalloc'd curve, peak,
// capacity and the leak flag.
#include "widgets/panels/memory_graph.h"

#include <QCheckBox>
#include <QBoxLayout>
#include <QComboBox>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QLabel>
#include <QRegularExpression>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>
#include <qcustomplot.h>

#include "engine/memory.h"
#include "widgets/common/elided_label.h"
#include "widgets/panels/panel_plot.h"

namespace ts::gui {

namespace {

using prof::analysis::SeriesPoint;

constexpr int kCategories = static_cast<int>(kMemoryCategoryCount);
/// Rebuilds at most every 200 ms while live: memory samples come at 20 Hz.
constexpr int kRebuildMs = 200;


QString category_label(int c) {
  return QString::fromLatin1(memory_category_name(static_cast<MemoryCategory>(c))).replace('_', ' ');
}

std::string series_name(bool allocated, int c) {
  return std::string(allocated ? "memory.allocated." : "memory.reserved.") +
         memory_category_name(static_cast<MemoryCategory>(c));
}

/// `pts` as a step line; with `hold_to_ns` past the last sample, the last value held until then (a
/// sample's value stands until the next one: a series sampled once drew nothing, and the last
/// sample's value stopped short of the session's end).
void set_points(QCPGraph* g, const std::vector<SeriesPoint>& pts, std::int64_t hold_to_ns = 0) {
  QVector<double> k, v;
  k.reserve(static_cast<int>(pts.size()) + 1), v.reserve(static_cast<int>(pts.size()) + 1);
  for (const auto& p : pts) k.push_back(ns_to_s(p.t)), v.push_back(p.v);
  if (!pts.empty() && hold_to_ns > pts.back().t) k.push_back(ns_to_s(hold_to_ns)), v.push_back(pts.back().v);
  g->setData(k, v, true);
}

/// `text` with each figure kept whole where the header wraps it: a number with its unit, a peak with
/// its name ("allocated peak 164.2 MB"); the wrapped lines broke "164.2 | MB" and "allocated | peak".
QString figures_unbroken(QString text) {
  static const QRegularExpression unit(QStringLiteral("(\\d) (%|[KMGTP]i?B\\b|B\\b|m?s\\b)"));
  static const QRegularExpression named(QStringLiteral("\\b(card used|allocated|reserved) peak (?=\\d)"));
  text.replace(unit, QStringLiteral("\\1\u00A0\\2"));
  for (auto it = named.globalMatch(text); it.hasNext();) {  // one QChar for another: the matches stay put
    const QRegularExpressionMatch m = it.next();
    text.replace(m.capturedStart(), m.capturedLength(), m.captured().replace(' ', QChar(0x00A0)));
  }
  return text;
}

}  // namespace

MemoryGraph::MemoryGraph(PanelHub* hub, QWidget* parent) : QWidget(parent), hub_(hub) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  auto* row = new QHBoxLayout;
  stack_box_ = new QComboBox;
  stack_box_->addItems({tr("Stack: allocated"), tr("Stack: reserved")});
  stack_box_->setToolTip(tr("Allocated: bytes in live tensors. Reserved: what the caching allocator holds "
                            "from the driver, cached blocks included."));
  show_capacity_ = new QCheckBox(tr("Show capacity"));
  show_capacity_->setToolTip(tr("Scale the y axis to the card's memory (device.total_memory_bytes, or the "
                                "simulated card's cap: --memory-limit / Simulate a smaller card)."));
  // The peaks on up to two lines, the row as tall as they are, cut at a word past them (the whole text
  // is the tooltip): on one line they were cut at 1280 px in classroom mode (and a simulated card's
  // share, the memory lesson's figure, at the desktop's font too); more lines at a narrow window's
  // width raised the window's least height. It sets no minimum width.
  status_ = new ElidedLabel;
  status_->setMaxLines(2);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // Red beside the peaks, never cut with them.
  leak_flag_ = new QLabel(tr("<b style='color:#c62828'>possible leak</b>"));
  leak_flag_->hide();
  row->addWidget(stack_box_);
  row->addWidget(show_capacity_);
  row->addWidget(leak_flag_);
  row->addWidget(status_, 1);
  layout->addLayout(row);
  plot_ = new QCustomPlot;
  plot_->setMinimumSize(320, 200);
  plot_->setNoAntialiasingOnDrag(true);
  layout->addWidget(plot_, 1);
  throttle_ = new QTimer(this);
  throttle_->setSingleShot(true);
  connect(throttle_, &QTimer::timeout, this, &MemoryGraph::rebuild);
  setupGraphs();
  link_ = new TimeAxisLink(hub_, plot_, {plot_->xAxis});
  connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this] {
    scaleForRange(false);
    sayRangeWithoutSamples();
  });
  connect(stack_box_, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int i) { setStack(i == 0 ? Stack::allocated : Stack::reserved); });
  connect(show_capacity_, &QCheckBox::toggled, this, &MemoryGraph::rebuild);
  connect(hub_, &PanelHub::storeChanged, this, [this] {
    series_.clear();
    memory_rows_ = 0;
    cupti_ = {};
    rebuild();
  });
  connect(hub_, &PanelHub::grew, this, &MemoryGraph::scheduleRebuild);
  connect(hub_, &PanelHub::liveChanged, this, [this](bool live) {
    if (!live) rebuild();
  });
  rebuild();
}

void MemoryGraph::setupGraphs() {
  plot_->xAxis->setLabel(tr("session time (s)"));
  plot_->yAxis->setLabel(tr("device memory"));
  plot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new BytesTicker(plot_->yAxis)));
  plot_->axisRect()->setRangeDrag(Qt::Horizontal);
  plot_->axisRect()->setRangeZoom(Qt::Horizontal);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  QCPGraph* below = nullptr;
  for (int c = 0; c < kCategories; ++c) {
    QCPGraph* g = plot_->addGraph();
    QColor col = palette_color(c);
    g->setPen(QPen(col.darker(115), 1));
    col.setAlpha(170);
    g->setBrush(col);
    g->setLineStyle(QCPGraph::lsStepLeft);
    if (below) g->setChannelFillGraph(below);
    g->setName(category_label(c));
    stack_graphs_.push_back(g);
    below = g;
  }
  other_total_ = plot_->addGraph();
  other_total_->setPen(QPen(QColor(60, 60, 60), 1.5, Qt::DashLine));
  other_total_->setLineStyle(QCPGraph::lsStepLeft);
  used_ = plot_->addGraph();
  used_->setPen(QPen(Qt::black, 2));
  used_->setLineStyle(QCPGraph::lsStepLeft);
  used_->setName(tr("device used (cudaMemGetInfo)"));
  cupti_graph_ = plot_->addGraph();
  cupti_graph_->setPen(QPen(QColor(0x1f, 0x3f, 0x9f), 1.5, Qt::DotLine));
  cupti_graph_->setLineStyle(QCPGraph::lsStepLeft);
  cupti_graph_->setName(tr("cudaMalloc'd (CUPTI alloc/free)"));
  peak_graph_ = plot_->addGraph();
  peak_graph_->setLineStyle(QCPGraph::lsNone);
  peak_graph_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, QColor(200, 30, 30), QColor(200, 30, 30), 9));
  peak_graph_->setName(tr("peak"));
  capacity_line_ = new QCPItemStraightLine(plot_);
  capacity_line_->setPen(QPen(QColor(200, 30, 30), 1.5, Qt::DashDotLine));
  capacity_label_ = new QCPItemText(plot_);
  capacity_label_->setColor(QColor(200, 30, 30));
  // On the capacity line, at the left (the peak's label sits at the peak, right-aligned, below it).
  capacity_label_->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
  capacity_label_->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
  capacity_label_->position->setTypeY(QCPItemPosition::ptPlotCoords);
  capacity_label_->position->setCoords(0.01, 0);
  // The lines above a stack that the axis is fitted to: said at the top right, not drawn 7x taller.
  off_scale_label_ = new QCPItemText(plot_);
  off_scale_label_->setColor(QColor(80, 80, 80));
  off_scale_label_->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
  off_scale_label_->position->setType(QCPItemPosition::ptAxisRectRatio);
  off_scale_label_->position->setCoords(0.995, 0.0);
  // Readable over the stack and the reserved-total line (which struck it through): a backing and
  // the legend's layer, above the graphs.
  off_scale_label_->setBrush(QColor(255, 255, 255, 225));
  off_scale_label_->setPadding(QMargins(3, 0, 3, 0));
  off_scale_label_->setLayer(QStringLiteral("legend"));
  off_scale_label_->setVisible(false);
  peak_label_ = new QCPItemText(plot_);
  peak_label_->setColor(QColor(150, 20, 20));
  peak_label_->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
  peak_label_->setPadding(QMargins(2, 2, 6, 4));
  peak_label_->setBrush(QColor(255, 255, 255, 210));
  leak_label_ = new QCPItemText(plot_);
  leak_label_->setColor(QColor(200, 30, 30));
  leak_label_->setBrush(QColor(255, 240, 240, 230));
  leak_label_->setPen(QPen(QColor(200, 30, 30)));
  leak_label_->setPadding(QMargins(4, 2, 4, 2));
  leak_label_->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
  leak_label_->position->setType(QCPItemPosition::ptAxisRectRatio);
  leak_label_->position->setCoords(0.01, 0.01);
  absent_ = add_center_message(plot_, plot_->axisRect());
  legend_below(plot_, 3);  // under the plot, in columns: it never hides the curves
  keep_readable(plot_, {{plot_->legend}, {{absent_, plot_->axisRect()}}, {}});
}

void MemoryGraph::setTrackMode(int left_px) {
  layout()->setContentsMargins(0, 0, 0, 0);
  // The track's name where the lanes have theirs; the rotated axis label does not fit a short track.
  track_title_ = new QLabel(tr("<b>Memory</b>"));
  track_title_->setContentsMargins(6, 0, 0, 0);
  static_cast<QBoxLayout*>(layout()->itemAt(0)->layout())->insertWidget(0, track_title_);
  plot_->yAxis->setLabel(QString());
  // A scale to read, never a lone "0": two tick steps at the least (three labels; the steps meet the
  // count, tssMeetTickCount), a label's height apart, and half a label's height above and below the
  // plot area so that the top and bottom labels are drawn whole.
  plot_->yAxis->ticker()->setTickStepStrategy(QCPAxisTicker::tssMeetTickCount);
  plot_->setProperty(kMinValueStepsProperty, 2);
  track_mode_ = true;  // the header row says the peak; no label over the short plot
  setTrackLeft(left_px);
  plot_->xAxis->setTickLabels(false);
  plot_->xAxis->setLabel(QString());
  connect(plot_, &QCustomPlot::beforeReplot, this, &MemoryGraph::fitLegend);
  // The legend's lines at the width the layout gave it: the preferred height follows them.
  connect(plot_, &QCustomPlot::afterReplot, this, [this] {
    // The legend as laid out, its columns re-flowed after fitLegend() decided (keep_readable): given
    // less than its lines need (three rows overlapping, cut in half, in Side by side at 1280x720),
    // its row goes until the plot is taller than this one.
    if (plot_->width() != legend_needs_width_) legend_needs_px_ = 0, legend_needs_width_ = plot_->width();
    const int lacks = plot_->legend->minimumOuterSizeHint().height() - plot_->legend->outerRect().height();
    if (legend_shown_ && lacks > 1) {
      legend_needs_px_ = std::max(legend_needs_px_, plot_->height() + lacks);
      fitLegend();
    }
    if (const int h = preferredTrackHeight(); h != preferred_px_) preferred_px_ = h, updateGeometry();
  });
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryGraph::setTrackLeft(int left_px) {
  left_px_ = left_px;
  track_title_->setFixedWidth(left_px - 6);
  align_rect_left(plot_->axisRect(), left_px);
  fitScale();  // the minimum margins again, with the new left one
}

void MemoryGraph::fitScale() {
  // Labels of the widget's font (the plot's texts scale with it, classroom mode's included).
  const int label_h = fontMetrics().height();
  plot_->axisRect()->setMinimumSize(50, 2 * label_h + 4);
  const int margin = tick_label_margin(label_h);  // keep_readable's, set here at once
  plot_->axisRect()->setMinimumMargins(QMargins(left_px_, margin, 0, margin));
  scale_px_ = 2 * label_h + 4 + 2 * margin;
  legend_needs_px_ = 0;  // another font or edge: the legend's need is measured again
  // The scale alone: the legend's row comes and goes with the height (fitLegend()).
  plot_->setMinimumSize(left_px_ + 200, scale_px_);
  plot_->replot(QCustomPlot::rpQueuedReplot);  // fitLegend() decides on the legend's row
}

void MemoryGraph::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() == QEvent::FontChange && track_mode_) fitScale();
}

int MemoryGraph::legendPlotHeight() const {
  // The legend's lines (at the columns keep_readable gives it) under a scale of three labels. The
  // axes may take more than the minimum margins scale_px_ counts (the x axis' tick marks), and
  // QCustomPlot's layout rounds its rows' heights (a legend 2 px short at exactly the sum): 4 px slack.
  const int legend_h = plot_->legend->minimumOuterSizeHint().height() + 5;
  const QMargins m = plot_->axisRect()->margins(), least = plot_->axisRect()->minimumMargins();
  const int extra = std::max(0, m.top() - least.top()) + std::max(0, m.bottom() - least.bottom());
  return scale_px_ + extra + legend_h + 4;
}

void MemoryGraph::fitLegend() {
  if (!track_mode_ || !plot_->isVisible()) return;
  const bool want = has_data_ && plot_->legend->itemCount() > 0;
  const bool fits = plot_->height() >= std::max(legendPlotHeight(), legend_needs_px_);
  const bool shown = want && fits;
  if (legend_shown_ == shown) return;
  legend_shown_ = shown;
  show_legend_row(plot_, shown);
  plot_->setToolTip(want && !fits ? tr("Drag the track taller (the handle above it) to see the legend") : QString());
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

int MemoryGraph::foldedHeight() const {
  const QMargins m = layout()->contentsMargins();
  return layout()->itemAt(0)->sizeHint().height() + m.top() + m.bottom();
}

int MemoryGraph::plotMinimumHeight() const { return foldedHeight() + layout()->spacing() + scale_px_; }

int MemoryGraph::preferredTrackHeight() const {
  // The legend where its lines are no taller than the scale (a narrow track wraps it into five lines
  // or more, which would take the height the other track needs: it shows when dragged taller).
  const bool legend = has_data_ && plot_->legend->itemCount() > 0 && legendPlotHeight() <= 2 * scale_px_;
  return foldedHeight() + layout()->spacing() + (legend ? std::max(legendPlotHeight(), legend_needs_px_) : scale_px_);
}

void MemoryGraph::setPlotFolded(bool folded) {
  if (folded == folded_) return;
  folded_ = folded;
  plot_->setVisible(!folded);
  // The header row alone says the peaks; it tells how to see the plot again.
  const QString tip = folded ? tr("The plot is folded while a tab below takes the room: close the tab (click it) or drag "
                                  "the handle above the tabs down")
                             : QString();
  if (track_title_) track_title_->setToolTip(tip);
  if (!folded) plot_->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryGraph::setStack(Stack s) {
  if (s == stack_) return;
  stack_ = s;
  stack_box_->setCurrentIndex(s == Stack::allocated ? 0 : 1);
  rebuild();
}

void MemoryGraph::scheduleRebuild() {
  if (!isVisible() && hub_->isLive()) {  // hidden during a live run (Train workspace): rebuilt when shown
    hidden_dirty_ = true;
    return;
  }
  if (!throttle_->isActive()) throttle_->start(hub_->isLive() ? kRebuildMs : 0);
}

void MemoryGraph::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (hidden_dirty_) {
    hidden_dirty_ = false;
    rebuild();
  }
}

QCPGraph* MemoryGraph::graphFor(const QString& series) const {
  const std::string s = series.toStdString();
  for (int c = 0; c < kCategories; ++c)
    if (s == series_name(stack_ == Stack::allocated, c))
      return stack_graphs_[c]->data()->isEmpty() ? nullptr : stack_graphs_[c];
  QCPGraph* g = series == "device.memory.used" ? used_ : series == "cupti.device_memory" ? cupti_graph_ : nullptr;
  return g && !g->data()->isEmpty() ? g : nullptr;
}

std::optional<double> MemoryGraph::capacityLineBytes() const {
  if (!capacity_ || !capacity_line_->visible()) return std::nullopt;
  return capacity_line_->point1->coords().y();
}

void MemoryGraph::rebuild() {
  throttle_->stop();
  const auto store = hub_->store();
  if (store) {
    const prof::StoreCounts& n = hub_->counts();
    series_.update(*store, n.series, n.samples);
    if (n.memory != memory_rows_) cupti_ = prof::analysis::cupti_device_memory(*store, n.memory), memory_rows_ = n.memory;
    capacity_.reset();
    const auto meta = store->meta();
    if (auto it = meta.find("device.total_memory_bytes"); it != meta.end()) {
      bool ok = false;
      const double v = QString::fromStdString(it->second).toDouble(&ok);
      if (ok && v > 0) capacity_ = v;
    }
    // A simulated smaller card is the card (also on the CPU backend, which has no card at all).
    const std::int64_t cap = prof::analysis::run_config(meta).memory_limit_bytes;
    simulated_ = cap > 0;
    if (simulated_) capacity_ = static_cast<double>(cap);
  } else {
    capacity_.reset();
    simulated_ = false;
  }
  // The samples' values hold to the end of what is recorded: the last step's end or sample, whichever is later.
  hold_to_ns_ = 0;
  if (store) {
    const prof::StoreCounts& n = hub_->counts();
    if (n.steps > 0 && n.steps <= store->steps.size()) hold_to_ns_ = store->steps[n.steps - 1].end;
    for (const auto* s : series_.with_prefix(""))
      if (!s->points.empty()) hold_to_ns_ = std::max(hold_to_ns_, s->points.back().t);
    if (!cupti_.points.empty()) hold_to_ns_ = std::max(hold_to_ns_, cupti_.points.back().t);
  }
  fillStack();
  fillLines();
  const std::vector<SeriesPoint> allocated = allocatedTotal();
  markPeak(allocated);
  updateLeak(allocated);
  double data_max = 0, line_max = 0, lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
  stack_keys_ = line_keys_ = KeySpan{};
  for (int i = 0; i < plot_->graphCount(); ++i) {
    bool found = false;
    QCPGraph* g = plot_->graph(i);
    const QCPRange v = g->data()->valueRange(found);
    const bool stack = g == other_total_ || std::find(std::begin(stack_graphs_), std::end(stack_graphs_), g) != std::end(stack_graphs_);
    double& m = stack ? data_max : line_max;  // the stack and the other total, or a line (and its peak mark)
    if (found) m = std::max(m, v.upper);
    const QCPRange k = g->data()->keyRange(found);
    if (found) lo = std::min(lo, k.lower), hi = std::max(hi, k.upper);
    KeySpan& keys = stack ? stack_keys_ : line_keys_;
    if (found) keys = keys.any ? KeySpan{std::min(keys.lo, k.lower), std::max(keys.hi, k.upper), true} : KeySpan{k.lower, k.upper, true};
  }
  const bool had_data = has_data_;
  has_data_ = lo <= hi;
  if (has_data_ != had_data) updateGeometry();  // the track's preferred height: the legend's lines
  if (has_data_) link_->setDataExtent(s_to_ns(lo), s_to_ns(hi));
  // The card's use (CUDA context, cuDNN workspaces, other processes) can be many times what the
  // run allocates (1.1 GB over 164 MB): on one scale the stacked categories were 3 px tall. Over
  // 3x, the axis fits the stack and the line's peak is said at the top instead.
  stack_max_ = data_max, line_max_ = line_max;
  off_scale_in_session_ = data_max > 0 && line_max > 3 * data_max && !show_capacity_->isChecked();
  if (off_scale_in_session_)
    off_scale_label_->setText(tr("off scale ↑ %1 up to %2").arg(used_->data()->isEmpty() ? tr("CUPTI allocations") : tr("card used"),
                                                             format_bytes(line_max, 1)));
  scaleForRange(true);
  absent_->setText(absentMessage());
  absent_->setProperty(Readability::kFullTextProperty, absent_->text());
  absent_->setProperty(Readability::kShortTextProperty, QString());
  absent_->setVisible(!has_data_);
  sayRangeWithoutSamples();
  plot_->legend->setVisible(has_data_);
  legend_shown_ = has_data_ && plot_->legend->itemCount() > 0;
  show_legend_row(plot_, legend_shown_);
  fitLegend();  // a short track: the scale first
  status_->setFullText(figures_unbroken(peaksText()));
  status_->setToolTip(statusText());
  leak_flag_->setVisible(has_data_ && leak_.suspected);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryGraph::fillStack() {
  const bool alloc = stack_ == Stack::allocated;
  std::vector<const std::vector<SeriesPoint>*> shown, other;
  for (int c = 0; c < kCategories; ++c) {
    const auto* s = series_.find(series_name(alloc, c));
    const auto* o = series_.find(series_name(!alloc, c));
    shown.push_back(s ? &s->points : nullptr);
    other.push_back(o ? &o->points : nullptr);
  }
  std::vector<const std::vector<SeriesPoint>*> prefix;
  for (int c = 0; c < kCategories; ++c) {
    prefix.push_back(shown[c]);
    QCPGraph* g = stack_graphs_[c];
    if (!shown[c]) {
      g->data()->clear();
      g->removeFromLegend();
      continue;
    }
    set_points(g, prof::analysis::sum_series(prefix), hold_to_ns_);  // cumulative: this category on top of the ones below
    g->addToLegend();
  }
  const auto total = prof::analysis::sum_series(other);
  set_points(other_total_, total, hold_to_ns_);
  reserved_peak_.reset();
  if (simulated_) {  // the cap limits the reserved total: the header row measures it against the cap
    std::vector<const std::vector<SeriesPoint>*> reserved = alloc ? other : shown;
    for (const SeriesPoint& p : prof::analysis::sum_series(reserved))
      reserved_peak_ = std::max(reserved_peak_.value_or(0.0), p.v);
  }
  other_total_->setName(alloc ? tr("reserved total") : tr("allocated total"));
  if (total.empty()) other_total_->removeFromLegend();
  else other_total_->addToLegend();
}

void MemoryGraph::fillLines() {
  const auto* used = series_.find("device.memory.used");
  set_points(used_, used ? used->points : std::vector<SeriesPoint>{}, hold_to_ns_);
  // cudaMalloc'd bytes stay held after the last alloc/free record: a caching allocator takes its
  // memory in the first steps and then reuses it, so the curve ended before a later view began.
  set_points(cupti_graph_, cupti_.points, hold_to_ns_);
  for (QCPGraph* g : {used_, cupti_graph_}) {
    if (g->data()->isEmpty()) g->removeFromLegend();
    else g->addToLegend();
  }
}

std::vector<SeriesPoint> MemoryGraph::allocatedTotal() const {
  std::vector<const std::vector<SeriesPoint>*> parts;
  for (int c = 0; c < kCategories; ++c)
    if (const auto* s = series_.find(series_name(true, c))) parts.push_back(&s->points);
  return prof::analysis::sum_series(parts);
}

void MemoryGraph::markPeak(const std::vector<SeriesPoint>& total) {
  peak_bytes_.reset();
  allocated_peak_.reset();
  peak_series_.clear();
  const std::vector<SeriesPoint>* src = nullptr;
  for (const SeriesPoint& p : total) allocated_peak_ = std::max(allocated_peak_.value_or(0.0), p.v);
  if (const auto* used = series_.find("device.memory.used"); used && !used->points.empty()) {
    src = &used->points, peak_series_ = "device.memory.used";
  } else if (!total.empty()) {
    src = &total, peak_series_ = "memory.allocated (sum of categories)";
  }
  peak_graph_->data()->clear();
  peak_label_->setVisible(false);
  if (!src) {
    peak_graph_->removeFromLegend();
    return;
  }
  const auto it = std::max_element(src->begin(), src->end(), [](const SeriesPoint& a, const SeriesPoint& b) { return a.v < b.v; });
  peak_bytes_ = it->v, peak_t_ = it->t;
  peak_graph_->addData(ns_to_s(peak_t_), it->v);
  peak_graph_->addToLegend();
  peak_label_->position->setCoords(ns_to_s(peak_t_), it->v);
  peak_label_->setText(tr("%1 %2 at %3 s").arg(peakName(), format_bytes(it->v, 1)).arg(ns_to_s(peak_t_), 0, 'f', 3));
  peak_label_->setVisible(!track_mode_);
}

QString MemoryGraph::peakName() const {
  return peak_series_ == "device.memory.used" ? tr("card used peak") : tr("allocated peak");
}

void MemoryGraph::updateCapacity(double data_max) {
  capacity_line_->setVisible(capacity_.has_value());
  capacity_label_->setVisible(false);
  double upper = data_max > 0 ? data_max * 1.18 : 1e9;
  if (track_mode_ && data_max > 0) {
    // A short track reads three labels at most: the axis ends on the second of two nice steps
    // (1, 2, 2.5, 5 x 10^k) so "0", the middle and the top are all drawn (164 MB -> 0/100/200 MB).
    const double half = data_max * 1.05 / 2, decade = std::pow(10.0, std::floor(std::log10(half)));
    double step = decade * 10;
    for (double m : {1.0, 2.0, 2.5, 5.0})
      if (decade * m >= half) { step = decade * m; break; }
    upper = 2 * step;
  }
  if (capacity_) {
    capacity_line_->point1->setCoords(0, *capacity_);
    capacity_line_->point2->setCoords(1, *capacity_);
    // The capacity is in range when asked for or when the data come within 2/3 of it; else the
    // curves would be a flat line at the bottom (1 GB used of a 150 GB card).
    const bool in_range = show_capacity_->isChecked() || data_max >= *capacity_ / 1.5;
    if (in_range) upper = std::max(upper, *capacity_ * 1.05);
    // Off scale, the line is not drawn and the header row says "x % of <capacity>": no label in the
    // plot (it sat in the top corner, under the peak's label when the peak was near the top).
    capacity_label_->setText(capacityLabel());
    capacity_label_->position->setCoords(0.01, *capacity_);
    capacity_label_->setVisible(in_range && has_data_);
  }
  plot_->yAxis->setRange(0, upper);
}

QString MemoryGraph::capacityLabel() const {
  if (!capacity_) return {};
  if (!simulated_) return tr("card capacity %1").arg(format_bytes(*capacity_));
  const auto cap = static_cast<std::int64_t>(*capacity_);
  return tr("simulated card %1 (--memory-limit %2)")
      .arg(format_bytes(*capacity_))
      .arg(QString::fromStdString(memory_limit_gib_text(cap)));
}

void MemoryGraph::updateLeak(const std::vector<SeriesPoint>& allocated) {
  leak_ = {};
  const auto store = hub_->store();
  if (store && !allocated.empty()) {
    std::vector<prof::analysis::StepEnd> ends;
    const std::size_t n = std::min(hub_->counts().steps, store->steps.size());
    ends.reserve(n);
    for (std::size_t i = 0; i < n; ++i) ends.push_back({store->steps[i].global_step, store->steps[i].end});
    leak_ = prof::analysis::check_leak(allocated, ends);
  }
  leak_label_->setVisible(leak_.suspected);
  if (leak_.suspected)
    leak_label_->setText(tr("Possible leak: allocated grows %1/step over %2 steps (steps %3-%4)")
                             .arg(format_bytes(leak_.bytes_per_step))
                             .arg(leak_.steps)
                             .arg(leak_.first_step)
                             .arg(leak_.last_step));
}

void MemoryGraph::scaleForRange(bool always) {
  // The card's line is off scale beside the stack; where the shown range has no stack (a recording
  // whose allocator was first sampled after the opening steps) the lines held into it are all there
  // is to show, so the axis fits them there rather than the stack drawn elsewhere.
  const QCPRange shown = plot_->xAxis->range();
  auto drawn = [&](const KeySpan& keys) { return keys.any && keys.lo <= shown.upper && keys.hi >= shown.lower; };
  const bool off = off_scale_in_session_ && (drawn(stack_keys_) || !drawn(line_keys_));
  if (!always && off == lines_off_scale_) return;
  lines_off_scale_ = off;
  off_scale_label_->setVisible(off);
  if (peak_bytes_ && peak_series_ == "device.memory.used") peak_label_->setVisible(!track_mode_ && !off);  // above the axis when off
  updateCapacity(off ? stack_max_ : std::max(stack_max_, line_max_));
  if (!always) plot_->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryGraph::sayRangeWithoutSamples() {
  // A step line draws from its first sample to its last: nothing in a range that ends before the
  // first or starts after the last (the opening steps of a short run, sampled at 20 Hz, can all
  // come before the first memory sample). The lines count only where they are on the axis.
  const QCPRange shown = plot_->xAxis->range();
  auto drawn = [&](const KeySpan& keys) { return keys.any && keys.lo <= shown.upper && keys.hi >= shown.lower; };
  const KeySpan& on_axis = stack_keys_.any || lines_off_scale_ ? stack_keys_ : line_keys_;
  const bool blank = has_data_ && !drawn(stack_keys_) && (lines_off_scale_ || !drawn(line_keys_));
  auto at = [](double s) { return s < 10 ? QString("%1 ms").arg(s * 1e3, 0, 'f', 1) : QString("%1 s").arg(s, 0, 'f', 2); };
  range_message_ = blank ? tr("No memory sample in the shown range: the samples run from %1 to %2 (zoom out, or Fit all)")
                               .arg(at(on_axis.lo), at(on_axis.hi))
                         : QString();
  if (!has_data_) return;
  // Nothing is off scale in a range without samples: the card's "off scale ↑" note (a whole-session
  // peak) stays out of the message's way (it ran into it at 1280x720).
  if (const bool off = lines_off_scale_ && !blank; off_scale_label_->visible() != off) {
    off_scale_label_->setVisible(off);
    plot_->replot(QCustomPlot::rpQueuedReplot);
  }
  if (absent_->visible() == blank && (!blank || absent_->property(Readability::kFullTextProperty).toString() == range_message_))
    return;
  absent_->setText(range_message_);  // keep_readable wraps it to the plot's width
  absent_->setProperty(Readability::kFullTextProperty, range_message_);
  // Where its lines are taller than a short track (Side by side at 1280x720: cut at the top and bottom).
  absent_->setProperty(Readability::kShortTextProperty, blank ? tr("No memory sample in this range (Fit all)") : QString());
  absent_->setVisible(blank);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

QString MemoryGraph::absentMessage() const {
  if (has_data_) return {};
  const auto store = hub_->store();
  if (!store) return tr("No session: open one or start a run");
  const auto meta = store->meta();
  auto kind = meta.find("device.kind");
  if (kind != meta.end() && kind->second != "cuda")
    return tr("No device memory: a CPU run (no CUDA device)");
  if (const QString why = gpu_absence_reason(meta); !why.isEmpty()) return tr("No device memory data: %1").arg(why);
  auto ga = meta.find("gpu_activity");
  if (ga != meta.end() && ga->second != "collected (CUPTI)")  // a trace's GPU records, without memory samples
    return tr("No device memory samples in this session (its GPU activity was %1)").arg(QString::fromStdString(ga->second));
  return tr("No device memory samples yet");
}

QString MemoryGraph::statusText() const {
  QString s = peaksText();
  if (has_data_ && leak_.suspected) s += (s.isEmpty() ? QString() : QStringLiteral(" · ")) + leak_flag_->text();
  return s;
}

QLabel* MemoryGraph::statusLabel() const { return status_; }

QString MemoryGraph::peaksText() const {
  if (!has_data_) return {};
  QStringList parts;
  // The card's share beside the peak it is of ("· 0.7 % of 150.11 GB" after the allocated peak read
  // as that figure's share).
  if (peak_bytes_) {
    QString peak = tr("%1 %2 at %3 s").arg(peakName(), format_bytes(*peak_bytes_, 1)).arg(ns_to_s(peak_t_), 0, 'f', 3);
    if (capacity_ && !simulated_)
      peak += tr(" (%1 % of %2)").arg(100.0 * *peak_bytes_ / *capacity_, 0, 'f', 1).arg(format_bytes(*capacity_));
    parts << peak;
  }
  // The network's own tensors beside the card's use (which adds the CUDA context, cuDNN and cuBLAS):
  // the lessons' "peak allocated" is this figure, written the same way.
  if (allocated_peak_ && peak_series_ == "device.memory.used")
    parts << tr("allocated peak %1").arg(format_bytes(*allocated_peak_, 1));
  if (capacity_ && simulated_ && reserved_peak_)
    parts << tr("reserved peak %1, %2 % of the simulated %3 card")
                 .arg(format_bytes(*reserved_peak_))
                 .arg(100.0 * *reserved_peak_ / *capacity_, 0, 'f', 1)
                 .arg(format_bytes(*capacity_));
  return parts.join(QStringLiteral(" · "));
}

}  // namespace ts::gui
