// What the plot panels (memory graph, utilization, step breakdown) share: the linked time axis
// (a QCustomPlot x axis in seconds of session time kept equal to the PanelHub's visible range, both
// ways), a byte-unit axis ticker, background jobs whose results come back to the GUI thread, and the
// panels' colours.
#pragma once
#include <QColor>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QRunnable>
#include <QThreadPool>
#include <QCoreApplication>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <qcustomplot.h>

#include "widgets/panels/panel_hub.h"

namespace ts::gui {

/// Session ns <-> plot seconds.
inline double ns_to_s(qint64 ns) { return static_cast<double>(ns) / 1e9; }
inline qint64 s_to_ns(double s) { return static_cast<qint64>(std::llround(s * 1e9)); }

/// "512 B", "3.4 MB", "1.06 GB" (decimal units, as docs/metrics.md's GB).
QString format_bytes(double bytes, int precision = 2);
/// Why a session holds no GPU records, from its meta "gpu_activity" ("collected (CUPTI)", "collected
/// (PyTorch profiler trace)", "not collected: a CPU run", "no GPU activity: <why>"), without the
/// "no GPU activity: " prefix, so that a panel's own sentence says it once; "" when the meta says
/// they were collected or says nothing.
QString gpu_absence_reason(const std::map<std::string, std::string>& meta);
/// Whether a session's meta says the run trained on the CPU (device.kind "cpu"): no kernels, no GPU
/// series to show or to say are missing.
bool cpu_run(const std::map<std::string, std::string>& meta);
/// Whether a session is one of TrainScope's own training runs (meta run.model_spec): it has layer ranges
/// and no Python; a recorded program or an imported trace has neither layer ranges nor a model spec.
bool own_run(const std::map<std::string, std::string>& meta);

/// Tick labels in B / kB / MB / GB / TB for an axis whose values are bytes. Given its axis, the
/// step is widened (to the next of 1, 2, 2.5, 5 x 10^k) until neighbouring labels are a label's height
/// (vertical) apart: the tick count asked for is approximate (a 50 px track asked for 3 steps of
/// 0..193 MB drew 4 labels 12 px apart).
class BytesTicker : public QCPAxisTicker {
 public:
  /// `suffix` follows each label's unit ("/s": "5 TB/s" on a rate's axis, which read "5 TB").
  explicit BytesTicker(QCPAxis* axis = nullptr, QString suffix = {}) : axis_(axis), suffix_(std::move(suffix)) {}

 protected:
  double getTickStep(const QCPRange& range) override;
  QString getTickLabel(double tick, const QLocale& locale, QChar format_char, int precision) override;

 private:
  QCPAxis* axis_;
  QString suffix_;
  double step_ = 0;
};

/// Keeps the x axes of one plot (seconds of session time) equal to each other and to the hub's
/// visible range. A user drag/zoom of any of them sets the hub's range (and turns follow-live off);
/// the hub's visibleRangeChanged moves them. While the hub has no range (start == end) the axes show
/// the data extent given to setDataExtent().
class TimeAxisLink : public QObject {
  Q_OBJECT
 public:
  TimeAxisLink(PanelHub* hub, QCustomPlot* plot, QList<QCPAxis*> axes);
  void setDataExtent(qint64 lo_ns, qint64 hi_ns);
  /// The shown range in ns (hub's, or the data extent while the hub has none).
  TimeSpan shown() const;
  /// A panel's own programmatic range change (not a user action).
  void setAxesRange(const QCPRange& r);

 private:
  void fromHub(TimeSpan r);
  void fromAxis(const QCPRange& r);

