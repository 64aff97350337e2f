// The layer time table: LayerTimeModel over layer_stats and the LayerTimeTable panel around it.
#include "widgets/panels/layer_time_table.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>

#include "widgets/panels/panel_plot.h"
#include "widgets/panels/stats_table_util.h"

namespace ts::gui {

using prof::analysis::LayerStats;

namespace {
constexpr StatsColumn kColumns[LayerTimeModel::ColumnCount] = {
    {"Layer", "layer", "The model's layer (spec name and type); + the layers fused into it"},
    {"Fwd\nhost", "forward_host_ns", "Host time in the layer's forward ranges (measured): issuing its work"},
    {"Fwd\nGPU", "forward_gpu_kernel_ns",
     "Duration of the kernels launched inside the forward ranges (measured, by correlation id)"},
    {"Bwd\nhost", "backward_host_ns", "Host time in the layer's backward ranges (measured)"},
    {"Bwd\nGPU", "backward_gpu_kernel_ns", "Duration of the kernels launched inside the backward ranges (measured)"},
    {"Kernels", "kernels", "Kernels launched in forward and backward"},
    {"Host\n% step", "host_share_of_step", "Forward + backward host time over the steps' time"},
    {"GPU\n% step", "gpu_share_of_step", "Forward + backward kernel time over the steps' time"},
    {"Eval\nGPU", "eval_gpu_kernel_ns", "Kernel time of the layer's forward passes during evaluation"},
    {"Params*", "parameters", "Learnable parameters (computed from the model spec)"},
    {"Weights*", "weights_bytes", "fp32 master weights (+ the half copy under AMP): computed from the spec, not measured"},
    {"Grads*", "gradients_bytes", "fp32 gradients: computed from the spec, not measured"},
    {"Optim.\nstate*", "optimizer_state_bytes",
     "Adam: exp_avg + exp_avg_sq; SGD with momentum: the momentum buffer. Computed, not measured"},
    {"Activations*", "activations_bytes",
     "The layer's output kept for backward: output size x batch size x bytes per element. Computed, not measured"},
};
}  // namespace

// ---- LayerTimeModel --------------------------------------------------------------------------------

LayerTimeModel::LayerTimeModel(QObject* parent) : StatsTableModel(parent) {}

void LayerTimeModel::setReport(prof::analysis::LayerReport report) {
  bool same = report.layers.size() == report_.layers.size() && !report_.layers.empty();
  for (std::size_t i = 0; same && i < report.layers.size(); ++i) same = report.layers[i].label == report_.layers[i].label;
  replaceRows(report_, std::move(report), same);
}

void LayerTimeModel::clear() { setReport({}); }

QString LayerTimeModel::layerTitle(const LayerStats& l) {
  if (l.type.empty()) return QString::fromStdString(l.label);
  QString t = l.name.empty() ? QString::fromStdString(l.type)
                             : QStringLiteral("%1 (%2)").arg(QString::fromStdString(l.name), QString::fromStdString(l.type));
  for (const auto& f : l.fused) t += QStringLiteral(" + ") + QString::fromStdString(f);
  return t;
}

int LayerTimeModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(report_.layers.size());
}
int LayerTimeModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant LayerTimeModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const LayerStats& l = report_.layers[static_cast<std::size_t>(index.row())];
  if (role == Qt::TextAlignmentRole) return stats_alignment(index.column() == LayerColumn);
  if (role == Qt::ToolTipRole) return tooltip(l, index.column());
  return value(l, index.column(), role);
}

QString LayerTimeModel::tooltip(const LayerStats& l, int column) const {
  const auto per_call = [](const prof::analysis::PhaseTime& p, bool gpu) {
    if (p.calls == 0) return QStringLiteral("no calls");
    const double v = static_cast<double>(gpu ? p.gpu_kernel_ns : p.host_ns) / static_cast<double>(p.calls);
    return QStringLiteral("%1 calls, %2 per call%3").arg(p.calls).arg(format_ns(v),
        gpu ? QStringLiteral(", %1 kernels").arg(p.kernels) : QString());
  };
  switch (column) {
    case LayerColumn: return QString::fromStdString(l.label);
    case ForwardHostColumn: return per_call(l.forward, false);
    case ForwardGpuColumn: return per_call(l.forward, true);
    case BackwardHostColumn: return per_call(l.backward, false);
    case BackwardGpuColumn: return per_call(l.backward, true);
    case EvalGpuColumn: return per_call(l.eval, true);
    default: return QString::fromUtf8(kColumns[column].tip);
  }
}

