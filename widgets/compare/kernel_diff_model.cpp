// Kernel diff model, filter and panel (see kernel_diff_model.h).
#include "widgets/compare/kernel_diff_model.h"

#include "widgets/panels/stats_table_util.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "widgets/compare/compare_charts.h"
#include "widgets/compare/compare_view.h"

namespace ts::gui {

namespace pc = prof::compare;

namespace {

const QString kAbsent = QStringLiteral("–");

QString signed_number(double v, int decimals) {
  return (v > 0 ? QStringLiteral("+") : v < 0 ? QStringLiteral("−") : QString()) + QString::number(std::abs(v), 'f', decimals);
}

QColor change_color(pc::KernelChange c) {
  switch (c) {
    case pc::KernelChange::slower: return okabe_ito_color(3);  // vermillion
    case pc::KernelChange::faster: return okabe_ito_color(0);  // blue
    case pc::KernelChange::added: return okabe_ito_color(4);   // bluish green
    case pc::KernelChange::removed: return QColor(0x66, 0x66, 0x66);
    case pc::KernelChange::changed: return okabe_ito_color(5);  // reddish purple: other work, not faster/slower
    default: return {};
  }
}

}  // namespace

QString short_kernel_name(const std::string& demangled) {
  QString s = QString::fromStdString(demangled);
  if (s.startsWith("void ")) s.remove(0, 5);
  // The parameter list: the last top-level "(...)" that ends the name.
  if (s.endsWith(')')) {
    int depth = 0;
    for (int i = s.size() - 1; i >= 0; --i) {
      if (s[i] == ')') ++depth;
      else if (s[i] == '(' && --depth == 0) {
        if (i > 0) s.truncate(i);
        break;
      }
    }
  }
  return s;
}

KernelDiffModel::KernelDiffModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelDiffModel::setDiff(const pc::KernelDiff& diff, const QString& letter_a, const QString& letter_b) {
  beginResetModel();
  diff_ = diff;
  a_ = letter_a, b_ = letter_b;
  endResetModel();
  emit headerDataChanged(Qt::Horizontal, 0, kColumnCount - 1);
}

int KernelDiffModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(diff_.rows.size());
}

int KernelDiffModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumnCount; }

QVariant KernelDiffModel::display(const pc::KernelDiffRow& r, int column) const {
  const bool in_a = r.calls_a > 0, in_b = r.calls_b > 0;
  switch (column) {
    case kName: return short_kernel_name(r.name);
    case kChange: return QString::fromLatin1(pc::kernel_change_name(r.change));
    case kTotalChange: return QString::fromLatin1(pc::kernel_change_name(r.total_change));
    case kCallsA: return QString::number(r.calls_a);
    case kCallsB: return QString::number(r.calls_b);
    case kMeanA: return in_a ? QString::number(r.mean_a_ns / 1e3, 'f', 2) : kAbsent;
    case kMeanB: return in_b ? QString::number(r.mean_b_ns / 1e3, 'f', 2) : kAbsent;
    case kDeltaMean: return signed_number(r.delta_mean_ns() / 1e3, 2);
    case kDeltaMeanPct: {
      const auto rel = r.delta_mean_relative();
      return rel ? signed_number(*rel * 100, 1) + " %" : kAbsent;
    }
    case kPerStepA: return in_a ? QString::number(r.total_per_step_a_ns / 1e3, 'f', 2) : kAbsent;
    case kPerStepB: return in_b ? QString::number(r.total_per_step_b_ns / 1e3, 'f', 2) : kAbsent;
    case kDeltaPerStep: return signed_number(r.delta_total_per_step_ns() / 1e3, 2);
    case kTotalA: return in_a ? QString::number(r.total_a_ns / 1e6, 'f', 3) : kAbsent;
    case kTotalB: return in_b ? QString::number(r.total_b_ns / 1e6, 'f', 3) : kAbsent;
    default: return {};
  }
}

