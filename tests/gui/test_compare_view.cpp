// The compare view (widgets/compare) on the H200 sessions of tests/data: gpu_b128_nw4 (A) against
// gpu_b128_nw0_augment (B, input-bound). Config diff rows are exactly num_workers and augment;
// input_bound fires in B only; the step-time bars share one y axis and stack to each session's
// ms/step; the kernel diff model passes QAbstractItemModelTester, sorts numerically and filters;
// timelines aligned at step 5 start at each session's step 5, and panning or zooming one moves the
// other by the same amount; a bad file among the inputs gives one error line and the others show;
// the b16 session as a third adds a second diff and a third timeline. With TS_SHOTS_DIR set, each
// tab is grabbed as a PNG there (for looking at; not part of the checks). A heavy first step is
// marked ⚠ on images/s with the lessons' note.
#include <QAbstractItemModelTester>
#include <cmath>
#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTabBar>
#include <QToolButton>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>
#include <qcustomplot.h>

#include "widgets/common/count_ticker.h"
#include "widgets/compare/aligned_timelines.h"
#include "widgets/compare/compare_charts.h"
#include "gui/window_probe.h"
#include "widgets/compare/compare_tables.h"
#include "widgets/compare/compare_view.h"
#include "widgets/compare/kernel_diff_model.h"
#include "widgets/common/plot_export.h"
#include "widgets/panels/breakdown_chart.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/panels/panel_plot.h"
#include "widgets/panels/utilization_panel.h"
#include "widgets/panels/verdict_panel.h"
#include "widgets/timeline/categories.h"
#include "widgets/timeline/timeline_view.h"

using namespace ts;
using namespace ts::gui;
namespace pa = prof::analysis;
namespace pc = prof::compare;

namespace {

QString data_file(const char* name) { return QStringLiteral(TRAINSCOPE_SOURCE_DIR "/tests/data/") + name; }

const prof::StepRecord* step_row(const prof::EventStore& s, qint64 k) {
  for (std::size_t i = 0; i < s.steps.size(); ++i)
    if (s.steps[i].global_step == k) return &s.steps[i];
  return nullptr;
}

bool load(CompareView& v, const QStringList& paths) {
  QSignalSpy ready(&v, &CompareView::ready);
  QSignalSpy failed(&v, &CompareView::failed);
  v.openSessions(paths);
  return QTest::qWaitFor([&] { return ready.count() + failed.count() > 0; }, 60000) && ready.count() == 1;
}

QStringList row_labels(QTableWidget* t) {
  QStringList r;
  for (int i = 0; i < t->rowCount(); ++i) r << t->verticalHeaderItem(i)->text();
  return r;
}

QStringList verdict_ids(QTreeWidget* t, int session) {
  QStringList ids;
  QTreeWidgetItem* top = t->topLevelItem(session);
  for (int i = 0; top && i < top->childCount(); ++i) ids << top->child(i)->data(0, Qt::UserRole).toString();
  return ids;
}

void shots(CompareView& v, const QString& prefix) {
  const QString dir = qEnvironmentVariable("TS_SHOTS_DIR");
  if (dir.isEmpty()) return;
  QDir().mkpath(dir);
  for (int i = 0; i < v.tabs()->count(); ++i) {
    v.tabs()->setCurrentIndex(i);
    QTest::qWait(150);
    QVERIFY(v.grab().save(dir + QStringLiteral("/%1_%2.png").arg(prefix).arg(i)));
  }
}

}  // namespace

class TestCompareView : public QObject {
  Q_OBJECT
  const QString a_ = data_file("gpu_b128_nw4.tsession");
  const QString b_ = data_file("gpu_b128_nw0_augment.tsession");
  const QString c_ = data_file("gpu_b16_nw4.tsession");

