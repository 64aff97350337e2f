// Drawing a long sample series in time buckets at a cost that does not grow with its length: a
// 1 kHz PM-sampling series (profiling/metrics) holds 3.6 M samples an hour, and the utilization
// panel redraws several of them on every refresh. SeriesBuckets keeps, beside the series' own points
// (not copied), prefix sums and block maxima, extended as samples arrive (O(new samples)); the mean
// and maximum of any bucket then cost O(log n + kBlock), so a refresh costs O(buckets) however long
// the run. Qt-free; times are session ns, values in the series' unit.
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include "profiling/analysis/series.h"

namespace ts::prof::analysis {

class SeriesBuckets {
 public:
  /// Samples per block maximum: a bucket's maximum reads at most 2 x kBlock samples and its whole
  /// blocks' maxima (256: 14 k blocks an hour at 1 kHz; TrainScope's choice).
  static constexpr std::size_t kBlock = 256;

  struct Bucket {
    double mean = std::numeric_limits<double>::quiet_NaN();  // NaN: no sample in the bucket
    double max = std::numeric_limits<double>::quiet_NaN();
    std::int64_t count = 0;
  };

  /// Takes in the points of `points` not taken yet (a series only grows at its end: SeriesSet).
  void extend(const std::vector<SeriesPoint>& points);
  void clear();
  /// Points taken in.
  std::size_t size() const { return prefix_.size() - 1; }
  /// Bucket i covers [from + i * bucket_ns, from + (i + 1) * bucket_ns), i < n: the mean and maximum
  /// of the samples whose t lies in it. `points`: the series extend() took in (the same vector).
  std::vector<Bucket> buckets(const std::vector<SeriesPoint>& points, std::int64_t from, std::int64_t bucket_ns,
                              std::size_t n) const;

 private:
  double range_max(const std::vector<SeriesPoint>& points, std::size_t a, std::size_t b) const;
  std::vector<double> prefix_{0.0};  // prefix_[i]: sum of the first i values (long runs: see extend())
  std::vector<double> block_max_;    // block k: max of points [k * kBlock, (k + 1) * kBlock)
};

/// A growing sum of several growing series (read + write), held at each one's latest value as
/// sum_series() does, extended with what arrived (O(new samples)). A time is summed once every part
/// has reached it, so a sampler round that arrives in two batches is never summed half.
class SeriesSum {
 public:
  /// Takes in the parts' new points (nullptr: a part absent so far; the same parts in the same
  /// order on every call).
  void extend(const std::vector<const std::vector<SeriesPoint>*>& parts);
  void clear() { *this = {}; }
  const std::vector<SeriesPoint>& points() const { return points_; }

 private:
  std::vector<SeriesPoint> points_;
  std::vector<std::size_t> taken_;
  std::vector<double> latest_;
};

}  // namespace ts::prof::analysis
