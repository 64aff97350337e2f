// Sessions from the window (CPU, sample set): a run records a session; Save session as copies it;
// Open session replays its loss and accuracy points and shows the config; a garbage file gives the
// reader's one-line error and a following Start works; Recent sessions lists the opened file and
// drops a missing one. An H200 session (tests/data) opens in the background (the panels' store
// fills, Cancel stops it; New run waits for it), by drag and drop too, and "Run again with these
// settings" loads its knobs. A lesson's compressed recording (*.tsession.zst) opens as a plain one.
#include <QAction>
#include <QDir>
#include <QRegularExpression>
#include <QElapsedTimer>
#include <QFile>
#include <QMenu>
#include <QMimeData>
#include <QUrl>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "gui/window_probe.h"
#include "lessons/session_pack.h"
#include "profiling/session/session_file.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/model/model_builder.h"
#include "widgets/playground/playground_workspace.h"
#include "widgets/workspaces/workspaces.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/panels/verdict_panel.h"
#include "widgets/common/elided_label.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/training/run_settings.h"
#include "widgets/sessions/session_loader.h"
#include "widgets/training/training_charts.h"

using namespace ts;
using namespace ts::gui;

namespace {
RunSettings small_cpu_run() { return test::small_cpu_run(2, 256); }  // 4 steps per epoch

QStringList recent_entries(MainWindow& w) {
  QStringList r;
  for (auto* a : w.sessions()->recentMenu()->actions())
    if (a->data().isValid()) r << a->data().toString();
  return r;
}
}  // namespace

