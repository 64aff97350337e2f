// The compare view's tables (see compare_tables.h).
#include "widgets/compare/compare_tables.h"

#include <QBrush>
#include <QDateTime>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPainter>
#include <QPixmap>
#include <QTableWidget>
#include <QTreeWidget>
#include <algorithm>
#include <set>

#include "profiling/compare/compare_text.h"
#include "widgets/compare/compare_view.h"
#include "widgets/panels/measured_text.h"
#include "widgets/panels/verdict_panel.h"
#include "widgets/panels/panel_plot.h"

namespace ts::gui {

namespace pc = prof::compare;
namespace pa = prof::analysis;

namespace {

const QString kAbsent = QStringLiteral("–");

/// Compare's writers of a figure (profiling/compare/compare_text.h), shared with the runner's text.
QString ms_cell(double ns) { return QString::fromStdString(pc::ms_text(ns)) + QStringLiteral(" ms"); }
QString percent_cell(double share, int decimals = 1) { return QString::fromStdString(pc::percent_text(share, decimals)); }

/// " (+12.3 %)" of b against a; "" when either is absent or a is 0.
QString relative(std::optional<double> a, std::optional<double> b) {
  if (!a || !b || *a == 0) return {};
  const double r = (*b - *a) / *a * 100;
  return QStringLiteral(" (%1%2 %)").arg(r >= 0 ? "+" : "−").arg(std::abs(r), 0, 'f', 1);
}

void set_cell(QTableWidget* t, int row, int col, const QString& text, Qt::Alignment align = Qt::AlignHCenter) {
  auto* item = new QTableWidgetItem(text);
  item->setTextAlignment(align | Qt::AlignVCenter);
  item->setToolTip(text);
  t->setItem(row, col, item);
}

void set_session_columns(QTableWidget* t, const pc::Comparison& c, int rows) {
  t->clear();
  t->setRowCount(rows);
  t->setColumnCount(static_cast<int>(c.sessions.size()));
  QStringList headers;
  for (int i = 0; i < static_cast<int>(c.sessions.size()); ++i) headers << session_header(c, i);
  t->setHorizontalHeaderLabels(headers);
  for (int i = 0; i < t->columnCount(); ++i)
    t->horizontalHeaderItem(i)->setToolTip(QString::fromStdString(c.sessions[static_cast<std::size_t>(i)].label));
}

int severity_rank(const std::string& s) { return s == "high" ? 0 : s == "moderate" ? 1 : s == "low" ? 2 : 3; }

QIcon severity_icon(const std::string& severity) {
  QPixmap pm(12, 12);
  pm.fill(Qt::transparent);
  QPainter p(&pm);
  p.setRenderHint(QPainter::Antialiasing);
  p.setBrush(severity_color(severity));
  p.setPen(Qt::NoPen);
  p.drawRoundedRect(QRectF(1, 1, 10, 10), 2, 2);
  return QIcon(pm);
}

}  // namespace

QTableWidget* make_compare_table(QWidget* parent) {
  auto* t = new QTableWidget(parent);
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->setAlternatingRowColors(true);
  t->setSelectionMode(QAbstractItemView::ContiguousSelection);
  t->setWordWrap(false);
  t->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  t->horizontalHeader()->setMinimumSectionSize(120);
  // One line per row, fixed: fit_table_height() then knows the height before the table is shown.
  t->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
  t->verticalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  return t;
}

void fit_table_height(QTableWidget* t) {
  int h = t->horizontalHeader()->isHidden() ? 0 : t->horizontalHeader()->sizeHint().height();
  int shown = 0;  // hidden rows (the measured ones where no session has them) take no height
  for (int r = 0; r < t->rowCount(); ++r) shown += t->isRowHidden(r) ? 0 : 1;
  h += shown * t->verticalHeader()->defaultSectionSize();
  h += 2 * t->frameWidth();
  t->setFixedHeight(h + 2);
}

void fill_sessions_table(QTableWidget* t, const pc::Comparison& c) {
  const QStringList rows = {QObject::tr("file"),        QObject::tr("recorded"),     QObject::tr("device"),
                            QObject::tr("model"),       QObject::tr("batch size"),   QObject::tr("num_workers"),
                            QObject::tr("AMP"),         QObject::tr("steps recorded"), QObject::tr("dropped CUPTI records")};
  set_session_columns(t, c, static_cast<int>(rows.size()));
  t->setVerticalHeaderLabels(rows);
  for (int i = 0; i < static_cast<int>(c.sessions.size()); ++i) {
    const pc::SessionSummary& s = c.sessions[static_cast<std::size_t>(i)];
    auto meta = [&](const char* key) {
      const auto it = s.meta.find(key);
      return it == s.meta.end() ? kAbsent : QString::fromStdString(it->second);
    };
    const pa::RunConfig& rc = s.report.config;
    QString recorded = kAbsent;
    if (const auto it = s.meta.find("session.start_unix_ns"); it != s.meta.end()) {
      bool ok = false;
      const qint64 ns = QString::fromStdString(it->second).toLongLong(&ok);
      if (ok) recorded = QDateTime::fromMSecsSinceEpoch(ns / 1'000'000).toString("yyyy-MM-dd HH:mm:ss");
    }
    QString model = kAbsent;
    if (const auto it = s.meta.find("run.config"); it != s.meta.end()) {
      const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(it->second)).object();
      if (o.contains("model_name")) model = o.value("model_name").toString();
    }
    const QStringList values = {
        QString::fromStdString(s.label), recorded, meta("device.name"), model,
        rc.known && rc.batch_size > 0 ? QString::number(rc.batch_size) : kAbsent,
        rc.known && rc.num_workers >= 0 ? QString::number(rc.num_workers) : kAbsent,
        rc.known ? QString::fromStdString(rc.amp) : kAbsent, QString::number(s.recorded_steps),
        // CUPTI records a GPU's activity: a CPU run has none to drop (its meta says 0).
        pc::session_device(s.meta) == "cpu" ? QString::fromStdString(pc::not_applicable_text(s.meta)) : meta("dropped.cupti")};
    for (int r = 0; r < static_cast<int>(values.size()); ++r) set_cell(t, r, i, values[r]);
    t->item(0, i)->setTextAlignment(Qt::AlignLeft | Qt::AlignVCenter);  // a path: its start matters
  }
}

