// What the kernel table and the layer time table share: the number formats of their cells, the
// item roles a QSortFilterProxyModel sorts by and a CSV export reads, CSV export of any table model
// (RFC 4180 quoting), and the throttled background refresh that recomputes a table from the
// PanelHub's store (at most ~2 Hz while a run is live; at once for an opened session).
#pragma once
#include <QAbstractItemModel>
#include <QAbstractTableModel>
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>
#include <functional>
#include <utility>

#include "widgets/panels/panel_hub.h"

class QLabel;
class QLayout;
class QTableView;
class QWidget;

namespace ts::gui {

/// The numeric value of a cell (qlonglong / double; a QString for text columns): what the proxy
/// models sort by, so "9 µs" sorts below "10 µs".
constexpr int kSortRole = Qt::UserRole + 1;
/// The raw value of a cell for CSV export (ns as integers, fractions 0..1, bytes); headerData with
/// this role gives the CSV column name ("total_ns").
constexpr int kExportRole = Qt::UserRole + 2;

/// "812 ns", "12.4 µs", "3.21 ms", "1.20 s" (three significant digits).
QString format_ns(double ns);
/// "896 B", "3.58 kB", "16.8 MB", "1.06 GB" (decimal units, three significant digits).
QString format_bytes_si(double bytes);
/// 0.1234 -> "12.3 %".
QString format_fraction(double fraction);

/// One CSV field: quoted (with inner quotes doubled) when it holds a comma, a quote, a line break
/// or leading/trailing spaces (RFC 4180).
QString csv_field(const QString& s);

/// One column of a statistics table: its header (may hold "\n"), its CSV name (nullptr: none, the
/// header is used) and its tooltip.
struct StatsColumn {
  const char* title;
  const char* csv;
  const char* tip;
};
/// The model of a statistics table whose rows a refresh replaces: in place while the rows stay the
/// rows they were (a live run: the view keeps its selection, sort and scroll), else with a reset.
class StatsTableModel : public QAbstractTableModel {
 public:
  using QAbstractTableModel::QAbstractTableModel;

 protected:
  /// current = next; `same_rows`: every row of `next` is the row it was in `current` (and there are
  /// some), so one dataChanged over every cell replaces a reset.
  template <class T>
  void replaceRows(T& current, T next, bool same_rows) {
    if (!same_rows) {
      beginResetModel();
      current = std::move(next);
      endResetModel();
      return;
    }
    current = std::move(next);
    emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
  }
};

/// headerData for a table of `count` such columns: the title (DisplayRole), the CSV name
/// (kExportRole) and the tooltip (ToolTipRole) of a horizontal section; invalid otherwise.
QVariant stats_header(const StatsColumn* columns, int count, int section, Qt::Orientation orientation, int role);
/// A cell's alignment in a statistics table: text columns left, numbers right.
QVariant stats_alignment(bool text);

/// Gives `view` a horizontal header whose sort arrow points the way the rows run: ▼ descending
/// (largest first), ▲ ascending. QHeaderView hands the style SortUp for a descending order (Qt's
/// convention) and Fusion draws SortUp as ▲: the Kernels table, largest total first, showed ▲.
/// Call it before the header is set up (it replaces the header).
void use_order_sort_arrow(class QTableView* view);
/// A statistics table's view over `model` as the panels show them: sortable (by `sort_column`,
/// descending), one selected row, alternating rows, no word wrap, names elided in the middle, rows
/// one line high, columns sized to their contents.
QTableView* make_stats_view(QAbstractItemModel* model, int sort_column, QWidget* parent);
/// The model's rows as CSV in the model's row order (a proxy: as shown, sorted and filtered): a
/// header line from headerData(kExportRole) (DisplayRole where absent), then each row's
/// data(kExportRole) (DisplayRole where absent). Lines end with "\r\n" (RFC 4180).
QString table_csv(const QAbstractItemModel& model);
/// Writes table_csv(model) to `path` (UTF-8). False with *error set ("cannot write FILE: reason").
bool write_table_csv(const QAbstractItemModel& model, const QString& path, QString* error);

/// Asks for a file (a save dialog titled `title`, `file_name` proposed) and writes table_csv(model)
/// to it; an error goes to a message box of that title.
void export_csv_interactive(QWidget* parent, const QAbstractItemModel& model, const QString& title,
                            const QString& file_name);
/// Lays `panel` out as the statistics panels are: the `top` row, `view` (stretching) and a summary
/// label under them (word-wrapped, selectable), which it returns.
QLabel* lay_out_stats_panel(QWidget* panel, QLayout* top, QTableView* view);

/// Recomputes a panel's table from the hub's store. An opened session (not live): at once on the
/// GUI thread when the hub grows. A live run: on a pool thread, at most once per interval (default
/// 500 ms, ~2 Hz), one job at a time; a grew during a job schedules one more run after it. Results
/// of jobs started before storeChanged() or invalidate() are dropped.
class ThrottledRefresh : public QObject {
  Q_OBJECT
 public:
  /// Work runs (on any thread) over the store, reading rows up to `counts`; it returns the closure
  /// that applies its result to the panel (called on the GUI thread).
  using Work = std::function<std::function<void()>(const prof::EventStore& store, const prof::StoreCounts& counts)>;
  /// Called on the GUI thread when a run starts: takes the panel's options by value into the Work.
  using Prepare = std::function<Work()>;
  ThrottledRefresh(PanelHub* hub, Prepare prepare, QObject* parent = nullptr);

  void setMinIntervalMs(int ms);
  int minIntervalMs() const { return interval_ms_; }
  /// Computes and applies now, on the GUI thread (drops a job in flight).
  void refreshNow();
  /// The panel's options changed: drop a job in flight and recompute (now when not live,
  /// throttled in the background when live).
  void invalidate();
  /// Background runs started so far (tests check the throttle).
  int backgroundRuns() const { return background_runs_; }

 signals:
  /// A result was applied.
  void applied();

 private:
  void onGrew();
  void request();
  void startJob();

  PanelHub* hub_;
  Prepare prepare_;
  int interval_ms_ = 500;
  quint64 generation_ = 0;
  bool running_ = false, pending_ = false;
  int background_runs_ = 0;
  QElapsedTimer since_start_;
  QTimer delay_;
};

}  // namespace ts::gui
