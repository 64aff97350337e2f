// UtilizationPanel: what the GPU and the CPU threads did over session time (the Utilization dock),
// on the linked time axis. Rows:
//  - GPU (CUPTI, per time bucket): time-utilisation = union of kernels, copies and memsets / bucket
//    length; est. SM efficiency and est. achieved occupancy, kernel-time-weighted (docs/metrics.md;
//    analysis::bucket_gpu); NVML's sampled gpu.utilization and gpu.memory_utilization, labelled NVML.
//  - CPU %: the trainer thread (the thread of the step ranges) and the loader workers (summed; 100 %
//    = one core), from the cpu.percent.<name>.<tid> samples.
//  - H2D throughput: bytes/s of host-to-device memcpy records per bucket.
//  - Measured (CUPTI PM sampling, only where the session has its metric series; every legend says
//    "measured"): SM active, tensor active, warp occupancy and DRAM % of peak in one row, DRAM
//    read + write and PCIe rx/tx bytes/s in the next, beside the estimates, never instead of them.
//    Without them the status line says why (meta pm_sampling); with them, the samples lost. Drawn
//    as the mean of each bucket (the GPU row's buckets), from prefix sums and block maxima kept as
//    samples arrive (prof::analysis::SeriesBuckets): a refresh costs O(new samples + buckets), not
//    O(samples) (3.6 M per series an hour at 1 kHz).
//  - NVML: SM clock (MHz) and power (W), a row each, only where NVML was sampled.
//  - GPU health: NVML PCIe RX/TX bytes/s in the H2D row; the SM clock's maximum and red
//    marks where the clock-event reasons held the clock down (throttling) in the clock row.
// Buckets cover the shown range (about 200 of 1/2/5 x 10^k ns) and are recomputed off the GUI
// thread when it moves or the store grows (<= 2 Hz live). Absent series stay absent; a store
// without GPU activity says so instead of drawing zeros.
#pragma once
#include <QString>
#include <QStringList>
#include <QWidget>
#include <map>
#include <optional>
#include <vector>

#include "profiling/analysis/series.h"
#include "profiling/analysis/series_buckets.h"
#include "widgets/common/header_text.h"
#include "widgets/panels/metric_track.h"
#include "widgets/panels/panel_hub.h"

class QCustomPlot;
class QCPAxisRect;
class QCPGraph;
class QCPItemText;
class QCPLegend;
class QCheckBox;
class QHBoxLayout;
class QLabel;
class QTimer;
class QVBoxLayout;

namespace ts::gui {

class TimeAxisLink;

class UtilizationPanel : public QWidget, public MetricTrack {
  Q_OBJECT
 public:
  explicit UtilizationPanel(PanelHub* hub, QWidget* parent = nullptr);

  /// As a track under the timeline's lanes (the Profile workspace): every row's plot area starts
  /// `left_px` from the left edge and ends at the right edge (the timeline's plot area); only the
  /// last row has x tick labels; smaller minimum height.
  void setTrackMode(int left_px);
  /// Track mode: the plot area's left edge moves to `left_px` (the lanes' header width changed with
  /// the font: TimelineView::headerWidthChanged).
  void setTrackLeft(int left_px);

  /// Target bucket count over the shown range (default 200).
  void setTargetBuckets(int n) { target_buckets_ = n; }
  /// Re-reads the samples and asks for new buckets (the hub's signals do it).
  void rebuild();

