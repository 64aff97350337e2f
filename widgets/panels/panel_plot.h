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
#include <qcustomplot.h>

#include "widgets/panel_hub.h"

namespace ts::gui {

/// Session ns <-> plot seconds.
inline double ns_to_s(qint64 ns) { return static_cast<double>(ns) / 1e9; }
inline qint64 s_to_ns(double s) { return static_cast<qint64>(std::llround(s * 1e9)); }

/// "512 B", "3.4 MB", "1.06 GB" (decimal units, as docs/metrics.md's GB).
QString format_bytes(double bytes, int precision = 2);

/// Tick labels in B / kB / MB / GB / TB for an axis whose values are bytes.
class BytesTicker : public QCPAxisTicker {
 protected:
  double getTickStep(const QCPRange& range) override;
  QString getTickLabel(double tick, const QLocale& locale, QChar format_char, int precision) override;

 private:
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

/// Tableau 10, the panels' category colours.
QColor palette_color(int i);

}  // namespace ts::gui