QString session_header(const pc::Comparison& c, int i) {
  return QStringLiteral("%1 · %2").arg(session_letter(i),
                                       short_session_label(QString::fromStdString(c.sessions[static_cast<std::size_t>(i)].label)));
}

void fill_config_table(QTableWidget* t, const pc::Comparison& c) {
  set_session_columns(t, c, static_cast<int>(c.config.size()));
  QStringList keys;
  for (int r = 0; r < static_cast<int>(c.config.size()); ++r) {
    const pc::ConfigDifference& d = c.config[static_cast<std::size_t>(r)];
    keys << QString::fromStdString(d.key);
    for (int i = 0; i < static_cast<int>(d.values.size()) && i < t->columnCount(); ++i) {
      const auto& v = d.values[static_cast<std::size_t>(i)];
      const std::size_t col = static_cast<std::size_t>(i);
      // Absent: not recorded (a trace), or a field that means nothing for this session's device (a
      // CPU run records 0 for a GPU's memory and compute capability): said so, never a made-up value.
      const bool na = col < d.not_applicable.size() && d.not_applicable[col];
      set_cell(t, r, i, v ? QString::fromStdString(*v)
                        : na ? QString::fromStdString(pc::not_applicable_text(c.sessions[col].meta)) : QObject::tr("unknown"));
      // Values that differ from the baseline in bold.
      if (i > 0 && v != d.values[0]) {
        QFont f = t->item(r, i)->font();
        f.setBold(true);
        t->item(r, i)->setFont(f);
      }
    }
  }
  t->setVerticalHeaderLabels(keys);
}

namespace {

/// Session `col`'s measured figures (PM sampling) in the throughput table: "–" where it has none;
/// DRAM in the row's unit `unit`, with its change against the baseline's `base_dram` (bytes/s; 0:
/// the baseline has none) for the sessions after it.
void fill_measured_cells(QTableWidget* t, int col, const prof::analysis::Report& r, pc::RateUnit unit, double base_dram) {
  QString sm = kAbsent, dram = kAbsent;
  if (r.measured && r.measured->samples == 0) sm = dram = QObject::tr("– (none: see Session details)");
  if (r.measured && r.measured->sm_active_pct) {
    sm = QStringLiteral("%1 %").arg(*r.measured->sm_active_pct, 0, 'f', 1);
    if (r.sm_efficiency) sm += QObject::tr(" · est. %1 %").arg(100 * *r.sm_efficiency, 0, 'f', 1);
  }
  if (r.measured && r.measured->dram_bytes_per_s) {
    const double v = *r.measured->dram_bytes_per_s;
    dram = QStringLiteral("%1 %2").arg(v / unit.per, 0, 'f', unit.decimals).arg(QLatin1String(unit.name));
    if (col > 0 && base_dram > 0) dram += relative(base_dram, v);
    if (r.measured->dram_ceiling_share) dram += QObject::tr(" · %1 % of the copy ceiling").arg(100 * *r.measured->dram_ceiling_share, 0, 'f', 0);
  }
  set_cell(t, static_cast<int>(ThroughputRow::measured_sm), col, sm);
  set_cell(t, static_cast<int>(ThroughputRow::measured_dram), col, dram);
}

}  // namespace

