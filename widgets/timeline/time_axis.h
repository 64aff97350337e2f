// TimeAxis: the timeline's time <-> pixel mapping, on its own so it can be tested without a widget
// (hotspot tests its timeline's mapping the same way). Times are int64 ns since session start; x is
// a double in pixels from the left edge of the plot area (the lane headers are not part of it).
// Zoom keeps the time under an anchor pixel fixed; pan moves by pixels or ns; clamp() keeps the
// span within [kMinSpanNs, the data bounds + margin] and the range near the data.
#pragma once
#include <cstdint>

namespace ts::gui::timeline {

class TimeAxis {
 public:
  /// Narrowest visible span: 100 ns (a few short kernels on a 1920 px plot).
  static constexpr std::int64_t kMinSpanNs = 100;
  /// Margin allowed beyond the data bounds, as a fraction of the bounds' span (Perfetto-like slack).
  static constexpr double kBoundsMargin = 0.05;

  /// Plot width in pixels (>= 1).
  void setWidth(double px);
  double width() const { return width_; }
  /// The data extent [lo, hi] (ns) that clamp() keeps the view near. hi < lo is treated as lo.
  void setBounds(std::int64_t lo, std::int64_t hi);
  std::int64_t boundsLo() const { return lo_; }
  std::int64_t boundsHi() const { return hi_; }
  /// Shows [start, end) (swapped when reversed), then clamps.
  void setRange(std::int64_t start, std::int64_t end);
  std::int64_t start() const { return start_; }
  std::int64_t end() const { return start_ + span_; }
  std::int64_t span() const { return span_; }
  double nsPerPx() const { return static_cast<double>(span_) / width_; }

  /// x (px, may lie outside [0, width]) of time t (ns).
  double x(std::int64_t t) const { return static_cast<double>(t - start_) * width_ / static_cast<double>(span_); }
  /// Time (ns, rounded to nearest) at pixel x.
  std::int64_t t(double x) const;

  /// Multiplies the span by `factor` (< 1 zooms in) keeping the time at pixel `anchor_x` there.
  void zoom(double factor, double anchor_x);
  /// Moves the view by `dx` pixels (positive: later times come into view).
  void panPx(double dx);
  /// Moves the view by `dt` ns.
  void panNs(std::int64_t dt);
  /// Shows the whole bounds [lo, hi] (plus nothing: fit all).
  void fitAll();
  /// Keeps the span in [kMinSpanNs, (hi - lo) * (1 + 2 * margin)] and the range inside
  /// [lo - margin, hi + margin] (margin = kBoundsMargin * (hi - lo)).
  void clamp();

 private:
  double width_ = 1000;
  std::int64_t lo_ = 0, hi_ = 1'000'000;
  std::int64_t start_ = 0, span_ = 1'000'000;
};

}  // namespace ts::gui::timeline