 private slots:
  void configThroughputVerdicts() {
    CompareView v;
    QSignalSpy progress(&v, &CompareView::loadProgress);
    QVERIFY(load(v, {a_, b_}));
    QCOMPARE(v.state(), CompareView::State::ready);
    QVERIFY(progress.count() >= 1);
    QCOMPARE(progress.last().at(0).toInt(), 100);
    QVERIFY(v.errorText().isEmpty());
    QVERIFY(v.tabs()->isEnabled());
    // Configuration: only num_workers and augment differ.
    QCOMPARE(row_labels(v.configTable()), QStringList({"num_workers", "augment"}));
    QCOMPARE(v.configTable()->item(0, 0)->text(), QString("4"));
    QCOMPARE(v.configTable()->item(0, 1)->text(), QString("0"));
    QCOMPARE(v.configTable()->item(1, 0)->text(), QString("false"));
    QCOMPARE(v.configTable()->item(1, 1)->text(), QString("true"));
    QVERIFY(v.configTable()->horizontalHeaderItem(1)->text().contains("gpu_b128_nw0_augment"));
    // The sessions' facts below the diff (equal or not).
    QTableWidget* facts = v.sessionsTable();
    const int device = row_labels(facts).indexOf("device"), workers = row_labels(facts).indexOf("num_workers");
    QVERIFY(device >= 0 && workers >= 0);
    QCOMPARE(facts->item(device, 0)->text(), QString("NVIDIA H200"));
    QCOMPARE(facts->item(device, 1)->text(), QString("NVIDIA H200"));
    QCOMPARE(facts->item(workers, 1)->text(), QString("0"));
    QCOMPARE(facts->item(row_labels(facts).indexOf("steps recorded"), 0)->text(), QString::number(v.stores()[0]->steps.size()));
    // Throughput: the library's numbers, B slower than A (input-bound), change shown against A. One
    // throughput (images/s of training time, the epochs table's) in the table, the chart and the
    // headline, under one label; no host-step rate beside it.
    const pc::Comparison& c = *v.comparison();
    const double rate_a = *c.sessions[0].throughput.training.img_per_s, rate_b = *c.sessions[1].throughput.training.img_per_s;
    QVERIFY(c.sessions[0].throughput.training.from_epochs);
    QVERIFY(rate_b < rate_a);
    QTableWidget* t = v.throughputTable();
    const int rate_row = static_cast<int>(ThroughputRow::img_s);
    QCOMPARE(t->verticalHeaderItem(rate_row)->text(), training_rate_label());
    QVERIFY2(t->item(rate_row, 0)->text().startsWith(QLocale(QLocale::English).toString(rate_a, 'f', 0)), qPrintable(t->item(rate_row, 0)->text()));
    QVERIFY2(t->item(rate_row, 1)->text().contains(QStringLiteral("(−")), qPrintable(t->item(rate_row, 1)->text()));
    for (const QString& label : row_labels(t)) QVERIFY2(!label.contains("median"), qPrintable(label));
    const int step_row = static_cast<int>(ThroughputRow::mean_step_ms), wait_row = static_cast<int>(ThroughputRow::data_wait_ms);
    QCOMPARE(t->verticalHeaderItem(step_row)->text(), host_step_label());
    QCOMPARE(t->item(step_row, 0)->text(), QStringLiteral("%1 ms").arg(*c.sessions[0].throughput.mean_step_ns / 1e6, 0, 'f', 3));
    QCOMPARE(t->verticalHeaderItem(wait_row)->text(), data_wait_label());
    QCOMPARE(t->item(wait_row, 1)->text(), QStringLiteral("%1 ms").arg(*pc::data_wait_ns_per_step(c.sessions[1].report) / 1e6, 0, 'f', 3));
    QVERIFY(t->item(static_cast<int>(ThroughputRow::test_accuracy), 0)->text().endsWith("%"));
    QCOMPARE(v.throughputChart()->rateBars()->data()->size(), 2);
    QCOMPARE(v.throughputChart()->rateBars()->data()->at(1)->value, rate_b);
    QCOMPARE(v.throughputChart()->rateBars()->name(), training_rate_label());
    // The headline says what changed, and a first comparison opens on throughput, not the configuration.
    const double ratio = rate_b / rate_a;
    const QString head = v.headerText();
    QVERIFY2(head.contains(QString("B: %1× A's %2").arg(ratio, 0, 'f', 2).arg(training_rate_label())), qPrintable(head));
    QVERIFY2(head.contains(host_step_label()) && head.contains("new verdicts: input-bound") && !head.contains("input_bound"), qPrintable(head));
    QCOMPARE(v.tabs()->currentIndex(), 1);
    // Verdicts: input_bound in B only (matrix and details).
    QVERIFY(!verdict_ids(v.verdictTree(), 0).contains("input_bound"));
    QVERIFY(verdict_ids(v.verdictTree(), 1).contains("input_bound"));
    const int row = row_labels(v.verdictMatrix()).indexOf("input-bound");  // in words, not the id
    QVERIFY(row >= 0);
    QCOMPARE(v.verdictMatrix()->item(row, 0)->text(), QStringLiteral("–"));
    QCOMPARE(v.verdictMatrix()->item(row, 1)->text(), QString("high"));
    // Each verdict carries its evidence and fix rows.
    QTreeWidgetItem* ib = v.verdictTree()->topLevelItem(1)->child(verdict_ids(v.verdictTree(), 1).indexOf("input_bound"));
    QCOMPARE(ib->childCount(), 2);
    QVERIFY(ib->child(0)->text(0).startsWith("evidence (whole run): "));
    QVERIFY(ib->child(1)->text(0).startsWith("fix: "));
    // In the window's words (Run settings), not the runner's flags.
    QVERIFY2(ib->child(1)->text(0).contains("num_workers 4") && !ib->child(1)->text(0).contains("--num-workers"),
             qPrintable(ib->child(1)->text(0)));
    // On a machine without a CUDA GPU the AMP fix is not proposed, as the window's Verdicts tab says
    // (Compare offered "In Run settings: AMP bf16 for the next run" beside its "not applicable").
    auto amp_fix = [&v] {
      const int at = verdict_ids(v.verdictTree(), 0).indexOf("amp_eligible");
      return at < 0 ? QString() : v.verdictTree()->topLevelItem(0)->child(at)->child(1)->text(0);
    };
    QVERIFY2(amp_fix().contains("In Run settings: AMP bf16"), qPrintable(amp_fix()));
    v.setCudaGpuHere(false);
    QVERIFY2(amp_fix().contains("AMP bf16 on a machine with a CUDA GPU (this one has none)") && !amp_fix().contains("In Run settings: AMP") &&
                 !amp_fix().contains("not applicable"),
             qPrintable(amp_fix()));
  }