QVariant LayerTimeModel::value(const LayerStats& l, int column, int role) const {
  const bool shown = role == Qt::DisplayRole, raw = role == kExportRole;
  if (!shown && !raw && role != kSortRole) return {};
  const auto ns = [&](std::int64_t v) { return shown ? QVariant(format_ns(static_cast<double>(v))) : QVariant(qlonglong{v}); };
  const auto share = [&](double v) { return shown ? QVariant(format_fraction(v)) : QVariant(v); };
  const auto bytes = [&](std::int64_t prof::analysis::LayerMemory::*field) -> QVariant {
    if (!l.memory) return shown ? QVariant(QStringLiteral("—")) : raw ? QVariant(QString()) : QVariant(-1.0);
    const std::int64_t v = (*l.memory).*field;
    return shown ? QVariant(format_bytes_si(static_cast<double>(v))) : QVariant(qlonglong{v});
  };
  switch (column) {
    case LayerColumn: return shown ? layerTitle(l) : QString::fromStdString(l.label);
    case ForwardHostColumn: return ns(l.forward.host_ns);
    case ForwardGpuColumn: return ns(l.forward.gpu_kernel_ns);
    case BackwardHostColumn: return ns(l.backward.host_ns);
    case BackwardGpuColumn: return ns(l.backward.gpu_kernel_ns);
    case KernelsColumn: {
      const qlonglong k = l.forward.kernels + l.backward.kernels;
      return shown ? QVariant(QString::number(k)) : QVariant(k);
    }
    case HostShareColumn: return share(l.forward.host_share + l.backward.host_share);
    case GpuShareColumn: return share(l.forward.gpu_share + l.backward.gpu_share);
    case EvalGpuColumn: return ns(l.eval.gpu_kernel_ns);
    case ParametersColumn:
      if (!l.memory) return shown ? QVariant(QStringLiteral("—")) : raw ? QVariant(QString()) : QVariant(-1.0);
      return shown ? QVariant(QString::number(l.memory->parameters)) : QVariant(qlonglong{l.memory->parameters});
    case WeightsColumn: return bytes(&prof::analysis::LayerMemory::weights_bytes);
    case GradientsColumn: return bytes(&prof::analysis::LayerMemory::gradients_bytes);
    case OptimizerColumn: return bytes(&prof::analysis::LayerMemory::optimizer_bytes);
    case ActivationsColumn: return bytes(&prof::analysis::LayerMemory::activations_bytes);
    default: return {};
  }
}

QVariant LayerTimeModel::headerData(int section, Qt::Orientation orientation, int role) const {
  return stats_header(kColumns, ColumnCount, section, orientation, role);
}

// ---- LayerTimeTable --------------------------------------------------------------------------------

LayerTimeTable::LayerTimeTable(PanelHub* hub, QWidget* parent)
    : QWidget(parent), hub_(hub), model_(new LayerTimeModel(this)), proxy_(new QSortFilterProxyModel(this)) {
  skip_warmup_ = new QCheckBox(tr("Leave out the warm-up step"), this);
  skip_warmup_->setChecked(true);
  skip_warmup_->setToolTip(tr("The first step carries cuDNN's algorithm search and first-touch allocations"));
  export_ = new QPushButton(tr("Export CSV…"), this);
  auto* top = new QHBoxLayout;
  top->addWidget(skip_warmup_);
  top->addStretch(1);
  top->addWidget(export_);

  proxy_->setSourceModel(model_);
  proxy_->setSortRole(kSortRole);
  view_ = new QTableView(this);
  use_order_sort_arrow(view_);
  view_->setModel(proxy_);
  view_->setSortingEnabled(true);
  view_->sortByColumn(-1, Qt::AscendingOrder);  // spec order until the user sorts
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setAlternatingRowColors(true);
  view_->setWordWrap(false);
  view_->verticalHeader()->hide();
  view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 6);
  view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  view_->horizontalHeader()->setStretchLastSection(false);

  summary_ = lay_out_stats_panel(this, top, view_);

  refresh_ = new ThrottledRefresh(hub_, [this]() -> ThrottledRefresh::Work {
    prof::analysis::LayerStatsOptions o;
    const auto store = hub_->store();
    if (skip_warmup_->isChecked() && store && hub_->counts().steps >= 2) o.first_step = store->steps[0].global_step + 1;
    return [this, o](const prof::EventStore& s, const prof::StoreCounts& counts) mutable -> std::function<void()> {
      o.limit = &counts;
      auto report = prof::analysis::layer_stats(s, o);
      return [this, report = std::move(report)]() mutable { apply(std::move(report)); };
    };
  }, this);

  connect(skip_warmup_, &QCheckBox::toggled, this, [this] { refresh_->invalidate(); });
  connect(export_, &QPushButton::clicked, this, &LayerTimeTable::exportCsvInteractive);
  connect(hub_, &PanelHub::storeChanged, this, [this] {
    model_->clear();
    updateSummary();
  });
  if (hub_->store()) refresh_->refreshNow();
  updateSummary();
}

