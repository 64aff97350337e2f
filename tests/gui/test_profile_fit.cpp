// The Profile workspace on a 1280x720 screen (the window 1280x720 without a window manager, 1278x696
// under openbox's title bar): with any analysis tab open the lanes keep at least kMinLanes whole
// lanes in view, a table or tree shows at least kMinTableRows rows, the memory track has a scale
// (three y ticks or more, their labels apart) and the utilization rows' legends are whole; the
// tracks' heights are the user's to drag and are remembered. What fits already stays: the window's
// minimum within 1280x680 and eight lanes in a maximized 1366x768 window (test_workspaces).
// TS_SCREENSHOTS=DIR saves Profile with each tab open at 1280x720 and 1920x1080.
#include <QDir>
#include <QFileInfo>
#include <QTabBar>
#include <QHeaderView>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <QtTest>
#include <qcustomplot.h>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "gui/plot_probe.h"
#include "gui/window_probe.h"
#include "widgets/main/lessons_controller.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/panels/breakdown_chart.h"
#include "widgets/panels/memory_graph.h"
#include "widgets/panels/utilization_panel.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/workspaces/profile_workspace.h"
#include "widgets/workspaces/workspaces.h"

using namespace ts;
using namespace ts::gui;
using ts::gui::test::open_in_profile;
using ts::gui::test::open_session;
using ts::gui::test::profile_tab;
using ts::gui::test::clipped_rows;
using ts::gui::test::cut_legends;
using ts::gui::test::shown_ticks;
using ts::gui::test::visible_rows;
using ts::gui::test::whole_lanes;

namespace {
const char* kSession = TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession";
constexpr int kMinLanes = 4;       // the trainer, its runtime calls, the GPU stream and one more
constexpr int kMinTableRows = 3;
constexpr int kMinYTicks = 3;

/// Whether the first GPU stream's lane is whole in view, under the ruler.
bool stream_in_view(TimelineView* view) {
  for (int lane : view->laneOrder()) {
    if (view->data().lanes()[static_cast<std::size_t>(lane)].kind != timeline::LaneKind::stream) continue;
    const QRect r = view->laneRect(lane);
    return !r.isEmpty() && r.top() >= view->rulerHeight() && r.bottom() < view->height();
  }
  return false;
}

/// Why the left axis title of `plot` is not whole in view ("" when it is, or when there is none):
/// QCustomPlot centres it on the axis rect, turned upright, its text's width half above and half below
/// the rect's middle.
QString cut_y_title(QCustomPlot* plot) {
  const QCPAxis* y = plot->axisRect()->axis(QCPAxis::atLeft);
  const QString title = y->label();
  if (title.isEmpty()) return {};
  const double mid = (plot->axisRect()->top() + plot->axisRect()->bottom()) / 2.0;
  const double half = QFontMetrics(y->labelFont()).horizontalAdvance(title) / 2.0;
  const QRect seen = plot->visibleRegion().boundingRect();
  if (mid - half >= seen.top() && mid + half <= seen.bottom() + 1 && title.contains("ms")) return {};
  return QString("\"%1\" at y %2-%3, the chart shows y %4-%5").arg(title).arg(mid - half).arg(mid + half).arg(seen.top()).arg(seen.bottom());
}

QString describe(MainWindow& w) {
  ProfileWorkspace* p = w.workspaces()->profile();
  QStringList s;
  for (int x : p->mainSplitter()->sizes()) s << QString::number(x);
  QStringList c;
  for (int x : w.timelinePanel()->trackSplitter()->sizes()) c << QString::number(x);
  return QString("workspace %1 px: [timeline | tabs] %2, [lanes | memory | utilization] %3")
      .arg(p->height()).arg(s.join('/'), c.join('/'));
}
}  // namespace