  /// A heavy first step is said where images/s is shown, by the rule and words a lesson uses
  /// (compare::describe_first_steps): gpu_b128_nw4's step 1 took 37.4 ms, many times its median
  /// step, so its 116,230 img/s of training time reads far below its steps' own rates; B's first step
  /// is not heavy and its cell has no mark.
  void aHeavyFirstStepIsMarkedOnImagesPerSecond() {
    CompareView v;
    QVERIFY(load(v, {a_, b_}));
    const pc::Comparison& c = *v.comparison();
    const std::string first_a = pc::describe_first_steps(c.sessions[0].throughput);
    QVERIFY2(!first_a.empty(), "gpu_b128_nw4's first step is no longer heavy: pick another session");
    QVERIFY(c.sessions[0].throughput.first_steps_ns > 30'000'000);
    QTableWidgetItem* cell = v.throughputTable()->item(static_cast<int>(ThroughputRow::img_s), 0);
    QCOMPARE(cell->text(), QLocale(QLocale::English).toString(*c.sessions[0].throughput.training.img_per_s, 'f', 0) + " ⚠");
    QCOMPARE(cell->toolTip(), QString::fromStdString(first_a));
    QVERIFY(cell->toolTip().startsWith("the first step took"));
    const bool heavy_b = !pc::describe_first_steps(c.sessions[1].throughput).empty();
    QCOMPARE(v.throughputTable()->item(static_cast<int>(ThroughputRow::img_s), 1)->text().contains("⚠"), heavy_b);
    // The headline's A rate carries the mark too, and its tooltip the reason.
    QVERIFY2(v.headerText().contains(QLocale(QLocale::English).toString(*c.sessions[0].throughput.training.img_per_s, 'f', 0) + " ⚠"),
             qPrintable(v.headerText()));
    QVERIFY2(v.findChild<QLabel*>("compare.header")->toolTip().contains(QString::fromStdString(first_a)), qPrintable(v.findChild<QLabel*>("compare.header")->toolTip()));
  }

  /// One writer per figure: the img/s chart's y ticks read as Train's img/s axis writes them ("40k",
  /// CountTicker), never "40000" beside the table's and bars' "116,230"; and the headline's host step
  /// is the Throughput table's figure (3 decimals: it wrote 0.61 beside the table's 0.613).
  void chartTicksAndHeadlineAsTheTables() {
    CompareView v;
    v.resize(1280, 720);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    QVERIFY(load(v, {a_, b_}));
    v.tabs()->setCurrentIndex(1);  // Throughput, where the chart is
    QCustomPlot* plot = v.throughputChart()->plot();
    QTRY_VERIFY(plot->isVisible() && plot->height() > 100);
    plot->replot();
    QCPAxis* y = plot->yAxis;
    const QVector<double> ticks = y->tickVector();
    const QVector<QString> labels = y->tickVectorLabels();
    QVERIFY2(ticks.size() >= 2 && ticks.size() == labels.size(), qPrintable(QStringList(labels.begin(), labels.end()).join(" ")));
    QVERIFY(y->range().upper > 10000);  // rates of ~100k img/s: ticks of five digits unless written short
    const double step = ticks[1] - ticks[0];
    for (int i = 0; i < ticks.size(); ++i) {
      QVERIFY2(!labels[i].contains(QRegularExpression("\\d{4}")), qPrintable(labels[i]));
      QCOMPARE(labels[i], CountTicker::label(ticks[i], step));
    }
    QVERIFY(dynamic_cast<CountTicker*>(y->ticker().data()));
    const QString step_a = v.throughputTable()->item(static_cast<int>(ThroughputRow::mean_step_ms), 0)->text();
    QVERIFY2(QRegularExpression("^\\d[\\d,]*\\.\\d{3} ms$").match(step_a).hasMatch(), qPrintable(step_a));  // "0.613 ms"
    QVERIFY2(v.headerText().contains(QStringLiteral(" vs %1").arg(step_a)), qPrintable(v.headerText() + " / " + step_a));
  }

