// The Playground workspace, on playground sessions written here from hand-made ladders
// (tests/common/playground_fixture.h; no GPU): a session fills the ladder (a failed check red with
// no time), the roofline (measured and datasheet roofs), the timeline and the kernel source; knobs
// out of range are refused with their rule; Run without a GPU offers the recording; two sessions
// compare; a run made with --measure shows its counters beside the estimated figures (a third line
// per row, crosses on the roofline); the window routes a playground session to the workspace.
// TS_SCREENSHOTS=DIR saves the SGEMM ladder, the roofline and a memory ladder at 1280x720 and 1920x1080.
#include <QAction>
#include <QCheckBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSplitter>
#include <QTextLayout>
#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QToolBar>
#include <QtTest>

#include <qcustomplot.h>

#include "app/gui/main_window.h"
#include "common/playground_fixture.h"
#include "gui/gui_test_util.h"
#include "lessons/session_pack.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/playground/ladder_view.h"
#include "widgets/playground/playground_runner.h"
#include "widgets/playground/playground_workspace.h"
#include "widgets/playground/roofline_chart.h"
#include "widgets/playground/source_view.h"
#include "widgets/timeline/timeline_details.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/workspaces/workspaces.h"

using namespace ts;
using namespace ts::gui;

class TestPlayground : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString a_, b_;
  QByteArray recording_env_;  // TRAINSCOPE_PLAYGROUND_RECORDING as given (runOnTheGpuWhenAsked uses it)

 private slots:
  void initTestCase() {
    recording_env_ = qgetenv("TRAINSCOPE_PLAYGROUND_RECORDING");
    ts::gui::test::isolate_settings();
    QVERIFY(dir_.isValid());
    a_ = dir_.filePath("h200.tsession");
    b_ = dir_.filePath("faster.tsession");
    ts::test::pg_write_session(a_.toStdString(), ts::test::pg_run(1, "NVIDIA H200"));
    ts::test::pg_write_session(b_.toStdString(), ts::test::pg_run(2, "NVIDIA B200"));
  }
  void init() {
    if (recording_env_.isEmpty())
      qunsetenv("TRAINSCOPE_PLAYGROUND_RECORDING");
    else
      qputenv("TRAINSCOPE_PLAYGROUND_RECORDING", recording_env_);
  }

  void aSessionFillsTheLadderRooflineTimelineAndSource() {
    PlaygroundWorkspace w(false, "no CUDA driver");
    w.resize(1280, 680);
    w.show();
    QVERIFY(w.openSession(a_));
    QVERIFY(w.selectFamily("sgemm"));
    LadderView* l = w.ladderView();
    QVERIFY(l->hasLadder());
    QCOMPARE(l->ladder()->variants.size(), std::size_t(11));
    QStringList r0 = l->rowCells(0);
    QCOMPARE(r0[0], QString("1 naive"));
    QVERIFY2(r0[2].endsWith("TFLOP/s"), qPrintable(r0[2]));
    QVERIFY2(r0[1].contains("ms"), qPrintable(r0[1]));  // 0.5 TFLOP/s at 4096^3: 275 ms
    // Step 3 failed its check: red, no time, the error and tolerance said.
    QVERIFY(l->rowFailed(2));
    QCOMPARE(l->rowCells(2)[1], QString("-"));
    QCOMPARE(l->rowCells(2)[5], QString("FAILED"));
    QVERIFY(l->rowCells(2)[6].contains("tolerance"));
    QVERIFY(l->headerLines().join('\n').contains("datasheet"));
    // The roofline: every passing GEMM row, vector add and the reduction (1 flop per element); no
    // copy, strided read or transpose (no flops); roofs labelled.
    QCOMPARE(w.roofline()->pointCount(), 10 + 7 + 4 + 6);
    const QString roofs = w.roofline()->roofLabels().join('\n');
    QVERIFY2(roofs.contains("device copy 4262 GB/s (measured)"), qPrintable(roofs));
    QVERIFY2(roofs.contains("FP32 67.0 TFLOP/s (datasheet)"), qPrintable(roofs));
    QVERIFY(roofs.contains("BF16/FP16 tensor cores"));
    // The kernels on the timeline: the session's store (3 launches per variant).
    QVERIFY(w.timeline()->view() != nullptr);
    QCOMPARE(static_cast<int>(w.findChild<PanelHub*>()->store()->kernels.size()), 3 * (4 + 2 + 6 + 3 + 6 + 11 + 7));
    // One click on a kernel shows its launch: grid, block, registers, shared memory, occupancy.
    w.tabs()->setCurrentWidget(w.timeline());
    TimelineView* view = w.timeline()->view();
    QTest::qWait(200);
    view->fitAll();
    QTest::qWait(100);
    QPoint hit;
    for (int y = 0; y < view->height() && hit.isNull(); y += 3)
      for (int x = TimelineView::kHeaderWidth; x < view->width() && hit.isNull(); x += 3)
        if (view->eventAt(QPoint(x, y)).valid()) hit = QPoint(x, y);
    QVERIFY(!hit.isNull());
    QTest::mouseClick(view, Qt::LeftButton, {}, hit);
    QVERIFY(view->selectedEvent().valid());
    QMap<QString, QString> d;
    for (const auto& [key, value] : w.timeline()->details()->rows()) d[key] = value;
    QVERIFY2(d["Name"].contains("_kernel_"), qPrintable(d["Name"]));
    QVERIFY(d.contains("Grid") && d.contains("Block") && d.contains("Registers / thread") &&
            d.contains("Shared memory"));
    // copy's first kernel: 256 threads, 32 registers, no shared memory on cc 9.0: 8 blocks, 100 %.
    QVERIFY2(d["Theoretical occupancy"].startsWith("100.0 % (8 blocks/SM"), qPrintable(d["Theoretical occupancy"]));
    w.tabs()->setCurrentIndex(0);
    // The source of the selected variant's kernel.
    l->selectRow(0);
    QVERIFY(w.sourceView()->toPlainText().contains("__global__ void sgemm_naive"));
    QVERIFY2(w.findChild<PanelHub*>()->highlight().kernel_name.contains("sgemm_naive("),  // outlined on the timeline
             qPrintable(w.findChild<PanelHub*>()->highlight().kernel_name));
    QVERIFY(w.sourceView()->textCursor().block().text().contains("sgemm_naive"));
    l->selectRow(6);
    QVERIFY(w.sourceView()->textCursor().block().text().contains("sgemm_warptile") ||
            w.sourceView()->textCursor().block().text().contains("__global__"));
    l->selectRow(10);
    QVERIFY(w.findChild<QLabel*>("playground.source_label")->text().contains("cuBLAS"));
    QVERIFY2(w.sourceView()->toPlainText().isEmpty(), "a cuBLAS row kept the source of the row before");
    l->selectRow(0);  // back to an own kernel: its file again
    QVERIFY(w.sourceView()->toPlainText().contains("__global__ void sgemm_naive"));
    // Another family: the memory ladder in GB/s.
    QVERIFY(w.selectFamily("transpose"));
    QCOMPARE(l->rowCells(2)[0], QString("tile padded to 33"));
    QVERIFY(l->rowCells(2)[2].endsWith("GB/s"));
    QVERIFY(w.sourceView()->toPlainText().contains("transpose_tile_kernel"));
    // A family the session did not run: no ladder, said.
    QVERIFY(w.selectFamily("divergence"));
    QVERIFY(!l->hasLadder());
    QVERIFY(l->headerLines().join(' ').contains("No ladder"));
    // Not a playground session: refused in one line, the shown one stays.
    QVERIFY(!w.openSession(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b16_nw4.tsession"));
    QVERIFY(w.statusText().contains("holds no playground run"));
    QVERIFY(!w.statusText().contains('\n'));
    QCOMPARE(w.shownSession(), a_);
    QVERIFY(!w.openSession(dir_.filePath("missing.tsession")));
  }

  void theSourceReadsWholeBesideTheWholeLadder() {
    // At 1280 the source pane was ~350 px and its lines scrolled sideways: now the ladder keeps its
    // full width, the source takes the rest and wraps long lines under their own indent; at 1920
    // every line shows unwrapped. A width the user drags stays.
    for (QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
      MainWindow w;
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      QVERIFY(w.sessions()->openSession(a_));
      w.resize(size);  // after the show: the offscreen platform's screen is 800x800 and clamps a first size
      PlaygroundWorkspace* p = w.playground();
      QVERIFY(p->selectFamily("sgemm"));
      p->tabs()->setCurrentIndex(0);
      p->ladderView()->selectRow(1);
      SourceView* src = p->sourceView();
      auto* split = p->findChild<QSplitter*>("playground.ladder_split");
      QVERIFY(split);
      const QString tag = QString("%1x%2").arg(size.width()).arg(size.height());
      // The fit runs once the event loop turns after a resize: wait for the ladder whole and the source
      // at its share (at 1920 the width of its longest line, at 1280 at least a third of the tab).
      auto settled = [&] {
        return split->sizes()[0] >= p->ladderView()->fullWidth() &&
               (size.width() == 1920 ? src->width() >= src->naturalWidth() - 4 : src->width() >= split->width() / 3 - 8);
      };
      QTRY_VERIFY2(settled(), qPrintable(QString("%1: ladder %2 of %3, full %4, source %5").arg(tag).arg(split->sizes()[0])
                                             .arg(split->width()).arg(p->ladderView()->fullWidth()).arg(src->width())));
      QVERIFY2(p->ladderView()->width() >= p->ladderView()->fullWidth() - 20, qPrintable(tag));  // a scroll bar at most
      // The selected variant's kernel is the first line shown, after the pane took its width.
      QTRY_VERIFY2(src->document()->findBlockByNumber(src->topLine()).text().contains("__global__ void sgemm_coalesced"),
                   qPrintable(tag + ": " + src->document()->findBlockByNumber(src->topLine()).text() + QString(" top %1 cursor %2 sb %3/%4").arg(src->topLine()).arg(src->textCursor().blockNumber()).arg(src->verticalScrollBar()->value()).arg(src->verticalScrollBar()->maximum())));
      // Nothing runs past the pane's right edge: the document is laid out to the viewport's width.
      QVERIFY2(src->document()->idealWidth() <= src->viewport()->width() + 1,
               qPrintable(QString("%1: %2 px of text in %3").arg(tag).arg(src->document()->idealWidth()).arg(src->viewport()->width())));
      if (size.width() == 1920) {
        QCOMPARE(src->wrappedLines(), 0);
        continue;
      }
      QVERIFY(src->wrappedLines() > 0);
      // A wrapped line continues right of its own indent.
      bool hung = false;
      for (QTextBlock b = src->document()->begin(); b.isValid() && !hung; b = b.next())
        if (b.layout() && b.layout()->lineCount() > 1) {
          int lead = 0;
          while (lead < b.text().size() && b.text()[lead] == ' ') ++lead;
          const qreal column = QFontMetricsF(src->font()).horizontalAdvance(' ');
          const QRectF first = b.layout()->lineAt(0).rect(), second = b.layout()->lineAt(1).rect();
          QVERIFY2(second.x() - first.x() >= (lead + 3) * column, qPrintable(b.text()));
          hung = true;
        }
      QVERIFY(hung);
      // A width the user drags stays when another family's source comes (which refits otherwise).
      split->setSizes({split->sizes()[0] + 100, split->sizes()[1] - 100});
      emit split->splitterMoved(split->sizes()[0], 1);
      const QList<int> dragged = split->sizes();
      QVERIFY(p->selectFamily("transpose"));
      QTest::qWait(50);
      QCOMPARE(split->sizes(), dragged);
    }
  }

  void rooflineLabelsStayApartAndInsideThePlot() {
    // With a memory family selected every family's labels were drawn at once, over each other and
    // past the right edge; an own kernel's label near the edge was cut there.
    const QString recording = QStringLiteral(TRAINSCOPE_SOURCE_DIR "/resources/playground/h200.tsession.zst");
    if (!QFile::exists(recording)) QSKIP("the shipped recording is not in the source tree");
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.sessions()->openSession(recording));
    PlaygroundWorkspace* p = w.playground();
    QTRY_VERIFY_WITH_TIMEOUT(!p->shownRun().ladders.empty(), 20000);  // decompressed by the session loader
    w.resize(1280, 720);
    p->tabs()->setCurrentIndex(1);
    QCustomPlot* plot = p->roofline()->plot();
    auto labels = [&] {
      plot->replot();
      QList<QRectF> out;
      for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* t = qobject_cast<QCPItemText*>(plot->item(i)); t && t->objectName() == "point" && t->visible()) {
          const QFontMetrics fm(t->font());
          const QPointF at = t->position->pixelPosition();
          const double wd = fm.horizontalAdvance(t->text()) + 8, h = fm.height();
          const bool left_aligned = t->positionAlignment() & Qt::AlignLeft;
          out << QRectF(left_aligned ? at.x() : at.x() - wd, at.y() - h / 2, wd, h);
        }
      return out;
    };
    for (const char* family : {"transpose", "sgemm", "tensor", "occupancy", "reduction"}) {
      QVERIFY(p->selectFamily(family));
      QTest::qWait(50);
      const QList<QRectF> shown = labels();
      if (QString(family) == "transpose") {
        QVERIFY2(shown.isEmpty(), qPrintable(QString("%1 labels for a family with no point").arg(shown.size())));
        continue;
      }
      QVERIFY2(!shown.isEmpty(), family);
      const QRect area = plot->axisRect()->rect();
      for (int i = 0; i < shown.size(); ++i) {
        QVERIFY2(shown[i].right() <= area.right() + 2 && shown[i].left() >= area.left() - 2,
                 qPrintable(QString("%1: a label at x %2-%3 past the plot's %4-%5").arg(family).arg(shown[i].left())
                                .arg(shown[i].right()).arg(area.left()).arg(area.right())));
        for (int j = i + 1; j < shown.size(); ++j)
          QVERIFY2(!shown[i].adjusted(2, 2, -2, -2).intersects(shown[j].adjusted(2, 2, -2, -2)),
                   qPrintable(QString("%1: two labels overlap: %2,%3 %4x%5 and %6,%7 %8x%9").arg(family).arg(shown[i].x()).arg(shown[i].y()).arg(shown[i].width()).arg(shown[i].height()).arg(shown[j].x()).arg(shown[j].y()).arg(shown[j].width()).arg(shown[j].height())));
      }
    }
  }

  void aTrainingVerdictBannerStaysOutOfThePlayground() {
    MainWindow w;
    w.show();
    QVERIFY(w.sessions()->openSession(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession"));
    auto* row = w.findChild<QToolBar*>("toolbar.verdict");
    QVERIFY(row);
    QTRY_VERIFY(row->isVisible());  // the session's verdict, in Profile
    w.workspaces()->setMode(Workspaces::Mode::playground);
    QTRY_VERIFY(!row->isVisible());
    w.workspaces()->setMode(Workspaces::Mode::profile);
    QTRY_VERIFY(row->isVisible());
  }

  void theShippedH200RecordingOpensWithEveryLadder() {
    // resources/playground/h200.tsession.zst, found in the source tree (no environment variable).
    QString tried;
    if (playground_recording(&tried).isEmpty()) QSKIP(qPrintable("no recording: looked in " + tried));
    PlaygroundWorkspace w(false, "no CUDA driver");
    QVERIFY2(w.openRecording(), qPrintable(w.statusText()));
    QCOMPARE(w.shownRun().device, std::string("NVIDIA H200"));
    QCOMPARE(static_cast<int>(w.shownRun().ladders.size()), 9);  // every family of --playground all
    QVERIFY(w.selectFamily("sgemm"));
    QVERIFY(w.ladderView()->hasLadder());
    QVERIFY(w.ladderView()->ladder()->variants.size() >= 11);
    for (int i = 0; i < static_cast<int>(w.ladderView()->ladder()->variants.size()); ++i)
      QVERIFY2(!w.ladderView()->rowFailed(i), qPrintable(w.ladderView()->rowCells(i).join(" | ")));
    QVERIFY(w.roofline()->roofline().bandwidth.measured);
    QVERIFY(w.roofline()->pointCount() > 20);
    QVERIFY(w.findChild<PanelHub*>()->store()->kernels.size() > 100);
  }

  void withoutAGpuTheRecordingOpensWhenShown() {
    QString tried;
    if (playground_recording(&tried).isEmpty()) QSKIP(qPrintable("no recording: looked in " + tried));
    PlaygroundWorkspace w(false, "no CUDA driver");
    QVERIFY(w.shownSession().isEmpty());  // nothing before it is shown
    w.show();
    QTRY_VERIFY_WITH_TIMEOUT(!w.shownSession().isEmpty(), 10000);
    QVERIFY2(w.statusText().startsWith("Recorded session:"), qPrintable(w.statusText()));
    // With a GPU the workspace waits for Run.
    PlaygroundWorkspace g(true, QString());
    g.show();
    QTest::qWait(200);
    QVERIFY(g.shownSession().isEmpty());
  }

  void knobsOutOfRangeAreRefusedWithTheReason() {
    PlaygroundWorkspace w(true, QString());
    QVERIFY(w.selectFamily("sgemm"));
    QCOMPARE(w.sizeEdit()->text(), QString("4096"));
    QVERIFY(w.knobError().isEmpty());
    w.sizeEdit()->setText("100");
    QVERIFY2(w.knobError().contains("multiple of 128"), qPrintable(w.knobError()));
    QVERIFY(!w.run());
    QVERIFY(w.statusText().startsWith("Refused: size 100 for sgemm"));
    QVERIFY(!w.statusText().contains('\n'));
    w.sizeEdit()->setText("abc");
    QVERIFY(w.knobError().contains("whole number"));
    QVERIFY(w.selectFamily("vector_add"));
    QVERIFY(w.knobError().isEmpty());
    w.threadsEdit()->setText("100");
    QVERIFY2(w.knobError().contains("multiple of 32"), qPrintable(w.knobError()));
    w.threadsEdit()->setText("2048");
    QVERIFY(!w.knobError().isEmpty());
    w.threadsEdit()->setText("256");
    w.blocksEdit()->setText("-4");
    QVERIFY(w.knobError().contains("blocks per grid"));
    QVERIFY(!w.run());
    w.blocksEdit()->setText("0");
    QVERIFY(w.selectFamily("occupancy"));
    w.smemEdit()->setText("300");
    QVERIFY2(w.knobError().contains("227 KiB"), qPrintable(w.knobError()));
    w.smemEdit()->setText("0");
    w.registersEdit()->setText("300");
    QVERIFY(w.knobError().contains("registers"));
    w.registersEdit()->setText("32");
    QVERIFY(w.knobError().isEmpty());
    emit w.registersEdit()->textEdited("32");  // as typing does: the calculator's line follows
    QVERIFY(w.findChild<QLabel*>("playground.occupancy")->text().contains("100 % occupancy"));
  }

  void aRunWithoutAGpuIsOfferedTheRecording() {
    // The recording as it ships: zstd-compressed (resources/playground/h200.tsession.zst).
    const QString zst = dir_.filePath("h200.tsession.zst");
    lessons::compress_session(a_.toStdString(), zst.toStdString());
    qputenv("TRAINSCOPE_PLAYGROUND_RECORDING", zst.toUtf8());
    PlaygroundWorkspace w(false, "no CUDA driver");
    QVERIFY(w.findChild<QLabel*>("playground.banner")->text().contains("No usable GPU"));
    QCOMPARE(w.findChild<QLabel*>("playground.banner")->toolTip(), QString("no CUDA driver"));
    QVERIFY(w.selectFamily("sgemm"));
    QVERIFY(!w.run());
    QVERIFY(w.recordingOffered());
    QVERIFY2(w.statusText().contains("No usable GPU here (no CUDA driver)"), qPrintable(w.statusText()));
    QVERIFY(w.statusText().contains("Open the recording"));
    QVERIFY(w.recordingButton()->isEnabled());
    QVERIFY(w.openRecording());
    QCOMPARE(w.shownRun().device, std::string("NVIDIA H200"));
    QVERIFY(w.statusText().contains("Nothing ran on this machine"));
    // No recording anywhere: said where it looked.
    qputenv("TRAINSCOPE_PLAYGROUND_RECORDING", dir_.filePath("none.tsession.zst").toUtf8());
    if (playground_recording().isEmpty()) {
      PlaygroundWorkspace w2(false, "no CUDA driver");
      QVERIFY(!w2.run());
      QVERIFY(w2.statusText().contains("looked in"));
    }
  }

  void runStartsTheRunnerWithTheKnobsAndOpensItsSession() {
    // A stand-in for trainscope-run (TRAINSCOPE_RUNNER): records its arguments, prints a line, copies
    // the fixture to --session and exits with $FAKE_EXIT (3: no GPU in the child).
    const QString script = dir_.filePath("fake-runner.sh");
    QFile f(script);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QString("#!/bin/sh\necho \"$@\" > %1\necho 'device: NVIDIA H200 (132 SMs)'\n"
                    "[ \"$FAKE_EXIT\" = 3 ] && { echo 'error: no CUDA device' >&2; exit 3; }\n"
                    "while [ $# -gt 0 ]; do [ \"$1\" = --session ] && cp %2 \"$2\"; shift; done\nexit 0\n")
                .arg(dir_.filePath("args.txt"), a_)
                .toUtf8());
    f.close();
    QFile::setPermissions(script, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    qputenv("TRAINSCOPE_RUNNER", script.toUtf8());
    qputenv("FAKE_EXIT", "0");
    PlaygroundWorkspace w(true, QString());
    QVERIFY(w.selectFamily("vector_add"));
    w.sizeEdit()->setText("1048576");
    w.threadsEdit()->setText("128");
    w.blocksEdit()->setText("64");
    QSignalSpy shown(&w, &PlaygroundWorkspace::sessionShown);
    QVERIFY(w.run());
    QVERIFY(!w.runButton()->isEnabled());
    QVERIFY2(w.statusText().startsWith("Running vector_add on the GPU, 0 s: trainscope-run --playground vector_add") ||
                 w.statusText().contains("fake-runner.sh --playground vector_add"),
             qPrintable(w.statusText()));
    QVERIFY(shown.wait(10000));
    QFile args(dir_.filePath("args.txt"));
    QVERIFY(args.open(QIODevice::ReadOnly));
    const QString a = QString::fromUtf8(args.readAll());
    QVERIFY2(
        a.startsWith("--playground vector_add --size 1048576 --threads-per-block 128 --blocks-per-grid 64 --session "),
        qPrintable(a));
    QVERIFY(w.statusText().contains("every check passed"));
    QCOMPARE(w.shownRun().device, std::string("NVIDIA H200"));
    QVERIFY(w.runButton()->isEnabled());
    QVERIFY(!a.contains("--measure"));
    // "Measure with the GPU's counters" passes --measure.
    w.measureBox()->setChecked(true);
    QVERIFY(w.run());
    QVERIFY(shown.wait(10000));
    QVERIFY(args.seek(0));
    const QString measured = QString::fromUtf8(args.readAll());
    QVERIFY2(measured.contains("--blocks-per-grid 64 --measure --session "), qPrintable(measured));
    w.measureBox()->setChecked(false);
    // The child finds no GPU: the recording is offered.
    qputenv("FAKE_EXIT", "3");
    qputenv("TRAINSCOPE_PLAYGROUND_RECORDING", a_.toUtf8());
    QVERIFY(w.run());
    QTRY_VERIFY_WITH_TIMEOUT(w.recordingOffered(), 10000);
    QVERIFY2(w.statusText().contains("no CUDA device"), qPrintable(w.statusText()));
    qunsetenv("TRAINSCOPE_RUNNER");
  }

  void aMeasuredRunShowsItsCountersBesideTheEstimatedFigures() {
    // Copy's first row measured, its second refused; every SGEMM row measured with 3x the minimum
    // DRAM bytes, so the measured points sit left of the estimated ones.
    playground::StoredRun run = ts::test::pg_run(1, "NVIDIA H200");
    int measured_gemm = 0;
    for (auto& l : run.ladders) {
      if (l.family == "copy") {
        playground::Measured m;
        m.occupancy_pct = 91.5, m.sm_pct = 12.5, m.dram_pct = 88.5, m.dram_gbps = 4123, m.duration_ns = 260e3;
        m.kernels = 1;
        l.variants[0].measured = m;
        playground::Measured refused;
        refused.why = "GPU counters need root or RmProfilingAdminOnly=0";
        l.variants[1].measured = refused;
      }
      if (l.family == "sgemm")
        for (auto& v : l.variants) {
          if (!v.check_passed) continue;
          const double bytes = 3.0 * 3 * 4096.0 * 4096 * 4;
          playground::Measured m;
          m.occupancy_pct = 50, m.sm_pct = 80, m.dram_pct = 5, m.duration_ns = v.median_ns;
          m.dram_gbps = bytes / v.median_ns, m.kernels = 1;
          v.measured = m;
          ++measured_gemm;
        }
    }
    const QString path = dir_.filePath("measured.tsession");
    ts::test::pg_write_session(path.toStdString(), run);
    PlaygroundWorkspace w(false, "no CUDA driver");
    w.resize(1280, 680);
    w.show();
    QVERIFY(w.openSession(path));
    QVERIFY(w.selectFamily("copy"));
    LadderView* l = w.ladderView();
    QVERIFY(l->hasMeasured());
    QVERIFY2(l->measuredText(0).startsWith("measured: occupancy 91.5 % · SM 12.5 % · DRAM 88.5 % · 4123 GB/s"),
             qPrintable(l->measuredText(0)));
    QCOMPARE(l->measuredText(1), QString("measured: n/a (GPU counters need root or RmProfilingAdminOnly=0)"));
    QCOMPARE(l->rowCells(0).size(), 7);  // the estimated cells as ever
    QVERIFY(w.selectFamily("stride"));  // not measured: no third line
    QVERIFY(!l->hasMeasured());
    QCOMPARE(l->measuredText(0), QString());
    // The roofline: a measured point per measured SGEMM row, left of its estimated one, labelled.
    RooflineChart* r = w.roofline();
    QCOMPARE(r->measuredPointCount(), measured_gemm);
    QVERIFY(measured_gemm > 0);
    for (const auto& m : r->roofline().measured_points)
      for (const auto& e : r->roofline().points)
        if (e.family == m.family && e.variant == m.variant) QVERIFY(m.intensity < e.intensity);
    bool legend = false;
    for (int i = 0; i < r->plot()->graphCount(); ++i) legend = legend || r->plot()->graph(i)->name() == "measured (GPU counters)";
    QVERIFY(legend);
  }

  void twoSessionsCompare() {
    PlaygroundWorkspace w(false, "no CUDA driver");
    QVERIFY(!w.compareWith(b_));  // nothing shown yet: A is missing
    QVERIFY(w.openSession(a_));
    QVERIFY(w.compareWith(b_));
    const QString head = w.compareLabel()->text();
    QVERIFY2(head.contains("differs: device: NVIDIA H200 vs NVIDIA B200"), qPrintable(head));
    QVERIFY(head.contains("B faster in"));
    QTableWidget* t = w.compareTable();
    QCOMPARE(t->rowCount(), 4 + 2 + 6 + 3 + 6 + 11 + 7);
    bool saw_failed = false, saw_ratio = false;
    for (int i = 0; i < t->rowCount(); ++i) {
      if (t->item(i, 1)->text() == "7 warp tiling")
        saw_ratio = t->item(i, 4)->text() == "2.00x" && t->item(i, 5)->text() == "B";
      if (t->item(i, 1)->text() == "3 shared-memory tiles") saw_failed = t->item(i, 2)->text().contains("FAILED");
    }
    QVERIFY(saw_ratio);
    QVERIFY(saw_failed);
    QVERIFY(!w.compareWith(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b16_nw4.tsession"));
    // Save as: the copy opens again.
    const QString copy = dir_.filePath("saved.tsession");
    QVERIFY(w.saveSessionAs(copy));
    PlaygroundWorkspace w2(false, "x");
    QVERIFY(w2.openSession(copy));
  }

  void theWindowHasThePlaygroundWorkspaceAndRoutesPlaygroundSessionsToIt() {
    MainWindow w;
    w.show();
    bool found = false;
    for (QAction* a : w.workspaces()->modeActions()) found = found || a->text().remove('&') == "Playground";
    QVERIFY(found);
    // Its minimum size fits a 1280x720 screen (at most 1280x680, as the other workspaces).
    w.workspaces()->setMode(Workspaces::Mode::playground);
    QApplication::processEvents();
    const QSize min = w.minimumSizeHint().expandedTo(w.minimumSize());
    QVERIFY2(min.width() <= 1280 && min.height() <= 680,
             qPrintable(QString("%1x%2").arg(min.width()).arg(min.height())));
    QVERIFY(w.sessions()->openSession(a_));
    QCOMPARE(w.workspaces()->mode(), Workspaces::Mode::playground);
    QVERIFY(w.playground()->isVisible());
    QCOMPARE(w.playground()->shownSession(), a_);
    w.workspaces()->setMode(Workspaces::Mode::profile);
    QVERIFY(!w.playground()->isVisible());
    QCOMPARE(mode_name(Workspaces::Mode::playground), QString("playground"));
    Workspaces::Mode m{};
    QVERIFY(mode_from_name("playground", m));
    QCOMPARE(m, Workspaces::Mode::playground);
  }

  void screenshotsWhenAsked() {
    const QString out = qEnvironmentVariable("TS_SCREENSHOTS");
    if (out.isEmpty()) QSKIP("TS_SCREENSHOTS not set");
    QDir().mkpath(out);
    const QString session = qEnvironmentVariable("TS_PLAYGROUND_SESSION", a_);
    for (QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
      MainWindow w;
      w.resize(size);
      w.show();
      QVERIFY(w.sessions()->openSession(session));
      PlaygroundWorkspace* p = w.playground();
      const QString tag = QString("%1x%2").arg(size.width()).arg(size.height());
      auto shoot = [&](const QString& family, int tab, const QString& name) {
        p->selectFamily(family);
        p->tabs()->setCurrentIndex(tab);
        QTest::qWait(400);
        QVERIFY(w.grab().save(out + "/playground_" + name + "_" + tag + ".png"));
      };
      shoot("sgemm", 0, "sgemm_ladder");
      shoot("sgemm", 1, "roofline");
      shoot("transpose", 0, "memory_ladder");
      shoot("sgemm", 2, "timeline");
      QVERIFY(p->compareWith(b_));
      shoot("sgemm", 3, "compare");
    }
  }

  /// On a GPU machine (TS_PLAYGROUND_RUN=1; TS_SCREENSHOTS=DIR): Run from the workspace, as a user
  /// does, for sgemm and transpose at their default sizes; each ladder printed and shot at 1280x720
  /// and 1920x1080 with the roofline and the timeline; then the recording
  /// (TRAINSCOPE_PLAYGROUND_RECORDING, e.g. a `--playground all` session) for the full roofline.
  void runOnTheGpuWhenAsked() {
    if (qEnvironmentVariable("TS_PLAYGROUND_RUN").isEmpty()) QSKIP("TS_PLAYGROUND_RUN not set (a GPU machine)");
    const QString out = qEnvironmentVariable("TS_SCREENSHOTS", QDir::tempPath() + "/ts_playground_shots");
    QDir().mkpath(out);
    MainWindow w;
    w.show();
    PlaygroundWorkspace* p = w.playground();
    QVERIFY2(p->hasGpu(), "the window found no usable GPU");
    w.workspaces()->setMode(Workspaces::Mode::playground);
    auto shoot = [&](const QString& family, int tab, const QString& name) {
      for (QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
        w.resize(size);
        p->selectFamily(family);
        p->tabs()->setCurrentIndex(tab);
        QTest::qWait(500);
        QVERIFY(w.grab().save(QString("%1/%2_%3x%4.png").arg(out, name).arg(size.width()).arg(size.height())));
      }
    };
    for (const char* family : {"sgemm", "transpose"}) {
      QVERIFY(p->selectFamily(family));
      QSignalSpy shown(p, &PlaygroundWorkspace::sessionShown);
      QVERIFY2(p->run(), qPrintable(p->statusText()));
      QVERIFY2(shown.wait(300000), qPrintable(p->statusText()));
      qInfo().noquote() << family << ":" << p->statusText();
      for (int i = 0; p->ladderView()->ladder() && i < static_cast<int>(p->ladderView()->ladder()->variants.size());
           ++i)
        qInfo().noquote() << "  " << p->ladderView()->rowCells(i).join(" | ");
      QFile::copy(shown.first().first().toString(), out + "/run_" + QString(family) + ".tsession");
      shoot(family, 0, QString("run_%1_ladder").arg(family));
      if (QString(family) == "sgemm") {
        shoot(family, 1, "run_sgemm_roofline");
        shoot(family, 2, "run_sgemm_timeline");
      }
    }
    if (p->openRecording()) {
      qInfo().noquote() << "recording:" << p->statusText();
      for (const auto& s : p->roofline()->roofLabels()) qInfo().noquote() << "  roof:" << s;
      shoot("sgemm", 0, "recorded_sgemm_ladder");
      shoot("sgemm", 1, "recorded_roofline");
      shoot("copy", 0, "recorded_copy_ladder");
      shoot("transpose", 0, "recorded_memory_ladder");
    }
  }
};

QTEST_MAIN(TestPlayground)
#include "test_playground.moc"