QVariant KernelDiffModel::sortValue(const pc::KernelDiffRow& r, int column) const {
  switch (column) {
    case kName: return QString::fromStdString(r.name);
    case kChange: return static_cast<double>(r.change);
    case kTotalChange: return static_cast<double>(r.total_change);
    case kCallsA: return static_cast<double>(r.calls_a);
    case kCallsB: return static_cast<double>(r.calls_b);
    case kMeanA: return r.mean_a_ns / 1e3;
    case kMeanB: return r.mean_b_ns / 1e3;
    case kDeltaMean: return r.delta_mean_ns() / 1e3;
    case kDeltaMeanPct: {
      if (const auto rel = r.delta_mean_relative()) return *rel;
      const double inf = std::numeric_limits<double>::infinity();
      return r.change == pc::KernelChange::added ? inf : -inf;
    }
    case kPerStepA: return r.total_per_step_a_ns / 1e3;
    case kPerStepB: return r.total_per_step_b_ns / 1e3;
    case kDeltaPerStep: return r.delta_total_per_step_ns() / 1e3;
    case kTotalA: return r.total_a_ns / 1e6;
    case kTotalB: return r.total_b_ns / 1e6;
    default: return {};
  }
}

QVariant KernelDiffModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= kColumnCount) return {};
  const pc::KernelDiffRow& r = row(index.row());
  const int c = index.column();
  switch (role) {
    case Qt::DisplayRole: return display(r, c);
    case SortRole: return sortValue(r, c);
    case Qt::ToolTipRole:
      if (c == kName) return QString::fromStdString(r.name);
      if (c == kChange || c == kTotalChange)
        return tr("%1 per call (mean), %2 in total per step; noise threshold %3 % and %4 µs")
            .arg(pc::kernel_change_name(r.change), pc::kernel_change_name(r.total_change))
            .arg(diff_.options.relative_threshold * 100, 0, 'f', 0)
            .arg(diff_.options.absolute_threshold_ns / 1e3, 0, 'f', 1);
      return {};
    case Qt::TextAlignmentRole:
      return QVariant::fromValue(c == kName ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole: {
      if (c != kChange && c != kTotalChange) return {};
      const QColor col = change_color(c == kChange ? r.change : r.total_change);
      return col.isValid() ? QVariant(col) : QVariant();
    }
    default: return {};
  }
}

QVariant KernelDiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= kColumnCount) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
      case kName: return tr("kernel");
      case kChange: return tr("per call");
      case kTotalChange: return tr("per step");
      case kCallsA: return tr("calls %1").arg(a_);
      case kCallsB: return tr("calls %1").arg(b_);
      case kMeanA: return tr("µs/call %1").arg(a_);
      case kMeanB: return tr("µs/call %1").arg(b_);
      case kDeltaMean: return tr("Δ µs/call");
      case kDeltaMeanPct: return tr("Δ %");
      case kPerStepA: return tr("µs/step %1").arg(a_);
      case kPerStepB: return tr("µs/step %1").arg(b_);
      case kDeltaPerStep: return tr("Δ µs/step");
      case kTotalA: return tr("total ms %1").arg(a_);
      case kTotalB: return tr("total ms %1").arg(b_);
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case kChange: return tr("Change of the mean time per call: added, removed, faster, slower or same (noise threshold); "
                              "changed when the calls per step changed more than 2x (other work under one name)");
      case kTotalChange: return tr("Change of the total time per analysed step (a kernel called more often is slower in total)");
      case kDeltaMeanPct: return tr("(mean %1 − mean %2) / mean %2").arg(b_, a_);
      case kPerStepA:
      case kPerStepB: return tr("Total kernel time / analysed steps of that session");
      default: return {};
    }
  }
  return {};
}

KernelDiffFilter::KernelDiffFilter(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(KernelDiffModel::SortRole);
  setSortCaseSensitivity(Qt::CaseInsensitive);
}

void KernelDiffFilter::setNameFilter(const QString& text) {
  if (text == name_) return;
  name_ = text;
  invalidateRowsFilter();
}

