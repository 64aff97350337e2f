// The compare view's kernel diff (compare_view.h): KernelDiffModel (one prof::compare::KernelDiff as
// a table: a row per kernel name), KernelDiffFilter (name substring and change class, numeric
// sorting through KernelDiffModel::SortRole) and KernelDiffPanel (which diff, the filters, the
// counts and the noise threshold, the table). Times: µs per call, µs per analysed step, ms in total;
// classes and threshold: profiling/compare/kernel_diff.h.
#pragma once
#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QWidget>
#include <optional>

#include "profiling/compare/compare.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace ts::gui {

/// A kernel's name as the table shows it: without a leading "void " and the parameter list (the
/// template arguments stay: they tell instantiations apart). The full name is the tooltip.
QString short_kernel_name(const std::string& demangled);

class KernelDiffModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    kName, kChange, kTotalChange, kCallsA, kCallsB, kMeanA, kMeanB, kDeltaMean, kDeltaMeanPct,
    kPerStepA, kPerStepB, kDeltaPerStep, kTotalA, kTotalB, kColumnCount
  };
  /// The numeric value of a cell (double), what KernelDiffFilter sorts by: times in the column's
  /// unit, Δ % as a fraction (+inf for an added kernel), the change class as kernel_change order.
  static constexpr int SortRole = Qt::UserRole + 1;

  explicit KernelDiffModel(QObject* parent = nullptr);
  /// Shows `diff`; letter_a / letter_b name the sessions in the headers ("calls A", "calls B").
  void setDiff(const prof::compare::KernelDiff& diff, const QString& letter_a, const QString& letter_b);
  const prof::compare::KernelDiffRow& row(int r) const { return diff_.rows[static_cast<std::size_t>(r)]; }
  const prof::compare::KernelDiff& diff() const { return diff_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  QVariant display(const prof::compare::KernelDiffRow& r, int column) const;
  QVariant sortValue(const prof::compare::KernelDiffRow& r, int column) const;
  prof::compare::KernelDiff diff_;
  QString a_ = "A", b_ = "B";
};

/// Rows whose name contains the text (case-insensitive) and whose per-call change is the chosen
/// class (nullopt: any); sorts by KernelDiffModel::SortRole.
class KernelDiffFilter : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit KernelDiffFilter(QObject* parent = nullptr);
  void setNameFilter(const QString& text);
  void setChangeFilter(std::optional<prof::compare::KernelChange> change);

 protected:
  bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;

 private:
  QString name_;
  std::optional<prof::compare::KernelChange> change_;
};

class KernelDiffPanel : public QWidget {
  Q_OBJECT
 public:
  explicit KernelDiffPanel(QWidget* parent = nullptr);
  /// Shows the comparison's kernel diffs (one per session after A); the first is selected.
  void setComparison(const prof::compare::Comparison& c);
  /// Shows kernel_diffs[index] (what the "diff" combo box does).
  void showDiff(int index);

  KernelDiffModel* model() const { return model_; }
  KernelDiffFilter* proxy() const { return proxy_; }
  QTableView* table() const { return table_; }
  QComboBox* diffBox() const { return diff_box_; }
  QComboBox* changeBox() const { return change_box_; }
  QLineEdit* nameFilter() const { return name_; }
  /// Shows or hides a column (the header's context menu does it; "total ms" are hidden at first).
  void setColumnShown(int column, bool shown);
  /// "B against A: 0 faster, 2 slower, 0 added, 3 removed, 28 same …"
  QString summaryText() const;

 private:
  /// The number columns as wide as their header (with the sort arrow) or their widest value, no
  /// wider: the kernel name's column (stretched) takes the rest.
  void fitNumberColumns();

  KernelDiffModel* model_;
  KernelDiffFilter* proxy_;
  QTableView* table_;
  QComboBox* diff_box_;
  QComboBox* change_box_;
  QLineEdit* name_;
  QLabel* summary_;
  std::vector<prof::compare::KernelDiff> diffs_;
  QStringList letters_;
};

}  // namespace ts::gui
