// What the window says about the session it shows: a failed open leaves the open session
// as it was (every panel) with one error and no contradicting badge; a truncated trace opens with
// the importer's warning and verdicts marked as from an incomplete file; the mouse wheel over an
// unfocused Run settings field changes nothing; an opened H200 session shows its device and knobs in
// the status bar and, read only, in Run settings; a trace says what it does not record; "Run again
// with these settings" says which ones this machine cannot keep, and why.
#include <QComboBox>
#include <QFile>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/main_window.h"
#include "engine/network.h"
#include "gui/gui_test_util.h"
#include "widgets/compare/compare_view.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/panels/panel_hub.h"
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include "widgets/panels/verdict_panel.h"
#include "profiling/analysis/analysis.h"
#include "profiling/import/trace_analysis.h"
#include "profiling/event_source.h"
#include "widgets/training/run_settings.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/workspaces/train_workspace.h"
#include "widgets/workspaces/workspaces.h"

using namespace ts;
using namespace ts::gui;

namespace {
const char* kNw0 = TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw0_augment.tsession";
const char* kNw4 = TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession";
const char* kTrace = TRAINSCOPE_SOURCE_DIR "/tests/data/traces/kineto_small.json";

bool open_and_wait(MainWindow& w, const QString& path) {
  QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
  return w.sessions()->openSession(path) && opened.wait(20000);
}
}  // namespace

