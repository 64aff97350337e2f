// The window's workspaces: Train and Profile, each with its own layout kept while the
// user switches and across restarts; minimum sizes that fit a 1280x720 screen (at most 1280x680)
// with a session open, the Compare window too; the first-run window clamped to the screen; the
// memory and utilization tracks on the timeline's visible range, their plot areas aligned with the
// lanes' plot area; plots that stay readable (legend columns that fit, wrapped empty states, the
// timeline legend inside its column).
#include <QAction>
#include <QDir>
#include <QScreen>
#include <QSplitter>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "gui/window_probe.h"
#include "widgets/compare/compare_view.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/model/model_builder.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/panels/memory_graph.h"
#include "widgets/panels/panel_plot.h"
#include "widgets/panels/utilization_panel.h"
#include "widgets/timeline/timeline_details.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/training/training_charts.h"
#include "widgets/workspaces/profile_workspace.h"
#include "widgets/workspaces/train_workspace.h"
#include "widgets/workspaces/workspaces.h"

using namespace ts;
using namespace ts::gui;
using ts::gui::test::open_session;
using ts::gui::test::whole_lanes;

namespace {
const char* kSession = TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession";
constexpr int kMaxW = 1280, kMaxH = 680;  // a 1280x720 screen less a title bar and a panel

QString size_text(QSize s) { return QString("%1x%2").arg(s.width()).arg(s.height()); }
}  // namespace