  /// In classroom mode (the application's font x1.5) a lesson's Compare column at 1280 px is ~740 px
  /// wide: every tab stays in view, none behind the tab bar's scroll arrows (Configuration was).
  void everyTabInViewInClassroomMode() {
    const QFont desktop = QApplication::font();
    QFont big = desktop;
    big.setPointSizeF(desktop.pointSizeF() * 1.5);
    QApplication::setFont(big);
    {
      CompareView v;
      v.resize(740, 600);
      v.show();
      QVERIFY(QTest::qWaitForWindowExposed(&v));
      QTabBar* bar = v.tabs()->tabBar();
      QTRY_VERIFY(bar->width() > 0);
      for (auto* arrow : bar->findChildren<QToolButton*>())
        QVERIFY2(!arrow->isVisible(), "the tab bar scrolls");
      for (int i = 0; i < bar->count(); ++i) {
        const QRect r = bar->tabRect(i);
        QVERIFY2(r.left() >= 0 && r.right() <= bar->width() && bar->mapTo(&v, r.topRight()).x() <= v.width(),
                 qPrintable(QString("%1 at %2..%3 of %4 px").arg(bar->tabText(i)).arg(r.left()).arg(r.right()).arg(bar->width())));
        QVERIFY(!bar->tabToolTip(i).isEmpty());
      }
    }
    QApplication::setFont(desktop);
  }

  /// The Step time tab's total is the mean step window (host step + the GPU work it launched); the
  /// headline's and Throughput's host step (mean) is the host step rows alone: for A 0.613 ms against
  /// 0.603 ms, two figures, so two names, and the total's tooltip names the other.
  void stepWindowAndHostStepAreNamedApart() {
    CompareView v;
    QVERIFY(load(v, {a_, b_}));
    const auto& a = v.comparison()->sessions.front();
    QVERIFY(a.throughput.mean_step_ns && a.report.steps > 0);
    const double window_ms = static_cast<double>(a.report.breakdown.total()) / a.report.steps / 1e6;
    QVERIFY2(std::abs(window_ms - *a.throughput.mean_step_ns / 1e6) >= 0.0005,
             qPrintable(QString("%1 ms both: the test needs sessions where they differ").arg(window_ms)));
    const int total_row = v.breakdownTable()->rowCount() - 1;
    const QTableWidgetItem* total = v.breakdownTable()->verticalHeaderItem(total_row);
    QVERIFY2(total->text().contains("step window"), qPrintable(total->text()));
    QVERIFY(!total->text().contains(host_step_label()));
    QVERIFY2(total->toolTip().contains(host_step_label()), qPrintable(total->toolTip()));
    QVERIFY2(v.breakdownTable()->item(total_row, 0)->text().startsWith(QString::number(window_ms, 'f', 3)),
             qPrintable(v.breakdownTable()->item(total_row, 0)->text()));
    QVERIFY(v.headerText().contains(host_step_label()));
    QVERIFY(!v.headerText().contains("step window"));
  }

  /// One name for one figure: the GPU's busy share of the steps (kernels, copies and memsets ÷ their
  /// time) is "GPU busy" in Compare's row, in the verdicts' evidence and in the Utilization track's GPU
  /// row (Compare said "GPU time-utilisation", the evidence "gpu utilization").
  void gpuBusyHasOneName() {
    CompareView v;
    QVERIFY(load(v, {a_, b_}));
    const QString row = v.throughputTable()->verticalHeaderItem(static_cast<int>(ThroughputRow::gpu_util))->text();
    QCOMPARE(row, QStringLiteral("GPU busy"));
    for (const QString& label : row_labels(v.throughputTable()))
      QVERIFY2(!label.contains("utilisation", Qt::CaseInsensitive) && !label.contains("utilization", Qt::CaseInsensitive),
               qPrintable(label));
    QCOMPARE(format_evidence("gpu_utilization_pct", 43.21), QStringLiteral("GPU busy 43.2 %"));
    PanelHub hub;
    UtilizationPanel track(&hub);
    hub.setStore(v.stores()[0], false);
    QTRY_VERIFY_WITH_TIMEOUT(track.graphFor("gpu.busy"), 10000);
    QVERIFY2(track.graphFor("gpu.busy")->name().startsWith(row + ":"), qPrintable(track.graphFor("gpu.busy")->name()));
  }