  QCustomPlot* plot() const { return plot_; }
  /// Graphs by key: "gpu.busy", "gpu.sm_efficiency", "gpu.achieved_occupancy", "cpu.trainer",
  /// "cpu.loaders", "h2d", and the NVML series by sample name ("gpu.utilization", "gpu.power", ...).
  /// nullptr when absent (no data).
  QCPGraph* graphFor(const QString& key) const;
  /// The latest buckets (empty before the first result).
  const prof::analysis::GpuBuckets& buckets() const { return buckets_; }
  /// "" when GPU activity is shown; else the message shown in the GPU row.
  QString gpuAbsentMessage() const { return gpu_message_; }
  /// "No CPU samples" when the session has none for the CPU row; else "".
  QString cpuAbsentMessage() const { return cpu_said_ ? QStringLiteral("No CPU samples") : QString(); }
  /// "" when measured metrics are shown; else why there are none ("Measured GPU metrics: none —
  /// counters refused: …"), the line the status shows.
  QString measuredAbsentMessage() const { return measured_message_; }
  /// The rows in the layout, top to bottom, by their axis titles ("GPU %", "CPU %", "H2D", ...).
  QStringList shownRows() const;
  /// Whether the measured rows are in the layout (not folded away in a short track).
  bool measuredRowsShown() const;
  /// How many of the two measured rows are in the layout (the first, SM active, stays where a tab
  /// leaves room for one).
  int measuredRowsShownCount() const;
  /// A measured graph's buckets as last drawn: bucket i covers [from + i * bucket_ns, + bucket_ns)
  /// (session ns); its mean is the graph's value there, its max the row's axis takes in.
  struct MeasuredBuckets {
    std::int64_t from = 0, bucket_ns = 0;
    std::vector<prof::analysis::SeriesBuckets::Bucket> buckets;
  };
  /// By graph key ("pm.sm_active", "pm.dram" ...); nullptr when the series is absent.
  const MeasuredBuckets* measuredBuckets(const QString& key) const;
  int completedJobs() const { return jobs_done_; }
  /// Per bucket of the GPU rows, whether a traced step covers it: a profile schedule's session only
  /// (empty otherwise); untraced buckets draw as gaps and stay out of the header's GPU busy.
  const std::vector<bool>& tracedBuckets() const { return traced_; }
  double lastJobMs() const { return last_job_ms_; }
  /// The header's line: GPU busy first (with what it is of), the bucket, then what was not recorded.
  QString statusText() const;
  /// As painted at the header's width: the line whole, else whole parts of it from the left, the
  /// last "GPU busy 81.3 %" alone (cut at a word, it lost its unit: "GPU busy 81.3…").
  QString shownStatusText() const;
  /// The "SM clock & power (NVML)" check box (shown where NVML sampled them; off in track mode).
  QCheckBox* nvmlRowsBox() const { return nvml_box_; }

  // MetricTrack (track mode): the header line, then the GPU row and the measured rows, which the
  // track's default height keeps beside the estimates; the CPU and H2D rows where there is room.
  int preferredTrackHeight() const override;
  /// Whether the session is a run on the CPU (meta device.kind "cpu").
  bool cpuRun() const;
  int partialTrackHeight() const override;
  int plotMinimumHeight() const override;
  int foldedHeight() const override;
  void setPlotFolded(bool folded) override;
  bool plotFolded() const override { return folded_; }