class TestWorkspaces : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { test::isolate_settings(); }
  void init() { QSettings().clear(); }

  void minimumSizesFitA720LineScreen() {
    MainWindow w;
    w.show();
    QVERIFY(open_session(w, kSession));
    for (auto m : {Workspaces::Mode::profile, Workspaces::Mode::train}) {
      w.workspaces()->setMode(m);
      QApplication::processEvents();
      const QSize min = w.minimumSizeHint().expandedTo(w.minimumSize());
      QVERIFY2(min.width() <= kMaxW && min.height() <= kMaxH,
               qPrintable(mode_name(m) + " workspace minimum " + size_text(min)));
      // And at that size nothing is pushed past the window: the central area keeps its minimum.
      w.resize(kMaxW, kMaxH);
      QApplication::processEvents();
      QVERIFY(w.workspaces()->width() <= kMaxW);
    }
    w.sessions()->compareSessions({kSession, TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw0_augment.tsession"});
    QSignalSpy ready(w.sessions()->compareView(), &CompareView::ready);
    QVERIFY(ready.count() == 1 || ready.wait(30000));
    const QSize cmin = w.sessions()->compareView()->minimumSizeHint().expandedTo(w.sessions()->compareView()->minimumSize());
    QVERIFY2(cmin.width() <= kMaxW && cmin.height() <= kMaxH, qPrintable("Compare minimum " + size_text(cmin)));
  }

  void eightLanesOnAMaximized1366x768Window() {
    // Maximized on a 1366x768 laptop: the screen less a 30 px panel and a 30 px title bar.
    MainWindow w;
    w.resize(1366, 708);
    w.show();
    QVERIFY(open_session(w, kSession));
    TimelineView* view = w.timelinePanel()->view();
    QTRY_VERIFY_WITH_TIMEOUT(view->laneOrder().size() >= 8, 10000);
    QApplication::processEvents();
    int whole = 0;
    for (int lane : view->laneOrder()) {
      const QRect r = view->laneRect(lane);
      if (!r.isEmpty() && r.bottom() < view->height()) ++whole;
    }
    QVERIFY2(whole >= 8, qPrintable(QString("%1 lanes in view (view %2 px high)").arg(whole).arg(view->height())));
    // ... with both tracks shown under them.
    QVERIFY(w.workspaces()->profile()->memoryTrack()->isVisible());
    QVERIFY(w.workspaces()->profile()->utilizationTrack()->isVisible());
    QVERIFY(w.workspaces()->profile()->utilizationTrack()->height() >= 120);
  }

  void firstRunWindowIsClampedToTheScreen() {
    MainWindow w;
    const QRect avail = w.screen()->availableGeometry();
    QVERIFY2(w.width() <= avail.width() && w.height() <= avail.height(),
             qPrintable(size_text(w.size()) + " on " + size_text(avail.size())));
  }

  void switchingWorkspacesKeepsEachLayout() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(open_session(w, kSession));
    Workspaces* ws = w.workspaces();
    ProfileWorkspace* profile = ws->profile();
    QSplitter* tracks = w.timelinePanel()->trackSplitter();
    tracks->setSizes({300, 180, 200});
    profile->setTabsCollapsed(true);
    w.timelinePanel()->setDetailsVisible(false);
    QApplication::processEvents();
    const QList<int> profile_sizes = tracks->sizes();
    ws->setMode(Workspaces::Mode::train);
    QVERIFY(ws->train()->isVisible() && !profile->isVisible());
    ws->train()->mainSplitter()->setSizes({500, 900});
    QApplication::processEvents();
    const QList<int> train_sizes = ws->train()->mainSplitter()->sizes();
    ws->setMode(Workspaces::Mode::profile);
    QApplication::processEvents();
    QCOMPARE(tracks->sizes(), profile_sizes);
    QVERIFY(profile->tabsCollapsed());
    QVERIFY(!w.timelinePanel()->detailsVisible());
    ws->setMode(Workspaces::Mode::train);
    QApplication::processEvents();
    QCOMPARE(ws->train()->mainSplitter()->sizes(), train_sizes);
    // Side by side shows both.
    ws->setMode(Workspaces::Mode::both);
    QVERIFY(ws->train()->isVisible() && profile->isVisible());

    // A new window restores both layouts and the mode (the close saved them).
    ws->setMode(Workspaces::Mode::profile);
    w.close();
    MainWindow w2;
    w2.resize(1400, 900);
    w2.show();
    QApplication::processEvents();
    QCOMPARE(w2.workspaces()->mode(), Workspaces::Mode::profile);
    QVERIFY(w2.workspaces()->profile()->tabsCollapsed());
    QVERIFY(!w2.timelinePanel()->detailsVisible());
    // The tracks keep their heights; the lanes (the stretching part) take what the new window has.
    const QList<int> restored = w2.timelinePanel()->trackSplitter()->sizes();
    QCOMPARE(restored.mid(1), profile_sizes.mid(1));

    // View ▸ Reset layout: the tabs open again (on a tall window), the details pane shows.
    w2.resize(1600, 1050);
    QApplication::processEvents();
    w2.workspaces()->resetLayout();
    QVERIFY(!w2.workspaces()->profile()->tabsCollapsed());
    QVERIFY(w2.timelinePanel()->detailsVisible());
  }

  void aDamagedSavedLayoutIsIgnored() {
    QSettings().setValue("workspaces/profile", QByteArray("not a layout"));
    QSettings().setValue("workspaces/mode", "nonsense");
    MainWindow w;
    w.show();
    QCOMPARE(w.workspaces()->mode(), Workspaces::Mode::train);
    QVERIFY(!w.workspaces()->profile()->restoreLayout(QByteArray("\x54\x53\x57\x53", 4)));
  }

  void tracksShareTheTimelinesRangeAndPlotArea_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<qint64>("from");
    QTest::newRow("H200 session") << QString(kSession) << qint64(300'000'000);
    // A PyTorch trace: no CPU samples (an empty legend once narrowed the utilization rows).
    QTest::newRow("PyTorch trace") << QString(TRAINSCOPE_SOURCE_DIR "/tests/data/traces/kineto_small.json") << qint64(0);
  }

  void tracksShareTheTimelinesRangeAndPlotArea() {
    QFETCH(QString, path);
    QFETCH(qint64, from);
    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    QVERIFY(open_session(w, path));
    TimelineView* view = w.timelinePanel()->view();
    auto* memory = w.timelinePanel()->findChild<MemoryGraph*>();
    auto* util = w.timelinePanel()->findChild<UtilizationPanel*>();
    QVERIFY(memory && util);
    QTRY_VERIFY_WITH_TIMEOUT(!view->laneOrder().empty(), 10000);
    view->setRange({from, from + 200'000});
    QApplication::processEvents();
    const qint64 lo = view->range().start, hi = view->range().end;  // as the view clamped it
    QTRY_COMPARE_WITH_TIMEOUT(util->completedJobs() > 0, true, 10000);
    QTest::qWait(300);  // the utilization's re-bucketing after the range settles
    for (QCustomPlot* plot : {memory->plot(), util->plot()}) {
      QTRY_COMPARE(plot->axisRect()->axis(QCPAxis::atBottom)->range().lower, lo / 1e9);
      QCOMPARE(plot->axisRect()->axis(QCPAxis::atBottom)->range().upper, hi / 1e9);
      plot->replot();
      plot->replot();
      // Plot areas line up with the lanes' plot area, to the pixel (global x).
      const int lanes_left = view->mapToGlobal(QPoint(view->headerWidth(), 0)).x();
      const int lanes_right = view->mapToGlobal(QPoint(view->width(), 0)).x();
      for (QCPAxisRect* r : plot->axisRects()) {
        if (!r->visible()) continue;
        QCOMPARE(plot->mapToGlobal(QPoint(r->left(), 0)).x(), lanes_left);
        const int right = plot->mapToGlobal(QPoint(r->right() + 1, 0)).x();
        QVERIFY2(std::abs(right - lanes_right) <= 1, qPrintable(QString("track right %1, lanes right %2").arg(right).arg(lanes_right)));
      }
    }
    // A drag on a track moves the timeline (the range is shared both ways).
    const qint64 mid = (lo + hi) / 2, quarter = (hi - lo) / 4;
    memory->plot()->xAxis->setRange((mid - quarter) / 1e9, (mid + quarter) / 1e9);
    QVERIFY(std::abs(view->range().start - (mid - quarter)) <= 1);
    QVERIFY(std::abs(view->range().end - (mid + quarter)) <= 1);
  }

  void aTrackWithoutDataSpansTheWidth() {
    // A trace without memory events: the memory track's empty legend once narrowed its plot to 50 px.
    QTemporaryDir dir;
    QFile in(TRAINSCOPE_SOURCE_DIR "/tests/data/traces/kineto_small.json");
    QVERIFY(in.open(QIODevice::ReadOnly));
    const QByteArray whole = in.readAll();
    QFile cut(dir.filePath("cut.json"));
    QVERIFY(cut.open(QIODevice::WriteOnly));
    cut.write(whole.left(whole.size() * 2 / 3));
    cut.close();
    MainWindow w;
    w.resize(1280, 680);
    w.show();
    QVERIFY(open_session(w, dir.filePath("cut.json")));
    auto* memory = w.timelinePanel()->findChild<MemoryGraph*>();
    QVERIFY(!memory->absentMessage().isEmpty());
    QTest::qWait(300);
    memory->plot()->replot();
    TimelineView* view = w.timelinePanel()->view();
    const int lanes_right = view->mapToGlobal(QPoint(view->width(), 0)).x();
    const int right = memory->plot()->mapToGlobal(QPoint(memory->plot()->axisRect()->right() + 1, 0)).x();
    QVERIFY2(std::abs(right - lanes_right) <= 1, qPrintable(QString("memory right %1, lanes right %2").arg(right).arg(lanes_right)));
  }

  void plotsStayReadable() {
    // Legend columns: as many as fit, never fewer than one.
    QCustomPlot plot;
    plot.resize(900, 300);
    for (int i = 0; i < 6; ++i) plot.addGraph()->setName(QString("series number %1").arg(i));
    plot.legend->setVisible(true);
    const int wide = legend_columns_for(plot.legend, 900), narrow = legend_columns_for(plot.legend, 200);
    QVERIFY(wide >= 3 && wide <= 6);
    QCOMPARE(narrow, 1);
    // An empty state wraps to its rect instead of running past it.
    QFont f;
    const QString msg = "No GPU activity recorded: a CPU run has no kernels or copies to show";
    const QString wrapped = wrap_to_width(msg, f, 200);
    QVERIFY(wrapped.contains('\n'));
    for (const QString& line : wrapped.split('\n')) QVERIFY(QFontMetrics(f).horizontalAdvance(line) <= 200);
    QCOMPARE(QString(wrapped).replace('\n', ' '), msg);
    // The timeline's colour legend stays inside its width.
    TimelineLegend legend;
    for (int w : {180, 300, 1200})
      for (const QRect& r : legend.entryRects(w)) QVERIFY2(r.right() < w, qPrintable(QString::number(w)));
    QVERIFY(legend.heightForWidth(180) > legend.heightForWidth(1200));
  }

  // Pictures to look at (not a check): TS_SCREENSHOTS=DIR saves the Compare window at 1280x680 and
  // the side-by-side mode at 1920x1040 with a session open.
  void screenshotsWhenAsked() {
    const QString dir = qEnvironmentVariable("TS_SCREENSHOTS");
    if (dir.isEmpty()) QSKIP("TS_SCREENSHOTS not set");
    QDir().mkpath(dir);
    MainWindow w;
    w.resize(1920, 1040);
    w.show();
    QVERIFY(open_session(w, kSession));
    w.resize(1280, 680);
    w.workspaces()->setMode(Workspaces::Mode::train);
    QTest::qWait(800);
    QVERIFY(w.grab().save(dir + "/train_with_session_1280x680.png"));
    w.resize(1920, 1040);
    w.workspaces()->setMode(Workspaces::Mode::both);
    QTest::qWait(1500);
    QVERIFY(w.grab().save(dir + "/side_by_side_1920.png"));
    w.sessions()->compareSessions({kSession, TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw0_augment.tsession"});
    QSignalSpy ready(w.sessions()->compareView(), &CompareView::ready);
    QVERIFY(ready.count() == 1 || ready.wait(30000));
    w.sessions()->compareView()->resize(1280, 680);
    QTest::qWait(1000);
    QVERIFY(w.sessions()->compareView()->grab().save(dir + "/compare_1280x680.png"));
    // A failed open over the shown session: the session stays, one error in the message bar.
    w.sessions()->compareView()->close();
    w.resize(1280, 680);
    w.workspaces()->setMode(Workspaces::Mode::profile);
    QSignalSpy failed(w.sessions(), &SessionsController::sessionFailed);
    QVERIFY(w.sessions()->openSession(TRAINSCOPE_SOURCE_DIR "/tests/data/traces/not_json.json"));
    QVERIFY(failed.wait(20000));
    QTest::qWait(800);
    QVERIFY(w.grab().save(dir + "/failed_open_1280x680.png"));
    // A cut trace: it opens with the importer's warning.
    QFile in(TRAINSCOPE_SOURCE_DIR "/tests/data/traces/kineto_small.json");
    QVERIFY(in.open(QIODevice::ReadOnly));
    const QByteArray whole = in.readAll();
    QFile cut(dir + "/cut.json");
    QVERIFY(cut.open(QIODevice::WriteOnly));
    cut.write(whole.left(whole.size() * 2 / 3));
    cut.close();
    QVERIFY(open_session(w, dir + "/cut.json"));
    QTest::qWait(800);
    QVERIFY(w.grab().save(dir + "/cut_trace_1280x680.png"));
  }

  void idlePlotsDoNotReplotInALoop() {
    // keep_readable replots once more when it changed ticks, wraps or columns: it must settle (a
    // loop would burn the GUI thread a live run needs).
    MainWindow w;
    w.resize(1280, 680);
    w.show();
    QVERIFY(open_session(w, kSession));
    QTest::qWait(1500);  // loads settle
    int replots = 0;
    QList<QCustomPlot*> plots = w.findChildren<QCustomPlot*>();
    for (QCustomPlot* p : plots) connect(p, &QCustomPlot::afterReplot, this, [&replots] { ++replots; });
    QTest::qWait(2000);
    QVERIFY2(replots <= 2 * plots.size(), qPrintable(QString("%1 replots of %2 plots in 2 s idle").arg(replots).arg(plots.size())));
  }

  void shortTracksGetFewTicks() {
    MainWindow w;
    w.resize(1280, 680);
    w.show();
    QVERIFY(open_session(w, kSession));
    auto* util = w.timelinePanel()->findChild<UtilizationPanel*>();
    util->plot()->replot();
    util->plot()->replot();
    for (QCPAxisRect* r : util->plot()->axisRects()) {
      if (!r->visible()) continue;
      const int n = r->axis(QCPAxis::atLeft)->ticker()->tickCount();
      QVERIFY2(n >= 1 && n * Readability::kTickSpacingYPx <= std::max(r->height(), Readability::kTickSpacingYPx),
               qPrintable(QString("%1 ticks in %2 px").arg(n).arg(r->height())));
    }
  }
};

QTEST_MAIN(TestWorkspaces)
#include "test_workspaces.moc"
