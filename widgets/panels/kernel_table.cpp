// The kernel table: KernelTableModel over kernel_groups and the KernelTable panel around it.
#include "widgets/panels/kernel_table.h"
#include "widgets/panels/panel_plot.h"

#include <QAction>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <algorithm>

#include "widgets/panels/stats_table_util.h"

namespace ts::gui {

using prof::analysis::KernelGroup;

namespace {
constexpr StatsColumn kColumns[KernelTableModel::ColumnCount] = {
    {"Kernel", "name", "Demangled kernel name (CUPTI)"},
    {"Calls", "calls", "Launches of this kernel"},
    {"Total", "total_ns", "Sum of the launches' durations (CUPTI kernel records)"},
    {"Mean", "mean_ns", "Total / calls"},
    {"Min", "min_ns", "Shortest launch"},
    {"Max", "max_ns", "Longest launch"},
    {"% GPU\ntime", "share_of_kernel_time",
     "Total over the summed duration of every kernel shown (concurrent kernels each count in full)"},
    {"Theor.\noccupancy", "mean_theoretical_occupancy",
     "Theoretical occupancy from CUDA's occupancy calculator (block size, registers, shared memory), "
     "weighted by duration: an upper bound of what the launch configuration allows, not what ran. The "
     "Utilization track's \"est. achieved occupancy\" also counts grids too small to fill the SMs "
     "(docs/metrics.md); — when the device or the launch configuration is unknown"},
    {"Tensor\ncores", "tensor_cores", "The kernel name matches a tensor-core kernel pattern (docs/metrics.md)"},
};

QString short_name(const QString& name) { return name.size() <= 60 ? name : name.left(57) + QStringLiteral("…"); }

/// Minimum width of the name column (px) before the table scrolls sideways instead.
constexpr int kMinNameWidth = 240;
}  // namespace

QString display_kernel_name(const QString& full) {
  QString s = full.startsWith(QStringLiteral("void ")) ? full.mid(5) : full;
  if (!s.endsWith(QLatin1Char(')'))) return s;
  int depth = 0;
  for (int i = s.size() - 1; i > 0; --i) {
    if (s[i] == QLatin1Char(')')) ++depth;
    else if (s[i] == QLatin1Char('(') && --depth == 0) return s.left(i);
  }
  return s;
}

// ---- KernelTableModel ----------------------------------------------------------------------------

KernelTableModel::KernelTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelTableModel::setGroups(std::vector<KernelGroup> groups) {
  QHash<QString, int> names;
  for (int i = 0; i < static_cast<int>(groups.size()); ++i) names.insert(QString::fromStdString(groups[i].name), i);
  bool superset = !rows_.empty();
  for (auto it = row_of_.cbegin(); superset && it != row_of_.cend(); ++it) superset = names.contains(it.key());
  total_ns_ = prof::analysis::total_kernel_ns(groups);
  total_calls_ = 0;
  for (const auto& g : groups) total_calls_ += g.calls;
  if (!superset) {
    beginResetModel();
    rows_ = std::move(groups);
    row_of_.clear();
    for (int i = 0; i < static_cast<int>(rows_.size()); ++i) row_of_.insert(QString::fromStdString(rows_[i].name), i);
    endResetModel();
    return;
  }
  // In place: existing rows keep their row, new names are appended.
  std::vector<KernelGroup> added;
  for (auto& g : groups) {
    auto it = row_of_.constFind(QString::fromStdString(g.name));
    if (it != row_of_.cend()) rows_[static_cast<std::size_t>(*it)] = std::move(g);
    else added.push_back(std::move(g));
  }
  if (!rows_.empty()) emit dataChanged(index(0, 0), index(static_cast<int>(rows_.size()) - 1, ColumnCount - 1));
  if (added.empty()) return;
  const int first = static_cast<int>(rows_.size());
  beginInsertRows({}, first, first + static_cast<int>(added.size()) - 1);
  for (auto& g : added) {
    row_of_.insert(QString::fromStdString(g.name), static_cast<int>(rows_.size()));
    rows_.push_back(std::move(g));
  }
  endInsertRows();
}

void KernelTableModel::clear() { setGroups({}); }

int KernelTableModel::rowOf(const QString& name) const { return row_of_.value(name, -1); }

int KernelTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}
int KernelTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant KernelTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const KernelGroup& g = rows_[static_cast<std::size_t>(index.row())];
  if (role == Qt::TextAlignmentRole) return stats_alignment(index.column() == NameColumn);
  if (role == Qt::ToolTipRole) {
    if (index.column() == NameColumn)
      return QStringLiteral("%1\n%2 calls, %3 total, mean %4").arg(QString::fromStdString(g.name)).arg(g.calls)
          .arg(format_ns(static_cast<double>(g.total_ns)), format_ns(g.mean_ns));
    if (index.column() == OccupancyColumn && !g.mean_occupancy)
      return QStringLiteral("Unknown: no CUDA device properties in the session, or no launch configuration");
    return QString::fromUtf8(kColumns[index.column()].tip);
  }
  return value(g, index.column(), role);
}

