// TimeAxis: time <-> pixel mapping, zoom around a point, pan and clamp (see time_axis.h).
#include "widgets/timeline/time_axis.h"

#include <algorithm>
#include <cmath>

namespace ts::gui::timeline {

void TimeAxis::setWidth(double px) { width_ = std::max(1.0, px); }

void TimeAxis::setBounds(std::int64_t lo, std::int64_t hi) {
  lo_ = lo;
  hi_ = std::max(lo, hi);
}

void TimeAxis::setRange(std::int64_t start, std::int64_t end) {
  if (end < start) std::swap(start, end);
  start_ = start;
  span_ = std::max<std::int64_t>(end - start, 1);
  clamp();
}

std::int64_t TimeAxis::t(double px) const {
  return start_ + static_cast<std::int64_t>(std::llround(px * static_cast<double>(span_) / width_));
}

void TimeAxis::zoom(double factor, double anchor_x) {
  if (!(factor > 0) || !std::isfinite(factor)) return;
  const std::int64_t anchor_t = t(anchor_x);
  const double frac = anchor_x / width_;
  const double new_span = std::max(static_cast<double>(kMinSpanNs), static_cast<double>(span_) * factor);
  span_ = static_cast<std::int64_t>(std::llround(new_span));
  start_ = anchor_t - static_cast<std::int64_t>(std::llround(frac * new_span));
  clamp();
  // clamp() may have narrowed the span; the anchor stays put unless the bounds forbid it.
}

void TimeAxis::panPx(double dx) { panNs(static_cast<std::int64_t>(std::llround(dx * nsPerPx()))); }

void TimeAxis::panNs(std::int64_t dt) {
  start_ += dt;
  clamp();
}

void TimeAxis::fitAll() {
  start_ = lo_;
  span_ = std::max<std::int64_t>(hi_ - lo_, kMinSpanNs);
  clamp();
}

void TimeAxis::clamp() {
  const std::int64_t data = std::max<std::int64_t>(hi_ - lo_, kMinSpanNs);
  const auto margin = static_cast<std::int64_t>(static_cast<double>(data) * kBoundsMargin);
  const std::int64_t max_span = data + 2 * margin;
  span_ = std::clamp<std::int64_t>(span_, kMinSpanNs, max_span);
  const std::int64_t min_start = lo_ - margin, max_end = std::max(hi_, lo_ + kMinSpanNs) + margin;
  if (start_ + span_ > max_end) start_ = max_end - span_;
  if (start_ < min_start) start_ = min_start;
}

}  // namespace ts::gui::timeline
