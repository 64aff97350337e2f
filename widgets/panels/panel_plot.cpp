// Shared plot plumbing of the panels: linked time axis, byte ticker, titles, colours.
#include "widgets/panels/panel_plot.h"

#include "profiling/analysis/analysis.h"
#include "widgets/timeline/categories.h"

#include <QEvent>
#include <QFontMetrics>

#include <algorithm>
#include <cmath>

#include "base/format_bytes.h"

namespace ts::gui {

QString gpu_absence_reason(const std::map<std::string, std::string>& meta) {
  const auto it = meta.find("gpu_activity");
  if (it == meta.end()) return {};
  const QString v = QString::fromStdString(it->second);
  if (v.startsWith(QLatin1String("collected"))) return {};
  static const QString kPrefix = QStringLiteral("no GPU activity: ");
  return v.startsWith(kPrefix) ? v.mid(kPrefix.size()) : v;
}

bool cpu_run(const std::map<std::string, std::string>& meta) {
  const auto it = meta.find("device.kind");
  return it != meta.end() && it->second == "cpu";
}

bool own_run(const std::map<std::string, std::string>& meta) { return meta.count("run.model_spec") > 0; }

namespace {
/// The smallest 1, 2, 2.5 or 5 x 10^k at or above `v` (> 0, finite).
double nice_ceil(double v) {
  const double decade = std::pow(10.0, std::floor(std::log10(v) + 1e-9));
  for (double m : {1.0, 2.0, 2.5, 5.0})
    if (decade * m >= v * (1 - 1e-9)) return decade * m;
  return decade * 10;
}
}  // namespace

double nice_upper(double max) {
  const double v = max * 1.15;
  return v > 0 && std::isfinite(v) ? nice_ceil(v) : 1.0;
}

QString format_bytes(double bytes, int precision) { return QString::fromStdString(ts::format_bytes(bytes, precision)); }

double BytesTicker::getTickStep(const QCPRange& range) {
  step_ = QCPAxisTicker::getTickStep(range);
  if (axis_ && axis_->axisRect() && axis_->orientation() == Qt::Vertical && range.size() > 0 && step_ > 0) {
    const double px_per_byte = axis_->axisRect()->height() / range.size();
    const int label_px = QFontMetrics(axis_->tickLabelFont()).height();
    for (int i = 0; i < 30 && step_ * px_per_byte < label_px; ++i)
      step_ = nice_ceil(step_ * (1 + 1e-6));  // the next of 1, 2, 2.5, 5 x 10^k
  }
  return step_;
}

QString BytesTicker::getTickLabel(double tick, const QLocale&, QChar, int) {
  if (tick == 0) return "0";
  // Enough decimals to tell neighbouring ticks apart at this tick step.
  const double step = step_ > 0 ? step_ : std::fabs(tick);
  const double a = std::fabs(tick);
  const double unit = a >= 1e12 ? 1e12 : a >= 1e9 ? 1e9 : a >= 1e6 ? 1e6 : a >= 1e3 ? 1e3 : 1;
  const int decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(step / unit) - 1e-9)), 0, 3);
  return format_bytes(tick, decimals) + suffix_;
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

void show_legend_row(QCustomPlot* plot, bool shown) {
  auto* row = qobject_cast<QCPLayoutGrid*>(plot->legend->layout());
  if (!row || row == plot->plotLayout()) return;
  QCPLayoutGrid* grid = plot->plotLayout();
  bool in = false;
  for (int i = 0; i < grid->elementCount(); ++i) in = in || grid->elementAt(i) == row;
  if (in == shown) return;
  if (!shown) {
    grid->take(row);
    grid->simplify();
  } else {
    const int at = grid->rowCount();
    grid->addElement(at, 0, row);
    grid->setRowStretchFactor(at, 0.001);
  }
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
  static const QColor c[] = {QColor(0x00, 0x72, 0xb2), QColor(0xe6, 0x9f, 0x00), QColor(0x00, 0x9e, 0x73),
                             QColor(0xcc, 0x79, 0xa7), QColor(0x56, 0xb4, 0xe9), QColor(0xd5, 0x5e, 0x00),
                             QColor(0xf0, 0xe4, 0x42), QColor(0x55, 0x55, 0x55), QColor(0x00, 0x45, 0x6b),
                             QColor(0x8c, 0x68, 0x00)};
  return c[((i % 10) + 10) % 10];
}