QVariant KernelTableModel::value(const KernelGroup& g, int column, int role) const {
  const bool shown = role == Qt::DisplayRole, sort = role == kSortRole, raw = role == kExportRole;
  if (!shown && !sort && !raw) return {};
  switch (column) {
    case NameColumn: return shown ? display_kernel_name(QString::fromStdString(g.name)) : QString::fromStdString(g.name);
    case CallsColumn: return shown ? QVariant(QString::number(g.calls)) : QVariant(qlonglong{g.calls});
    case TotalColumn: return shown ? QVariant(format_ns(static_cast<double>(g.total_ns))) : QVariant(qlonglong{g.total_ns});
    case MeanColumn: return shown ? QVariant(format_ns(g.mean_ns)) : QVariant(g.mean_ns);
    case MinColumn: return shown ? QVariant(format_ns(static_cast<double>(g.min_ns))) : QVariant(qlonglong{g.min_ns});
    case MaxColumn: return shown ? QVariant(format_ns(static_cast<double>(g.max_ns))) : QVariant(qlonglong{g.max_ns});
    case ShareColumn: return shown ? QVariant(format_fraction(g.share_of_gpu_time)) : QVariant(g.share_of_gpu_time);
    case OccupancyColumn:
      if (shown) return g.mean_occupancy ? format_fraction(*g.mean_occupancy) : QStringLiteral("—");
      if (sort) return g.mean_occupancy ? *g.mean_occupancy : -1.0;
      return g.mean_occupancy ? QVariant(*g.mean_occupancy) : QVariant(QString());
    case TensorCoresColumn:
      if (shown) return g.tensor_cores ? QStringLiteral("yes") : QStringLiteral("no");
      if (sort) return g.tensor_cores ? 1 : 0;
      return g.tensor_cores ? QStringLiteral("true") : QStringLiteral("false");
    default: return {};
  }
}

QVariant KernelTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  return stats_header(kColumns, ColumnCount, section, orientation, role);
}

// ---- KernelTable -----------------------------------------------------------------------------------

KernelTable::KernelTable(PanelHub* hub, QWidget* parent)
    : QWidget(parent), hub_(hub), model_(new KernelTableModel(this)), proxy_(new QSortFilterProxyModel(this)) {
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Filter by kernel name"));
  filter_->setClearButtonEnabled(true);
  range_only_ = new QCheckBox(tr("Visible time range only"), this);
  range_only_->setToolTip(tr("Only kernels that start inside the timeline's visible range"));
  export_ = new QPushButton(tr("Export CSV…"), this);
  auto* top = new QHBoxLayout;
  top->addWidget(filter_, 1);
  top->addWidget(range_only_);
  top->addWidget(export_);

  proxy_->setSourceModel(model_);
  proxy_->setSortRole(kSortRole);
  proxy_->setFilterKeyColumn(KernelTableModel::NameColumn);
  proxy_->setFilterRole(kSortRole);  // the full demangled name
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  view_ = make_stats_view(proxy_, KernelTableModel::TotalColumn, this);
  auto* header = view_->horizontalHeader();
  header->setSectionResizeMode(KernelTableModel::NameColumn, QHeaderView::Interactive);
  header->setStretchLastSection(false);
  header->setMinimumSectionSize(50);
  view_->viewport()->installEventFilter(this);  // its size is final when it gets the event
  auto* export_action = new QAction(tr("Export CSV…"), view_);
  connect(export_action, &QAction::triggered, this, &KernelTable::exportCsvInteractive);
  view_->addAction(export_action);
  view_->setContextMenuPolicy(Qt::ActionsContextMenu);

  summary_ = lay_out_stats_panel(this, top, view_);

  refresh_ = new ThrottledRefresh(hub_, [this]() -> ThrottledRefresh::Work {
    prof::analysis::KernelStatsOptions o;
    const TimeSpan r = hub_->visibleRange();
    if (range_only_->isChecked() && r.end > r.start) o.from_ns = r.start, o.to_ns = r.end;
    return [this, o](const prof::EventStore& store, const prof::StoreCounts& counts) mutable -> std::function<void()> {
      o.limit = &counts;
      auto groups = prof::analysis::kernel_groups(store, o);
      return [this, groups = std::move(groups)]() mutable { applyGroups(std::move(groups)); };
    };
  }, this);

  connect(filter_, &QLineEdit::textChanged, this, &KernelTable::setNameFilter);
  connect(range_only_, &QCheckBox::toggled, this, [this] { refresh_->invalidate(); });
  connect(export_, &QPushButton::clicked, this, &KernelTable::exportCsvInteractive);
  connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &KernelTable::onSelection);
  connect(hub_, &PanelHub::visibleRangeChanged, this, [this] {
    if (range_only_->isChecked()) refresh_->invalidate();
  });
  connect(hub_, &PanelHub::storeChanged, this, [this] {
    selected_.clear();
    model_->clear();
    updateSummary();
  });
  connect(hub_, &PanelHub::liveChanged, this, [this] { updateSummary(); });
  if (hub_->store()) refresh_->refreshNow();
  updateSummary();
}

