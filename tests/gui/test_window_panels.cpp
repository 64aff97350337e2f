// The analysis panels in the window (issue #6): an opened H200 session reaches every dock through
// the PanelHub — the timeline's lanes, the kernel table's rows, the verdict banner — and a live CPU
// run feeds them while it trains; the View menu toggles each dock. Dropping two sessions opens the
// Compare window on them.
#include <QAction>
#include <QDockWidget>
#include <QMenuBar>
#include <QMimeData>
#include <QUrl>
#include <QtTest>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "widgets/compare/compare_view.h"
#include "widgets/panel_hub.h"
#include "widgets/panels/kernel_table.h"
#include "widgets/panels/verdict_panel.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"

using namespace ts;
using namespace ts::gui;

class TestWindowPanels : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { test::isolate_settings(); }

  void openedSessionFillsEveryPanel() {
    MainWindow w;
    w.show();
    QSignalSpy opened(&w, &MainWindow::sessionOpened);
    QVERIFY(w.openSession(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw0_augment.tsession"));
    QVERIFY(opened.wait(20000));
    // Every dock of the panels exists, and the View menu lists it.
    QStringList titles;
    for (auto* d : w.findChildren<QDockWidget*>()) titles << d->windowTitle();
    for (const char* t : {"Timeline", "Memory", "Utilization", "Verdicts", "Step breakdown", "Kernels", "Layers"})
      QVERIFY2(titles.contains(t), t);
    // Timeline: lanes built from the store, kernels in it.
    TimelineView* view = w.timelinePanel()->view();
    QTRY_VERIFY_WITH_TIMEOUT(!view->laneOrder().empty(), 10000);
    // Kernel table: one row per kernel name, the same total as the store.
    auto* kernels = w.findChild<KernelTable*>();
    QVERIFY(kernels);
    QTRY_VERIFY_WITH_TIMEOUT(kernels->model()->rowCount() > 10, 10000);
    // The banner names the input-bound verdict of this num_workers=0 + augment run.
    QTRY_VERIFY_WITH_TIMEOUT(w.verdictBanner()->text().contains("Input-bound"), 10000);
  }

  void droppingTwoSessionsComparesThem() {
    MainWindow w;
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession"),
                  QUrl::fromLocalFile(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw0_augment.tsession")});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    enter.setAccepted(false);
    QApplication::sendEvent(&w, &enter);  // Qt sends the drop to the widget that accepted the enter
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &drop);
    QVERIFY(w.compareView() != nullptr);
    QVERIFY(w.compareView()->isVisible());
    QSignalSpy ready(w.compareView(), &CompareView::ready);
    QVERIFY(ready.count() == 1 || ready.wait(30000));
  }

  void liveCpuRunFeedsThePanels() {
    MainWindow w;
    w.show();
    w.runSettings()->setSettings(test::small_cpu_run(1, 256));
    QSignalSpy finished(w.session(), &TrainingSession::finished);
    w.startRun();
    QTRY_VERIFY_WITH_TIMEOUT(w.panelHub()->isLive(), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(w.panelHub()->counts().host_ranges > 0, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
    QTRY_VERIFY(!w.panelHub()->isLive());
    QVERIFY(!w.timelinePanel()->view()->laneOrder().empty());
  }
};

QTEST_MAIN(TestWindowPanels)
#include "test_window_panels.moc"
