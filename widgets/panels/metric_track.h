// MetricTrack: what a metric track under the timeline's lanes (the memory graph, utilization) tells
// the Profile workspace, which shares the column's height between the lanes and the tracks: the
// height that shows what the track must not fold away by default, the least height that shows its
// plot, and a folded state of its header line alone for a column too short for its plot.
#pragma once

namespace ts::gui {

class MetricTrack {
 public:
  virtual ~MetricTrack() = default;
  /// The height (px, at the track's font and width) that shows its header line and what it must
  /// not fold away by default: the memory graph's scale and legend; utilization's GPU row and, where
  /// the session has them, the measured rows beside it.
  virtual int preferredTrackHeight() const = 0;
  /// Between the plot's minimum and the preferred height: the height that keeps the first of what the
  /// preferred one adds (utilization: the first measured row beside the GPU row, where a tab leaves no
  /// room for both). The plot's minimum where there is no such step.
  virtual int partialTrackHeight() const { return plotMinimumHeight(); }
  /// The least height (px) that shows the plot: the header line and a scale, or one row with its legend.
  virtual int plotMinimumHeight() const = 0;
  /// The header line's height (px): the track folded.
  virtual int foldedHeight() const = 0;
  /// Folded, the plot is hidden and the header line (the track's title and numbers) is all it shows,
  /// with a tooltip that says how to see the plot; unfolded, the plot comes back.
  virtual void setPlotFolded(bool folded) = 0;
  virtual bool plotFolded() const = 0;
};

}  // namespace ts::gui