class TestShownSession : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { test::isolate_settings(); }
  void init() { QSettings().clear(); }

  void failedOpenKeepsTheOpenSession() {
    MainWindow w;
    w.show();
    QVERIFY(open_and_wait(w, kNw0));
    TimelineView* view = w.timelinePanel()->view();
    QTRY_VERIFY_WITH_TIMEOUT(!view->laneOrder().empty(), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(w.verdictBanner()->text().contains("Input-bound"), 10000);
    const auto store = w.panelHub()->store();
    const QString title = w.windowTitle(), details = w.sessions()->details(), status = w.statusText();
    const std::size_t lanes = view->laneOrder().size();
    // A file that is not JSON but named like a trace passes the quick check and fails in the loader.
    QSignalSpy failed(w.sessions(), &SessionsController::sessionFailed);
    QVERIFY(w.sessions()->openSession(TRAINSCOPE_SOURCE_DIR "/tests/data/traces/not_json.json"));
    QVERIFY(failed.wait(20000));
    QVERIFY(w.message().contains("not_json.json"));
    QCOMPARE(w.panelHub()->store(), store);
    QCOMPARE(w.windowTitle(), title);
    QCOMPARE(w.sessions()->details(), details);
    QCOMPARE(w.statusText(), status);
    QTRY_COMPARE_WITH_TIMEOUT(view->laneOrder().size(), lanes, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(w.verdictBanner()->text().contains("Input-bound"), 10000);
  }

  void failedOpenWithNothingShownHasNoBadge() {
    MainWindow w;
    w.show();
    QSignalSpy failed(w.sessions(), &SessionsController::sessionFailed);
    QVERIFY(w.sessions()->openSession(TRAINSCOPE_SOURCE_DIR "/tests/data/traces/not_json.json"));
    QVERIFY(failed.wait(20000));
    QVERIFY(!w.message().isEmpty());
    QVERIFY(!w.panelHub()->store());
    QVERIFY(w.verdictBanner()->text().isEmpty());  // no green "OK" under the red error
  }

  void truncatedTraceShowsItsWarning() {
    QTemporaryDir dir;
    QFile in(kTrace);
    QVERIFY(in.open(QIODevice::ReadOnly));
    const QByteArray whole = in.readAll();
    const QString cut = dir.filePath("cut.json");
    QFile out(cut);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(whole.left(whole.size() * 2 / 3));
    out.close();
    MainWindow w;
    w.show();
    QVERIFY(open_and_wait(w, cut));
    QVERIFY2(w.message().contains("warning") && w.message().contains("ends early") && w.message().contains("byte"),
             qPrintable(w.message()));
    QVERIFY(w.verdictPanel()->statusText().contains("incomplete file"));
    // Too few steps to judge: no green OK badge (the cut file has 1 step).
    QTRY_VERIFY_WITH_TIMEOUT(w.verdictPanel()->runner()->result() != nullptr, 10000);
    QVERIFY(!w.verdictPanel()->judged());
    QVERIFY(w.verdictBanner()->color() != QColor(0x2e, 0x7d, 0x32));
    QTRY_VERIFY_WITH_TIMEOUT(w.verdictBanner()->text().contains("incomplete file") || w.verdictPanel()->verdicts().empty(), 10000);
    // The next, complete file drops the note.
    QVERIFY(open_and_wait(w, kTrace));
    QVERIFY(!w.verdictPanel()->statusText().contains("incomplete file"));
  }

  void wheelOverAnUnfocusedFieldChangesNothing() {
    MainWindow w;
    w.resize(1280, 680);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* batch = w.runSettings()->findChildren<QSpinBox*>().value(0);
    QComboBox* optimizer = nullptr;
    for (auto* c : w.runSettings()->findChildren<QComboBox*>())
      if (c->findText("AdamW") >= 0) optimizer = c;
    QVERIFY(batch && optimizer);
    const RunSettings before = w.runSettings()->settings();
    for (QWidget* field : {static_cast<QWidget*>(batch), static_cast<QWidget*>(optimizer)}) {
      field->clearFocus();
      const QPoint at = field->rect().center();
      QWheelEvent wheel(at, field->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                        Qt::NoScrollPhase, false);
      QApplication::sendEvent(field, &wheel);
    }
    const RunSettings after = w.runSettings()->settings();
    QCOMPARE(after.batch_size, before.batch_size);
    QCOMPARE(static_cast<int>(after.optimizer), static_cast<int>(before.optimizer));
    // Focused (clicked or tabbed to), the wheel still edits it.
    batch->setFocus();
    QTRY_VERIFY(batch->hasFocus());
    const QPoint at = batch->rect().center();
    QWheelEvent wheel(at, batch->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(batch, &wheel);
    QVERIFY(w.runSettings()->settings().batch_size != before.batch_size);
  }

  void openedSessionShowsItsDeviceAndKnobs() {
    MainWindow w;
    RunSettings mine = w.runSettings()->settings();
    mine.num_workers = 1, mine.batch_size = 32;
    w.runSettings()->setSettings(mine);
    QVERIFY(open_and_wait(w, kNw4));
    QVERIFY2(w.statusText().contains("NVIDIA H200 (session)"), qPrintable(w.statusText()));
    QVERIFY(w.statusText().contains("batch size 128"));
    QVERIFY(w.statusText().contains("num_workers 4"));
    QVERIFY(w.runSettings()->showingSession());
    QVERIFY(w.runSettings()->sessionNote().contains("gpu_b128_nw4.tsession"));
    const RunSettings shown = w.runSettings()->settings();
    QCOMPARE(shown.num_workers, 4);
    QCOMPARE(shown.batch_size, std::int64_t{128});
    QCOMPARE(shown.device, Device::cuda);  // as recorded, also on a machine without a GPU
    QComboBox* device = w.runSettings()->findChildren<QComboBox*>().value(0);
    QVERIFY2(device->currentText().contains("H200"), qPrintable(device->currentText()));
    QVERIFY(!device->isEnabled());  // read only
    QVERIFY(!w.startAction()->isEnabled());
    // "Use my settings": the user's own again, editable.
    emit w.runSettings()->ownSettingsRequested();
    QVERIFY(!w.runSettings()->showingSession());
    QCOMPARE(w.runSettings()->settings().num_workers, 1);
    QCOMPARE(w.runSettings()->settings().batch_size, std::int64_t{32});
    QVERIFY(!w.statusText().contains("H200") || !cuda_available());
    // The session recorded its knobs: the status bar never turns them into "not recorded".
    QVERIFY2(!w.statusText().contains("not recorded"), qPrintable(w.statusText()));
  }

  void occupancyUsesTheSessionsDeviceProperties() {
    // The details pane's theoretical occupancy comes from the session's device properties (as the
    // Kernels table's): they were read before a progressively loading session's meta had arrived.
    MainWindow w;
    w.show();
    QVERIFY(open_and_wait(w, kNw4));
    TimelineView* view = w.timelinePanel()->view();
    QTRY_VERIFY_WITH_TIMEOUT(!view->laneOrder().empty(), 10000);
    QVERIFY(view->deviceProps().known);
    QCOMPARE(view->deviceProps().sms, 132);
  }

  void oneFigureReadsTheSameEverywhereForOneWindow() {
    // nw0 + augment, whole run (the warm-up step left out): trainscope-run --analyze prints
    // "data-loader wait (raw) 35.1 %" (tests/runner); the banner, the Verdicts tab and Compare say the
    // same, under the same name, with their window.
    MainWindow w;
    w.show();
    QVERIFY(open_and_wait(w, kNw0));
    w.verdictPanel()->setScope(VerdictPanel::Scope::whole_run);
    QTRY_VERIFY_WITH_TIMEOUT(w.verdictBanner()->text().contains("data-loader wait (raw) 35.1 %, whole run"), 20000);
    bool in_tree = false;
    QTreeWidget* tree = w.verdictPanel()->tree();
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
      for (int c = 0; c < tree->topLevelItem(i)->childCount(); ++c)
        in_tree = in_tree || tree->topLevelItem(i)->child(c)->text(1).contains("data-loader wait (raw) 35.1 %");
    QVERIFY(in_tree);
    w.sessions()->compareSessions({kNw4, kNw0});
    QSignalSpy ready(w.sessions()->compareView(), &CompareView::ready);
    QVERIFY(ready.count() == 1 || ready.wait(30000));
    QString all;
    QTreeWidget* ct = w.sessions()->compareView()->verdictTree();
    for (QTreeWidgetItemIterator it(ct); *it; ++it) all += (*it)->text(0) + '\n';
    QVERIFY2(all.contains("evidence (whole run): data-loader wait (raw) 35.1 %"), qPrintable(all));
  }

  void anOpenedSessionsFiguresAreTheRunnersAndCompares() {
    // The H200 b128 session has 80 steps: its AMP-eligible GEMM/conv share is 62.6 % of kernel time
    // over the 79 after the warm-up (trainscope-run --analyze, Compare) and 62.8 % over the last 50.
    // Opened, with no window chosen, the banner and the Verdicts tab give the whole run's figure.
    const auto store = prof::open_session(kNw4)->shared_store();
    prof::analysis::Options o;
    o.warmup_steps = 1;
    const auto report = prof::import::analyze_session(*store, o);
    const auto share = prof::analysis::verdict_measure(report, "amp_eligible");
    QVERIFY(share);
    const QString figure = format_evidence("matmul_kernel_time_pct", *share);
    QCOMPARE(figure, QString("matmul kernel time 62.6 %"));
    MainWindow w;
    w.show();
    QVERIFY(open_and_wait(w, kNw4));
    QTRY_VERIFY_WITH_TIMEOUT(w.verdictPanel()->judged() && !w.panelHub()->isLive(), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(w.verdictBanner()->text().contains(figure + ", whole run"), 20000);
    QString tree_text;
    for (QTreeWidgetItemIterator it(w.verdictPanel()->tree()); *it; ++it) tree_text += (*it)->text(1) + '\n';
    QVERIFY2(tree_text.contains(figure), qPrintable(tree_text));
    w.sessions()->compareSessions({kNw4, kNw0});
    QSignalSpy ready(w.sessions()->compareView(), &CompareView::ready);
    QVERIFY(ready.count() == 1 || ready.wait(30000));
    QString all;
    for (QTreeWidgetItemIterator it(w.sessions()->compareView()->verdictTree()); *it; ++it) all += (*it)->text(0) + '\n';
    QVERIFY2(all.contains("evidence (whole run): " + figure), qPrintable(all));
    // The user's own window is kept, and named: the last 50 steps.
    w.verdictPanel()->setScope(VerdictPanel::Scope::last_steps, 50);
    QTRY_VERIFY_WITH_TIMEOUT(w.verdictBanner()->text().contains("matmul kernel time 62.8 %, last 50 steps"), 20000);
    w.panelHub()->setLive(true);
    w.panelHub()->setLive(false);
    QTest::qWait(300);
    QCOMPARE(w.verdictPanel()->scope(), VerdictPanel::Scope::last_steps);
  }

  void sessionDetailsAreInPeoplesWords() {
    MainWindow w;
    QVERIFY(open_and_wait(w, kNw4));
    const QString d = w.sessions()->details();
    for (const char* s : {"batch size: 128 images", "num_workers: 4", "weight decay: default", "pin_memory: on",
                          "NVIDIA H200, compute capability 9.0, 132 SMs, 150.1 GB of memory", "cuDNN 9.19.0",
                          "CUDA runtime 13.0", "within ±37 ns", "dropped CUPTI records: 0"})
      QVERIFY2(d.contains(QString::fromUtf8(s)), s);
    for (const char* raw : {"weight_decay: -1", "clock.gpu_offset_ns", "versions.cudnn: 91900"}) QVERIFY2(!d.contains(raw), raw);
  }

  void aTraceSaysWhatItDoesNotRecord() {
    MainWindow w;
    QVERIFY(open_and_wait(w, kTrace));
    QVERIFY2(w.statusText().contains("(trace)") && w.statusText().contains("batch size: not recorded") &&
                 w.statusText().contains("num_workers: not recorded"),
             qPrintable(w.statusText()));
    QVERIFY(!w.runSettings()->showingSession());
    QVERIFY(w.runSettings()->sessionNote().contains("records no TrainScope run settings"));
    QVERIFY(!w.sessions()->runAgainAction()->isEnabled());
  }

  void runAgainSaysWhatThisMachineCannotKeep() {
    if (cuda_available()) QSKIP("a GPU is present: the session's device can be kept");
    MainWindow w;
    QVERIFY(open_and_wait(w, kNw4));
    QVERIFY(w.sessions()->runAgainWithSessionSettings());
    const RunSettings s = w.runSettings()->settings();
    QCOMPARE(s.device, Device::cpu);
    QCOMPARE(s.num_workers, 4);
    QVERIFY2(w.message().contains("no usable GPU") && w.message().contains("NVIDIA H200"), qPrintable(w.message()));
    QVERIFY(w.message().contains("/root/cifar is not on this machine"));
    QVERIFY(!w.runSettings()->showingSession());
    QCOMPARE(w.workspaces()->mode(), Workspaces::Mode::train);
    QVERIFY(w.startAction()->isEnabled());
  }
};

QTEST_MAIN(TestShownSession)
#include "test_shown_session.moc"
