// MemoryGraph: device memory over session time (the Memory dock). The caching allocator's bytes
// stacked by category (weights, gradients, optimizer state, activations, workspace, input batches,
// other; samples memory.allocated|reserved.<category>), the other kind's total as a dashed line,
// cudaMemGetInfo's device.memory.used, and the process's cudaMalloc'd bytes from CUPTI's alloc/free
// records (finer in time than the 20 Hz samples). The peak of device.memory.used (else of the
// allocator's total) is marked with value and time; the card's capacity (meta
// device.total_memory_bytes) is a red line (off scale unless "Show capacity" or the data come near
// it). A simulated smaller card (run.config memory_limit_bytes, --memory-limit / "Simulate a smaller
// card") replaces the card: the line is drawn at the cap, labelled as simulated, and the header row's
// share is the allocator's reserved peak over the cap (what the cap limits; docs/metrics.md). A
// steadily growing allocated total across steps is flagged (analysis::check_leak; rule in
// profiling/analysis/series.h). The x axis is the linked time axis (PanelHub's visible range).
#pragma once
#include <QString>
#include <QWidget>
#include <optional>

#include "profiling/analysis/series.h"
#include "widgets/panels/metric_track.h"
#include "widgets/panels/panel_hub.h"

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QCPItemTracer;
class QCheckBox;
class QComboBox;
class QLabel;
class QTimer;

namespace ts::gui {

class ElidedLabel;
class TimeAxisLink;

class MemoryGraph : public QWidget, public MetricTrack {
  Q_OBJECT
 public:
  enum class Stack { allocated, reserved };
  explicit MemoryGraph(PanelHub* hub, QWidget* parent = nullptr);

  /// As a track under the timeline's lanes (the Profile workspace): the plot area starts `left_px`
  /// from the left edge and ends at the right edge (the timeline's plot area), no x tick labels
  /// (the timeline's ruler says the time), a smaller minimum height.
  void setTrackMode(int left_px);
  /// Track mode: the plot area's left edge moves to `left_px` (the lanes' header width changed with
  /// the font: TimelineView::headerWidthChanged).
  void setTrackLeft(int left_px);

  void setStack(Stack s);
  Stack stack() const { return stack_; }
  /// Reads the rows the hub has now and redraws (the hub's signals do it, throttled to <= 5 Hz).
  void rebuild();

  // For tests and the lead's wiring.
  QCustomPlot* plot() const { return plot_; }
  /// The graph of a series by its sample name ("memory.allocated.weights", "device.memory.used") or
  /// "cupti.device_memory"; nullptr when absent.
  QCPGraph* graphFor(const QString& series) const;
  /// Peak marked on the graph: bytes and session ns (nullopt: nothing to mark).
  std::optional<double> peakBytes() const { return peak_bytes_; }
  qint64 peakTimeNs() const { return peak_t_; }
  QString peakSeries() const { return peak_series_; }
  /// The peak of the allocator's categories summed (memory.allocated.*, the network's tensors), the
  /// lessons' "peak allocated"; nullopt without those series. Differs from a device.memory.used
  /// peak, which is the card's use with the CUDA context and the libraries' workspaces.
  std::optional<double> allocatedPeakBytes() const { return allocated_peak_; }
  /// What the marked peak is called: "card used peak" (device.memory.used) or "allocated peak".
  QString peakName() const;
  /// The capacity line's value (bytes), nullopt without meta device.total_memory_bytes (or a cap).
  std::optional<double> capacityLineBytes() const;
  /// Whether the card-used (or CUPTI) line is over 3x the stack and the axis fits the stack instead
  /// (the line's peak then said in a label at the top right). Not where the shown range has the
  /// lines and no stack: the axis fits the lines there.
  bool linesOffScale() const { return lines_off_scale_; }
  /// The line is a simulated card's cap (run.config memory_limit_bytes), not the real card.
  bool capacitySimulated() const { return simulated_; }
  /// The capacity line's label ("card capacity 140.00 GiB", "simulated card 8.00 GiB (--memory-limit 8)").
  QString capacityLabel() const;
  const prof::analysis::LeakCheck& leak() const { return leak_; }
  /// The absent state's message ("" when there is device memory data to show).
  QString absentMessage() const;
  /// "" while the shown range draws some of the data; else what the plot says instead of being blank
  /// ("No memory sample in the shown range: the samples run from 567.3 ms to 618.4 ms ...").
  QString rangeMessage() const { return range_message_; }
  /// The header row's text: peaksText() and, red, "possible leak" where the allocated total grows.
  QString statusText() const;
  /// The peaks the header row says, plain text: the card's use with its share, the allocator's, a
  /// simulated card's reserved share ("" without data).
  QString peaksText() const;
  /// The label that shows peaksText() (wrapped on up to two lines, then cut) and the track's title
  /// (track mode; nullptr before).
  QLabel* statusLabel() const;
  QLabel* titleLabel() const { return track_title_; }