QColor step_category_color(int category) {
  // The timeline's colour of the same thing (widgets/timeline/categories.h), so one panel beside
  // the other reads alike: kernels as GEMM/conv kernels, memcpy as Copy H2D, runtime as CUDA
  // runtime calls, data-loader and sync waits as theirs, CPU exec as the host's forward ranges.
  using TC = prof::timeline::Category;
  static const TC kAs[] = {TC::gemm_conv, TC::copy_h2d, TC::memset,        TC::communication, TC::runtime,
                           TC::data_wait, TC::sync,     TC::host_forward};
  static_assert(std::size(kAs) + 1 == static_cast<std::size_t>(prof::analysis::kCategoryCount));
  if (category >= 0 && category < static_cast<int>(std::size(kAs))) return timeline::category_color(kAs[category]);
  return QColor(0x99, 0x99, 0x99);  // other: a grey no timeline category has
}

QString step_category_label(int category) {
  static const char* names[] = {"kernel",           "memcpy",    "memset",   "communication", "runtime",
                                "data-loader wait", "sync wait", "CPU exec", "other"};
  static_assert(std::size(names) == static_cast<std::size_t>(prof::analysis::kCategoryCount));
  return QString::fromLatin1(category >= 0 && category < prof::analysis::kCategoryCount ? names[category] : "other");
}

void align_rect_left(QCPAxisRect* rect, int left_px) {
  rect->setAutoMargins(QCP::msTop | QCP::msBottom);
  rect->setMargins(QMargins(left_px, 0, 0, 0));
  rect->setMinimumMargins(QMargins(left_px, 0, 0, 0));
}

int legend_columns_for(const QCPLegend* legend, int width_px) {
  auto* l = const_cast<QCPLegend*>(legend);
  const int n = l->itemCount();
  if (n == 0) return 1;
  const QFontMetrics fm(l->font());
  QVector<int> w(n);
  for (int i = 0; i < n; ++i) {
    auto* item = qobject_cast<QCPPlottableLegendItem*>(l->item(i));
    const QString name = item ? item->plottable()->name() : QString();
    w[i] = fm.horizontalAdvance(name) + l->iconSize().width() + l->iconTextPadding() + 10;
  }
  const int avail = width_px - l->margins().left() - l->margins().right();
  // Filled columns first (item i in column i % cols), each column as wide as its widest item: the
  // most columns whose widths and spacing fit.
  for (int cols = n; cols > 1; --cols) {
    QVector<int> colw(cols, 0);
    for (int i = 0; i < n; ++i) colw[i % cols] = std::max(colw[i % cols], w[i]);
    int total = (cols - 1) * l->columnSpacing();
    for (int c : colw) total += c;
    if (total <= avail) return cols;
  }
  return 1;
}

QString wrap_to_width(const QString& text, const QFont& font, int width_px) {
  const QFontMetrics fm(font);
  const QStringList words = QString(text).replace('\n', ' ').split(' ', Qt::SkipEmptyParts);
  QString out, line;
  for (const QString& w : words) {
    const QString next = line.isEmpty() ? w : line + ' ' + w;
    if (!line.isEmpty() && fm.horizontalAdvance(next) > width_px) {
      out += (out.isEmpty() ? "" : "\n") + line;
      line = w;
    } else {
      line = next;
    }
  }
  if (!line.isEmpty()) out += (out.isEmpty() ? "" : "\n") + line;
  return out;
}

