// Measured GPU metrics (CUPTI PM sampling) in the window: the Utilization panel's measured rows,
// labelled "measured" beside the estimates and on the shared time axis with the sampled values; the
// line that says why a session has none; the finding memory_bound_kernels and the measured figures
// in the Verdicts tab; the Profile workspace at 1280x720 with the measured rows (lanes, legends; with
// a tab open the first measured row stays readable).
// The session is gpu_b128_nw4 with synthetic PM series (gui/measured_session.h).
// TS_SCREENSHOTS=DIR saves Profile with the measured rows at 1280x720 and 1920x1080.
#include <QDir>
#include <QSplitter>
#include <QTableWidget>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>
#include <cmath>
#include <memory>
#include <qcustomplot.h>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "gui/window_probe.h"
#include "gui/measured_session.h"
#include "profiling/event_store.h"
#include "profiling/session/session_file.h"
#include "widgets/compare/compare_tables.h"
#include "widgets/compare/compare_view.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/panels/utilization_panel.h"
#include "widgets/panels/verdict_panel.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/workspaces/profile_workspace.h"
#include "widgets/workspaces/workspaces.h"

using namespace ts;
using namespace ts::gui;
using ts::gui::test::open_session;
using ts::gui::test::visible_rows;
using ts::gui::test::whole_lanes;

namespace {

const char* kPlainSession = TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession";
const char* kMeasuredKeys[] = {"pm.sm_active", "pm.tensor_active", "pm.warp_occupancy", "pm.dram_peak",
                               "pm.dram",      "pm.pcie_rx",       "pm.pcie_tx",        "pm.copy_ceiling"};

std::shared_ptr<prof::EventStore> load(const QString& path) {
  auto s = std::make_shared<prof::EventStore>();
  prof::read_session(path.toStdString(), *s);
  return s;
}

/// The first sample of metric series `name` in `store` (time ns, value).
std::pair<std::int64_t, double> first_sample(const prof::EventStore& store, const std::string& name) {
  std::uint32_t id = 0;
  for (std::size_t i = 0; i < store.metric_series.size(); ++i)
    if (store.strings.get(store.metric_series[i].name) == name) id = store.metric_series[i].id;
  for (std::size_t i = 0; i < store.metric_samples.size(); ++i)
    if (store.metric_samples[i].series == id) return {store.metric_samples[i].time, store.metric_samples[i].value};
  return {-1, 0};
}

/// The mean of series `name`'s samples with time in [a, b) (NaN when none).
double sample_mean(const prof::EventStore& store, const std::string& name, std::int64_t a, std::int64_t b) {
  std::uint32_t id = 0;
  for (std::size_t i = 0; i < store.metric_series.size(); ++i)
    if (store.strings.get(store.metric_series[i].name) == name) id = store.metric_series[i].id;
  double sum = 0;
  int n = 0;
  for (std::size_t i = 0; i < store.metric_samples.size(); ++i) {
    const auto& r = store.metric_samples[i];
    if (r.series == id && r.time >= a && r.time < b) sum += r.value, ++n;
  }
  return n > 0 ? sum / n : std::nan("");
}

QTreeWidgetItem* top_item(QTreeWidget* t, const QString& id) {
  for (int i = 0; i < t->topLevelItemCount(); ++i)
    if (t->topLevelItem(i)->data(0, Qt::UserRole).toString() == id) return t->topLevelItem(i);
  return nullptr;
}

QStringList child_texts(QTreeWidgetItem* top) {
  QStringList out;
  for (int i = 0; top && i < top->childCount(); ++i) out << top->child(i)->text(1);
  return out;
}

/// "" when every shown legend of the utilization plot is whole and inside the plot; else the plot's
/// height and each shown element's height / minimum (L legend, R row), to see what squeezed it.
QString cut_legends(UtilizationPanel* util) {
  QCustomPlot* plot = util->plot();
  for (QCPLayoutElement* e : plot->plotLayout()->elements(true)) {
    auto* l = qobject_cast<QCPLegend*>(e);
    if (!l || !l->visible() || l->itemCount() == 0) continue;
    if (l->outerRect().height() < l->minimumOuterSizeHint().height() || !plot->rect().contains(l->outerRect()))
    {
      QStringList d;
      for (QCPLayoutElement* x : plot->plotLayout()->elements(false))
        if (x && x->visible()) d << QString("%1:%2/%3").arg(qobject_cast<QCPLegend*>(x) ? "L" : "R").arg(x->outerRect().height()).arg(x->minimumOuterSizeHint().height());
      return QString("a legend of %1 items is %2 px high; plot %3: %4").arg(l->itemCount()).arg(l->outerRect().height()).arg(plot->height()).arg(d.join(' '));
    }
  }
  return {};
}

}  // namespace