  // MetricTrack (track mode): the header row, a scale of three labels and the legend under it.
  int preferredTrackHeight() const override;
  int plotMinimumHeight() const override;
  int foldedHeight() const override;
  void setPlotFolded(bool folded) override;
  bool plotFolded() const override { return folded_; }
  /// Whether the legend's row is in the plot (track mode: where the plot holds it).
  bool legendShown() const { return legend_shown_; }

 protected:
  void showEvent(QShowEvent* e) override;
  void changeEvent(QEvent* e) override;

 private:
  void scheduleRebuild();
  void setupGraphs();
  void fillStack();
  void fillLines();
  /// The allocator's memory.allocated.* categories summed at each sample (empty without them).
  std::vector<prof::analysis::SeriesPoint> allocatedTotal() const;
  void markPeak(const std::vector<prof::analysis::SeriesPoint>& allocated);
  void updateCapacity(double data_max);
  void updateLeak(const std::vector<prof::analysis::SeriesPoint>& allocated);
  /// Track mode: the legend's row only where the plot holds it under a scale of three labels (a
  /// short track keeps the scale; the plot's tooltip says how to see the legend).
  void fitLegend();
  /// Track mode: the plot's height for a scale of three labels and the legend's lines under it.
  int legendPlotHeight() const;
  /// Track mode: the plot's smallest height for a scale of three labels at the widget's font.
  void fitScale();
  /// Fits the y axis to the shown range: the stack, the card's line off scale above it, except where
  /// the range has lines and no stack (then the lines). `always`: also when that did not change.
  void scaleForRange(bool always);
  /// Says so in the plot when the shown range holds none of what the axis is fitted to (rangeMessage()).
  void sayRangeWithoutSamples();

  PanelHub* hub_;
  QCustomPlot* plot_;
  TimeAxisLink* link_;
  QComboBox* stack_box_;
  QCheckBox* show_capacity_;
  ElidedLabel* status_;  // peaksText(), on up to two lines
  QLabel* leak_flag_;    // "possible leak", beside it
  QLabel* track_title_ = nullptr;  // track mode: "Memory" over the lanes' header column
  QTimer* throttle_;
  Stack stack_ = Stack::allocated;
  bool track_mode_ = false;
  bool legend_shown_ = true;   // the legend's row is in the plot's layout
  bool folded_ = false;        // track mode: the header row alone (setPlotFolded)
  int preferred_px_ = 0;       // track mode: preferredTrackHeight() as last told (updateGeometry)
  int scale_px_ = 0;           // track mode: the plot's height for its scale alone (px)
  /// Track mode: the plot height the legend was found to need as laid out (it was squeezed, its rows
  /// overlapping, at that height less what it lacked); 0: none seen (reset with the scale: font,
  /// left edge). The legend shows, and the preferred height asks, for at least this.
  int legend_needs_px_ = 0;
  int legend_needs_width_ = 0;  // the plot's width legend_needs_px_ was found at (its columns follow the width)
  int left_px_ = 0;            // track mode: the plot area's left edge (the lanes' header width)
  bool hidden_dirty_ = false;  // rows came while hidden
  prof::analysis::SeriesSet series_;
  std::int64_t hold_to_ns_ = 0;  // session ns the last samples' values are drawn to (rebuild)
  std::size_t memory_rows_ = 0;
  prof::analysis::CuptiMemory cupti_;
  std::vector<QCPGraph*> stack_graphs_;  // one per category, cumulative
  QCPGraph *other_total_, *used_, *cupti_graph_, *peak_graph_;
  QCPItemStraightLine* capacity_line_;
  QCPItemText *capacity_label_, *peak_label_, *leak_label_, *absent_, *off_scale_label_;
  bool lines_off_scale_ = false;       // in the shown range (scaleForRange)
  bool off_scale_in_session_ = false;  // the lines' peak over 3x the stack's, over the whole session
  double stack_max_ = 0, line_max_ = 0;  // the stack's and the lines' highest values (bytes)
  std::optional<double> capacity_;
  bool simulated_ = false;               // capacity_ is a simulated card's cap
  std::optional<double> reserved_peak_;  // the allocator's reserved total at its peak (simulated card)
  std::optional<double> peak_bytes_;
  std::optional<double> allocated_peak_;
  qint64 peak_t_ = 0;
  QString peak_series_;
  prof::analysis::LeakCheck leak_;
  bool has_data_ = false;
  /// Session s from the first sample to the last (any: there is one).
  struct KeySpan {
    double lo = 0, hi = 0;
    bool any = false;
  };
  KeySpan stack_keys_, line_keys_;  // the stack's (and the other total's), the lines'
  QString range_message_;
};

}  // namespace ts::gui