bool KernelTable::eventFilter(QObject* watched, QEvent* event) {
  if (watched == view_->viewport() && event->type() == QEvent::Resize) fitNameColumn();
  return QWidget::eventFilter(watched, event);
}

void KernelTable::fitNameColumn() {
  // What ResizeToContents gives the other columns (their sizes may not be laid out yet).
  const QHeaderView* header = view_->horizontalHeader();
  int others = 0;
  for (int c = 0; c < KernelTableModel::ColumnCount; ++c)
    if (c != KernelTableModel::NameColumn)
      others += std::max({static_cast<const QAbstractItemView*>(view_)->sizeHintForColumn(c), header->sectionSizeHint(c), header->minimumSectionSize()});
  const int avail = view_->viewport()->width() - others;
  view_->setColumnWidth(KernelTableModel::NameColumn, std::max(kMinNameWidth, avail));
}

void KernelTable::setNameFilter(const QString& text) {
  if (filter_->text() != text) filter_->setText(text);  // comes back here through textChanged
  proxy_->setFilterFixedString(text);
  updateSummary();
}

void KernelTable::setVisibleRangeOnly(bool on) { range_only_->setChecked(on); }

bool KernelTable::selectKernel(const QString& name) {
  const int row = model_->rowOf(name);
  const QModelIndex i = row >= 0 ? proxy_->mapFromSource(model_->index(row, 0)) : QModelIndex();
  if (!i.isValid()) return false;
  view_->selectRow(i.row());
  view_->scrollTo(i);
  return true;
}

QString KernelTable::csv() const { return table_csv(*proxy_); }

bool KernelTable::exportCsv(const QString& path, QString* error) const { return write_table_csv(*proxy_, path, error); }

void KernelTable::exportCsvInteractive() {
  export_csv_interactive(this, *proxy_, tr("Export kernel table"), QStringLiteral("kernels.csv"));
}

void KernelTable::onSelection() {
  const QModelIndexList rows = view_->selectionModel()->selectedRows();
  if (rows.isEmpty()) {
    if (!restoring_ && !selected_.isEmpty() && hub_->highlight().kernel_name == selected_) hub_->clearHighlight();
    if (!restoring_) selected_.clear();
    return;
  }
  const int row = proxy_->mapToSource(rows.front()).row();
  if (row < 0 || row >= model_->rowCount()) return;
  const QString name = QString::fromStdString(model_->groups()[static_cast<std::size_t>(row)].name);
  if (restoring_ && name == selected_) return;
  selected_ = name;
  hub_->setHighlight({QStringLiteral("kernel: ") + short_name(name), {}, name});
}

void KernelTable::applyGroups(std::vector<KernelGroup> groups) {
  restoring_ = true;
  model_->setGroups(std::move(groups));
  fitNameColumn();
  if (!selected_.isEmpty() && view_->selectionModel()->selectedRows().isEmpty()) selectKernel(selected_);
  restoring_ = false;
  updateSummary();
}

void KernelTable::updateSummary() {
  const auto store = hub_->store();
  if (!store) {
    summary_->setText(tr("No events: start a GPU run or open a session."));
    return;
  }
  if (model_->rowCount() == 0) {
    const auto meta = store->meta();
    QString why = gpu_absence_reason(meta);
    if (range_only_->isChecked()) why = tr("none in the visible time range");
    summary_->setText(why.isEmpty() ? tr("No kernels recorded yet.") : tr("No kernels: %1").arg(why));
    return;
  }
  QString text = tr("%1 kernel launches · %2 kernel names · %3 of kernel time")
                     .arg(model_->totalCalls())
                     .arg(model_->rowCount())
                     .arg(format_ns(static_cast<double>(model_->totalKernelNs())));
  if (proxy_->rowCount() != model_->rowCount()) text += tr(" · %1 shown").arg(proxy_->rowCount());
  if (range_only_->isChecked()) text += tr(" · visible range only");
  if (hub_->isLive()) text += tr(" · live");
  summary_->setText(text);
}

}  // namespace ts::gui