class TestMeasuredTracks : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString sampled_, refused_;

 private slots:
  void initTestCase() {
    test::isolate_settings();
    QVERIFY(dir_.isValid());
    sampled_ = test::write_measured_session(dir_.path(), test::PmKind::sampled);
    refused_ = test::write_measured_session(dir_.path(), test::PmKind::refused);
  }
  void init() { QSettings().clear(); }

  void measuredRowsAreLabelledOnTheSharedTimeAxis() {
    PanelHub hub;
    UtilizationPanel p(&hub);
    const auto store = load(sampled_);
    hub.setStore(store, false);
    QTRY_VERIFY(p.graphFor("pm.sm_active") && p.graphFor("gpu.busy"));
    for (const char* key : kMeasuredKeys) {
      QCPGraph* g = p.graphFor(key);
      QVERIFY2(g, key);
      QVERIFY2(g->name().contains("(measured"), qPrintable(g->name()));
    }
    QVERIFY(p.graphFor("pm.sm_active")->name().contains("PM sampling 1 kHz"));
    // The DRAM and PCIe row's scale is a rate: "2 TB/s", not "2 TB".
    p.resize(900, 500);
    p.plot()->replot();
    const QVector<QString> labels = p.graphFor("pm.dram")->valueAxis()->tickVectorLabels();
    QVERIFY(labels.size() >= 2);
    for (const QString& l : labels) QVERIFY2(l == "0" || l.endsWith("B/s"), qPrintable(l));
    // The estimates stay, named as estimates.
    QCOMPARE(p.graphFor("gpu.sm_efficiency")->name(), QString("est. SM efficiency"));
    QCOMPARE(p.graphFor("gpu.achieved_occupancy")->name(), QString("est. achieved occupancy"));
    // The sampled values in time buckets (session s), each the mean of its samples, on one grid.
    const auto* grid = p.measuredBuckets("pm.sm_active");
    QVERIFY(grid && grid->bucket_ns > 0 && !grid->buckets.empty());
    for (const char* name : {"pm.sm_active", "pm.warp_occupancy", "pm.pcie_tx"}) {
      const auto [t, v] = first_sample(*store, name);
      QVERIFY(t >= grid->from && t < grid->from + grid->bucket_ns);  // the first bucket holds the first sample
      QCPGraph* g = p.graphFor(name);
      QCOMPARE(g->data()->constBegin()->key, grid->from / 1e9);
      QCOMPARE(g->data()->constBegin()->value, sample_mean(*store, name, grid->from, grid->from + grid->bucket_ns));
      QCOMPARE(g->data()->size(), p.graphFor("pm.sm_active")->data()->size());
    }
    const auto [t_rd, rd] = first_sample(*store, "pm.dram_read");
    const auto [t_wr, wr] = first_sample(*store, "pm.dram_write");
    QCOMPARE(t_rd, t_wr);
    QCOMPARE(p.graphFor("pm.dram")->data()->constBegin()->value,
             sample_mean(*store, "pm.dram_read", grid->from, grid->from + grid->bucket_ns) +
                 sample_mean(*store, "pm.dram_write", grid->from, grid->from + grid->bucket_ns));
    QCOMPARE(p.graphFor("pm.copy_ceiling")->data()->constBegin()->value, test::kCopyCeiling);
    // One time axis: the measured rows follow the GPU row's range.
    QCPAxis* gpu_x = p.graphFor("gpu.busy")->keyAxis();
    for (const char* key : kMeasuredKeys) QCOMPARE(p.graphFor(key)->keyAxis()->range(), gpu_x->range());
    hub.setVisibleRange({store->kernels[0].start, store->kernels[0].start + 50'000'000});
    QTRY_COMPARE(p.graphFor("pm.sm_active")->keyAxis()->range(), gpu_x->range());
    QCOMPARE(p.graphFor("pm.dram")->keyAxis()->range(), gpu_x->range());
    QVERIFY(p.measuredAbsentMessage().isEmpty());
    QVERIFY2(p.graphFor("pm.sm_active")->name().contains(QString("samples lost %1").arg(test::kSamplesLost)),
             qPrintable(p.graphFor("pm.sm_active")->name()));
  }

  void absentMetricsSayWhy_data() {
    QTest::addColumn<QString>("which");
    QTest::addColumn<QString>("why");
    QTest::addColumn<QString>("status");  // the status line's one-line form
    QTest::newRow("counters refused") << "refused" << "counters refused: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"
                                      << "measured: none, counters refused (hover)";
    QTest::newRow("before PM sampling") << "plain" << "not recorded in this session" << "measured: not recorded (hover)";
  }

  void absentMetricsSayWhy() {
    QFETCH(QString, which);
    QFETCH(QString, why);
    QFETCH(QString, status);
    PanelHub hub;
    UtilizationPanel p(&hub);
    hub.setStore(load(which == "refused" ? refused_ : QString(kPlainSession)), false);
    QTRY_VERIFY(p.graphFor("gpu.busy"));
    for (const char* key : kMeasuredKeys) QVERIFY2(!p.graphFor(key), key);
    QVERIFY(!p.measuredRowsShown());
    QVERIFY2(p.measuredAbsentMessage().startsWith("Measured GPU metrics: ") && p.measuredAbsentMessage().contains(why),
             qPrintable(p.measuredAbsentMessage()));
    QVERIFY2(p.statusText().contains(status), qPrintable(p.statusText()));
    // The CPU row's scale comes before the notes of what was not recorded (a one-line track header
    // cuts from the end), and only where the row has samples to scale.
    const QString text = p.statusText();
    const bool samples = p.cpuAbsentMessage().isEmpty();
    QCOMPARE(text.contains("CPU: 100"), samples);
    if (which == "plain") QVERIFY2(samples, "the plain session has CPU samples");
    if (samples) QVERIFY2(text.indexOf("CPU: 100") < text.indexOf("measured:"), qPrintable(text));
    // The estimates are drawn all the same.
    QVERIFY(p.graphFor("gpu.sm_efficiency"));
  }

  void theVerdictsTabShowsTheFindingAndTheMeasuredFigures() {
    PanelHub hub;
    VerdictPanel p(&hub);
    p.setScope(VerdictPanel::Scope::whole_run);
    hub.setStore(load(sampled_), false);
    QTRY_VERIFY_WITH_TIMEOUT(top_item(p.tree(), "measured"), 10000);
    QTreeWidgetItem* finding = top_item(p.tree(), "memory_bound_kernels");
    QVERIFY(finding);
    QVERIFY2(finding->text(1).contains("memory-bound") && finding->text(1).contains("2600 GB/s"), qPrintable(finding->text(1)));
    QVERIFY(!child_texts(finding).filter("dram").isEmpty() || finding->childCount() >= 2);
    QTreeWidgetItem* m = top_item(p.tree(), "measured");
    QVERIFY2(m->text(1).contains("CUPTI PM sampling 1 kHz") && m->text(1).contains(QString("%1 lost").arg(test::kSamplesLost)),
             qPrintable(m->text(1)));
    const QStringList lines = child_texts(m);
    const QString sm = lines.filter("SM active").value(0);
    QVERIFY2(sm.contains("(measured)") && sm.contains("est. SM efficiency") && sm.contains("(estimate)"), qPrintable(lines.join('\n')));
    // Kernel-weighted SM active: at most the synthetic kSmActive % of a fully busy sample (plus the
    // ripple), less where kernels filled only part of a sample; the line shows the report's figure.
    const auto r = p.runner()->result();
    QVERIFY(r && r->report.measured && r->report.measured->sm_active_pct);
    const double sm_pct = *r->report.measured->sm_active_pct;
    QVERIFY2(sm_pct > 0.5 * test::kSmActive && sm_pct < 1.05 * test::kSmActive,
             qPrintable(QString::number(*r->report.measured->sm_active_pct)));
    QVERIFY(sm.contains(QString("%1 %").arg(*r->report.measured->sm_active_pct, 0, 'f', 1)));
    QVERIFY(!lines.filter("warp occupancy").isEmpty() && !lines.filter("tensor active").isEmpty());
    QVERIFY2(!lines.filter(QRegularExpression("DRAM .* read \\+ write \\(measured\\).*copy ceiling 2.60 TB/s")).isEmpty(),
             qPrintable(lines.join('\n')));
    QVERIFY(!lines.filter("PCIe rx").isEmpty());
  }

  void theVerdictsTabSaysWhyNoneWereMeasured() {
    PanelHub hub;
    VerdictPanel p(&hub);
    p.setScope(VerdictPanel::Scope::whole_run);
    hub.setStore(load(refused_), false);
    QTRY_VERIFY_WITH_TIMEOUT(top_item(p.tree(), "measured"), 10000);
    QTreeWidgetItem* m = top_item(p.tree(), "measured");
    QVERIFY2(m->text(1).contains("none") && m->text(1).contains("counters refused"), qPrintable(m->text(1)));
    QVERIFY(!top_item(p.tree(), "memory_bound_kernels"));
  }

  /// Compare: the measured rows per session, "–" for the session without them (a plain one), the
  /// reason's pointer for the refused one; hidden when no session has measured metrics.
  void compareShowsTheMeasuredFiguresPerSession() {
    CompareView v;
    QSignalSpy ready(&v, &CompareView::ready);
    v.openSessions({sampled_, refused_, QString(kPlainSession)});
    QVERIFY(QTest::qWaitFor([&] { return ready.count() > 0; }, 60000));
    QTableWidget* t = v.throughputTable();
    const int sm = static_cast<int>(ThroughputRow::measured_sm), dram = static_cast<int>(ThroughputRow::measured_dram);
    QVERIFY(!t->isRowHidden(sm) && !t->isRowHidden(dram));
    QVERIFY2(t->verticalHeaderItem(sm)->text().contains("measured"), qPrintable(t->verticalHeaderItem(sm)->text()));
    QVERIFY2(t->item(sm, 0)->text().contains(" % · est. "), qPrintable(t->item(sm, 0)->text()));
    QVERIFY2(t->item(dram, 0)->text().contains("TB/s") && t->item(dram, 0)->text().contains("copy ceiling"),
             qPrintable(t->item(dram, 0)->text()));
    QVERIFY2(t->item(sm, 1)->text().contains("none"), qPrintable(t->item(sm, 1)->text()));
    QCOMPARE(t->item(sm, 2)->text(), QString("–"));
    // One unit per row, the change against the baseline beside it: a run at a quarter of the DRAM
    // rate reads in TB/s too (it read "0.5 TB/s" as "512.0 GB/s" beside "2.05 TB/s").
    QSignalSpy units(&v, &CompareView::ready);
    v.openSessions({sampled_, test::write_measured_session(dir_.path(), test::PmKind::sampled_quarter_dram)});
    QVERIFY(QTest::qWaitFor([&] { return units.count() > 0; }, 60000));
    const QString fast = t->item(dram, 0)->text(), slow = t->item(dram, 1)->text();
    QVERIFY2(fast.contains(" TB/s") && slow.contains(" TB/s") && !slow.contains("GB/s"), qPrintable(fast + " | " + slow));
    QVERIFY2(slow.contains("(−75.0 %)"), qPrintable(slow));
    QVERIFY2(!fast.contains("%)"), qPrintable(fast));  // the baseline has no change
    QSignalSpy again(&v, &CompareView::ready);
    v.openSessions({refused_, QString(kPlainSession)});
    QVERIFY(QTest::qWaitFor([&] { return again.count() > 0; }, 60000));
    QVERIFY(!t->isRowHidden(sm));  // the refused session has a measured part: why none
    QSignalSpy plain(&v, &CompareView::ready);
    v.openSessions({QString(kPlainSession), QString(kPlainSession)});
    QVERIFY(QTest::qWaitFor([&] { return plain.count() > 0; }, 60000));
    QVERIFY(t->isRowHidden(sm) && t->isRowHidden(dram));
  }

  void theProfileWorkspaceFitsWithTheMeasuredRows_data() {
    QTest::addColumn<QSize>("size");
    QTest::newRow("1280x720") << QSize(1280, 720);
    QTest::newRow("1280x720, openbox's title bar") << QSize(1278, 696);
    QTest::newRow("1920x1080") << QSize(1920, 1080);
  }

  void theProfileWorkspaceFitsWithTheMeasuredRows() {
    QFETCH(QSize, size);
    MainWindow w;
    w.show();
    QVERIFY(open_session(w, sampled_));
    w.resize(size);
    w.workspaces()->setMode(Workspaces::Mode::profile);
    auto* util = w.timelinePanel()->findChild<UtilizationPanel*>();
    TimelineView* view = w.timelinePanel()->view();
    QTRY_VERIFY_WITH_TIMEOUT(view->laneOrder().size() >= 6 && util->graphFor("pm.sm_active"), 10000);
    ProfileWorkspace* profile = w.workspaces()->profile();
    QTabWidget* tabs = profile->tabs();
    for (int i = 0; i < tabs->count(); ++i) {
      profile->showTab(tabs->widget(i));
      QTest::qWait(200);
      util->plot()->replot();
      const QString tab = tabs->tabText(i);
      QVERIFY2(whole_lanes(view) >= 4, qPrintable(QString("%1 tab: %2 lanes").arg(tab).arg(whole_lanes(view))));
      const QString cut = cut_legends(util);
      QVERIFY2(cut.isEmpty(), qPrintable(QString("%1 tab: %2").arg(tab, cut)));
      // With a tab open the first measured row stays (the memory track gives its scale for it where
      // it must: its header line keeps the peaks), and the tab keeps its table rows.
      // (Checked once the fits a tab's opening queues have run.)
      QTRY_VERIFY2_WITH_TIMEOUT(util->measuredRowsShownCount() >= 1, qPrintable(QString("%1 tab: %2").arg(tab, util->statusText())), 5000);
      QTRY_VERIFY2_WITH_TIMEOUT(visible_rows(tabs->widget(i)) < 0 || visible_rows(tabs->widget(i)) >= 3,
                                qPrintable(QString("%1 tab: %2 rows").arg(tab).arg(visible_rows(tabs->widget(i)))), 5000);
    }
    // Folded in a short track, the status line says so; shown, they are whole with their legends
    // (at 1920x1080 the track holds them).
    QVERIFY2(util->measuredRowsShown() || util->statusText().contains(QRegularExpression("measured rows? folded")), qPrintable(util->statusText()));
    if (size.height() >= 1080) QVERIFY(util->measuredRowsShown());
    QVERIFY(w.minimumSizeHint().width() <= 1280 && w.minimumSizeHint().height() <= 680);
  }

  void screenshotsWhenAsked() {
    const QString dir = qEnvironmentVariable("TS_SCREENSHOTS");
    if (dir.isEmpty()) QSKIP("TS_SCREENSHOTS not set");
    QDir().mkpath(dir);
    for (QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
      QSettings().clear();
      MainWindow w;
      w.show();
      QVERIFY(open_session(w, sampled_));
      w.resize(size);
      w.workspaces()->setMode(Workspaces::Mode::profile);
      ProfileWorkspace* profile = w.workspaces()->profile();
      QTabWidget* tabs = profile->tabs();
      for (int i = 0; i < tabs->count(); ++i)
        if (tabs->tabText(i).contains("Verdict")) profile->showTab(tabs->widget(i));
      QTest::qWait(1000);
      const QString at = QString("%1x%2").arg(size.width()).arg(size.height());
      QVERIFY(w.grab().save(dir + QString("/measured_profile_%1.png").arg(at)));
      // The tabs closed and the utilization track dragged taller: every measured row whole.
      profile->setTabsCollapsed(true);
      QTest::qWait(300);
      QSplitter* column = w.timelinePanel()->trackSplitter();
      QList<int> s = column->sizes();
      const int more = std::min(s[0] / 2, 220);
      s[0] -= more, s.last() += more;
      column->setSizes(s);
      QTest::qWait(700);
      QVERIFY(w.grab().save(dir + QString("/measured_profile_tall_track_%1.png").arg(at)));
    }
  }
};

QTEST_MAIN(TestMeasuredTracks)
#include "test_measured_tracks.moc"