QString training_rate_label() { return QObject::tr("images/s (training time)"); }
QString host_step_label() { return QObject::tr("host step (mean)"); }
QString data_wait_label() { return QObject::tr("data wait/step (raw)"); }
QString step_window_label() { return QObject::tr("total (mean step window)"); }

QString step_window_tooltip() {
  return QObject::tr("The mean step window of the analysed steps: from a host step's start to the later of its end and "
                     "the end of the GPU work it launched (analysis.h). Not the %1 of the headline and the Throughput "
                     "table, the host step rows alone: the GPU may finish a step's work after its host step ends.")
      .arg(host_step_label());
}

QString training_rate_tooltip() {
  return QObject::tr("Images trained ÷ training time, every epoch, evaluation excluded: the trainer's own figure "
                     "(epochs table). Host step times are no throughput: without a sync per step the host runs "
                     "ahead of the GPU, and with gradient accumulation a step is one micro-batch (docs/compare.md). "
                     "The Train view's Throughput chart is another figure: img/s per step, each step's own rate (live: each "
                     "update interval's), not the whole training time's average.");
}

namespace {

/// The header tooltips of the throughput table: what each figure counts.
void throughput_tooltips(QTableWidget* t) {
  auto tip = [t](ThroughputRow r, const QString& text) { t->verticalHeaderItem(static_cast<int>(r))->setToolTip(text); };
  tip(ThroughputRow::img_s, training_rate_tooltip());
  tip(ThroughputRow::mean_step_ms, QObject::tr("Mean of the host step rows (data wait through the train step and any "
                                               "loss read) after the warm-up steps, as a lesson's step figure counts them."));
  tip(ThroughputRow::data_wait_ms, QObject::tr("The trainer's time in data-loader waits per analysed step, before the "
                                               "breakdown gives an instant shared with GPU work to the kernel (what the "
                                               "input-bound verdict judges)."));
  // The figure the Utilization track's GPU row draws, the lessons and the verdicts' evidence call
  // "GPU busy": one name in every view.
  tip(ThroughputRow::gpu_util, QObject::tr("The time the GPU ran kernels, copies or memsets (their union) ÷ the steps' time (docs/metrics.md)."));
  tip(ThroughputRow::measured_sm, QObject::tr("CUPTI PM sampling's SM active while kernels ran, beside the estimate from the "
                                              "kernels' launch sizes (docs/metrics.md)."));
}

/// Session `i`'s accuracy cells, with the change against the baseline `a` after it.
void fill_accuracy_cells(QTableWidget* t, int i, const pc::Accuracy& acc, const pc::Accuracy& a) {
  auto cell = [&](ThroughputRow row, const QString& text) { set_cell(t, static_cast<int>(row), i, text); };
  cell(ThroughputRow::last_epoch, acc.last_epoch ? QObject::tr("epoch %1 of %2").arg(*acc.last_epoch).arg(acc.epochs) : kAbsent);
  QString test_acc = kAbsent;
  if (acc.test_accuracy) {
    test_acc = percent_cell(*acc.test_accuracy, 2);
    if (i > 0 && a.test_accuracy) {
      const double d = (*acc.test_accuracy - *a.test_accuracy) * 100;
      test_acc += QStringLiteral(" (%1%2 points)").arg(d >= 0 ? "+" : "−").arg(std::abs(d), 0, 'f', 2);
    }
  }
  cell(ThroughputRow::test_accuracy, test_acc);
  cell(ThroughputRow::test_loss, acc.test_loss ? QString::number(*acc.test_loss, 'f', 4) : kAbsent);
  cell(ThroughputRow::train_loss, acc.train_loss ? QString::number(*acc.train_loss, 'f', 4) : kAbsent);
}

}  // namespace

