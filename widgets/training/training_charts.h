// The Training charts dock: training loss per step (raw and smoothed; a NaN or infinite loss is
// marked with a red line and a label, never dropped; an fp16 step skipped for inf/NaN gradients gets an
// orange marker and dotted line, and the current loss scale and skip count stay on the chart), test accuracy per epoch, images/s, and the
// epoch progress bar with ETA. Updates are appended as they arrive; the plots redraw at most
// 30 times per second from a timer.
#pragma once
#include <QWidget>
#include <vector>

#include "widgets/training/training_session.h"

class QCustomPlot;
class QCPItemText;
class QLabel;
class QProgressBar;
class QTimer;

namespace ts::gui {

class TrainingCharts : public QWidget {
  Q_OBJECT
 public:
  explicit TrainingCharts(QWidget* parent = nullptr);
  /// Clears the plots for a new run.
  void reset(const RunInfo& info);
  /// The charts as before any run: no points, the progress bar empty at "epoch –", "No run yet".
  void clear();
  /// clear(), saying "starting…" (a run was started and has not yet said its size).
  void starting();
  void addUpdate(const TrainingUpdate& u);
  void addEpoch(const EpochResult& e);
  void finish(const RunOutcome& outcome);
  /// EMA smoothing of the loss line (TensorBoard's: 0 = none, 0.99 = heavy); default 0.9.
  void setSmoothing(double s) { smoothing_ = s; }

  int lossPoints() const;
  int accuracyPoints() const;
  /// The throughput chart's value axis: the rate of each step (not Compare's training-time rate).
  static QString throughputAxisLabel();
  /// The throughput chart's tooltip: what "per step" counts and how Compare's figure differs.
  static QString throughputToolTip();
  QCustomPlot* throughputPlot() const { return throughput_; }
  int throughputPoints() const;
  /// Points of the throughput's smoothed line (one per per-step point).
  int smoothedThroughputPoints() const;
  const std::vector<std::int64_t>& nonFiniteSteps() const { return non_finite_; }
  double lastLoss() const { return last_loss_; }
  /// fp16 AMP: the skipped (overflowed) optimizer steps, and the latest loss scale (0 = none seen).
  const std::vector<std::int64_t>& skippedSteps() const { return skipped_; }
  float lossScale() const { return loss_scale_; }
  /// The loss chart's AMP line ("fp16 · loss scale 32768 · 2 skipped steps"; "" without fp16).
  QString ampText() const;
  /// The line beside the progress bar, whole ("131 img/s (epoch mean) · loss 2.287 · ETA 7 s",
  /// "done in 10 s · test accuracy 13.80 %"), and as painted at its width: where it is squeezed
  /// (Side by side at classroom mode's font) a shorter form that keeps what the charts do not show
  /// (the ETA, the test accuracy), never one cut inside a figure ("done in 1 s · test…").
  QString progressText() const;
  QString shownProgressText() const;
  /// The epoch progress bar's value (steps done in the epoch).
  int progressValue() const;
  /// The epoch progress bar's text ("epoch 2/5: step %v/%m").
  QString progressFormat() const;
  QCustomPlot* lossPlot() const { return loss_; }

 private:
  void markNonFinite(std::int64_t step, float loss);
  void markSkipped(std::int64_t step, float loss);
  void updateAmpText();
  void replotIfDirty();

  QCustomPlot *loss_, *accuracy_, *throughput_;
  QProgressBar* progress_;
  class SqueezeLabel* eta_;
  QTimer* timer_;
  bool dirty_ = false;
  double smoothing_ = 0.9;
  double ema_ = 0, ema_weight_ = 0;
  double rate_ema_ = 0, rate_ema_weight_ = 0;  // the throughput's smoothed line
  double last_loss_ = 0;
  std::int64_t steps_per_epoch_ = 0, total_steps_ = 0;
  std::vector<std::int64_t> non_finite_, skipped_;
  float loss_scale_ = 0;
  std::int64_t first_step_ = -1;  // first global step of this run (> 1 when resumed)
  QCPItemText* amp_text_ = nullptr;  // bottom right of the loss chart; recreated by clear()
};

}  // namespace ts::gui