class TestProfileFit : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { test::isolate_settings(); }
  void init() { QSettings().clear(); }

  void everyTabLeavesLanesTablesAndTracks_data() {
    QTest::addColumn<QSize>("size");
    QTest::newRow("1280x720, no window manager") << QSize(1280, 720);
    QTest::newRow("1280x720, openbox's title bar") << QSize(1278, 696);
    QTest::newRow("1920x1080") << QSize(1920, 1080);
    QTest::newRow("1920x1080 at 125 %: 1536x864") << QSize(1536, 864);  // the logical size; under Xvfb with QT_SCALE_FACTOR=1.25 it is that screen (offscreen scales fonts otherwise)
  }

  void everyTabLeavesLanesTablesAndTracks() {
    QFETCH(QSize, size);
    MainWindow w;
    QVERIFY(open_in_profile(w, kSession, size));  // resized after the open: the offscreen screen is 800x800
    ProfileWorkspace* profile = w.workspaces()->profile();
    TimelineView* view = w.timelinePanel()->view();
    auto* graph = w.timelinePanel()->findChild<MemoryGraph*>();
    auto* util = w.timelinePanel()->findChild<UtilizationPanel*>();
    QVERIFY(graph && util);
    QTRY_VERIFY_WITH_TIMEOUT(view->laneOrder().size() >= kMinLanes, 10000);
    QTabWidget* tabs = profile->tabs();
    for (int i = 0; i < tabs->count(); ++i) {
      profile->showTab(tabs->widget(i));
      QTest::qWait(200);
      const QString tab = tabs->tabText(i);
      QVERIFY2(!profile->tabsCollapsed(), qPrintable(tab));
      QVERIFY2(whole_lanes(view) >= kMinLanes, qPrintable(QString("%1 tab: %2 lanes in view; %3").arg(tab).arg(whole_lanes(view)).arg(describe(w))));
      QVERIFY2(stream_in_view(view), qPrintable(QString("%1 tab: the GPU stream is not in view; %2").arg(tab, describe(w))));
      const QString clipped = clipped_rows(util->plot());
      QVERIFY2(clipped.isEmpty(), qPrintable(QString("%1 tab, utilization: %2; %3").arg(tab, clipped, describe(w))));
      const int rows = visible_rows(tabs->widget(i));
      if (rows >= 0)
        QVERIFY2(rows >= kMinTableRows, qPrintable(QString("%1 tab: %2 rows; %3").arg(tab).arg(rows).arg(describe(w))));
      QVERIFY2(profile->memoryTrack()->isVisible() && profile->utilizationTrack()->isVisible(), qPrintable(tab));
      // A chart in the tab shows its legend whole (the step breakdown's sat under the fold).
      for (QCustomPlot* plot : tabs->widget(i)->findChildren<QCustomPlot*>()) {
        if (!plot->isVisible() || !plot->legend || !plot->legend->visible()) continue;
        plot->replot();
        const QRect seen = plot->visibleRegion().boundingRect();
        QVERIFY2(seen.contains(plot->legend->outerRect()),
                 qPrintable(QString("%1 tab: legend at y %2-%3, the chart shows y %4-%5; %6").arg(tab)
                                .arg(plot->legend->outerRect().top()).arg(plot->legend->outerRect().bottom())
                                .arg(seen.top()).arg(seen.bottom()).arg(describe(w))));
      }
      graph->plot()->replot();
      graph->plot()->replot();
      QCPAxis* y = graph->plot()->yAxis;
      QStringList tv;
      for (double t : y->tickVector()) tv << QString::number(t / 1e6);
      QVERIFY2(shown_ticks(y) >= kMinYTicks, qPrintable(QString("%1 tab: %2 memory y ticks (%5 MB on 0..%6 MB) in a %3 px plot; %4")
                                                             .arg(tab).arg(shown_ticks(y)).arg(graph->plot()->axisRect()->height()).arg(describe(w))
                                                             .arg(tv.join(' ')).arg(y->range().upper / 1e6)));
      util->plot()->replot();
      for (QCustomPlot* plot : {util->plot(), graph->plot()}) {
        const QString cut = cut_legends(plot);
        QVERIFY2(cut.isEmpty(), qPrintable(QString("%1 tab, %2: %3; %4").arg(tab, plot == util->plot() ? "utilization" : "memory", cut, describe(w))));
      }
    }
  }

  /// The tabs take one height: switching from one to another moves neither the tab bar nor the tracks
  /// (the Ranks tab's two-line header and notes raised the bar by 47 px, the Layers tab's by 9), a GPU
  /// run's session and a CPU run's, in classroom mode too.
  void switchingTabsMovesNothing_data() {
    QTest::addColumn<QSize>("size");
    QTest::addColumn<QString>("session");
    QTest::addColumn<bool>("classroom");
    const QString gpu = kSession, cpu = TRAINSCOPE_SOURCE_DIR "/tests/data/cpu_b64_nw1.tsession";
    const struct {
      QSize size;
      QString session;
      bool classroom;
    } rows[] = {{{1280, 720}, gpu, false}, {{1280, 720}, cpu, false}, {{1280, 720}, gpu, true},
                {{1278, 696}, gpu, false}, {{1278, 696}, cpu, false}, {{1920, 1080}, gpu, false},
                {{1920, 1080}, cpu, true}, {{1536, 864}, gpu, false}};
    for (const auto& r : rows)
      QTest::newRow(qPrintable(QString("%1x%2, %3%4").arg(r.size.width()).arg(r.size.height())
                                   .arg(QFileInfo(r.session).baseName(), r.classroom ? ", classroom" : "")))
          << r.size << r.session << r.classroom;
  }
  void switchingTabsMovesNothing() {
    QFETCH(QSize, size);
    QFETCH(QString, session);
    QFETCH(bool, classroom);
    MainWindow w;
    QVERIFY(open_in_profile(w, session, size, classroom));
    QTest::qWait(300);
    ProfileWorkspace* profile = w.workspaces()->profile();
    QTabWidget* tabs = profile->tabs();
    profile->showTab(tabs->widget(0));
    QTest::qWait(300);
    auto where = [&] {
      QStringList column;
      for (int x : w.timelinePanel()->trackSplitter()->sizes()) column << QString::number(x);
      return QString("tab bar at y %1, [lanes | memory | utilization] %2")
          .arg(tabs->tabBar()->mapTo(&w, QPoint(0, 0)).y())
          .arg(column.join('/'));
    };
    const QString first = where();
    for (int round = 0; round < 2; ++round)
      for (int i = 0; i < tabs->count(); ++i) {
        profile->showTab(tabs->widget(i));
        QTest::qWait(200);
        QCOMPARE(QString("%1 tab: %2").arg(tabs->tabText(i), where()), QString("%1 tab: %2").arg(tabs->tabText(i), first));
      }
    w.lessons()->setClassroomMode(false);
  }

  /// The Step breakdown's y-axis title is drawn whole and says the unit at every size: the rotated
  /// "step time (ms)" stood over the top of its plot at 1280x720 ("step time (ms" was all it showed).
  void theStepBreakdownTitleIsWhole_data() { everyTabLeavesLanesTablesAndTracks_data(); }
  void theStepBreakdownTitleIsWhole() {
    QFETCH(QSize, size);
    MainWindow w;
    QVERIFY(open_in_profile(w, kSession, size));
    QWidget* page = profile_tab(w, "Step breakdown");
    QVERIFY(page);
    w.workspaces()->profile()->showTab(page);
    QTest::qWait(300);
    auto* chart = page->findChild<BreakdownChart*>();
    QVERIFY(chart);
    QTRY_VERIFY_WITH_TIMEOUT(!chart->statusText().isEmpty(), 10000);  // the analysis' bars are in
    QTest::qWait(200);
    auto* plot = chart->findChild<QCustomPlot*>();
    QVERIFY(plot && plot->isVisible());
    const QString cut = cut_y_title(plot);
    QVERIFY2(cut.isEmpty(), qPrintable(cut));
  }

  /// A chart whose data came while its tab was hidden is fitted when the tab shows (its ticks, title and
  /// legend as a replot of its own would have them): the Step breakdown opened after its analysis
  /// drew "step time (ms)" over a 62 px plot, five crowded tick labels and its legend in three rows.
  void aChartShownAfterItsDataIsFitted_data() { everyTabLeavesLanesTablesAndTracks_data(); }
  void aChartShownAfterItsDataIsFitted() {
    QFETCH(QSize, size);
    MainWindow w;
    QVERIFY(open_in_profile(w, kSession, size));
    ProfileWorkspace* profile = w.workspaces()->profile();
    profile->showTab(profile->tabs()->widget(0));  // Verdicts: the breakdown's tab hidden
    auto* chart = w.findChild<BreakdownChart*>();
    QVERIFY(chart);
    QTRY_VERIFY_WITH_TIMEOUT(!chart->statusText().isEmpty(), 10000);  // its analysis came while hidden
    QTest::qWait(300);
    profile->showTab(profile_tab(w, "Step breakdown"));
    QTest::qWait(300);
    auto* plot = chart->findChild<QCustomPlot*>();
    QVERIFY(plot && plot->isVisible());
    auto drawn = [plot] {
      QStringList ticks;
      for (const QString& t : plot->yAxis->tickVectorLabels()) ticks << t;
      return QString("title \"%1\", ticks %2, legend in %3 columns").arg(plot->yAxis->label(), ticks.join(' ')).arg(plot->legend->wrap());
    };
    const QString shown = drawn();
    const QString cut = cut_y_title(plot);
    plot->replot();
    QCOMPARE(shown, drawn());
    QVERIFY2(cut.isEmpty(), qPrintable(cut));
  }

  void theMemoryScaleLabelsDoNotOverlap() {
    MainWindow w;
    QVERIFY(open_in_profile(w, kSession, QSize(1280, 720)));  // resized after the open: the offscreen screen is 800x800
    QTest::qWait(300);
    auto* graph = w.timelinePanel()->findChild<MemoryGraph*>();
    QCustomPlot* plot = graph->plot();
    plot->replot();
    plot->replot();
    QCPAxis* y = plot->yAxis;
    QVector<double> ticks;
    for (double t : y->tickVector())
      if (y->range().contains(t)) ticks << t;
    QVERIFY2(ticks.size() >= kMinYTicks, qPrintable(QString("%1 ticks").arg(ticks.size())));
    const int label_h = QFontMetrics(y->tickLabelFont()).height();
    for (int i = 1; i < ticks.size(); ++i) {
      const double apart = std::abs(y->coordToPixel(ticks[i]) - y->coordToPixel(ticks[i - 1]));
      QVERIFY2(apart >= label_h, qPrintable(QString("ticks %1 px apart, labels %2 px high").arg(apart).arg(label_h)));
    }
  }

  /// The card's use (1.1 GB) dwarfs what the run allocates (164 MB) in this session: where the stack
  /// is drawn (Fit all; the opening steps come before its first sample) the axis fits the stacked
  /// categories (their top at least half the track's height) and says the line is off scale.
  void theStackedCategoriesFillTheMemoryTrack() {
    MainWindow w;
    QVERIFY(open_in_profile(w, kSession, QSize(1280, 720)));
    w.timelinePanel()->view()->fitAll();
    QTest::qWait(300);
    auto* graph = w.timelinePanel()->findChild<MemoryGraph*>();
    QVERIFY(graph->allocatedPeakBytes().has_value());
    QVERIFY(graph->linesOffScale());
    const double upper = graph->plot()->yAxis->range().upper;
    QVERIFY2(*graph->allocatedPeakBytes() >= 0.5 * upper,
             qPrintable(QString("allocated peak %1 B on an axis to %2 B").arg(*graph->allocatedPeakBytes()).arg(upper)));
  }

  void trackHeightsAreDraggedAndRemembered() {
    int dragged = 0;
    {
      MainWindow w;
      QVERIFY(open_in_profile(w, kSession, QSize(1280, 720)));
      QTest::qWait(200);
      QSplitter* column = w.timelinePanel()->trackSplitter();
      QSplitterHandle* handle = column->handle(1);  // the handle above the memory track
      QVERIFY(handle->isVisible());
      const int before = column->sizes().value(1);
      // The user's drag: 30 px up (the memory track taller, the lanes shorter).
      const QPoint at(handle->width() / 2, handle->height() / 2);
      QTest::mousePress(handle, Qt::LeftButton, {}, at);
      QTest::mouseMove(handle, at - QPoint(0, 15));
      QTest::mouseMove(handle, at - QPoint(0, 30));
      QTest::mouseRelease(handle, Qt::LeftButton, {}, at - QPoint(0, 30));
      QApplication::processEvents();
      dragged = column->sizes().value(1);
      QVERIFY2(dragged >= before + 20, qPrintable(QString("%1 -> %2").arg(before).arg(dragged)));
      // Opening and closing a tab keeps the height the user gave the track.
      ProfileWorkspace* profile = w.workspaces()->profile();
      profile->showTab(profile->tabs()->widget(0));
      QTest::qWait(100);
      profile->setTabsCollapsed(true);
      QTest::qWait(100);
      QCOMPARE(column->sizes().value(1), dragged);
      w.close();
    }
    MainWindow w2;
    w2.show();
    w2.resize(1280, 720);
    w2.workspaces()->setMode(Workspaces::Mode::profile);
    QTest::qWait(200);
    QCOMPARE(w2.timelinePanel()->trackSplitter()->sizes().value(1), dragged);
  }

  void screenshotsWhenAsked() {
    const QString dir = qEnvironmentVariable("TS_SCREENSHOTS");
    if (dir.isEmpty()) QSKIP("TS_SCREENSHOTS not set");
    QDir().mkpath(dir);
    for (QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
      QSettings().clear();
      MainWindow w;
      QVERIFY(open_in_profile(w, kSession, size));
      QTabWidget* tabs = w.workspaces()->profile()->tabs();
      for (int i = 0; i < tabs->count(); ++i) {
        w.workspaces()->profile()->showTab(tabs->widget(i));
        QTest::qWait(700);
        const QString name = tabs->tabText(i).toLower().replace(' ', '_');
        QVERIFY(w.grab().save(dir + QString("/profile_%1_%2x%3.png").arg(name).arg(size.width()).arg(size.height())));
      }
    }
  }
};

QTEST_MAIN(TestProfileFit)
#include "test_profile_fit.moc"