void KernelDiffFilter::setChangeFilter(std::optional<pc::KernelChange> change) {
  if (change == change_) return;
  change_ = change;
  invalidateRowsFilter();
}

bool KernelDiffFilter::filterAcceptsRow(int source_row, const QModelIndex& source_parent) const {
  const auto* m = qobject_cast<const KernelDiffModel*>(sourceModel());
  if (!m || source_parent.isValid() || source_row >= m->rowCount()) return false;
  const pc::KernelDiffRow& r = m->row(source_row);
  if (change_ && r.change != *change_) return false;
  return name_.isEmpty() || QString::fromStdString(r.name).contains(name_, Qt::CaseInsensitive);
}

KernelDiffPanel::KernelDiffPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  diff_box_ = new QComboBox;
  diff_box_->setToolTip(tr("Which session is compared with the baseline A"));
  change_box_ = new QComboBox;
  change_box_->addItem(tr("all kernels"));
  for (auto c : {pc::KernelChange::slower, pc::KernelChange::faster, pc::KernelChange::added, pc::KernelChange::removed,
                 pc::KernelChange::same, pc::KernelChange::changed})
    change_box_->addItem(tr("%1 per call").arg(pc::kernel_change_name(c)), static_cast<int>(c));
  name_ = new QLineEdit;
  name_->setPlaceholderText(tr("Filter kernels by name"));
  name_->setClearButtonEnabled(true);
  bar->addWidget(new QLabel(tr("Diff:")));
  bar->addWidget(diff_box_);
  bar->addWidget(change_box_);
  bar->addWidget(name_, 1);
  layout->addLayout(bar);
  summary_ = new QLabel;
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(summary_);
  model_ = new KernelDiffModel(this);
  proxy_ = new KernelDiffFilter(this);
  proxy_->setSourceModel(model_);
  table_ = new QTableView;
  use_order_sort_arrow(table_);
  table_->setModel(proxy_);
  table_->setAlternatingRowColors(true);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setWordWrap(false);
  table_->setTextElideMode(Qt::ElideMiddle);
  table_->horizontalHeader()->setToolTip(tr("Right-click: show or hide columns"));
  table_->verticalHeader()->setVisible(false);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  table_->horizontalHeader()->setSortIndicator(-1, Qt::DescendingOrder);  // the library's order first
  table_->setSortingEnabled(true);
  // The numbers as wide as they need (fitNumberColumns), the kernel name takes the rest.
  QHeaderView* header = table_->horizontalHeader();
  header->setSectionResizeMode(QHeaderView::Interactive);
  header->setSectionResizeMode(KernelDiffModel::kName, QHeaderView::Stretch);
  header->setMinimumSectionSize(40);
  fitNumberColumns();
  layout->addWidget(table_, 1);
  header->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(header, &QHeaderView::customContextMenuRequested, this, [this, header](const QPoint& pos) {
    QMenu menu(this);
    for (int c = 1; c < KernelDiffModel::kColumnCount; ++c) {
      QAction* a = menu.addAction(model_->headerData(c, Qt::Horizontal).toString());
      a->setCheckable(true);
      a->setChecked(!table_->isColumnHidden(c));
      connect(a, &QAction::toggled, this, [this, c](bool on) { setColumnShown(c, on); });
    }
    menu.exec(header->mapToGlobal(pos));
  });
  setColumnShown(KernelDiffModel::kTotalA, false);
  setColumnShown(KernelDiffModel::kTotalB, false);
  connect(diff_box_, qOverload<int>(&QComboBox::currentIndexChanged), this, &KernelDiffPanel::showDiff);
  connect(change_box_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
    const QVariant v = change_box_->itemData(i);
    proxy_->setChangeFilter(v.isValid() ? std::optional(static_cast<pc::KernelChange>(v.toInt())) : std::nullopt);
  });
  connect(name_, &QLineEdit::textChanged, proxy_, &KernelDiffFilter::setNameFilter);
}

