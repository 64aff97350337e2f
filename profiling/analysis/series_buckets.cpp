// SeriesBuckets and SeriesSum (see series_buckets.h).
#include "profiling/analysis/series_buckets.h"

#include <algorithm>

namespace ts::prof::analysis {

void SeriesBuckets::clear() {
  prefix_.assign(1, 0.0);
  block_max_.clear();
}

void SeriesBuckets::extend(const std::vector<SeriesPoint>& points) {
  if (points.size() < size()) clear();  // another series: start again
  for (std::size_t i = size(); i < points.size(); ++i) {
    // Doubles hold 3.6 M samples of up to ~1e12 (bytes/s) to within ~1 in 1e16 of the total: a
    // bucket's mean from two prefix sums is exact to ~1e-9 of its value.
    prefix_.push_back(prefix_.back() + points[i].v);
    if (i % kBlock == 0) block_max_.push_back(points[i].v);
    else block_max_.back() = std::max(block_max_.back(), points[i].v);
  }
}

double SeriesBuckets::range_max(const std::vector<SeriesPoint>& points, std::size_t a, std::size_t b) const {
  double m = -std::numeric_limits<double>::infinity();
  while (a < b && a % kBlock != 0) m = std::max(m, points[a++].v);
  while (a + kBlock <= b) m = std::max(m, block_max_[a / kBlock]), a += kBlock;
  while (a < b) m = std::max(m, points[a++].v);
  return m;
}

std::vector<SeriesBuckets::Bucket> SeriesBuckets::buckets(const std::vector<SeriesPoint>& points, std::int64_t from,
                                                          std::int64_t bucket_ns, std::size_t n) const {
  std::vector<Bucket> out(n);
  const std::size_t taken = std::min(size(), points.size());
  if (bucket_ns <= 0 || taken == 0) return out;
  const auto first_at = [&](std::int64_t t, std::size_t lo) {
    return static_cast<std::size_t>(
        std::lower_bound(points.begin() + static_cast<std::ptrdiff_t>(lo), points.begin() + static_cast<std::ptrdiff_t>(taken), t,
                         [](const SeriesPoint& p, std::int64_t x) { return p.t < x; }) -
        points.begin());
  };
  std::size_t a = first_at(from, 0);
  for (std::size_t i = 0; i < n && a < taken; ++i) {
    const std::size_t b = first_at(from + static_cast<std::int64_t>(i + 1) * bucket_ns, a);
    if (b > a) {
      out[i].count = static_cast<std::int64_t>(b - a);
      out[i].mean = (prefix_[b] - prefix_[a]) / static_cast<double>(b - a);
      out[i].max = range_max(points, a, b);
    }
    a = b;
  }
  return out;
}

void SeriesSum::extend(const std::vector<const std::vector<SeriesPoint>*>& parts) {
  taken_.resize(parts.size(), 0);
  latest_.resize(parts.size(), 0.0);
  // Every present part's newest time: a time is summed once every part has reached it.
  std::int64_t horizon = INT64_MAX;
  bool any = false;
  for (const auto* p : parts)
    if (p && !p->empty()) horizon = std::min(horizon, p->back().t), any = true;
  if (!any) return;
  for (;;) {
    std::int64_t t = INT64_MAX;  // the next time any part has a sample at
    for (std::size_t i = 0; i < parts.size(); ++i)
      if (parts[i] && taken_[i] < parts[i]->size()) t = std::min(t, (*parts[i])[taken_[i]].t);
    if (t == INT64_MAX || t > horizon) return;
    double sum = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (!parts[i]) continue;
      const auto& p = *parts[i];
      while (taken_[i] < p.size() && p[taken_[i]].t <= t) latest_[i] = p[taken_[i]++].v;
      sum += latest_[i];
    }
    points_.push_back({t, sum});
  }
}

}  // namespace ts::prof::analysis