  PanelHub* hub_;
  QCustomPlot* plot_;
  QList<QCPAxis*> axes_;
  TimeSpan extent_{};
  bool applying_ = false;
};

/// Runs `work` on the global thread pool; `done(result)` runs on the GUI thread afterwards unless
/// `owner` was destroyed. `work` must only touch what it captured by value (a shared store, options).
template <class R>
void post_job(QObject* owner, std::function<R()> work, std::function<void(R)> done) {
  QPointer<QObject> guard(owner);
  QThreadPool::globalInstance()->start([guard, work = std::move(work), done = std::move(done)]() mutable {
    R result = work();
    QCoreApplication* app = QCoreApplication::instance();
    if (!app) return;
    QMetaObject::invokeMethod(
        app, [guard, done = std::move(done), result = std::move(result)]() mutable {
          if (guard) done(std::move(result));
        },
        Qt::QueuedConnection);
  });
}

/// A bold title row above the plot's axis rects.
void add_plot_title(QCustomPlot* plot, const QString& title);
/// A centred grey message over an axis rect (the absent state: "No GPU activity recorded ...").
QCPItemText* add_center_message(QCustomPlot* plot, QCPAxisRect* rect);
/// Puts the plot's legend in a row under the axis rect, `columns` entries per line (so it never
/// hides the data), borderless, in a slightly smaller font.
void legend_below(QCustomPlot* plot, int columns);
/// Takes legend_below's row out of the plot's layout (no entries to show) or puts it back: an
/// empty legend grid's maximum width (a few px) became the column's, and the axis rect a sliver.
void show_legend_row(QCustomPlot* plot, bool shown);

/// The panels' category colours: Okabe & Ito's colour-blind-safe palette ("Color Universal Design",
/// jfly.uni-koeln.de/color, 2008: told apart with protanopia, deuteranopia and tritanopia), its
/// eight colours first (black replaced by a dark grey), then two darker variants of the first two.
QColor palette_color(int i);

/// The step-time categories (prof::analysis::Category, as an int) in one colour and one name wherever
/// a breakdown is drawn: Profile's Step breakdown, Compare's Step time chart and table (they drew
/// memset, runtime, data-loader wait and sync wait in four other colours), in the timeline's colour
/// of the same thing: kernel as GEMM/conv kernels, memcpy as Copy H2D, memset, communication,
/// runtime as CUDA runtime calls, data-loader wait, sync wait as Synchronization, CPU exec as
/// Forward (host); other grey.
QColor step_category_color(int category);
/// "kernel", "memcpy", "memset", "communication", "runtime", "data-loader wait", "sync wait",
/// "CPU exec", "other".
QString step_category_label(int category);

/// Track layout (the Profile workspace's metric tracks under the timeline's lanes): the axis rect's
/// left edge sits `left_px` from the plot widget's left edge (the timeline's lane header width) and
/// its right edge at the widget's right edge, so its x axis lines up pixel for pixel with the
/// timeline's plot area above it. Top and bottom margins stay automatic.
void align_rect_left(QCPAxisRect* rect, int left_px);

/// The upper end of a value axis over data up to `max` (> 0): `max` and 15 % of headroom, rounded up
/// to 1, 2, 2.5 or 5 x 10^k, so the ticker's one step over a short row lands on it and the row shows
/// "0" and that value (over 0..22.6 GB a step rounded to 25 GB left a lone "0").
double nice_upper(double max);

/// Keeps a plot readable at any size, after the layout of every replot (with the sizes it gave the
/// rows; what changed is laid out again before the replot draws): each axis rect's value axes get one tick
/// step per ~kTickSpacingYPx of height or per tick label's height where that is more (at least one:
/// two labels), fewer where the ticks their ticker places come closer than a label, and half a label
/// of margin above and below the plot area; each key axis one per ~kTickSpacingXPx of width, so tick
/// labels never overlap in a short track, nor meet those of the row above or below, at any font
/// (classroom mode's); each `legends` entry wraps into as many columns as its
/// widest item allows in the plot's width; each `messages` text (an empty state) is word-wrapped to
/// its axis rect's width so it is never clipped, and where its lines are taller than the axis rect, its
/// short form (kShortTextProperty) stands in.
struct Readability {
  static constexpr int kTickSpacingYPx = 26, kTickSpacingXPx = 90;
  QList<QCPLegend*> legends;
  QList<QPair<QCPItemText*, QCPAxisRect*>> messages;
  /// These rows' left-axis titles (set once, never changed later) are left out while longer than the
  /// row is tall, and come back when it is tall enough; an axis with a kShortTitleProperty shows that
  /// shorter title (its unit) where it fits and the whole one does not.
  QList<QCPAxisRect*> fitted_titles;
  static constexpr const char* kShortTitleProperty = "ts_short_label";
  /// A message's text as its owner set it (unwrapped; else its text is taken as that), and the
  /// shorter one for a plot too short for its lines ("": none).
  static constexpr const char* kFullTextProperty = "ts_full_text";
  static constexpr const char* kShortTextProperty = "ts_short_text";
};
/// The margin above and below a plot area that holds its value axis's top and bottom tick labels
/// (`label_h` px high, centred on their ticks; the top of the range falls 1 px above the area) whole:
/// half a label, rounded up, and 1 px.
inline int tick_label_margin(int label_h) {
  return (label_h + 1) / 2 + 1;
}
/// The plot's dynamic property that raises the fewest tick steps of its value axes (int, default 1:
/// two labels; the memory track sets 2, a scale of three labels at least).
inline constexpr const char* kMinValueStepsProperty = "ts_min_value_steps";
void keep_readable(QCustomPlot* plot, const Readability& r);
/// Columns that fit `width_px` for `legend`'s widest item (1 .. item count).
int legend_columns_for(const QCPLegend* legend, int width_px);
/// `text` with spaces turned into line breaks so that no line is wider than `width_px` in `font`.
QString wrap_to_width(const QString& text, const QFont& font, int width_px);

}  // namespace ts::gui