void KernelDiffPanel::setColumnShown(int column, bool shown) {
  if (column > 0 && column < KernelDiffModel::kColumnCount) table_->setColumnHidden(column, !shown);
}

void KernelDiffPanel::setComparison(const pc::Comparison& c) {
  diffs_ = c.kernel_diffs;
  letters_.clear();
  const QSignalBlocker block(diff_box_);
  diff_box_->clear();
  for (const pc::KernelDiff& d : diffs_) {
    const int b = static_cast<int>(d.session_b), a = static_cast<int>(d.session_a);
    diff_box_->addItem(tr("%1 · %2 against %3 · %4")
                           .arg(session_letter(b), short_session_label(QString::fromStdString(c.sessions[d.session_b].label)),
                                session_letter(a), short_session_label(QString::fromStdString(c.sessions[d.session_a].label))));
  }
  diff_box_->setEnabled(diffs_.size() > 1);
  showDiff(0);
}

void KernelDiffPanel::showDiff(int index) {
  if (index < 0 || index >= static_cast<int>(diffs_.size())) {
    model_->setDiff({}, "A", "B");
    summary_->setText(diffs_.empty() ? tr("One session: no kernel diff.") : QString());
    return;
  }
  if (diff_box_->currentIndex() != index) diff_box_->setCurrentIndex(index);
  const pc::KernelDiff& d = diffs_[static_cast<std::size_t>(index)];
  model_->setDiff(d, session_letter(static_cast<int>(d.session_a)), session_letter(static_cast<int>(d.session_b)));
  summary_->setText(summaryText());
  fitNumberColumns();
}

void KernelDiffPanel::fitNumberColumns() {
  // Each number column was as wide as "−1234.56" and 20 px more whatever it held: at 1280 px the
  // eleven of them left the kernel names ~330 px, cut in the middle.
  QHeaderView* header = table_->horizontalHeader();
  const QFontMetrics hf(header->font()), cf(table_->font());
  const int margin = table_->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
  const int arrow = table_->style()->pixelMetric(QStyle::PM_HeaderMarkSize, nullptr, header);
  // The first kMeasuredRows rows (the diff's order: largest change per step first) set the widths: measuring every
  // row of a trace with thousands of kernels would hold the GUI thread on each diff shown.
  constexpr int kMeasuredRows = 1000;
  const int rows = std::min(model_->rowCount(), kMeasuredRows);
  for (int c = 1; c < KernelDiffModel::kColumnCount; ++c) {
    int w = hf.horizontalAdvance(model_->headerData(c, Qt::Horizontal).toString()) + arrow + 4 * margin;
    for (int r = 0; r < rows; ++r)
      w = std::max(w, cf.horizontalAdvance(model_->index(r, c).data().toString()) + 4 * margin);
    table_->setColumnWidth(c, w);
  }
}

QString KernelDiffPanel::summaryText() const {
  const pc::KernelDiff& d = model_->diff();
  if (d.rows.empty() && diffs_.empty()) return tr("One session: no kernel diff.");
  return tr("%1 against %2, by mean time per call: %3 slower, %4 faster, %5 added, %6 removed, %7 same, %10 changed "
            "(noise threshold: %8 % of %2 and %9 µs; changed: the calls per step changed more than %11x, so the "
            "means are not compared). Kernels of the analysed steps (after the warm-up); first sorted by the change "
            "of µs per step.")
      .arg(session_letter(static_cast<int>(d.session_b)), session_letter(static_cast<int>(d.session_a)))
      .arg(d.slower)
      .arg(d.faster)
      .arg(d.added)
      .arg(d.removed)
      .arg(d.same)
      .arg(d.options.relative_threshold * 100, 0, 'f', 0)
      .arg(d.options.absolute_threshold_ns / 1e3, 0, 'f', 1)
      .arg(d.changed)
      .arg(pc::kCallsChangedRatio, 0, 'f', 0);
}

}  // namespace ts::gui
