// The layer time table: per layer of the user's model, the host and GPU kernel time of
// its forward and backward passes, its share of the step, and the memory it holds (weights,
// gradients, optimizer state, activations: computed from the model spec, not measured), from
// profiling/analysis/layer_stats.h. Refreshes from the PanelHub at most ~2 Hz while a run is live.
// (Not the model builder's LayerTableModel, which edits a spec.)
#pragma once
#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QWidget>

#include "profiling/analysis/layer_stats.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/panels/stats_table_util.h"

class QCheckBox;
class QLabel;
class QPushButton;
class QTableView;

namespace ts::gui {

class ThrottledRefresh;

/// layer_stats as a table, one row per layer (spec order). DisplayRole: formatted text; kSortRole:
/// the number; kExportRole: the raw value (ns, fractions 0..1, bytes; "" where unknown).
class LayerTimeModel : public StatsTableModel {
  Q_OBJECT
 public:
  enum Column {
    LayerColumn, ForwardHostColumn, ForwardGpuColumn, BackwardHostColumn, BackwardGpuColumn, KernelsColumn,
    HostShareColumn, GpuShareColumn, EvalGpuColumn, ParametersColumn, WeightsColumn, GradientsColumn, OptimizerColumn,
    ActivationsColumn, ColumnCount
  };
  explicit LayerTimeModel(QObject* parent = nullptr);

  /// Replaces the report; rows update in place while the layers stay the same (a live run).
  void setReport(prof::analysis::LayerReport report);
  void clear();
  const prof::analysis::LayerReport& report() const { return report_; }
  /// "conv1 (Conv2d) + relu1": the spec's name and type and the layers fused into it; the host
  /// range label without a spec.
  static QString layerTitle(const prof::analysis::LayerStats& l);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  QVariant value(const prof::analysis::LayerStats& l, int column, int role) const;
  QString tooltip(const prof::analysis::LayerStats& l, int column) const;
  prof::analysis::LayerReport report_;
};

/// The panel: the table (sortable), "leave out the warm-up step", CSV export and a summary of what
/// is measured and what is computed from the spec.
class LayerTimeTable : public QWidget {
  Q_OBJECT
 public:
  explicit LayerTimeTable(PanelHub* hub, QWidget* parent = nullptr);

  LayerTimeModel* model() const { return model_; }
  QSortFilterProxyModel* proxy() const { return proxy_; }
  QTableView* view() const { return view_; }
  QCheckBox* skipWarmupBox() const { return skip_warmup_; }
  QLabel* summaryLabel() const { return summary_; }
  ThrottledRefresh* refresher() const { return refresh_; }

  /// Leave out the recording's first step (cuDNN's algorithm search, first-touch allocations: the
  /// same warm-up trainscope-run --analyze leaves out by default). On by default.
  void setSkipWarmup(bool on);
  QString csv() const;
  bool exportCsv(const QString& path, QString* error) const;
  void exportCsvInteractive();

 private:
  void apply(prof::analysis::LayerReport report);
  void updateSummary();

  PanelHub* hub_;
  LayerTimeModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* view_;
  QCheckBox* skip_warmup_;
  QPushButton* export_;
  QLabel* summary_;
  ThrottledRefresh* refresh_;
};

}  // namespace ts::gui
