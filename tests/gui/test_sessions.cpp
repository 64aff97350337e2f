// Sessions from the window (CPU, sample set): a run records a session; Save session as copies it;
// Open session replays its loss and accuracy points and shows the config; a garbage file gives the
// reader's one-line error and a following Start works; Recent sessions lists the opened file and
// drops a missing one.
#include <QAction>
#include <QFile>
#include <QMenu>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "widgets/run_settings.h"
#include "widgets/training_charts.h"

using namespace ts;
using namespace ts::gui;

namespace {
RunSettings small_cpu_run() { return test::small_cpu_run(2, 256); }  // 4 steps per epoch

QStringList recent_entries(MainWindow& w) {
  QStringList r;
  for (auto* a : w.recentSessionsMenu()->actions())
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
    QVERIFY(!w.saveSessionAction()->isEnabled());
    QSignalSpy finished(w.session(), &TrainingSession::finished);
    w.startRun();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
    const RunOutcome out = finished.at(0).at(0).value<RunOutcome>();
    QCOMPARE(out.kind, RunOutcome::completed);
    QVERIFY2(out.session_error.isEmpty(), qPrintable(out.session_error));
    QTRY_VERIFY(w.saveSessionAction()->isEnabled());
    const QString recorded = w.lastSessionPath();
    QVERIFY(recorded.startsWith(default_session_dir()));
    QVERIFY(QFile::exists(recorded));
    const int live_loss = w.charts()->lossPoints(), live_acc = w.charts()->accuracyPoints();
    QCOMPARE(live_loss, 8);
    QCOMPARE(live_acc, 2);

    const QString saved = dir.path() + "/run.tsession";
    QVERIFY(w.saveSessionAs(saved));
    QVERIFY(QFile::exists(saved));

    w.newRun();
    QCOMPARE(w.charts()->lossPoints(), 0);
    QVERIFY(w.openSession(saved));
    QCOMPARE(w.charts()->lossPoints(), live_loss);
    QCOMPARE(w.charts()->accuracyPoints(), live_acc);
    QVERIFY(w.charts()->throughputPoints() > 0);
    QVERIFY(w.windowTitle().contains("run.tsession"));
    const QString details = w.sessionDetails();
    QVERIFY2(details.contains("batch_size: 64") && details.contains("epochs: 2") && details.contains("device.kind: cpu") &&
                 details.contains("versions.trainscope"),
             qPrintable(details));
    QVERIFY(recent_entries(w).contains(QFileInfo(saved).absoluteFilePath()));
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
    QVERIFY(!w.openSession(garbage));
    QVERIFY2(w.message().contains("is not a TrainScope session"), qPrintable(w.message()));
    QVERIFY(!w.message().contains('\n'));
    QVERIFY(!recent_entries(w).contains(garbage));
    QSignalSpy finished(w.session(), &TrainingSession::finished);
    QVERIFY(w.startAction()->isEnabled());
    w.startRun();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
    QCOMPARE(finished.at(0).at(0).value<RunOutcome>().kind, RunOutcome::completed);
    QCOMPARE(w.charts()->accuracyPoints(), 1);
  }

  void recentSessionsDropsAMissingFile() {
    QTemporaryDir dir;
    const QString gone = dir.path() + "/gone.tsession";
    QSettings().setValue("sessions/recent", QStringList{gone});
    MainWindow w2;
    QCOMPARE(recent_entries(w2), QStringList{gone});
    w2.recentSessionsMenu()->actions().first()->trigger();
    QVERIFY2(w2.message().contains("no longer exists"), qPrintable(w2.message()));
    QVERIFY(recent_entries(w2).isEmpty());
  }
};

QTEST_MAIN(TestSessions)
#include "test_sessions.moc"
