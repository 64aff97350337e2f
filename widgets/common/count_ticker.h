// A QCustomPlot axis ticker for counts and rates (images/s, kernels, calls): labels "0", "250k",
// "1.2M" instead of "350000", and only as many ticks as the axis has room for at the size of its
// tick labels, so a short chart or classroom mode's larger font never stacks labels on each other.
#pragma once
#include <qcustomplot.h>

namespace ts::gui {

class CountTicker : public QCPAxisTicker {
 public:
  /// `axis`: the axis this ticker is set on (its length and tick-label font decide the tick count).
  /// `integers`: ticks on whole numbers only (steps, epochs: never "2.5").
  explicit CountTicker(QCPAxis* axis, bool integers = false) : axis_(axis), integers_(integers) {}

  /// The most ticks that fit `length_px` of axis with labels `label_px` high (vertical axis) or
  /// wide: one tick per 2.5 label sizes, kept within [2, 8] (QCustomPlot's default asks for 5).
  static int fitting_tick_count(int length_px, int label_px);
  /// "0", "950", "12.5k", "3M": decimal SI prefixes (k = 1e3, M = 1e6, G = 1e9), with as many
  /// decimals (0-3) as tell ticks `step` apart.
  static QString label(double value, double step);

 protected:
  double getTickStep(const QCPRange& range) override;
  QString getTickLabel(double tick, const QLocale& locale, QChar format_char, int precision) override;

 private:
  QCPAxis* axis_;
  bool integers_;
  double step_ = 0;
};

}  // namespace ts::gui