void fill_throughput_table(QTableWidget* t, const pc::Comparison& c) {
  const int n = static_cast<int>(c.sessions.size());
  set_session_columns(t, c, static_cast<int>(ThroughputRow::count));
  t->setVerticalHeaderLabels({QObject::tr("steps used"), training_rate_label(), host_step_label(), data_wait_label(),
                              QObject::tr("GPU busy"), QObject::tr("SM active (measured) · est. SM efficiency"),
                              QObject::tr("DRAM read + write (measured)"), QObject::tr("last epoch"),
                              QObject::tr("test accuracy"), QObject::tr("test loss"), QObject::tr("train loss")});
  throughput_tooltips(t);
  bool any_measured = false;
  double dram_max = 0;
  for (const auto& s : c.sessions) {
    any_measured = any_measured || s.report.measured.has_value();
    if (s.report.measured && s.report.measured->dram_bytes_per_s) dram_max = std::max(dram_max, *s.report.measured->dram_bytes_per_s);
  }
  const pc::RateUnit dram_unit = pc::rate_unit(dram_max);
  const auto& base_measured = c.sessions[0].report.measured;
  const double base_dram = base_measured ? base_measured->dram_bytes_per_s.value_or(0) : 0;  // 0: none
  t->setRowHidden(static_cast<int>(ThroughputRow::measured_sm), !any_measured);
  t->setRowHidden(static_cast<int>(ThroughputRow::measured_dram), !any_measured);
  const pc::SessionSummary& a = c.sessions[0];
  for (int i = 0; i < n; ++i) {
    const pc::SessionSummary& s = c.sessions[static_cast<std::size_t>(i)];
    const bool base = i == 0;
    auto cell = [&](ThroughputRow row, const QString& text) { set_cell(t, static_cast<int>(row), i, text); };
    const auto& tp = s.throughput;
    cell(ThroughputRow::steps, tp.steps > 0 ? QObject::tr("%1 (%2 warm-up left out)").arg(tp.steps).arg(tp.warmup_steps_skipped)
                                            : kAbsent);
    const auto rate = tp.training.img_per_s;
    cell(ThroughputRow::img_s,
         rate ? QString::fromStdString(pc::training_rate_text(tp)) + (base ? QString() : relative(a.throughput.training.img_per_s, rate)) : kAbsent);
    if (const std::string first = pc::describe_first_steps(tp); rate && !first.empty())  // why the ⚠
      t->item(static_cast<int>(ThroughputRow::img_s), i)->setToolTip(QString::fromStdString(first));
    const auto& step_ns = tp.mean_step_ns;
    cell(ThroughputRow::mean_step_ms,
         step_ns ? ms_cell(*step_ns) + (base ? QString() : relative(a.throughput.mean_step_ns, step_ns)) : kAbsent);
    const auto wait = pc::data_wait_ns_per_step(s.report);
    cell(ThroughputRow::data_wait_ms, wait ? ms_cell(*wait) : kAbsent);
    const auto& u = s.report.gpu_utilization;
    cell(ThroughputRow::gpu_util, u ? percent_cell(*u) : kAbsent);
    fill_measured_cells(t, i, s.report, dram_unit, base_dram);
    fill_accuracy_cells(t, i, s.accuracy, a.accuracy);
  }
}

void fill_breakdown_table(QTableWidget* t, const pc::Comparison& c) {
  const int n = static_cast<int>(c.sessions.size());
  set_session_columns(t, c, pa::kCategoryCount + 1);
  QStringList rows;
  for (int k = 0; k < pa::kCategoryCount; ++k)
    rows << step_category_label(k);
  rows << step_window_label();
  t->setVerticalHeaderLabels(rows);
  t->verticalHeaderItem(pa::kCategoryCount)->setToolTip(step_window_tooltip());
  for (int i = 0; i < n; ++i) {
    const pa::Report& r = c.sessions[static_cast<std::size_t>(i)].report;
    const double total = static_cast<double>(r.breakdown.total());
    for (int k = 0; k <= pa::kCategoryCount; ++k) {
      if (r.steps <= 0 || total <= 0) {
        set_cell(t, k, i, kAbsent);
        continue;
      }
      const double ns = k < pa::kCategoryCount ? static_cast<double>(r.breakdown.ns[k]) : total;
      set_cell(t, k, i, QStringLiteral("%1 · %2 %").arg(ms_cell(ns / r.steps)).arg(ns / total * 100, 5, 'f', 1));
    }
  }
}