void LayerTimeTable::setSkipWarmup(bool on) { skip_warmup_->setChecked(on); }

QString LayerTimeTable::csv() const { return table_csv(*proxy_); }

bool LayerTimeTable::exportCsv(const QString& path, QString* error) const { return write_table_csv(*proxy_, path, error); }

void LayerTimeTable::exportCsvInteractive() {
  export_csv_interactive(this, *proxy_, tr("Export layer table"), QStringLiteral("layers.csv"));
}

void LayerTimeTable::apply(prof::analysis::LayerReport report) {
  model_->setReport(std::move(report));
  updateSummary();
}

void LayerTimeTable::updateSummary() {
  const auto& r = model_->report();
  // A run on the CPU has no kernels: its GPU columns would read "0 ns" and "0.0 %" in every row.
  const bool on_cpu = hub_->store() && cpu_run(hub_->store()->meta());
  for (int c : {LayerTimeModel::ForwardGpuColumn, LayerTimeModel::BackwardGpuColumn, LayerTimeModel::KernelsColumn,
                LayerTimeModel::GpuShareColumn, LayerTimeModel::EvalGpuColumn})
    view_->setColumnHidden(c, on_cpu);  // (the sorting proxy keeps the columns as they are)
  if (!hub_->store()) {
    summary_->setText(tr("No events: start a run or open a session."));
    return;
  }
  if (r.layers.empty()) {
    // Only TrainScope's own trainer records layer ranges: a recorded program or an imported trace never will.
    summary_->setText(own_run(hub_->store()->meta())
                          ? tr("No layer ranges recorded yet (the trainer records one per layer and step).")
                          : tr("No layer ranges: TrainScope's own trainer records one per layer and step; a recorded "
                               "program or an imported trace has none (its kernels are in the Kernels tab)."));
    return;
  }
  QStringList lines;
  std::int64_t layer_gpu = 0;
  for (const auto& l : r.layers) layer_gpu += l.forward.gpu_kernel_ns + l.backward.gpu_kernel_ns;
  QString time = tr("%1 steps, %2 in total").arg(r.steps).arg(format_ns(static_cast<double>(r.step_ns)));
  if (!on_cpu) {  // a CPU run has no kernels to count ("layers' kernels 0 ns ... 0 kernels, 0 ns")
    time += tr("; layers' kernels %1").arg(format_ns(static_cast<double>(layer_gpu)));
    time += tr("; outside the layers (H2D copy, loss, optimizer): %1 kernels, %2")
                .arg(r.kernels_outside_layers)
                .arg(format_ns(static_cast<double>(r.kernel_ns_outside_layers)));
  }
  if (r.kernels_unmatched > 0) time += tr("; %1 kernels without their launch call").arg(r.kernels_unmatched);
  lines << time + QLatin1Char('.');
  if (r.memory_from_spec) {
    const QString dtype = r.activation_bytes == 2 ? QStringLiteral("16-bit AMP") : QStringLiteral("fp32");
    lines << tr("* Computed from the model spec, not measured: batch size %1, %2 activations, %3 optimizer; "
                "layers hold %4 in total.")
                 .arg(r.batch_size)
                 .arg(dtype, r.optimizer.empty() ? tr("unknown") : QString::fromStdString(r.optimizer),
                      format_bytes_si(static_cast<double>(r.memory_total.total())));
  }
  if (!r.memory_note.empty()) lines << QString::fromStdString(r.memory_note);
  if (r.kernels_by_preceding_call > 0)
    lines << tr("%1 kernels launched through the driver API (cuBLAS) attributed by the preceding runtime call.")
                 .arg(r.kernels_by_preceding_call);
  if (r.kernels_by_graph_node > 0)
    lines << tr("%1 kernels replayed from a CUDA graph attributed by the launch that was captured in the layer.")
                 .arg(r.kernels_by_graph_node);
  if (r.graph_kernels_unmapped > 0)
    lines << tr("%1 kernels replayed from a CUDA graph have no capture-time launch in this session (recorded "
                "before graph nodes were): counted by their cudaGraphLaunch, outside the layers.")
                 .arg(r.graph_kernels_unmapped);
  if (r.runtime_thread_guessed)
    lines << tr("Runtime calls matched to the trainer by launch count (this recording's CUPTI thread ids).");
  summary_->setText(lines.join(QLatin1Char('\n')));
}

}  // namespace ts::gui
