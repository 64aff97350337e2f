// CountTicker (count_ticker.h).
#include "widgets/common/count_ticker.h"

#include <QFontMetrics>
#include <algorithm>
#include <cmath>

namespace ts::gui {

int CountTicker::fitting_tick_count(int length_px, int label_px) {
  if (label_px <= 0) return 5;
  return std::clamp(static_cast<int>(length_px / (2.5 * label_px)), 2, 8);
}

QString CountTicker::label(double value, double step) {
  if (value == 0) return "0";
  const double a = std::fabs(value);
  const double unit = a >= 1e9 ? 1e9 : a >= 1e6 ? 1e6 : a >= 1e3 ? 1e3 : 1;
  const char* prefix = unit == 1e9 ? "G" : unit == 1e6 ? "M" : unit == 1e3 ? "k" : "";
  // The fewest decimals (0-3) that write the step exactly in this unit: 0.25M steps need two.
  const double s = (step > 0 ? step : a) / unit;
  int decimals = 0;
  while (decimals < 3 && std::fabs(s * std::pow(10, decimals) - std::round(s * std::pow(10, decimals))) > 1e-6 * std::pow(10, decimals))
    ++decimals;
  return QString::number(value / unit, 'f', decimals) + prefix;
}

double CountTicker::getTickStep(const QCPRange& range) {
  if (axis_ && axis_->axisRect()) {
    const QFontMetrics fm(axis_->tickLabelFont());
    const bool vertical = axis_->orientation() == Qt::Vertical;
    const int length = vertical ? axis_->axisRect()->height() : axis_->axisRect()->width();
    // Horizontal labels need their width: a wide label such as "350k" judged by a typical one.
    const int label = vertical ? fm.height() : fm.horizontalAdvance("000.0k");
    setTickCount(fitting_tick_count(length, label));
  }
  step_ = QCPAxisTicker::getTickStep(range);
  // QCustomPlot's steps are 1, 2, 2.5 or 5 x 10^k: on whole numbers, below 1 is 1 and 2.5 is 2.
  if (integers_) step_ = step_ < 1 ? 1 : step_ == 2.5 ? 2 : step_;
  return step_;
}

QString CountTicker::getTickLabel(double tick, const QLocale&, QChar, int) { return label(tick, step_); }

}  // namespace ts::gui
