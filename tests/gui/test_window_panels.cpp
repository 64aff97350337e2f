// The analysis panels in the window: an opened H200 session reaches every panel of
// the Profile workspace through the PanelHub — the timeline's lanes, its memory and utilization
// tracks, the kernel table's rows, the verdict banner — and a live CPU run feeds them while it
// trains. Dropping two sessions opens the Compare window on them.
#include <QAction>
#include <QTabWidget>
#include <QMenuBar>
#include <QMimeData>
#include <QUrl>
#include <QtTest>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "widgets/compare/compare_view.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/panels/kernel_table.h"
#include "widgets/panels/memory_graph.h"
#include "widgets/panels/utilization_panel.h"
#include "widgets/panels/verdict_panel.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/workspaces/profile_workspace.h"
#include "widgets/workspaces/workspaces.h"

using namespace ts;
using namespace ts::gui;

class TestWindowPanels : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { test::isolate_settings(); }

  void openedSessionFillsEveryPanel() {
    MainWindow w;
    w.show();
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QVERIFY(w.sessions()->openSession(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw0_augment.tsession"));
    QVERIFY(opened.wait(20000));
    // Opening a session goes to the Profile workspace: every analysis tab exists, and the memory
    // graph and utilization are tracks of the timeline.
    QCOMPARE(w.workspaces()->mode(), Workspaces::Mode::profile);
    QStringList titles;
    QTabWidget* tabs = w.workspaces()->profile()->tabs();
    for (int i = 0; i < tabs->count(); ++i) titles << tabs->tabText(i);
    for (const char* t : {"Verdicts", "Step breakdown", "Kernels", "Layers", "Session details"})
      QVERIFY2(titles.contains(t), t);
    QVERIFY(w.timelinePanel()->findChild<MemoryGraph*>());
    QVERIFY(w.timelinePanel()->findChild<UtilizationPanel*>());
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
    // Whether they are ranks of one job is read off the GUI thread; then Compare opens.
    QTRY_VERIFY_WITH_TIMEOUT(w.sessions()->compareView() != nullptr, 30000);
    QVERIFY(w.sessions()->compareView()->isVisible());
    QTRY_COMPARE_WITH_TIMEOUT(w.sessions()->compareView()->state(), CompareView::State::ready, 30000);
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
