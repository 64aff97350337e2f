// BreakdownChart: the step-time breakdown as a stacked bar per step (QCPBars), categories in the
// analysis' priority order (kernel, memcpy, memset, runtime, data-loader wait, sync wait, CPU exec,
// other; Report::per_step of analyze(), whole run, every step) with a legend. Hovering a bar shows the
// step's numbers; clicking a step sets the hub's visible range to the step's window. A step far
// longer than the others (the first step's cuDNN search: ~37 ms against ~0.7 ms on the H200) is left
// off scale and named in a label, so the other bars stay readable.
#pragma once
#include <QWidget>
#include <vector>

#include "profiling/analysis/analysis.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/panels/analysis_runner.h"

class QCustomPlot;
class QCPBars;
class QCPItemText;
class QLabel;

namespace ts::gui {

class BreakdownChart : public QWidget {
  Q_OBJECT
 public:
  explicit BreakdownChart(PanelHub* hub, QWidget* parent = nullptr);

  AnalysisRunner* runner() const { return runner_; }
  QCustomPlot* plot() const { return plot_; }
  QCPBars* bars(prof::analysis::Category c) const { return bars_[static_cast<int>(c)]; }
  /// The steps shown (Report::per_step of the latest analysis).
  const std::vector<prof::analysis::StepMetrics>& steps() const { return steps_; }
  /// Index into steps() of the bar under plot x pixel `x`; -1 when none.
  int stepAtPixel(double x) const;
  /// Sets the hub's visible range to steps()[index]'s window (what a click does).
  void selectStep(int index);
  /// The hover text of steps()[index]: the step, its wall time and each category's ms and share.
  QString hoverText(int index) const;
  /// The line above the chart: the steps, their mean over the analysed ones (warm-up left out).
  QString statusText() const;
  /// Steps left above the y range (see the file comment).
  const std::vector<int>& offScale() const { return off_scale_; }

 signals:
  void stepSelected(qint64 global_step);

 private:
  void showResult();
  void onMouseMove(class QMouseEvent* e);
  void onMouseRelease(class QMouseEvent* e);

  PanelHub* hub_;
  AnalysisRunner* runner_;
  QCustomPlot* plot_;
  QLabel* status_;
  std::vector<QCPBars*> bars_;
  QCPItemText* off_label_;
  QCPItemText* absent_;
  std::vector<prof::analysis::StepMetrics> steps_;
  std::vector<int> off_scale_;
  QPoint press_;
};

}  // namespace ts::gui
