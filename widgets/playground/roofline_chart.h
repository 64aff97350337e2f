// RooflineChart: the run's roofline (playground/roofline.h) as a log-log QCustomPlot:
// arithmetic intensity (flop/byte) against achieved TFLOP/s, one point per variant that does
// arithmetic and passed its check (own kernels filled, library rows hollow; a colour per family),
// under the bandwidth roof (measured: the run's copy) and the datasheet compute peaks, each roof
// labelled with its figure and "measured" or "datasheet". A run made with --measure adds each row's
// point as the GPU's counters saw it (a cross, legend "measured (GPU counters)": intensity over the
// DRAM bytes measured, TFLOP/s over the measured duration) beside its estimated one. What the chart
// leaves out (data movement with no arithmetic, failed checks) is listed under it.
#pragma once
#include <QWidget>

#include "playground/roofline.h"

class QCustomPlot;
class QLabel;

namespace ts::gui {

class RooflineChart : public QWidget {
  Q_OBJECT
 public:
  explicit RooflineChart(QWidget* parent = nullptr);
  /// Draws the roofline of `ladders` run on `device`.
  void setRun(const std::vector<playground::Ladder>& ladders, const QString& device);
  void clear();
  const playground::Roofline& roofline() const { return roofline_; }
  /// The roofs' labels as drawn ("device copy 4262 GB/s (measured)", "FP32 67 TFLOP/s (datasheet)").
  QStringList roofLabels() const { return roof_labels_; }
  int pointCount() const { return static_cast<int>(roofline_.points.size()); }
  /// Points of rows measured by the GPU's counters (roofline.h, measured_points), drawn as crosses.
  int measuredPointCount() const { return static_cast<int>(roofline_.measured_points.size()); }
  QCustomPlot* plot() const { return plot_; }
  /// Highlights the points of `family` (the one selected in the workspace); "" for none.
  void setFocusFamily(const QString& family);

 private:
  void rebuild();
  /// The bandwidth slope and the compute peaks, each labelled (roofLabels()).
  void addRoofs(double ymax);
  void placeLabels();
  void keepLabelsApart();  // after placeLabels: no two point labels overlap
  /// The measured points, one graph named "measured (GPU counters)".
  void addMeasuredPoints();
  QCustomPlot* plot_;
  QLabel* note_;
  playground::Roofline roofline_;
  QStringList roof_labels_;
  QString focus_;
};

}  // namespace ts::gui
