// JobRanks (see job_ranks.h).
#include "widgets/job/job_ranks.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "widgets/common/wrap_tree.h"
#include "widgets/job/job_timelines.h"
#include "widgets/panels/verdict_panel.h"

namespace ts::gui {

void fill_job_verdicts(QTreeWidget* tree, const prof::job::JobReport& r) {
  tree->clear();
  for (const auto& v : r.verdicts) {
    const QString who = v.rank >= 0 ? QObject::tr("rank %1").arg(v.rank) : QObject::tr("the job");
    auto* top = new QTreeWidgetItem(tree, {QStringLiteral("%1 · %2").arg(who, QString::fromStdString(v.title))});
    top->setData(0, Qt::UserRole, QString::fromStdString(v.id));
    top->setForeground(0, severity_color(v.severity));
    top->setToolTip(0, QString::fromStdString(v.title));
    QStringList ev;
    for (const auto& [name, x] : v.evidence) ev << format_evidence(name, x);
    if (!ev.isEmpty()) new QTreeWidgetItem(top, {QObject::tr("Evidence: %1").arg(ev.join(", "))});
    auto* fix = new QTreeWidgetItem(top, {QObject::tr("Fix: %1").arg(QString::fromStdString(v.fix))});
    fix->setToolTip(0, QString::fromStdString(v.fix));
    top->setExpanded(true);
  }
  if (r.verdicts.empty())
    new QTreeWidgetItem(tree, {r.ranks.size() > 1 ? QObject::tr("No job verdict: the ranks keep pace with each other") : QObject::tr("One rank: no job verdict")});
}

std::optional<BannerLead> job_banner_lead(const prof::job::JobReport& r) {
  if (r.verdicts.empty()) return std::nullopt;
  const auto rank = [](const std::string& s) { return s == "high" ? 0 : s == "moderate" ? 1 : 2; };
  const auto top = std::min_element(r.verdicts.begin(), r.verdicts.end(), [&](const auto& a, const auto& b) {
    return rank(a.severity) < rank(b.severity);
  });
  BannerFinding f;
  f.title = QObject::tr("Job: %1").arg(QString::fromStdString(top->title));
  f.fix = QString::fromStdString(top->fix);
  if (r.verdicts.size() > 1) f.more = QObject::tr("  (+%n more job verdict(s))", nullptr, static_cast<int>(r.verdicts.size() - 1));
  return BannerLead{top->severity, f};
}

const QStringList& JobRanks::columnTitles() {
  static const QStringList titles = {QObject::tr("period"),  QObject::tr("own work"),      QObject::tr("waiting"),
                                     QObject::tr("compute"), QObject::tr("communication"), QObject::tr("exposed comm."),
                                     QObject::tr("GPU idle"), QObject::tr("data wait"),    QObject::tr("host")};
  return titles;
}

JobRanks::JobRanks(QWidget* parent) : QWidget(parent) {
  setObjectName("job.ranks");
  summary_ = new QLabel;
  summary_->setWordWrap(true);
  table_ = new QTableWidget(0, 2 + columnTitles().size());
  table_->setObjectName("job.rankTable");
  // Titles of two words on two lines: the eleven columns fit the Ranks tab's table at 1280x720.
  QStringList titles = QStringList{tr("rank")} + columnTitles() + QStringList{tr("step-start offset")};
  for (QString& t : titles) t.replace(' ', '\n');
  table_->setHorizontalHeaderLabels(titles);
  table_->horizontalHeaderItem(0)->setToolTip(tr("The straggler's row is marked and bold"));
  table_->horizontalHeader()->setToolTip(tr("Medians over each rank's step periods, ms per step (docs/metrics.md, \"Jobs\")"));
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  verdicts_ = new QTreeWidget;
  verdicts_->setObjectName("job.verdicts");
  verdicts_->setHeaderLabels({tr("Job verdicts · evidence · fix")});
  wrap_tree_items(verdicts_);  // evidence and fix wrap at the pane's width (the whole fix was only in a tooltip)
  notes_ = new QLabel;
  notes_->setWordWrap(true);
  notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(table_);
  split->addWidget(verdicts_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  lay->addWidget(split, 1);
  lay->addWidget(summary_);
  lay->addWidget(notes_);
  clear();
}

void JobRanks::clear() {
  summary_->setText(tr("No job is open: File ▸ Open job… opens the folder of a distributed job's rank files."));
  table_->setRowCount(0);
  verdicts_->clear();
  notes_->clear();
}

void JobRanks::setJob(const prof::job::Job& job, const prof::job::JobReport& r) {
  clear();
  const std::int32_t slow = straggler_rank(r);
  summary_->setText(tr("%n rank(s), %1 matched steps after the warm-up; waiting is measured in %2. The table: medians "
                       "over each rank's step periods, in ms per step (period = own work + waiting); the step-start "
                       "offset in µs.", nullptr,
                       static_cast<int>(r.ranks.size()))
                        .arg(r.matched_steps)
                        .arg(QString::fromStdString(r.wait_source)));
  const QString parts_tip = period_parts_tooltip(r), offset_tip = step_start_offset_tooltip(r);
  for (int c : {1, 2, 3}) table_->horizontalHeaderItem(c)->setToolTip(parts_tip);
  table_->horizontalHeaderItem(table_->columnCount() - 1)->setToolTip(offset_tip);
  table_->setRowCount(static_cast<int>(r.ranks.size()));
  for (int row = 0; row < static_cast<int>(r.ranks.size()); ++row) {
    const auto& f = r.ranks[static_cast<std::size_t>(row)];
    const bool straggler = f.rank == slow;
    const prof::job::PeriodParts p = prof::job::period_parts(f);
    const double values[] = {p.period_ms,         p.own_work_ms,          p.wait_ms,
                             f.compute_ns / 1e6,  f.communication_ns / 1e6, f.exposed_comm_ns / 1e6,
                             f.idle_ns / 1e6,     f.data_wait_ns / 1e6,   f.host_other_ns / 1e6};
    auto* rank = new QTableWidgetItem(straggler ? tr("%1 · straggler").arg(f.rank) : QString::number(f.rank));
    rank->setToolTip(QString::fromStdString(f.path));
    table_->setItem(row, 0, rank);
    for (int c = 0; c < 9; ++c) {
      auto* it = new QTableWidgetItem(QString::number(values[c], 'f', 2));
      it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (c < 3) it->setToolTip(parts_tip);
      table_->setItem(row, c + 1, it);
    }
    auto* offset = new QTableWidgetItem(step_start_offset_text(f.step_start_offset_ns));
    offset->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    offset->setToolTip(offset_tip);
    table_->setItem(row, 10, offset);
    if (straggler)
      for (int c = 0; c < table_->columnCount(); ++c) {
        QFont bold = table_->item(row, c)->font();
        bold.setBold(true);
        table_->item(row, c)->setFont(bold);
        table_->item(row, c)->setForeground(QColor("#B00020"));
      }
  }
  fill_job_verdicts(verdicts_, r);
  QStringList lines;
  for (const auto& p : job.problems) lines << tr("Not opened: %1").arg(QString::fromStdString(p));
  for (const auto& n : r.notes) lines << QString::fromStdString(n);
  notes_->setText(lines.join('\n'));
  notes_->setVisible(!lines.isEmpty());
}

QString JobRanks::notesText() const { return notes_->text(); }

}  // namespace ts::gui