class TestSessions : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { test::isolate_settings(); }

  void recordSaveOpenReplay() {
    QTemporaryDir dir;
    MainWindow w;
    w.runSettings()->setSettings(small_cpu_run());
    QVERIFY(w.runSettings()->settings().record_session);
    QVERIFY(!w.sessions()->saveAction()->isEnabled());
    QSignalSpy finished(w.session(), &TrainingSession::finished);
    w.startRun();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
    const RunOutcome out = finished.at(0).at(0).value<RunOutcome>();
    QCOMPARE(out.kind, RunOutcome::completed);
    QVERIFY2(out.session_error.isEmpty(), qPrintable(out.session_error));
    QTRY_VERIFY(w.sessions()->saveAction()->isEnabled());
    const QString recorded = w.sessions()->lastSessionPath();
    QVERIFY(recorded.startsWith(default_session_dir()));
    QVERIFY(QFile::exists(recorded));
    const int live_loss = w.charts()->lossPoints(), live_acc = w.charts()->accuracyPoints();
    QCOMPARE(live_loss, 8);
    QCOMPARE(live_acc, 2);
    // Live throughput per update interval (not the epoch's running mean) with its smoothed line.
    QVERIFY(w.charts()->throughputPoints() > 0);
    QCOMPARE(w.charts()->smoothedThroughputPoints(), w.charts()->throughputPoints());
    // The run just recorded has its details at once, in people's words.
    QVERIFY2(w.sessions()->details().contains("batch size: 64 images") && w.sessions()->details().contains("(no CUDA device)"),
             qPrintable(w.sessions()->details()));

    const QString saved = dir.path() + "/run.tsession";
    QVERIFY(w.sessions()->saveSessionAs(saved));
    QVERIFY(QFile::exists(saved));

    // File ▸ New run starts clean: the finished run's verdict banner and progress line are gone.
    QTRY_VERIFY(w.verdictBanner()->hasContent());
    QVERIFY(w.charts()->progressFormat().startsWith("epoch 2/2"));
    w.newRun();
    QCOMPARE(w.charts()->lossPoints(), 0);
    QVERIFY2(!w.verdictBanner()->hasContent(), qPrintable(w.verdictBanner()->text()));
    QVERIFY(!w.panelHub()->store());
    QCOMPARE(w.charts()->progressValue(), 0);
    QCOMPARE(w.charts()->progressFormat(), QString("epoch –"));
    QCOMPARE(w.charts()->progressText(), QString("No run yet: press Start."));
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QVERIFY(w.sessions()->openSession(saved));
    QVERIFY(opened.wait(20000));
    QCOMPARE(w.charts()->lossPoints(), live_loss);
    QCOMPARE(w.charts()->accuracyPoints(), live_acc);
    // Replayed throughput: one point per recorded step, and its smoothed line.
    QCOMPARE(w.charts()->throughputPoints(), live_loss);
    QCOMPARE(w.charts()->smoothedThroughputPoints(), live_loss);
    QVERIFY(w.windowTitle().contains("run.tsession"));
    const QString details = w.sessions()->details();
    QVERIFY2(details.contains("batch size: 64 images") && details.contains("epochs: 2") &&
                 details.contains("(no CUDA device)") && details.contains("TrainScope 0.1") &&
                 details.contains("weight decay: default") && !details.contains("weight_decay: -1"),
             qPrintable(details));
    QVERIFY(recent_entries(w).contains(QFileInfo(saved).absoluteFilePath()));
  }

  void aDamagedFileSaysWhyWholeAndLeavesTheViewAsItWas() {
    // A copy whose middle pages are overwritten: its header reads, the load fails part way, with a
    // message that names the file twice (in a long folder, as a server's recordings are).
    QTemporaryDir dir;
    const QString folder = dir.path() + "/recordings-of-the-h200-server/profiling-runs-of-the-week";
    QVERIFY(QDir().mkpath(folder));
    const QString good = TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession";
    const QString damaged = folder + "/gpu_b128_nw4_damaged.tsession";
    QVERIFY(QFile::copy(good, damaged));
    QFile f(damaged);
    QVERIFY(f.open(QIODevice::ReadWrite));
    QVERIFY(f.seek(f.size() / 3));
    f.write(QByteArray(20000, '\xab'));
    f.close();

    MainWindow w;
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(test::open_session(w, good));
    TimelineView* view = w.timelinePanel()->view();
    QTRY_VERIFY(view->data().eventCount() > 0);
    view->fitAll();
    const TimeSpan fitted = view->range();
    QVERIFY(!(fitted == view->initialRange()));  // Fit all is not what an open shows first
    view->setScrollY(view->maxScrollY());
    const int scrolled = view->scrollY();
    const auto store = w.panelHub()->store();
    QSignalSpy failed(w.sessions(), &SessionsController::sessionFailed);
    QVERIFY(w.sessions()->openSession(damaged));
    QVERIFY(failed.wait(20000));

    // What was shown stays: the store, the range after Fit all, follow live off, the scroll.
    QCOMPARE(w.panelHub()->store(), store);
    QTRY_VERIFY(view->data().eventCount() > 0);
    QVERIFY2(view->range() == fitted, qPrintable(QString("%1-%2, was %3-%4").arg(view->range().start).arg(view->range().end)
                                                    .arg(fitted.start).arg(fitted.end)));
    QVERIFY(w.panelHub()->visibleRange() == fitted);
    QVERIFY(!w.panelHub()->followLive());
    QCOMPARE(view->scrollY(), scrolled);

    // The message whole at 1280 px: on lines that each fit the bar, nothing cut.
    const QString m = w.message();
    QVERIFY2(m.contains("damaged") && m.contains("gpu_b128_nw4_damaged.tsession-wal"), qPrintable(m));
    auto* label = w.findChild<ElidedLabel*>("message");
    QVERIFY(label && label->isVisible());
    QApplication::processEvents();
    const QStringList lines = label->text().split('\n');
    const QFontMetrics fm(label->font());
    for (const QString& line : lines)
      QVERIFY2(fm.horizontalAdvance(line) <= label->contentsRect().width(),
               qPrintable(QString("%1 px wide in %2: %3").arg(fm.horizontalAdvance(line)).arg(label->contentsRect().width()).arg(line)));
    static const QRegularExpression space(QStringLiteral("\\s"));
    QVERIFY2(QString(label->text()).remove(space) == QString(m).remove(space), qPrintable(label->text()));
    QVERIFY2(label->height() >= static_cast<int>(lines.size()) * fm.lineSpacing(),
             qPrintable(QString("%1 lines in %2 px").arg(lines.size()).arg(label->height())));
    QVERIFY(label->geometry().right() < w.width());
  }

  void garbageFileThenStartWorks() {
    QTemporaryDir dir;
    const QString garbage = dir.path() + "/garbage.tsession";
    QFile f(garbage);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray(4096, 'x'));
    f.close();
    MainWindow w;
    RunSettings s = small_cpu_run();
    s.epochs = 1;
    w.runSettings()->setSettings(s);
    QVERIFY(!w.sessions()->openSession(garbage));
    QVERIFY2(w.message().contains("is not a TrainScope session"), qPrintable(w.message()));
    QVERIFY(!w.message().contains('\n'));
    QVERIFY(!recent_entries(w).contains(garbage));
    QSignalSpy finished(w.session(), &TrainingSession::finished);
    QVERIFY(w.startAction()->isEnabled());
    w.startRun();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
    QCOMPARE(finished.at(0).at(0).value<RunOutcome>().kind, RunOutcome::completed);
    // The epoch's accuracy reaches the charts by a queued signal that can come after finished
    // (seen once in CI under load): wait for it rather than read it at once.
    QTRY_COMPARE_WITH_TIMEOUT(w.charts()->accuracyPoints(), 1, 5000);
  }

  void h200SessionOpensInTheBackgroundAndCancels() {
    const QString path = TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b16_nw4.tsession";
    MainWindow w;
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QSignalSpy failed(w.sessions()->loader(), &SessionLoader::failed);
    QVERIFY(w.sessions()->openSession(path));
    QVERIFY(w.panelHub()->store() != nullptr);  // the panels get the store before it is full
    QVERIFY(!w.startAction()->isEnabled());      // no run while a session loads
    w.sessions()->loader()->cancel();
    QTRY_VERIFY_WITH_TIMEOUT(opened.count() + failed.count() == 1, 20000);
    if (failed.count() == 1) {  // cancelled before the end (it can also have finished first)
      QCOMPARE(failed.at(0).at(1).toBool(), true);
      QVERIFY(w.panelHub()->store() == nullptr);
      QVERIFY(w.message().isEmpty());  // a cancel is not an error
    }
    opened.clear();
    QVERIFY(w.sessions()->openSession(path));
    QVERIFY(opened.wait(20000));
    QVERIFY(w.windowTitle().contains("gpu_b16_nw4.tsession"));
    QVERIFY(!w.panelHub()->isLive());
    QVERIFY(w.panelHub()->store()->counts().kernels > 1000);
    QVERIFY(w.sessions()->details().contains("NVIDIA H200"));
  }

  // A session still being written (a run of trainscope-run --session, a profiled program) is
  // followed: the panels stay live and get each committed batch, the status bar says so, and the
  // writer's close ends it as a normal open with every row.
  void aSessionStillBeingWrittenIsFollowedUntilItsWriterCloses() {
    QTemporaryDir dir;
    const QString path = dir.filePath("live.tsession");
    prof::EventStore ws;
    auto add = [&ws](int from, int to) {
      for (int i = from; i <= to; ++i) {
        prof::KernelRecord k;
        k.start = 1000000LL * i, k.end = k.start + 400000, k.stream = 7, k.correlation = static_cast<std::uint32_t>(i);
        k.name = ws.strings.intern("live_kernel");
        prof::KernelConfig c;
        c.grid[0] = 4, c.block[0] = 128;
        k.config = ws.intern_config(c);
        ws.append(ws.kernels, k);
        ws.append(ws.steps, prof::StepRecord{i, 1, i, 1000000LL * i, 1000000LL * i + 900000, 64, 10});
      }
    };
    auto writer = std::make_unique<prof::SessionWriter>(path.toStdString(), ws);
    add(1, 20);
    QVERIFY(writer->write_batch());
    MainWindow w;
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QVERIFY(w.sessions()->openSession(path));
    QVERIFY(w.sessions()->loader()->isFollowing());
    QVERIFY(w.panelHub()->isLive());
    QTRY_COMPARE_WITH_TIMEOUT(w.panelHub()->store()->counts().kernels, std::size_t{20}, 5000);
    add(21, 50);
    QVERIFY(writer->write_batch());
    QElapsedTimer t;
    t.start();
    QTRY_COMPARE_WITH_TIMEOUT(w.panelHub()->store()->counts().kernels, std::size_t{50}, 5000);
    QVERIFY2(t.elapsed() < 2000, qPrintable(QString::number(t.elapsed())));  // one poll (100 ms), with slack
    QVERIFY(opened.isEmpty());
    QVERIFY(w.panelHub()->isLive());
    add(51, 60);
    writer->close();
    QVERIFY(opened.wait(10000));
    QVERIFY(!w.sessions()->loader()->isFollowing());
    QVERIFY(!w.panelHub()->isLive());
    QCOMPARE(w.panelHub()->store()->counts().kernels, std::size_t{60});
    QCOMPARE(w.panelHub()->store()->counts().steps, std::size_t{60});
    QVERIFY(w.windowTitle().contains("live.tsession"));
  }

  void runAgainLoadsTheSessionsKnobs() {
    MainWindow w;
    QVERIFY(!w.sessions()->runAgainAction()->isEnabled());
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QVERIFY(w.sessions()->openSession(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw0_augment.tsession"));
    QVERIFY(opened.wait(20000));
    QVERIFY(w.sessions()->runAgainAction()->isEnabled());
    RunSettings before = w.runSettings()->settings();
    before.batch_size = 32, before.num_workers = 3, before.augment = false;
    w.runSettings()->setSettings(before);
    w.sessions()->runAgainAction()->trigger();
    const RunSettings s = w.runSettings()->settings();
    QCOMPARE(s.batch_size, std::int64_t{128});
    QCOMPARE(s.num_workers, 0);
    QVERIFY(s.augment);
    QCOMPARE(w.modelBuilder()->spec().name, std::string("SimpleCNN"));
  }

  void droppingASessionOpensIt() {
    MainWindow w;
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession")});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    enter.setAccepted(false);
    QApplication::sendEvent(&w, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &drop);
    QVERIFY(opened.wait(20000));
    QVERIFY(w.windowTitle().contains("gpu_b128_nw4.tsession"));
    // Other files are refused at the door.
    QMimeData other;
    other.setUrls({QUrl::fromLocalFile("/etc/hostname")});
    QDragEnterEvent enter2(QPoint(10, 10), Qt::CopyAction, &other, Qt::LeftButton, Qt::NoModifier);
    enter2.setAccepted(false);
    QApplication::sendEvent(&w, &enter2);
    QVERIFY(!enter2.isAccepted());
  }

  void pytorchTracesOpenToo() {
    MainWindow w;
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QVERIFY(w.sessions()->openSession(TRAINSCOPE_SOURCE_DIR "/tests/data/traces/kineto_small.json"));
    QVERIFY(opened.wait(20000));
    QVERIFY(w.panelHub()->store()->counts().kernels > 0);
    QVERIFY2(w.sessions()->details().contains("PyTorch trace"), qPrintable(w.sessions()->details()));
    // A trace has steps but no epochs or test accuracy: the charts claim neither.
    QCOMPARE(w.charts()->progressFormat(), QString("epoch 1: step %v/%m"));
    QVERIFY2(w.charts()->progressText().contains("no test accuracy recorded"), qPrintable(w.charts()->progressText()));
    // Not JSON: the importer's one line (file and byte offset), and the window stays usable.
    QSignalSpy failed(w.sessions()->loader(), &SessionLoader::failed);
    QVERIFY(w.sessions()->openSession(TRAINSCOPE_SOURCE_DIR "/tests/data/traces/not_json.json"));
    QVERIFY(failed.wait(20000));
    QVERIFY2(w.message().contains("not_json.json") && !w.message().contains('\n'), qPrintable(w.message()));
    QVERIFY(w.sessions()->openAction()->isEnabled());
  }

  /// A lesson's recording is compressed (trainscope-run --lesson-compress: ID.tsession.zst): File ▸
  /// Open and Compare's dialogs offer it, a drop takes it, and it opens as the plain file does; a
  /// damaged one says why, naming the file the user chose (not the decompressed copy).
  void aCompressedSessionOpensFromTheDialogsFilter() {
    QTemporaryDir dir;
    const QString zst = dir.filePath("after.tsession.zst");
    lessons::compress_session(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b16_nw4.tsession", zst.toStdString());
    const QString filter = SessionsController::sessionFileFilter();
    for (const QString& line : filter.split(";;").mid(0, 2)) {  // "Sessions and traces", "TrainScope sessions"
      const QString globs = line.section('(', 1).section(')', 0, 0);
      QVERIFY2(QDir::match(globs.split(' '), QFileInfo(zst).fileName()), qPrintable(line));
    }
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(zst)});
    QCOMPARE(SessionsController::droppedSessions(&mime), QStringList{zst});
    MainWindow w;
    QVERIFY(test::open_session(w, zst));
    QVERIFY2(w.windowTitle().contains("after.tsession.zst"), qPrintable(w.windowTitle()));
    QVERIFY(w.panelHub()->store()->counts().kernels > 1000);
    QVERIFY(w.sessions()->details().contains("NVIDIA H200"));
    QVERIFY(recent_entries(w).contains(QFileInfo(zst).absoluteFilePath()));
    // Cut short: the decompression's error, with the chosen file's name.
    QFile whole(zst), cut(dir.filePath("cut.tsession.zst"));
    QVERIFY(whole.open(QIODevice::ReadOnly) && cut.open(QIODevice::WriteOnly));
    cut.write(whole.read(whole.size() / 2));
    cut.close();
    QSignalSpy failed(w.sessions()->loader(), &SessionLoader::failed);
    QVERIFY(w.sessions()->openSession(cut.fileName()));
    QVERIFY(failed.wait(20000));
    QVERIFY2(w.message().contains("cut.tsession.zst") && !w.message().contains("ts-lesson-"), qPrintable(w.message()));
    QVERIFY(w.sessions()->openAction()->isEnabled());
  }

  /// A compressed session is decompressed once, on the loader's thread (the GUI thread's check for a
  /// playground run decompressed the whole file first, then the loader again); a playground run in
  /// one is shown in the Playground workspace from the loader's copy.
  void aCompressedSessionIsDecompressedOnceOffTheGuiThread() {
    QTemporaryDir dir;
    const QString zst = dir.filePath("run.tsession.zst");
    lessons::compress_session(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b16_nw4.tsession", zst.toStdString());
    MainWindow w;
    const long long all = lessons::PlainSession::copies_made(), here = lessons::PlainSession::copies_made_here();
    QVERIFY(test::open_session(w, zst));
    QCOMPARE(lessons::PlainSession::copies_made_here(), here);
    QCOMPARE(lessons::PlainSession::copies_made(), all + 1);
    const QString recording = QStringLiteral(TRAINSCOPE_SOURCE_DIR "/resources/playground/h200.tsession.zst");
    if (!QFile::exists(recording)) QSKIP("the shipped playground recording is not in the source tree");
    QVERIFY(w.sessions()->openSession(recording));
    QTRY_VERIFY_WITH_TIMEOUT(!w.playground()->shownRun().ladders.empty(), 20000);
    QCOMPARE(w.workspaces()->mode(), Workspaces::Mode::playground);
    QCOMPARE(w.playground()->shownSession(), recording);
    QCOMPARE(lessons::PlainSession::copies_made_here(), here);
    QCOMPARE(lessons::PlainSession::copies_made(), all + 2);
    QVERIFY(w.sessions()->openAction()->isEnabled());
  }

  /// New run clears the panels a loading session fills: it waits for the load to end, opened or failed.
  void newRunWaitsWhileASessionLoads() {
    MainWindow w;
    QVERIFY(w.newRunAction()->isEnabled());
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QVERIFY(w.sessions()->openSession(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b16_nw4.tsession"));
    QVERIFY(w.sessions()->isLoading());
    QVERIFY(!w.newRunAction()->isEnabled());
    w.newRun();  // called meanwhile (a queued shortcut), it leaves the loading session alone
    QVERIFY(w.panelHub()->store() != nullptr);
    QVERIFY(opened.wait(20000));
    QVERIFY(w.newRunAction()->isEnabled());
    // A load that fails gives it back too.
    QSignalSpy failed(w.sessions()->loader(), &SessionLoader::failed);
    QVERIFY(w.sessions()->openSession(TRAINSCOPE_SOURCE_DIR "/tests/data/traces/not_json.json"));
    QVERIFY(!w.newRunAction()->isEnabled());
    QVERIFY(failed.wait(20000));
    QVERIFY(w.newRunAction()->isEnabled());
  }

  void recentSessionsDropsAMissingFile() {
    QTemporaryDir dir;
    const QString gone = dir.path() + "/gone.tsession";
    QSettings().setValue("sessions/recent", QStringList{gone});
    MainWindow w2;
    QCOMPARE(recent_entries(w2), QStringList{gone});
    w2.sessions()->recentMenu()->actions().first()->trigger();
    QVERIFY2(w2.message().contains("no longer exists"), qPrintable(w2.message()));
    QVERIFY(recent_entries(w2).isEmpty());
  }
};

QTEST_MAIN(TestSessions)
#include "test_sessions.moc"
