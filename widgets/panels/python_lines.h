// The Python tab: the stepping thread's Python lines (the Python insight's stack samples,
// profiling/analysis/python_lines.h) in the timeline's selected range (Shift+drag), or in the
// analysed steps while nothing is selected — per line its function, samples, share of the range,
// share of the GPU's idle time and the library frame it was in; a row's tooltip is the line's most
// frequent stack, outermost first. A session without samples says why in one line instead of an
// empty table. Refreshes from the PanelHub at most ~2 Hz while a run is live.
#pragma once
#include <QAbstractTableModel>
#include <QPointer>
#include <QSortFilterProxyModel>
#include <QWidget>
#include <optional>

#include "profiling/analysis/python_lines.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/panels/stats_table_util.h"

class QLabel;
class QTableView;

namespace ts::gui {

class ThrottledRefresh;
class TimelineView;

/// python_lines as a table, one row per line (most samples first). DisplayRole: formatted text;
/// kSortRole: the number; ToolTipRole: the line's most frequent stack.
class PythonLinesModel : public StatsTableModel {
  Q_OBJECT
 public:
  enum Column {
    LineColumn,
    FunctionColumn,
    SamplesColumn,
    RangeShareColumn,
    IdleShareColumn,
    InnermostColumn,
    ColumnCount
  };
  explicit PythonLinesModel(QObject* parent = nullptr);

  /// Replaces the rows (in place while the lines stay the same, as in a live run; else a reset).
  void setLines(prof::analysis::PythonLines lines);
  void clear();
  const prof::analysis::PythonLines& lines() const { return lines_; }
  /// The tooltip of a row: its most frequent stack, outermost first, this line marked.
  static QString stackText(const prof::analysis::PythonLine& l);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  QVariant value(const prof::analysis::PythonLine& l, int column, int role) const;
  prof::analysis::PythonLines lines_;
};

/// The panel: a header line (which range, its samples and their rate), the sorted table, or the
/// one line that says why there is nothing to show. `timeline` (may be null) gives the selected range.
class PythonLinesTable : public QWidget {
  Q_OBJECT
 public:
  explicit PythonLinesTable(PanelHub* hub, TimelineView* timeline = nullptr, QWidget* parent = nullptr);

  PythonLinesModel* model() const { return model_; }
  QSortFilterProxyModel* proxy() const { return proxy_; }
  QTableView* view() const { return view_; }
  QLabel* headerLabel() const { return header_; }
  /// The line shown instead of the table ("" while the table shows).
  QLabel* emptyLabel() const { return empty_; }
  ThrottledRefresh* refresher() const { return refresh_; }
  /// The range counted: a time selection, or none for the analysed steps (what the timeline's
  /// selection sets).
  void setRange(std::optional<TimeSpan> range);
  std::optional<TimeSpan> range() const { return range_; }

  /// Why a session has no Python samples; `own_run`: one of TrainScope's own training runs.
  static QString noSamplesText(bool own_run = false);

 private:
  void apply(prof::analysis::PythonLines lines);
  void updateHeader();

  PanelHub* hub_;
  QPointer<TimelineView> timeline_;
  PythonLinesModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* view_;
  QLabel* header_;
  QLabel* empty_;
  ThrottledRefresh* refresh_;
  std::optional<TimeSpan> range_;
};

}  // namespace ts::gui