 protected:
  void showEvent(QShowEvent* e) override;
  void changeEvent(QEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;

 signals:
  void updated();

 private:
  struct Job {
    prof::analysis::GpuBuckets buckets;
    std::vector<bool> traced;  // traced_buckets() of `buckets`
    qint64 extent_lo = 0, extent_hi = 0;
    bool has_extent = false;
    double ms = 0;
  };
  void setupRects();
  QCPGraph* addGraph(QCPAxisRect* r, QCPLegend* legend, const QString& key, const QString& name, const QColor& c,
                     Qt::PenStyle style = Qt::SolidLine);
  void arrange();
  /// The GPU and CPU rows' "no data" messages, where their rows are in the plot.
  void showRowMessages();
  /// Track mode: as many rows (in trackRows()' order) as the track's height holds whole, each with its
  /// legend; the others fold out of the layout until the track is dragged taller.
  void fitRows();
  /// Track mode: the plot's smallest height, one row with its legend at the widget's font.
  void fitMinimum();
  /// Track mode: the rows in the order the track keeps them (GPU, measured where the session has them,
  /// CPU, H2D, the NVML rows where shown) with their legends; a CPU run keeps its CPU row first (its
  /// GPU row only says there is no GPU activity). Shown, the kept rows stand in arrange()'s order.
  void trackRows(QList<QCPLegend*>& legends, QList<QCPAxisRect*>& rects) const;
  /// Whether the H2D row is laid out: not on a CPU run, which has no copies (an empty row), unless it
  /// has something to draw there.
  bool h2dRow() const;
  /// Track mode: the height (px) row `rect` with `legend` takes whole: its legend's lines, a plot
  /// area of row_px_, the rect's margins (half a tick label each) and the spacing.
  int rowHeight(const QCPLegend* legend, const QCPAxisRect* rect) const;
  /// Track mode: the track's height (px) with its first `rows` rows whole (header line included).
  int trackHeight(int rows) const;
  /// The status line's text, and as its tooltip the whole of it (one line in track mode) with the
  /// measured metrics' reasons.
  void updateStatus();
  void requestBuckets();
  void startJob();
  void jobDone(quint64 gen, Job job);
  void fillBuckets();
  void fillSamples();
  void add_health_graphs();
  void add_measured_graphs();  // utilization_measured.cpp
  void fill_measured();  // takes in the new samples, then drawMeasured()
  void drawMeasured();   // the buckets over the shown range (O(buckets))
  const std::vector<prof::analysis::SeriesPoint>* measured_points(const std::string& key) const;
  QString measured_status() const;
  /// statusText()'s parts, in their order.
  QStringList statusParts() const;
  /// Track mode: the header's line beside the title and the NVML box where its shortest form fits
  /// there, else on a row of its own under them (Side by side at 1280 px: "GPU…").
  void placeStatus();
  double fill_health();  // returns the SM clock maximum sampled (MHz; 0 when none)

  PanelHub* hub_;
  QCustomPlot* plot_;
  class SqueezeLabel* status_;  // wraps in the dock; one line in track mode, its shorter forms where squeezed
  QString status_tip_;  // the measured metrics' reasons (fill_measured)
  QLabel* track_title_ = nullptr;  // track mode: "Utilization" over the lanes' header column
  QCheckBox* nvml_box_;
  QHBoxLayout* header_;  // [title] line, NVML box
  QVBoxLayout* head_;    // header_, and the line under it where it does not fit beside
  std::optional<HeaderText> status_place_;
  TimeAxisLink* link_ = nullptr;
  QCPAxisRect *gpu_, *meas_, *meas_bw_, *cpu_, *h2d_, *nvml_, *power_;
  QCPLegend *gpu_legend_, *meas_legend_, *meas_bw_legend_, *cpu_legend_, *h2d_legend_, *nvml_legend_, *power_legend_;
  QCPItemText *gpu_absent_, *cpu_absent_;
  bool gpu_said_ = false, cpu_said_ = false;  // the rows' messages wanted (no data), shown with their rows
  std::map<QString, QCPGraph*> graphs_;
  std::map<QCPLegend*, std::vector<QCPGraph*>> legend_graphs_;  // creation order
  QTimer *throttle_, *range_debounce_;
  prof::analysis::SeriesSet series_;
  prof::analysis::SeriesSet metrics_{prof::analysis::SeriesSet::Tables::pm_metrics};  // pm.* series
  QString measured_message_;
  std::map<std::string, prof::analysis::SeriesBuckets> measured_index_;  // by graph key
  prof::analysis::SeriesSum dram_sum_;                                   // pm.dram_read + pm.dram_write
  std::map<QString, MeasuredBuckets> measured_buckets_;
  prof::analysis::GpuBuckets buckets_;
  std::vector<bool> traced_;  // tracedBuckets()
  QString gpu_message_;
  int target_buckets_ = 200;
  double pcie_max_ = 0, h2d_bucket_max_ = 0;  // bytes/s: NVML PCIe throughput, CUPTI H2D buckets
  quint64 generation_ = 0;
  bool running_ = false, pending_ = false;
  int jobs_done_ = 0;
  double last_job_ms_ = 0;
  bool hidden_dirty_ = false;  // rows came while hidden during a live run
  unsigned legends_shown_ = 0;  // bit per row legend in the layout (arrange())
  int left_px_ = 0;  // track mode: the plot area's left edge
  int row_px_ = 24;  // track mode: a row's plot area at its smallest (fitMinimum(): two tick labels)
  int rows_fit_ = 99, rows_arranged_ = 99;  // rows a track holds whole (fitRows()), and arranged
  bool folded_ = false;  // track mode: the header line alone (setPlotFolded)
  int preferred_px_ = 0;  // track mode: preferredTrackHeight() as last told (updateGeometry)
  // cpuRun()'s answer for the store and meta version it was read at.
  mutable const void* cpu_run_store_ = nullptr;
  mutable std::uint64_t cpu_run_version_ = 0;
  mutable bool cpu_run_ = false;
  bool cpu_first_ = false;  // the rows were arranged with a CPU run's order (trackRows())
  bool nvml_shown_ = true, arranged_ = false, gpu_made_ = false, have_buckets_ = false, track_mode_ = false;
  std::uint32_t trainer_tid_ = 0;
  bool trainer_known_ = false;
};

}  // namespace ts::gui
