// PlaygroundWorkspace's right side (playground_workspace.h): the ladder with the kernel source beside
// it, the roofline, the timeline of the session's kernels and the compare of two sessions; opening,
// saving and comparing playground sessions.
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextBlock>
#include <QVBoxLayout>
#include <set>

#include "playground/compare.h"
#include "lessons/session_pack.h"
#include "profiling/event_source.h"
#include "profiling/lanes.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/playground/ladder_view.h"
#include "widgets/playground/playground_runner.h"
#include "widgets/playground/playground_workspace.h"
#include "widgets/playground/roofline_chart.h"
#include "widgets/playground/source_view.h"
#include "widgets/timeline/timeline_panel.h"

namespace ts::gui {

namespace {
/// The exact demangled name of the first kernel in `store` whose name is the function `anchor`
/// ("sgemm_naive(" or a template "sgemm_warptile<"), "" when none ran.
QString kernel_named(const prof::EventStore& store, const QString& anchor) {
  if (anchor.isEmpty()) return {};
  const std::string a = anchor.toStdString();
  std::set<prof::StringId> seen;
  for (std::size_t i = 0; i < store.kernels.size(); ++i) {
    if (!seen.insert(store.kernels[i].name).second) continue;
    const std::string name = prof::timeline::demangle(store.strings.get(store.kernels[i].name));
    for (const char* after : {"(", "<"})
      if (name.find(a + after) != std::string::npos) return QString::fromStdString(name);
  }
  return {};
}
}  // namespace

QWidget* PlaygroundWorkspace::buildViews() {
  tabs_ = new QTabWidget;
  tabs_->setObjectName("playground.tabs");
  tabs_->setDocumentMode(true);
  auto* ladder_split = new QSplitter(Qt::Horizontal);
  ladder_split->setObjectName("playground.ladder_split");
  ladder_ = new LadderView;
  auto* scroll = new QScrollArea;
  scroll->setWidget(ladder_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setMinimumWidth(480);
  ladder_split->addWidget(scroll);
  auto* src_box = new QWidget;
  auto* src_col = new QVBoxLayout(src_box);
  src_col->setContentsMargins(4, 0, 0, 0);
  source_label_ = new QLabel;
  source_label_->setObjectName("playground.source_label");
  source_label_->setWordWrap(true);
  source_ = new SourceView;
  source_->setObjectName("playground.source");
  src_col->addWidget(source_label_);
  src_col->addWidget(source_, 1);
  ladder_split->addWidget(src_box);
  ladder_split->setStretchFactor(0, 3);
  ladder_split->setStretchFactor(1, 2);
  ladder_split->setChildrenCollapsible(false);
  ladder_split->setSizes({650, 350});  // until shown: then the ladder whole, the source as wide as its lines
  fit_source_beside(ladder_split, ladder_, source_);
  tabs_->addTab(ladder_split, tr("Ladder"));
  roofline_ = new RooflineChart;
  tabs_->addTab(roofline_, tr("Roofline"));
  timeline_ = new TimelinePanel(hub_);
  timeline_->setObjectName("playground.timeline");
  tabs_->addTab(timeline_, tr("Timeline"));
  tabs_->addTab(buildCompare(), tr("Compare"));
  connect(ladder_, &LadderView::variantSelected, this, &PlaygroundWorkspace::showSource);
  return tabs_;
}

QWidget* PlaygroundWorkspace::buildCompare() {
  auto* box = new QWidget;
  auto* col = new QVBoxLayout(box);
  compare_label_ = new QLabel(tr("Open a playground session, then Compare… another (two cards, or two launches)."));
  compare_label_->setObjectName("playground.compare_label");
  compare_label_->setWordWrap(true);
  compare_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  compare_table_ = new QTableWidget(0, 6);
  compare_table_->setObjectName("playground.compare");
  compare_table_->setHorizontalHeaderLabels({tr("family"), tr("variant"), tr("A"), tr("B"), tr("B / A"), tr("faster")});
  compare_table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  compare_table_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);  // the variant's name
  compare_table_->verticalHeader()->setDefaultSectionSize(compare_table_->fontMetrics().height() + 6);
  compare_table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  compare_table_->verticalHeader()->hide();
  col->addWidget(compare_label_);
  col->addWidget(compare_table_, 1);
  return box;
}

bool PlaygroundWorkspace::openSession(const QString& path, std::shared_ptr<lessons::PlainSession> plain) {
  playground::StoredRun run;
  std::shared_ptr<prof::EventSource> source;
  try {
    if (!plain) plain = std::make_shared<lessons::PlainSession>(path.toStdString());
    run = playground::read_playground_session(plain->path());
    if (run.ladders.empty())
      throw std::runtime_error(path.toStdString() +
                               " holds no playground run (a training session, or a file before format 3)");
    source = prof::open_session(plain->path());
  } catch (const std::exception& e) {
    setStatus(QString::fromUtf8(e.what()), true);
    return false;
  }
  run_ = std::move(run);
  plain_ = std::move(plain);
  shown_ = path;
  hub_->setStore(std::shared_ptr<const prof::EventStore>(source, &source->store()), false);
  roofline_->setRun(run_.ladders, QString::fromStdString(run_.device));
  showLadderOf(family_);
  int failed = 0;
  for (const auto& l : run_.ladders) failed += l.failed_checks();
  session_label_->setText(tr("Shown: %1 — %2, %3 ladder(s), times: %4%5")
                              .arg(QFileInfo(path).fileName(), QString::fromStdString(run_.device))
                              .arg(run_.ladders.size())
                              .arg(QString::fromStdString(run_.timing))
                              .arg(failed ? tr(", %1 check(s) FAILED").arg(failed) : QString()));
  save_button_->setEnabled(true);
  compare_button_->setEnabled(true);
  setStatus(tr("Opened %1").arg(QFileInfo(path).fileName()), false);
  emit sessionShown(path);
  return true;
}

bool PlaygroundWorkspace::openRecording() {
  QString tried;
  const QString rec = playground_recording(&tried);
  if (rec.isEmpty()) {
    setStatus(tr("No playground recording found (looked in %1)").arg(tried), true);
    return false;
  }
  if (!openSession(rec)) return false;
  setStatus(tr("Recorded session: %1 (%2). Nothing ran on this machine.")
                .arg(QFileInfo(rec).fileName(), QString::fromStdString(run_.device)),
            false);
  return true;
}

void PlaygroundWorkspace::showLadderOf(const QString& family) {
  if (!ladder_) return;
  const playground::Ladder* found = nullptr;
  for (const auto& l : run_.ladders)
    if (QString::fromStdString(l.family) == family) found = &l;
  if (found)
    ladder_->setLadder(*found);
  else
    ladder_->clear();
  roofline_->setFocusFamily(family);
  showSource(found && !found->variants.empty() ? 0 : -1);
}

void PlaygroundWorkspace::showSource(int row) {
  const playground::Ladder* l = ladder_->ladder();
  const QString variant = l && row >= 0 ? QString::fromStdString(l->variants[static_cast<std::size_t>(row)].name) : "";
  QString anchor;
  QString path = kernel_source_path(family_, variant, &anchor);
  if (path.isEmpty() && variant.startsWith("cuBLAS")) {
    source_label_->setText(tr("%1: a cuBLAS kernel (NVIDIA's library; its source is not public). The kernel that "
                              "ran is named on the Timeline tab.")
                               .arg(variant));
    source_->clear();  // not the row shown before: a student would read it as cuBLAS's code
    source_->setProperty("file", QString());
    return;
  }
  QFile f(path);
  if (path.isEmpty() || !f.open(QIODevice::ReadOnly)) {
    source_label_->setText(tr("No source for %1").arg(family_));
    source_->clear();
    source_->setProperty("file", QString());
    return;
  }
  const QString file = QFileInfo(path).fileName();
  if (source_->property("file").toString() != file) {
    source_->setSource(QString::fromUtf8(f.readAll()));
    source_->setProperty("file", file);
  }
  source_label_->setText(tr("playground/kernels/%1 (read only) — %2").arg(file, anchor));
  // Its launches outlined on the Timeline tab (centred on the first).
  if (hub_->store()) {
    const QString name = kernel_named(*hub_->store(), anchor);
    if (name.isEmpty())
      hub_->clearHighlight();
    else
      hub_->setHighlight({tr("variant: %1").arg(variant), {}, name});
  }
  // The kernel's definition: its __global__ line, else the first mention.
  QTextCursor c;
  for (QTextBlock b = source_->document()->begin(); b.isValid(); b = b.next())
    if (b.text().contains("__global__") && b.text().contains(anchor + "(")) {
      c = QTextCursor(b);
      break;
    }
  if (c.isNull()) c = source_->document()->find(anchor);
  if (!c.isNull()) source_->showLineAtTop(c.blockNumber());
}

bool PlaygroundWorkspace::compareWith(const QString& path) {
  if (shown_.isEmpty()) {
    setStatus(tr("Open a playground session first: it is A, the one compared with it B."), true);
    return false;
  }
  playground::StoredRun b;
  try {
    lessons::PlainSession plain(path.toStdString());
    b = playground::read_playground_session(plain.path());
    if (b.ladders.empty()) throw std::runtime_error(path.toStdString() + " holds no playground run");
  } catch (const std::exception& e) {
    setStatus(QString::fromUtf8(e.what()), true);
    return false;
  }
  const auto c = playground::compare_runs(run_, b);
  QStringList head{tr("A: %1 (%2)").arg(QFileInfo(shown_).fileName(), QString::fromStdString(c.device_a)),
                   tr("B: %1 (%2)").arg(QFileInfo(path).fileName(), QString::fromStdString(c.device_b))};
  for (const auto& d : c.differences) head << tr("differs: ") + QString::fromStdString(d);
  head << QString::fromStdString(c.summary);
  compare_label_->setText(head.join('\n'));
  compare_table_->setRowCount(0);
  for (const auto& l : c.ladders)
    for (const auto& r : l.rows) {
      const int i = compare_table_->rowCount();
      compare_table_->insertRow(i);
      const QString unit = l.unit == playground::Unit::gbps ? " GB/s" : " TFLOP/s";
      auto val = [&](bool in, bool ok, double v) {
        return !in ? QString("-") : ok ? QString::number(v, 'f', 1) + unit : tr("FAILED: no time");
      };
      const QString faster = r.faster == '=' ? tr("same") : r.faster ? QString(QChar(r.faster)) : QString("-");
      const QStringList cells{QString::fromStdString(l.family),
                              QString::fromStdString(r.name),
                              val(r.in_a, r.passed_a, r.a),
                              val(r.in_b, r.passed_b, r.b),
                              r.ratio > 0 ? QString("%1x").arg(r.ratio, 0, 'f', 2) : "-",
                              faster};
      for (int k = 0; k < cells.size(); ++k) {
        auto* it = new QTableWidgetItem(cells[k]);
        if ((r.in_a && !r.passed_a && k == 2) || (r.in_b && !r.passed_b && k == 3))
          it->setForeground(QColor(176, 30, 30));
        if (k >= 2) it->setTextAlignment((k == 5 ? Qt::AlignHCenter : Qt::AlignRight) | Qt::AlignVCenter);
        compare_table_->setItem(i, k, it);
      }
    }
  tabs_->setCurrentWidget(compare_table_->parentWidget());
  setStatus(tr("Compared with %1").arg(QFileInfo(path).fileName()), false);
  return true;
}

bool PlaygroundWorkspace::saveSessionAs(const QString& path) {
  if (shown_.isEmpty() || !plain_) return false;
  QFile::remove(path);
  if (!QFile::copy(QString::fromStdString(plain_->path()), path)) {
    setStatus(tr("Could not write %1").arg(path), true);
    return false;
  }
  setStatus(tr("Saved as %1").arg(path), false);
  return true;
}

void PlaygroundWorkspace::chooseSession() {
  const QString p = QFileDialog::getOpenFileName(this, tr("Open a playground session"), QString(),
                                                 tr("Playground sessions (*.tsession *.tsession.zst)"));
  if (!p.isEmpty()) openSession(p);
}

void PlaygroundWorkspace::chooseCompare() {
  const QString p = QFileDialog::getOpenFileName(this, tr("Compare with a playground session"), QString(),
                                                 tr("Playground sessions (*.tsession *.tsession.zst)"));
  if (!p.isEmpty()) compareWith(p);
}

void PlaygroundWorkspace::chooseSave() {
  const QString p = QFileDialog::getSaveFileName(this, tr("Save the playground session"),
                                                 QFileInfo(shown_).completeBaseName(), tr("Sessions (*.tsession)"));
  if (!p.isEmpty()) saveSessionAs(p.endsWith(".tsession") ? p : p + ".tsession");
}

}  // namespace ts::gui