namespace {

/// The height of value axis `a`'s tick labels: QCustomPlot centres each on its tick, so half of it
/// stands above the top tick and below the bottom one.
int tick_label_height(const QCPAxis* a) {
  return QFontMetrics(a->tickLabelFont()).height();
}

/// The tick steps of value axis `a` over `length_px`: one per ~kTickSpacingYPx, or per label height
/// and a little where the labels are taller (classroom mode's font), at least `min_steps`; then fewer
/// while two of the ticks its ticker generates come closer than a label's height (a ticker rounds the
/// step to 1, 2, 2.5 or 5 x 10^k, down to 0.7 of the step asked for: two steps over 0..105 % in
/// 55 px draw 0, 50, 100 26 px apart, less than classroom mode's labels at x2 need).
int fitting_value_steps(QCPAxis* a, int length_px, int min_steps) {
  const int label = tick_label_height(a);
  int n = std::max(min_steps, length_px / std::max(Readability::kTickSpacingYPx, label + 4));
  const QCPRange range = a->range();
  if (range.size() <= 0) return n;
  const double px_per_unit = length_px / range.size();
  QSharedPointer<QCPAxisTicker> t = a->ticker();
  const int asked = t->tickCount();
  // The ticks `steps` give: whether two of them come closer than a label (and 1 px), and how many
  // lie in the range.
  struct Probe {
    bool crowded;
    qsizetype shown;
  };
  const auto probe = [&](int steps) {
    t->setTickCount(steps);
    QVector<double> ticks;
    t->generate(range, a->parentPlot()->locale(), QChar('g'), a->numberPrecision(), ticks, nullptr, nullptr);
    double closest = length_px;
    for (qsizetype i = 1; i < ticks.size(); ++i) closest = std::min(closest, (ticks[i] - ticks[i - 1]) * px_per_unit);
    return Probe{closest < label + 1, std::count_if(ticks.begin(), ticks.end(), [&](double v) { return range.contains(v); })};
  };
  while (n > min_steps && probe(n).crowded) --n;
  // Then at least two labels in the range where they fit apart: one step of a range like 0..1.15 MB
  // rounds to a 2 MB step, which leaves a lone "0" (up to 4 more steps tried).
  for (int more = n; more <= n + 4; ++more)
    if (const Probe p = probe(more); p.shown >= 2) {
      if (!p.crowded) n = more;
      break;
    }
  t->setTickCount(asked);
  return n;
}

/// Ticks for every axis of `rect` (value axes: fitting_value_steps; key axes one per
/// kTickSpacingXPx), and half a tick label's height (and 1 px) of margin above and below the plot
/// area where the left axis has labels, so the top and bottom labels are drawn whole (QCustomPlot
/// leaves out a label the widget's edge would cut) and never meet those of the row above or below.
/// Returns whether anything changed.
bool fit_rect_ticks(QCPAxisRect* rect, int min_steps) {
  bool changed = false;
  const int nx = std::max(2, rect->width() / Readability::kTickSpacingXPx);
  for (QCPAxis* a : rect->axes()) {
    const bool vertical = a->orientation() == Qt::Vertical;
    if (!a->ticker()) continue;
    // QCustomPlot's tick count is a count of steps: n steps draw about n + 1 labels.
    const int n = vertical ? fitting_value_steps(a, rect->height(), min_steps) : nx;
    if (a->ticker()->tickCount() == n) continue;
    a->ticker()->setTickCount(n);
    if (vertical) a->setSubTicks(n > 2);  // a short strip: no sub-ticks to crowd it
    changed = true;
  }
  const QCPAxis* left = rect->axis(QCPAxis::atLeft);
  if (left && left->visible() && left->tickLabels()) {
    const int half = tick_label_margin(tick_label_height(left));
    const QMargins m = rect->minimumMargins();
    if (m.top() != half || m.bottom() != half) {
      rect->setMinimumMargins(QMargins(m.left(), half, m.right(), half));
      changed = true;
    }
  }
  return changed;
}

}  // namespace