  void breakdownSharesOneScale() {
    CompareView v;
    QVERIFY(load(v, {a_, b_}));
    CompareBreakdownChart* chart = v.breakdownChart();
    const pc::Comparison& c = *v.comparison();
    PanelHub hub;
    BreakdownChart profile_chart(&hub);
    double top = 0;
    for (int k = 0; k < pa::kCategoryCount; ++k) {
      QCPBars* bars = chart->bars(static_cast<pa::Category>(k));
      QCOMPARE(bars->valueAxis(), chart->valueAxis());  // one y scale for every session
      QCOMPARE(bars->data()->size(), 2);
      QCOMPARE(bars->name(), step_category_label(k));
      // The same colour and name as in Profile's Step breakdown (they differed for four categories).
      QCPBars* profile_bars = nullptr;
      for (int i = 0; i < profile_chart.plot()->plottableCount(); ++i)
        if (auto* b = qobject_cast<QCPBars*>(profile_chart.plot()->plottable(i)); b && b->name() == bars->name()) profile_bars = b;
      QVERIFY2(profile_bars, qPrintable(bars->name()));
      QCOMPARE(profile_bars->brush().color(), bars->brush().color());
      if (k > 0) QCOMPARE(bars->barBelow(), chart->bars(static_cast<pa::Category>(k - 1)));
    }
    // And the timeline's colour of the same thing (its legend sits beside the Step breakdown).
    {
      using TC = prof::timeline::Category;
      QCOMPARE(chart->bars(pa::Category::memcpy)->brush().color(), timeline::category_color(TC::copy_h2d));
      QCOMPARE(chart->bars(pa::Category::data_wait)->brush().color(), timeline::category_color(TC::data_wait));
      QCOMPARE(chart->bars(pa::Category::sync_wait)->brush().color(), timeline::category_color(TC::sync));
      QCOMPARE(chart->bars(pa::Category::runtime)->brush().color(), timeline::category_color(TC::runtime));
    }
    for (int i = 0; i < 2; ++i) {
      const pa::Report& r = c.sessions[static_cast<std::size_t>(i)].report;
      double stacked = 0;
      for (int k = 0; k < pa::kCategoryCount; ++k) {
        const double ms = chart->bars(static_cast<pa::Category>(k))->data()->at(i)->value;
        QVERIFY(std::abs(ms - r.breakdown.ns[k] / 1e6 / r.steps) < 1e-12);
        stacked += ms;
      }
      QVERIFY(std::abs(stacked - chart->totalMsPerStep(i)) < 1e-9);
      top = std::max(top, stacked);
      QVERIFY(chart->hoverText(i).contains("data-loader wait"));
    }
    QVERIFY(chart->valueAxis()->range().upper >= top);
    QVERIFY(chart->valueAxis()->range().upper <= top * 1.2);
    QCOMPARE(chart->valueAxis()->range().lower, 0.0);
    // B waits for data longer than A (the input-bound session).
    QVERIFY(chart->bars(pa::Category::data_wait)->data()->at(1)->value >
            5 * chart->bars(pa::Category::data_wait)->data()->at(0)->value);
    QVERIFY(v.breakdownTable()->item(pa::kCategoryCount, 0)->text().contains("ms"));
    // Each step-time figure named by its statistic: the bars and the table's total are means, the
    // summary's step the median (unnamed, 0.613 ms beside "median step 0.49 ms" read as two values).
    QVERIFY(chart->valueAxis()->label().startsWith("mean "));
    QVERIFY(v.breakdownTable()->verticalHeaderItem(pa::kCategoryCount)->text().contains("mean"));
    QVERIFY(chart->hoverText(0).contains("mean "));
    // Every plot of the view has the export menu.
    QCOMPARE(chart->plot()->contextMenuPolicy(), Qt::CustomContextMenu);
    QCOMPARE(v.throughputChart()->plot()->contextMenuPolicy(), Qt::CustomContextMenu);
  }

  void knobsTracesDoNotRecordReadUnknown() {
    // Two traces (no run.config): num_workers is unknown in both, never "the same in every session".
    CompareView v;
    QVERIFY(load(v, {data_file("traces/kineto_small.json"), data_file("traces/flows_skew.json")}));
    QTableWidget* t = v.configTable();
    int row = -1;
    for (int r = 0; r < t->rowCount(); ++r)
      if (t->verticalHeaderItem(r) && t->verticalHeaderItem(r)->text() == "num_workers") row = r;
    QVERIFY2(row >= 0, "no num_workers row");
    QCOMPARE(t->item(row, 0)->text(), QString("unknown"));
    QCOMPARE(t->item(row, 1)->text(), QString("unknown"));
  }

  /// At 1280x720 the kernel names get the room the numbers leave: each number column no wider than its
  /// header or widest value needs, every header whole, the name column the widest; a cut name's
  /// tooltip is the whole name.
  void kernelNamesGetTheRoom() {
    CompareView v;
    v.resize(1280, 720);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    QVERIFY(load(v, {a_, b_}));
    KernelDiffPanel* p = v.kernelPanel();
    for (int i = 0; i < v.tabs()->count(); ++i)
      if (v.tabs()->tabText(i) == "Kernels") v.tabs()->setCurrentIndex(i);
    QTableView* t = p->table();
    QApplication::processEvents();
    QVERIFY2(test::cut_headers(t).isEmpty(), qPrintable(test::cut_headers(t)));
    const QFontMetrics fm(t->font());
    int numbers = 0;
    for (int c = 1; c < KernelDiffModel::kColumnCount; ++c) {
      if (t->isColumnHidden(c)) continue;
      numbers += t->columnWidth(c);
      for (int r = 0; r < p->proxy()->rowCount(); ++r)
        QVERIFY2(fm.horizontalAdvance(p->proxy()->index(r, c).data().toString()) <= t->columnWidth(c),
                 qPrintable(p->proxy()->index(r, c).data().toString()));
    }
    QVERIFY2(t->columnWidth(KernelDiffModel::kName) * 2 >= numbers,
             qPrintable(QString("names %1 px, numbers %2 px").arg(t->columnWidth(KernelDiffModel::kName)).arg(numbers)));
    for (int r = 0; r < p->proxy()->rowCount(); ++r)
      QVERIFY(!p->proxy()->index(r, KernelDiffModel::kName).data(Qt::ToolTipRole).toString().isEmpty());
  }

