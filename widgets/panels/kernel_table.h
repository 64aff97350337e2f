// The kernel table: every kernel name of the run with its calls, total / mean / min / max
// time, share of the kernel time, mean theoretical occupancy and whether it runs on tensor cores
// (profiling/analysis/kernel_stats.h: kernel_groups). Sortable by any column (numerically),
// filterable by name, exportable as CSV; selecting a row highlights that kernel's instances on the
// timeline (PanelHub::setHighlight). Refreshes from the PanelHub at most ~2 Hz while a run is live.
#pragma once
#include <QAbstractTableModel>
#include <QHash>
#include <QSortFilterProxyModel>
#include <QWidget>
#include <vector>

#include "profiling/analysis/kernel_stats.h"
#include "widgets/panels/panel_hub.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace ts::gui {

class ThrottledRefresh;

/// A kernel name as the table shows it: without the leading "void " and the argument list
/// ("void cutlass::Kernel2<sgemm_128x32>(Params)" -> "cutlass::Kernel2<sgemm_128x32>").
QString display_kernel_name(const QString& full);

/// kernel_groups as a table. DisplayRole: formatted text (names shortened by display_kernel_name);
/// kSortRole: the number (names: the full demangled name, also what the filter matches);
/// kExportRole: the raw value for CSV (full names, ns, fractions 0..1, "" for an unknown occupancy).
class KernelTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    NameColumn, CallsColumn, TotalColumn, MeanColumn, MinColumn, MaxColumn, ShareColumn, OccupancyColumn,
    TensorCoresColumn, ColumnCount
  };
  explicit KernelTableModel(QObject* parent = nullptr);

  /// Replaces the rows. When every current kernel name is still present (a live run only adds),
  /// rows are updated in place and new names appended, so selection and scroll position stay;
  /// otherwise the model resets.
  void setGroups(std::vector<prof::analysis::KernelGroup> groups);
  void clear();
  const std::vector<prof::analysis::KernelGroup>& groups() const { return rows_; }
  /// Row of a kernel name, -1 if absent.
  int rowOf(const QString& name) const;
  std::int64_t totalKernelNs() const { return total_ns_; }
  std::int64_t totalCalls() const { return total_calls_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  QVariant value(const prof::analysis::KernelGroup& g, int column, int role) const;
  std::vector<prof::analysis::KernelGroup> rows_;
  QHash<QString, int> row_of_;
  std::int64_t total_ns_ = 0, total_calls_ = 0;
};

/// The panel: a name filter, "visible time range only", CSV export, the sorted table and a summary
/// line. Give it the window's PanelHub.
class KernelTable : public QWidget {
  Q_OBJECT
 public:
  explicit KernelTable(PanelHub* hub, QWidget* parent = nullptr);

  KernelTableModel* model() const { return model_; }
  QSortFilterProxyModel* proxy() const { return proxy_; }
  QTableView* view() const { return view_; }
  QLineEdit* filterEdit() const { return filter_; }
  QCheckBox* visibleRangeOnlyBox() const { return range_only_; }
  QLabel* summaryLabel() const { return summary_; }
  ThrottledRefresh* refresher() const { return refresh_; }

  /// Case-insensitive substring filter on the kernel name.
  void setNameFilter(const QString& text);
  /// Only kernels starting in the hub's visible time range (when it has one).
  void setVisibleRangeOnly(bool on);
  /// Selects (and so highlights) the row of `name`; false when it is not shown.
  bool selectKernel(const QString& name);
  /// The shown rows (filtered, in the shown order) as CSV (table_csv).
  QString csv() const;
  bool exportCsv(const QString& path, QString* error) const;
  /// Asks for a file and writes the CSV; errors go to a message box.
  void exportCsvInteractive();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void onSelection();
  /// The name column takes the width the numeric columns leave (at least kMinNameWidth).
  void fitNameColumn();
  void applyGroups(std::vector<prof::analysis::KernelGroup> groups);
  void updateSummary();

  PanelHub* hub_;
  KernelTableModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* view_;
  QLineEdit* filter_;
  QCheckBox* range_only_;
  QPushButton* export_;
  QLabel* summary_;
  ThrottledRefresh* refresh_;
  QString selected_;  // kernel name of the selected row ("" none)
  bool restoring_ = false;
};

}  // namespace ts::gui
