// The Python tab: PythonLinesModel over python_lines and the PythonLinesTable panel around it.
#include "widgets/panels/python_lines.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include "profiling/import/trace_analysis.h"
#include "widgets/panels/panel_plot.h"
#include "widgets/panels/stats_table_util.h"
#include "widgets/timeline/timeline_details.h"
#include "widgets/timeline/timeline_view.h"

namespace ts::gui {

using prof::analysis::PythonLine;

namespace {
constexpr StatsColumn kColumns[PythonLinesModel::ColumnCount] = {
    {"Line", nullptr,
     "The program's own line: the innermost frame outside Python's library folders (site-packages, "
     "dist-packages, lib/python3*, frozen modules)"},
    {"Function", nullptr, "The function the line is in"},
    {"Samples", nullptr, "Stack samples of the stepping thread on this line in the range (lean: 100 Hz, full: 250 Hz)"},
    {"% of range", nullptr, "This line's samples over all the stepping thread's samples in the range"},
    {"% while GPU idle", nullptr,
     "This line's samples taken while no kernel, copy or memset ran, over all such samples in "
     "the range (the verdicts' \"where (Python)\" share)"},
    {"Mostly inside", nullptr,
     "Of this line's samples, the innermost frame most of them were in when it is in a library (torch, "
     "numpy, the standard library): what the line was mostly doing; — when the line itself was running. "
     "The line's samples are counted together whatever they were inside (the tooltip shows its most "
     "frequent stack)"},
};

/// Frames a tooltip lists at most: the outermost few, then the innermost ones.
constexpr std::size_t kStackHead = 8, kStackTail = 30;
}  // namespace

// ---- PythonLinesModel ------------------------------------------------------------------------------

PythonLinesModel::PythonLinesModel(QObject* parent) : StatsTableModel(parent) {}

void PythonLinesModel::setLines(prof::analysis::PythonLines lines) {
  bool same =
      !lines_.lines.empty() && lines.lines.size() == lines_.lines.size() && lines.gpu_recorded == lines_.gpu_recorded;
  for (std::size_t i = 0; same && i < lines.lines.size(); ++i)
    same = lines.lines[i].where == lines_.lines[i].where && lines.lines[i].innermost == lines_.lines[i].innermost;
  replaceRows(lines_, std::move(lines), same);
}

void PythonLinesModel::clear() {
  setLines({});
}

QString PythonLinesModel::stackText(const PythonLine& l) {
  const QString where = QString::fromStdString(l.where),
                own = where + QLatin1Char(' ') + QString::fromStdString(l.function);
  int mark = -1;  // the innermost frame that is this line
  for (int i = static_cast<int>(l.stack.size()) - 1; i >= 0 && mark < 0; --i) {
    const QString f = QString::fromStdString(l.stack[static_cast<std::size_t>(i)]);
    if (f == own || f == where) mark = i;
  }
  QStringList out;
  out << QObject::tr("Most frequent stack of %1 (%2 of its %3 samples), outermost first:")
             .arg(where)
             .arg(l.stack_samples)
             .arg(l.samples);
  const std::size_t n = l.stack.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (n > kStackHead + kStackTail && i == kStackHead) {
      out << QObject::tr("   … %1 more frames …").arg(n - kStackHead - kStackTail);
      i = n - kStackTail;
    }
    out << (static_cast<int>(i) == mark ? QStringLiteral(" ▶ ") : QStringLiteral("    ")) +
               QString::fromStdString(l.stack[i]);
  }
  return out.join(QLatin1Char('\n'));
}

int PythonLinesModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(lines_.lines.size());
}
int PythonLinesModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant PythonLinesModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const PythonLine& l = lines_.lines[static_cast<std::size_t>(index.row())];
  if (role == Qt::TextAlignmentRole) {
    const bool number = index.column() >= SamplesColumn && index.column() <= IdleShareColumn;
    return stats_alignment(!number);
  }
  if (role == Qt::ToolTipRole) {
    QString counts = tr("%1 samples, %2 of the range").arg(l.samples).arg(format_fraction(l.pct / 100));
    if (lines_.gpu_recorded)
      counts += tr("; %1 while the GPU idled (%2 of the range's idle samples)")
                    .arg(l.idle_samples)
                    .arg(format_fraction(l.idle_pct / 100));
    return stackText(l) + QStringLiteral("\n\n") + counts;
  }
  return value(l, index.column(), role);
}

QVariant PythonLinesModel::value(const PythonLine& l, int column, int role) const {
  const bool shown = role == Qt::DisplayRole;
  if (!shown && role != kSortRole) return {};
  const auto text = [](const std::string& s) { return QString::fromStdString(s); };
  switch (column) {
    case LineColumn:
      return text(l.where);
    case FunctionColumn:
      return text(l.function);
    case SamplesColumn:
      return shown ? QVariant(QString::number(l.samples)) : QVariant(qlonglong{l.samples});
    case RangeShareColumn:
      return shown ? QVariant(format_fraction(l.pct / 100)) : QVariant(l.pct);
    case IdleShareColumn:
      if (!lines_.gpu_recorded) return shown ? QVariant(QStringLiteral("—")) : QVariant(-1.0);
      return shown ? QVariant(format_fraction(l.idle_pct / 100)) : QVariant(l.idle_pct);
    case InnermostColumn:
      return l.innermost.empty() && shown ? QStringLiteral("—") : text(l.innermost);
    default:
      return {};
  }
}