  /// A CPU run beside a GPU run: the GPU's fields (memory, compute capability, CUDA/cuDNN versions, the
  /// CUDA-only knobs) say they do not apply to the CPU run, never a made-up 0; so do its CUPTI drops.
  void gpuOnlyFieldsOfACpuRunSayNotApplicable() {
    CompareView v;
    QVERIFY(load(v, {data_file("cpu_b64_nw1.tsession"), a_}));
    QTableWidget* t = v.configTable();
    const QStringList rows = row_labels(t);
    int gpu_only = 0;
    for (int r = 0; r < t->rowCount(); ++r) {
      if (!pc::gpu_only_field(rows[r].toStdString())) continue;
      ++gpu_only;
      QCOMPARE(t->item(r, 0)->text(), QString("n/a (CPU run)"));
      QVERIFY2(t->item(r, 1)->text() != "n/a (CPU run)", qPrintable(rows[r]));
    }
    for (const char* k : {"device.total_memory_bytes", "device.compute_capability", "versions.cudnn", "cuda_graphs"})
      QVERIFY2(rows.contains(k), k);
    QVERIFY(gpu_only >= 4);
    const int dropped = row_labels(v.sessionsTable()).indexOf("dropped CUPTI records");
    QVERIFY(dropped >= 0);
    QCOMPARE(v.sessionsTable()->item(dropped, 0)->text(), QString("n/a (CPU run)"));
    QCOMPARE(v.sessionsTable()->item(dropped, 1)->text(), QString("0"));
  }

