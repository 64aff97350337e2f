// The compare view's plots (compare_view.h), QCustomPlot with the plot-export context menu:
//   CompareBreakdownChart   ms per analysed step of each session as one stacked bar (QCPBars
//                           moveAbove), categories in the analysis' priority order, one y scale for
//                           every session, a legend, each bar's total above it, hover numbers
//   CompareThroughputChart  images/s of training time per session (compare::training_throughput)
//                           (compare.h) as grouped bars, with their values as the table writes
//                           them; y ticks "300k" (CountTicker, as Train's img/s axis)
// Colours: Okabe & Ito's colour-blind-safe palette ("Color Universal Design", 2008), grey for other.
#pragma once
#include <QColor>
#include <QWidget>
#include <vector>

#include "profiling/compare/compare.h"

class QCustomPlot;
class QCPAxis;
class QCPBars;
class QCPItemText;

namespace ts::gui {

/// Okabe & Ito's eight colours (black replaced by grey): 0 blue #0072B2, 1 orange #E69F00,
/// 2 sky blue #56B4E9, 3 vermillion #D55E00, 4 bluish green #009E73, 5 reddish purple #CC79A7,
/// 6 yellow #F0E442, 7 grey #999999; i wraps.
QColor okabe_ito_color(int i);

class CompareBreakdownChart : public QWidget {
  Q_OBJECT
 public:
  explicit CompareBreakdownChart(QWidget* parent = nullptr);
  void setComparison(const prof::compare::Comparison& c);

  QCustomPlot* plot() const { return plot_; }
  /// The stacked bars of one category (key = session index, value = ms per analysed step).
  QCPBars* bars(prof::analysis::Category c) const { return bars_[static_cast<std::size_t>(c)]; }
  /// The one value axis every bar uses (ms/step).
  QCPAxis* valueAxis() const;
  /// ms per analysed step of session i: the stacked bar's height (0 when it has no analysed steps).
  double totalMsPerStep(int session) const;
  /// Session at plot pixel x (-1 when none) and its hover text (each category's ms/step and share).
  int sessionAtPixel(double x) const;
  QString hoverText(int session) const;

 protected:
  bool eventFilter(QObject* o, QEvent* e) override;

 private:
  QCustomPlot* plot_;
  std::vector<QCPBars*> bars_;
  std::vector<QCPItemText*> totals_;
  std::vector<prof::analysis::Report> reports_;  // per session (no per-step rows)
  QStringList names_;
};

class CompareThroughputChart : public QWidget {
  Q_OBJECT
 public:
  explicit CompareThroughputChart(QWidget* parent = nullptr);
  void setComparison(const prof::compare::Comparison& c);
  QCustomPlot* plot() const { return plot_; }
  /// One bar per session: images/s of training time (compare::training_throughput), the figure the
  /// table, the headline and the lessons show.
  QCPBars* rateBars() const { return rate_; }

 private:
  QCustomPlot* plot_;
  QCPBars* rate_;
  std::vector<QCPItemText*> labels_;
};

}  // namespace ts::gui