QVariant PythonLinesModel::headerData(int section, Qt::Orientation orientation, int role) const {
  return stats_header(kColumns, ColumnCount, section, orientation, role);
}

// ---- PythonLinesTable ------------------------------------------------------------------------------

QString PythonLinesTable::noSamplesText(bool own_run) {
  if (own_run)
    return tr("No Python samples: TrainScope's own runs have no Python (a Python program recorded with "
              "trainscope-run -- python3 ... gets them by default)");
  return tr(
      "No Python samples: the session was not recorded with trainscope-run --python (a Python program "
      "recorded by trainscope-run gets them by default)");
}

PythonLinesTable::PythonLinesTable(PanelHub* hub, TimelineView* timeline, QWidget* parent)
    : QWidget(parent),
      hub_(hub),
      timeline_(timeline),
      model_(new PythonLinesModel(this)),
      proxy_(new QSortFilterProxyModel(this)) {
  header_ = new QLabel(this);
  header_->setObjectName("python.header");
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(kSortRole);
  view_ = make_stats_view(proxy_, PythonLinesModel::SamplesColumn, this);
  auto* h = view_->horizontalHeader();
  h->setSectionResizeMode(PythonLinesModel::InnermostColumn, QHeaderView::Stretch);
  empty_ = new QLabel(this);
  empty_->setObjectName("python.empty");
  empty_->setWordWrap(true);
  empty_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  empty_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(header_);
  layout->addWidget(view_, 1);
  layout->addWidget(empty_, 1);

  refresh_ = new ThrottledRefresh(
      hub_,
      [this]() -> ThrottledRefresh::Work {
        const auto store = hub_->store();
        // The analysed steps as the verdicts count them (AnalysisRunner): the warm-up step left out,
        // none for an imported trace (its profiler's active steps only).
        const std::int64_t warmup = store ? prof::import::warmup_steps_for(*store) : 1;
        const TimeSpan r = range_.value_or(TimeSpan{});
        return [this, r, warmup](const prof::EventStore& s, const prof::StoreCounts&) -> std::function<void()> {
          auto lines = prof::analysis::python_lines(s, r.start, r.end, warmup);
          return [this, lines = std::move(lines)]() mutable { apply(std::move(lines)); };
        };
      },
      this);

  if (timeline_) {
    range_ = timeline_->timeSelection();
    connect(timeline_, &TimelineView::timeSelectionChanged, this, [this] {
      if (timeline_) setRange(timeline_->timeSelection());
    });
  }
  connect(hub_, &PanelHub::storeChanged, this, [this] {
    model_->clear();
    updateHeader();
  });
  connect(hub_, &PanelHub::liveChanged, this, [this] { updateHeader(); });
  if (hub_->store()) refresh_->refreshNow();
  updateHeader();
}

void PythonLinesTable::setRange(std::optional<TimeSpan> range) {
  if (range && range->end <= range->start) range.reset();
  if (range == range_) return;
  range_ = range;
  refresh_->invalidate();
  updateHeader();
}

void PythonLinesTable::apply(prof::analysis::PythonLines lines) {
  model_->setLines(std::move(lines));
  updateHeader();
}

void PythonLinesTable::updateHeader() {
  const auto& p = model_->lines();
  QString empty;
  if (!hub_->store())
    empty = tr("No events: start a run or open a session.");
  else if (hub_->counts().py_samples == 0 && p.recorded_samples == 0)
    empty = hub_->isLive() ? tr("No Python samples yet (a program recorded with trainscope-run --python lean or full "
                                "sends them as it runs).")
                           : noSamplesText(own_run(hub_->store()->meta()));
  header_->setVisible(empty.isEmpty());
  if (!empty.isEmpty()) {
    empty_->setText(empty);
    empty_->show(), view_->hide();
    return;
  }
  const double secs = static_cast<double>(p.to_ns - p.from_ns) / 1e9;
  QString where;
  if (!p.analysed_steps && p.to_ns > p.from_ns && range_)
    where = tr("Selected range %1 – %2 (%3)").arg(format_time(p.from_ns), format_time(p.to_ns), format_ns(secs * 1e9));
  else if (p.analysed_steps)
    where =
        tr("The analysed steps (%1 steps, %2%3)")
            .arg(p.steps)
            .arg(format_ns(secs * 1e9), p.steps > 0 && hub_->store()->steps.size() > static_cast<std::size_t>(p.steps)
                                            ? tr(", the warm-up step left out")
                                            : QString());
  else
    where = tr("The whole recording (no steps: %1)").arg(format_ns(secs * 1e9));
  QString text = where + tr(": %1 samples of the stepping thread").arg(p.samples);
  if (secs > 0 && p.samples > 0) text += tr(" (%1 Hz)").arg(static_cast<double>(p.samples) / secs, 0, 'f', 0);
  if (p.gpu_recorded) text += tr(", %1 while the GPU idled").arg(p.idle_samples);
  text += range_ ? tr(". Esc on the timeline clears the selection.")
                 : tr(". Shift+drag on the timeline (or drag on its ruler) to look at a range.");
  header_->setText(text);
  const bool rows = model_->rowCount() > 0;
  if (!rows)
    empty_->setText(range_ ? tr("No Python samples of the stepping thread in the selected range.")
                           : tr("No Python samples of the stepping thread in the analysed steps."));
  empty_->setVisible(!rows), view_->setVisible(rows);
}

}  // namespace ts::gui
