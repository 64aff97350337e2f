// The Profile workspace on a 1280x720 screen: with any analysis tab open the lanes keep at least
// kMinLanes whole lanes in view (the GPU stream among them), the tables show several rows, the tracks
// keep a readable scale (the memory track at least kMemoryTrackMinPx tall with three or more y ticks
// whose labels do not overlap) and a height the user drags, remembered across windows.
// TS_SCREENSHOTS=DIR saves Profile with each tab open at 1280x720 and 1920x1080.
#include <QDir>
#include <QHeaderView>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>
#include <qcustomplot.h>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/panels/memory_graph.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/workspaces/profile_workspace.h"
#include "widgets/workspaces/workspaces.h"

using namespace ts;
using namespace ts::gui;

namespace {
const char* kSession = TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession";
constexpr int kMinLanes = 6;            // trainer, loader workers and the GPU stream of a small run
constexpr int kMemoryTrackMinPx = 90;   // room for three byte labels and the legend row
constexpr int kMinTableRows = 3;

bool open_session(MainWindow& w, const QString& path) {
  QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
  return w.sessions()->openSession(path) && opened.wait(20000);
}

int whole_lanes(TimelineView* view) {
  int whole = 0;
  for (int lane : view->laneOrder()) {
    const QRect r = view->laneRect(lane);
    if (!r.isEmpty() && r.top() >= TimelineView::kRulerHeight && r.bottom() < view->height()) ++whole;
  }
  return whole;
}

/// The y ticks inside the axis range (QCustomPlot's tick vector after a replot).
int shown_ticks(QCPAxis* a) {
  int n = 0;
  for (double t : a->tickVector()) n += a->range().contains(t) ? 1 : 0;
  return n;
}

/// The tab pages' tables (a view inside the page, the page itself a scroll area's widget or not).
QTableView* table_of(QWidget* page) {
  if (auto* t = qobject_cast<QTableView*>(page)) return t;
  return page->findChild<QTableView*>();
}
}  // namespace

class TestProfileFit : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { test::isolate_settings(); }
  void init() { QSettings().clear(); }

  void everyTabLeavesLanesAndTracksAt1280x720() {
    MainWindow w;
    w.resize(1280, 720);
    w.show();
    QVERIFY(open_session(w, kSession));
    w.workspaces()->setMode(Workspaces::Mode::profile);
    ProfileWorkspace* profile = w.workspaces()->profile();
    TimelineView* view = w.timelinePanel()->view();
    QTRY_VERIFY_WITH_TIMEOUT(view->laneOrder().size() >= kMinLanes, 10000);
    QTabWidget* tabs = profile->tabs();
    for (int i = 0; i < tabs->count(); ++i) {
      profile->showTab(tabs->widget(i));
      QTest::qWait(150);
      const QString tab = tabs->tabText(i);
      QVERIFY2(whole_lanes(view) >= kMinLanes,
               qPrintable(QString("%1 tab: %2 lanes in view (view %3 px)").arg(tab).arg(whole_lanes(view)).arg(view->height())));
      QVERIFY2(profile->memoryTrack()->height() >= kMemoryTrackMinPx,
               qPrintable(QString("%1 tab: memory track %2 px").arg(tab).arg(profile->memoryTrack()->height())));
      if (QTableView* t = table_of(tabs->widget(i)); t && t->model() && t->model()->rowCount() >= kMinTableRows) {
        const int row_h = std::max(1, t->verticalHeader()->defaultSectionSize());
        const int rows = t->viewport()->height() / row_h;
        // The Layers page keeps its four-line footnote under the table: two whole rows there.
        const int want = tab == "Layers" ? 2 : kMinTableRows;
        QVERIFY2(rows >= want, qPrintable(QString("%1 tab: %2 rows in %3 px").arg(tab).arg(rows).arg(t->viewport()->height())));
      }
    }
  }

  void theMemoryTrackHasAScale() {
    MainWindow w;
    w.resize(1280, 720);
    w.show();
    QVERIFY(open_session(w, kSession));
    w.workspaces()->setMode(Workspaces::Mode::profile);
    QTest::qWait(300);
    auto* graph = w.timelinePanel()->findChild<MemoryGraph*>();
    QVERIFY(graph);
    QCustomPlot* plot = graph->plot();
    plot->replot();
    plot->replot();
    QCPAxis* y = plot->yAxis;
    QVERIFY2(shown_ticks(y) >= 3, qPrintable(QString("%1 y ticks in %2 px").arg(shown_ticks(y)).arg(plot->axisRect()->height())));
    // Neighbouring labels do not overlap: one label height apart at least.
    const int label_h = QFontMetrics(y->tickLabelFont()).height();
    const double px_per_tick = plot->axisRect()->height() / std::max(1.0, y->range().size() / (y->tickVector().value(1) - y->tickVector().value(0)));
    QVERIFY2(px_per_tick >= label_h, qPrintable(QString("%1 px between ticks, labels %2 px").arg(px_per_tick).arg(label_h)));
  }

  void trackHeightsAreDraggedAndRemembered() {
    QList<int> dragged;
    {
      MainWindow w;
      w.resize(1280, 720);
      w.show();
      QVERIFY(open_session(w, kSession));
      w.workspaces()->setMode(Workspaces::Mode::profile);
      QTest::qWait(200);
      QSplitter* column = w.timelinePanel()->trackSplitter();
      QVERIFY(column->handle(1)->isVisible());  // the handle above the memory track: a drag resizes it
      QList<int> s = column->sizes();
      s[1] += 40, s[0] -= 40;
      column->setSizes(s);
      QApplication::processEvents();
      dragged = column->sizes();
      w.close();
    }
    MainWindow w2;
    w2.resize(1280, 720);
    w2.show();
    w2.workspaces()->setMode(Workspaces::Mode::profile);
    QTest::qWait(200);
    QCOMPARE(w2.timelinePanel()->trackSplitter()->sizes().value(1), dragged.value(1));
  }

  void screenshotsWhenAsked() {
    const QString dir = qEnvironmentVariable("TS_SCREENSHOTS");
    if (dir.isEmpty()) QSKIP("TS_SCREENSHOTS not set");
    QDir().mkpath(dir);
    for (QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
      QSettings().clear();
      MainWindow w;
      w.resize(size);
      w.show();
      QVERIFY(open_session(w, kSession));
      w.workspaces()->setMode(Workspaces::Mode::profile);
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