  void kernelDiffModel() {
    CompareView v;
    QVERIFY(load(v, {a_, b_}));
    KernelDiffPanel* p = v.kernelPanel();
    KernelDiffModel* m = p->model();
    QAbstractItemModelTester tm(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester tp(p->proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    const pc::KernelDiff& d = v.comparison()->kernel_diffs[0];
    QCOMPARE(m->rowCount(), static_cast<int>(d.rows.size()));
    QCOMPARE(d.removed, 3);
    // The two kernels whose calls per step changed 2 -> 79 (a cuDNN algorithm switch) are "changed",
    // not slower (kernel_diff.h: kCallsChangedRatio).
    QCOMPARE(d.slower, 0);
    QCOMPARE(d.changed, 2);
    QVERIFY(p->summaryText().contains("2 changed"));
    QVERIFY(p->summaryText().contains("3 removed"));
    QCOMPARE(m->headerData(KernelDiffModel::kCallsB, Qt::Horizontal).toString(), QString("calls B"));
    // Unsorted: the library's order (largest |Δ µs/step| first).
    QCOMPARE(p->proxy()->index(0, 0).data().toString(), short_kernel_name(d.rows[0].name));
    QCOMPARE(p->proxy()->index(0, 0).data(Qt::ToolTipRole).toString(), QString::fromStdString(d.rows[0].name));
    QCOMPARE(short_kernel_name("void cudnn::detail::dgrad_engine<float, 512, 6>(int, float const*, int (*)(int))"),
             QString("cudnn::detail::dgrad_engine<float, 512, 6>"));
    QCOMPARE(short_kernel_name("sm80_xmma_gemm_f32f32_tn_n"), QString("sm80_xmma_gemm_f32f32_tn_n"));
    // Total ms columns hidden at first, shown on request.
    QVERIFY(p->table()->isColumnHidden(KernelDiffModel::kTotalA));
    QVERIFY(!p->table()->isColumnHidden(KernelDiffModel::kDeltaPerStep));
    p->setColumnShown(KernelDiffModel::kTotalA, true);
    QVERIFY(!p->table()->isColumnHidden(KernelDiffModel::kTotalA));
    // Numeric sort: calls B ascending (as text "154" < "79"), Δ µs/step descending.
    auto column_values = [&](int col) {
      std::vector<double> v;
      for (int r = 0; r < p->proxy()->rowCount(); ++r) v.push_back(p->proxy()->index(r, col).data(KernelDiffModel::SortRole).toDouble());
      return v;
    };
    p->table()->sortByColumn(KernelDiffModel::kCallsB, Qt::AscendingOrder);
    auto calls = column_values(KernelDiffModel::kCallsB);
    QVERIFY(std::is_sorted(calls.begin(), calls.end()));
    QVERIFY(calls.front() < 10 && calls.back() > 100);  // removed kernels (0 calls) first
    QCOMPARE(p->proxy()->index(0, KernelDiffModel::kCallsB).data().toString(), QString("0"));
    p->table()->sortByColumn(KernelDiffModel::kDeltaPerStep, Qt::DescendingOrder);
    auto delta = column_values(KernelDiffModel::kDeltaPerStep);
    QVERIFY(std::is_sorted(delta.rbegin(), delta.rend()));
    QVERIFY(delta.front() > 50);   // dgrad_engine: +71 µs/step
    QVERIFY(delta.back() < -5);    // winograd forward data removed: −9.2 µs/step
    QVERIFY(p->proxy()->index(0, 0).data().toString().contains("dgrad_engine"));
    // Filters: by change class and by name.
    p->changeBox()->setCurrentIndex(p->changeBox()->findData(static_cast<int>(pc::KernelChange::removed)));
    QCOMPARE(p->proxy()->rowCount(), 3);
    for (int r = 0; r < 3; ++r) QCOMPARE(p->proxy()->index(r, KernelDiffModel::kChange).data().toString(), QString("removed"));
    p->changeBox()->setCurrentIndex(0);
    p->nameFilter()->setText("WINOGRAD");
    QVERIFY(p->proxy()->rowCount() >= 3);
    for (int r = 0; r < p->proxy()->rowCount(); ++r)
      QVERIFY(p->proxy()->index(r, 0).data(Qt::ToolTipRole).toString().contains("winograd"));
    p->nameFilter()->clear();
    QCOMPARE(p->proxy()->rowCount(), m->rowCount());
    // Added/removed have no relative change; they sort beyond every finite one.
    const QModelIndex removed = m->index(static_cast<int>(std::find_if(d.rows.begin(), d.rows.end(), [](const auto& r) {
                                                             return r.change == pc::KernelChange::removed;
                                                           }) - d.rows.begin()), KernelDiffModel::kDeltaMeanPct);
    QCOMPARE(removed.data().toString(), QStringLiteral("–"));
    QVERIFY(std::isinf(removed.data(KernelDiffModel::SortRole).toDouble()));
  }

  void alignedTimelines() {
    CompareView v;
    v.resize(1400, 900);
    v.show();
    QVERIFY(load(v, {a_, b_}));
    v.tabs()->setCurrentWidget(v.timelines());
    QCoreApplication::processEvents();
    AlignedTimelines* tl = v.timelines();
    QCOMPARE(tl->count(), 2);
    const prof::EventStore& sa = *v.stores()[0];
    const prof::EventStore& sb = *v.stores()[1];
    QCOMPARE(tl->alignedStep(), v.comparison()->aligned_step);
    tl->stepBox()->setValue(5);
    QCOMPARE(tl->alignedStep(), qint64(5));
    const qint64 a5 = step_row(sa, 5)->start, b5 = step_row(sb, 5)->start;
    QCOMPARE(tl->view(0)->range().start, a5);
    QCOMPARE(tl->view(1)->range().start, b5);
    QCOMPARE(tl->hub(1)->visibleRange().start, b5);
    QCOMPARE(tl->offsetNs(1), a5 - b5);
    const qint64 span = tl->view(0)->range().end - a5;
    QCOMPARE(tl->view(1)->range().end - b5, span);  // the same time scale
    QVERIFY(span >= step_row(sa, 5)->end - a5 && span >= step_row(sb, 5)->end - b5);
    QCOMPARE(tl->view(0)->plotWidth(), tl->view(1)->plotWidth());
    // Panning A (D: 10 % of the span later) pans B by the same ns.
    tl->view(0)->setFocus();
    QTest::keyClick(tl->view(0), Qt::Key_D);
    const qint64 moved = tl->view(0)->range().start - a5;
    QVERIFY(moved > 0);
    QCOMPARE(tl->view(1)->range().start, b5 + moved);
    QCOMPARE(tl->view(1)->range().end - tl->view(1)->range().start, tl->view(0)->range().end - tl->view(0)->range().start);
    // Zooming B (W) zooms A the same way, in aligned time.
    QTest::keyClick(tl->view(1), Qt::Key_W);
    const TimeSpan rb = tl->view(1)->range(), ra = tl->view(0)->range();
    QVERIFY(rb.end - rb.start < span);
    QCOMPARE(ra.start, rb.start + tl->offsetNs(1));
    QCOMPARE(ra.end, rb.end + tl->offsetNs(1));
    // Choosing another step re-aligns; a step beyond the sessions is refused by the spin box.
    tl->stepBox()->setValue(20);
    QCOMPARE(tl->view(0)->range().start, step_row(sa, 20)->start);
    QCOMPARE(tl->view(1)->range().start, step_row(sb, 20)->start);
    QVERIFY(!tl->alignAt(100000));
    QCOMPARE(tl->alignedStep(), qint64(20));
    QVERIFY(tl->infoText().contains("missing"));
  }

  void badFileAmongInputs() {
    QTemporaryDir dir;
    const QString bad = dir.filePath("broken.tsession");
    {
      QFile f(bad);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("this is not a session\n");
    }
    CompareView v;
    QVERIFY(load(v, {a_, bad, b_}));
    QVERIFY(!v.errorText().isEmpty());
    QVERIFY(!v.errorText().contains('\n'));
    QVERIFY(v.errorText().contains("broken.tsession"));
    QVERIFY(v.errorText().contains("1 of 3"));
    QCOMPARE(v.comparison()->sessions.size(), std::size_t(2));  // the two good ones, still compared
    QCOMPARE(row_labels(v.configTable()), QStringList({"num_workers", "augment"}));
    QCOMPARE(v.timelines()->count(), 2);
    // One good file and a missing one: the good one is shown alone.
    CompareView one;
    QVERIFY(load(one, {dir.filePath("missing.tsession"), a_}));
    QVERIFY(one.errorText().contains("missing.tsession"));
    QCOMPARE(one.comparison()->sessions.size(), std::size_t(1));
    QCOMPARE(one.kernelPanel()->model()->rowCount(), 0);
    QCOMPARE(one.timelines()->count(), 1);
    QVERIFY(one.breakdownChart()->totalMsPerStep(0) > 0);
    // Nothing opens: failed with the error line.
    CompareView none;
    QSignalSpy failed(&none, &CompareView::failed);
    none.openSessions({bad});
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
    QCOMPARE(none.state(), CompareView::State::failed);
    QVERIFY(failed.at(0).at(0).toString().contains("broken.tsession"));
    QVERIFY(!none.tabs()->isEnabled());
  }

  void storesAndThirdSession() {
    CompareView v;
    v.resize(1400, 900);
    v.show();
    QVERIFY(load(v, {a_, b_, c_}));
    QCOMPARE(v.comparison()->sessions.size(), std::size_t(3));
    QCOMPARE(v.kernelPanel()->diffBox()->count(), 2);
    v.kernelPanel()->diffBox()->setCurrentIndex(1);
    QCOMPARE(v.kernelPanel()->model()->diff().session_b, std::size_t(2));
    QCOMPARE(v.kernelPanel()->model()->headerData(KernelDiffModel::kCallsB, Qt::Horizontal).toString(), QString("calls C"));
    QVERIFY(verdict_ids(v.verdictTree(), 2).contains("launch_bound"));
    QCOMPARE(row_labels(v.verdictMatrix()).size(), 3);  // input_bound, launch_bound, amp_eligible
    // Fitted tables show every shown row without scrolling (the measured rows are hidden: these
    // sessions have no measured metrics).
    for (QTableWidget* t : {v.verdictMatrix(), v.throughputTable(), v.breakdownTable(), v.configTable()}) {
      QWidget* page = t;  // the tab page holding the table (a scroll area around the table's page)
      while (page && v.tabs()->indexOf(page) < 0) page = page->parentWidget();
      QVERIFY(page);
      v.tabs()->setCurrentWidget(page);
      QCoreApplication::processEvents();
      int shown = 0;
      for (int r = 0; r < t->rowCount(); ++r) shown += t->isRowHidden(r) ? 0 : 1;
      QVERIFY2(t->viewport()->height() >= shown * t->verticalHeader()->defaultSectionSize(),
               qPrintable(QString("%1 < %2 rows").arg(t->viewport()->height()).arg(shown)));
    }
    QVERIFY(row_labels(v.configTable()).contains("batch_size"));
    QCOMPARE(v.timelines()->count(), 3);
    QCOMPARE(v.timelines()->view(2)->range().start, step_row(*v.stores()[2], v.timelines()->alignedStep())->start);
    shots(v, "three");
    // Already loaded stores are compared as they are (no loading).
    CompareView s;
    QSignalSpy ready(&s, &CompareView::ready);
    s.setInputs({{"first", "", v.stores()[0]}, {"second", "", v.stores()[1]}});
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);
    QCOMPARE(s.configTable()->rowCount(), 2);
    QVERIFY(s.configTable()->horizontalHeaderItem(0)->text().contains("first"));
  }

  void cancelAndReplace() {
    CompareView v;
    QSignalSpy ready(&v, &CompareView::ready);
    v.openSessions({a_, b_});
    QCOMPARE(v.state(), CompareView::State::loading);
    QVERIFY(v.progressBar()->isVisibleTo(&v));
    v.openSessions({a_, c_});  // replaces the first request: only its result shows
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 60000);
    QTest::qWait(200);
    QCOMPARE(ready.count(), 1);
    QVERIFY(QString::fromStdString(v.comparison()->sessions[1].label).endsWith("gpu_b16_nw4.tsession"));
    QSignalSpy failed(&v, &CompareView::failed);
    v.openSessions({a_, b_});
    v.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count() + failed.count(), 2, 60000);
    // A cancel that arrives after both loads finished changes nothing; otherwise it says so.
    if (failed.count() == 1) QCOMPARE(v.statusText(), QString("Loading cancelled."));
  }

  void screenshotsTwoSessions() {
    if (qEnvironmentVariable("TS_SHOTS_DIR").isEmpty()) QSKIP("TS_SHOTS_DIR not set");
    CompareView v;
    v.resize(1400, 860);
    v.show();
    QVERIFY(load(v, {a_, b_}));
    v.timelines()->stepBox()->setValue(5);
    shots(v, "two");
  }
};

QTEST_MAIN(TestCompareView)
#include "test_compare_view.moc"