void fill_verdict_matrix(QTableWidget* t, const pc::Comparison& c) {
  // Verdict ids in order of their highest severity anywhere, then id.
  std::map<std::string, int> best;
  for (const auto& s : c.sessions)
    for (const auto& v : s.report.verdicts) {
      auto [it, fresh] = best.emplace(v.id, severity_rank(v.severity));
      if (!fresh) it->second = std::min(it->second, severity_rank(v.severity));
    }
  std::vector<std::string> ids;
  for (const auto& [id, rank] : best) ids.push_back(id);
  std::stable_sort(ids.begin(), ids.end(), [&](const auto& x, const auto& y) { return best[x] < best[y]; });
  set_session_columns(t, c, static_cast<int>(ids.size()));
  QStringList labels;
  for (int r = 0; r < static_cast<int>(ids.size()); ++r) {
    labels << verdict_short_name(ids[static_cast<std::size_t>(r)]);  // in words, as the headline names them
    for (int i = 0; i < static_cast<int>(c.sessions.size()); ++i) {
      const auto& vs = c.sessions[static_cast<std::size_t>(i)].report.verdicts;
      const auto it = std::find_if(vs.begin(), vs.end(), [&](const auto& v) { return v.id == ids[static_cast<std::size_t>(r)]; });
      set_cell(t, r, i, it == vs.end() ? kAbsent : QString::fromStdString(it->severity));
      if (it != vs.end()) {
        t->item(r, i)->setIcon(severity_icon(it->severity));
        t->item(r, i)->setToolTip(QString::fromStdString(it->title));
      }
    }
  }
  t->setVerticalHeaderLabels(labels);
}

void fill_verdict_tree(QTreeWidget* t, const pc::Comparison& c, bool cuda_gpu_here) {
  t->clear();
  t->setColumnCount(1);
  t->setHeaderHidden(true);
  QFont bold = t->font();
  bold.setBold(true);
  for (int i = 0; i < static_cast<int>(c.sessions.size()); ++i) {
    const pc::SessionSummary& s = c.sessions[static_cast<std::size_t>(i)];
    std::vector<pa::Verdict> vs = s.report.verdicts;
    std::stable_sort(vs.begin(), vs.end(),
                     [](const auto& x, const auto& y) { return severity_rank(x.severity) < severity_rank(y.severity); });
    auto* top = new QTreeWidgetItem(t);
    QString count = vs.empty() ? QObject::tr("no verdicts") : (vs.size() == 1 ? QObject::tr("1 verdict") : QObject::tr("%1 verdicts").arg(vs.size()));
    if (!s.report.verdicts_judged)
      count = QObject::tr("no verdicts: %1").arg(QString::fromStdString(s.report.verdicts_withheld));
    top->setText(0, QStringLiteral("%1 — %2").arg(session_header(c, i), count));
    top->setFont(0, bold);
    top->setData(0, Qt::UserRole, i);
    for (const pa::Verdict& v : vs) {
      auto* item = new QTreeWidgetItem(top);
      item->setIcon(0, severity_icon(v.severity));
      item->setText(0, QStringLiteral("%1 · %2").arg(QString::fromStdString(v.severity), QString::fromStdString(v.title)));
      item->setData(0, Qt::UserRole, QString::fromStdString(v.id));
      item->setToolTip(0, item->text(0));
      QStringList ev;
      for (const auto& [name, value] : v.evidence) ev << format_evidence(name, value);
      auto* e = new QTreeWidgetItem(item);
      e->setText(0, QObject::tr("evidence (whole run): %1").arg(ev.join(QStringLiteral(" · "))));
      e->setToolTip(0, ev.join('\n'));
      // The fix in the window's words: Run settings' names for a TrainScope session, PyTorch's for
      // a trace (window_fix_text, as the Verdicts tab writes it); the runner keeps its flags.
      const QString fix = window_fix_text(v, s.report.config.known, cuda_gpu_here);
      auto* f = new QTreeWidgetItem(item);
      f->setText(0, QObject::tr("fix: %1").arg(fix));
      f->setToolTip(0, fix);
    }
  }
  t->expandAll();
}

}  // namespace ts::gui