namespace {

/// One pass of keep_readable over the plot's current layout; returns whether anything changed.
bool fit_readable(QCustomPlot* plot, const Readability& r) {
  bool changed = false;
  const int min_steps = std::max(1, plot->property(kMinValueStepsProperty).toInt());
  for (QCPAxisRect* rect : plot->axisRects()) {
    if (rect->height() <= 1 || rect->width() <= 1) continue;
    changed = fit_rect_ticks(rect, min_steps) || changed;
    // The ticker generated this layout's ticks for the rect's height of the layout before (the
    // preparation runs first): where the layout gave it another height, the ticks go again.
    const QSize laid(rect->width(), rect->height());
    if (rect->property("ts_laid_size").toSize() != laid) rect->setProperty("ts_laid_size", laid), changed = true;
  }
  // A left-axis title longer than its row is tall ran over the rows above and below it (the short
  // Utilization track at 1280x720: "GPU %" across "CPU %"), or over the plot's top (the Step breakdown
  // at 1280x720: "step time (ms"): its short form (the unit) stands in, else it is left out, until the
  // row is tall enough again (the row's legend names what it shows).
  for (QCPAxisRect* rect : r.fitted_titles) {
    if (rect->height() <= 1) continue;
    QCPAxis* a = rect->axis(QCPAxis::atLeft);
    if (!a) continue;
    QString full = a->property("ts_full_label").toString();
    if (full.isEmpty() && !a->label().isEmpty()) a->setProperty("ts_full_label", full = a->label());
    if (full.isEmpty()) continue;
    const QFontMetrics fm(a->labelFont());
    const auto fits = [&](const QString& t) { return !t.isEmpty() && fm.horizontalAdvance(t) + 4 <= rect->height(); };
    const QString brief = a->property(Readability::kShortTitleProperty).toString();
    const QString want = fits(full) ? full : fits(brief) ? brief : QString();
    if (a->label() != want) a->setLabel(want), changed = true;
  }
  for (QCPLegend* l : r.legends) {
    if (plot->width() < 100) continue;  // not laid out yet
    const int cols = legend_columns_for(l, plot->width());
    if (l->wrap() == cols) continue;
    l->setWrap(cols);
    l->setFillOrder(l->fillOrder(), true);  // re-flows the items already there
    changed = true;
  }
  for (const auto& [t, rect] : r.messages) {
    if (rect->width() <= 1) continue;
    const QString full = t->property(Readability::kFullTextProperty).toString();
    QString wrapped = wrap_to_width(full.isEmpty() ? t->text() : full, t->font(), rect->width() - 16);
    // Lines taller than their plot area (centred on it, they stood over a short track's top and
    // bottom, or over the axis under a CPU run's GPU row): the short form, where the owner gave one.
    const QString brief = t->property(Readability::kShortTextProperty).toString();
    const QMargins pad = t->padding();
    const auto tall = [&](const QString& s) {
      return (s.count('\n') + 1) * QFontMetrics(t->font()).lineSpacing() + pad.top() + pad.bottom() > rect->height();
    };
    if (!brief.isEmpty() && tall(wrapped)) wrapped = wrap_to_width(brief, t->font(), rect->width() - 16);
    if (wrapped != t->text()) t->setText(wrapped), changed = true;
  }
  return changed;
}

/// Replots its plot once the plot shows: laid out while hidden, a plot is not fitted (its sizes are
/// not its own), and the resize a widget gets as it shows comes before it is visible. Nothing else
/// replots a plot whose data came while it was hidden: the Step breakdown opened after its analysis
/// kept the tick labels, title and legend columns of another height.
class ReplotWhenShown : public QObject {
 public:
  explicit ReplotWhenShown(QCustomPlot* plot) : QObject(plot) { plot->installEventFilter(this); }
  bool eventFilter(QObject* o, QEvent* e) override {
    if (e->type() == QEvent::Show) static_cast<QCustomPlot*>(o)->replot(QCustomPlot::rpQueuedReplot);
    return false;
  }
};

}  // namespace

void keep_readable(QCustomPlot* plot, const Readability& r) {
  // After the layout of each replot, with the heights and widths it gave the rows: fitted before it,
  // the ticks were those of the size before (a tab opened: the memory track's three labels drawn 12 px
  // apart in a plot that had shrunk). What changed is laid out again before this replot draws, as
  // QCustomPlot's own layout does (its three phases), a few times at most: a new tick count changes
  // the margins, which change the rows' heights.
  new ReplotWhenShown(plot);
  QObject::connect(plot, &QCustomPlot::afterLayout, plot, [plot, r] {
    if (!plot->isVisible()) return;  // a hidden plot's sizes are not its own; fitted when it shows
    for (int pass = 0; pass < 4 && fit_readable(plot, r); ++pass) {
      QCPLayoutGrid* layout = plot->plotLayout();
      layout->update(QCPLayoutElement::upPreparation);
      layout->update(QCPLayoutElement::upMargins);
      layout->update(QCPLayoutElement::upLayout);
    }
  });
}

}  // namespace ts::gui
