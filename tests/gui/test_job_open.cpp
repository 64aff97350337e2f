// Opening a distributed job off the GUI thread (widgets/job/job_loader, widgets/main/job_controller):
// an 8-rank job made of tests/data/jobs/j2_balanced's two rank files (copies with their meta's rank
// and world size changed) loads while a 5 ms heartbeat timer keeps firing (it fires during the load,
// and its largest gap stays under a budget generous for a loaded 2-core machine); the opened job has
// the ranks and verdicts that profiling's load_job + analyze give for the same folder; a folder with
// nothing of a job says why in one line and leaves the job shown before as it was; a second open
// while one loads wins (the first is cancelled and never shown); Cancel keeps the job shown.
// Prints the heartbeat's largest gap and the load time.
#include <QElapsedTimer>
#include <QTableWidget>
#include <QFile>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <algorithm>
#include <cstdio>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "gui/window_probe.h"
#include "profiling/job/job.h"
#include "widgets/job/job_ranks.h"
#include "widgets/job/job_timelines.h"
#include "widgets/main/job_controller.h"
#include "widgets/timeline/timeline_panel.h"

using namespace ts;
using namespace ts::gui;
using ts::gui::test::job_dir;
using ts::gui::test::set_rank_meta;

namespace {

/// An 8-rank job in `dir`: rank r is a copy of j2_balanced's rank r % 2 with meta distributed.rank r
/// and world size 8 (false when a copy or its update fails).
bool make_balanced_j8(const QString& dir) {
  for (int r = 0; r < 8; ++r) {
    const QString path = dir + QStringLiteral("/ddp-rank%1.tsession").arg(r);
    if (!QFile::copy(job_dir("j2_balanced") + QStringLiteral("/ddp-rank%1.tsession").arg(r % 2), path)) return false;
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
    if (!set_rank_meta(path, r, 8)) return false;
  }
  return true;
}

QStringList verdict_keys(const prof::job::JobReport& r) {
  QStringList out;
  for (const auto& v : r.verdicts) out << QStringLiteral("%1/%2/%3").arg(QString::fromStdString(v.id)).arg(v.rank).arg(QString::fromStdString(v.severity));
  return out;
}

/// Measures the GUI thread's largest stall: the largest gap between two ticks of a 5 ms timer less
/// its interval, and the ticks counted.
struct Heartbeat {
  static constexpr int kIntervalMs = 5;
  QTimer timer;
  QElapsedTimer clock;
  qint64 last = -1, max_gap = 0;
  int ticks = 0;
  Heartbeat() {
    timer.setTimerType(Qt::PreciseTimer);
    timer.setInterval(kIntervalMs);
    QObject::connect(&timer, &QTimer::timeout, [this] {
      const qint64 now = clock.elapsed();
      if (last >= 0) max_gap = std::max(max_gap, now - last - kIntervalMs);
      last = now;
      ++ticks;
    });
    clock.start();
    timer.start();
  }
};

}  // namespace

class TestJobOpen : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { test::isolate_settings(); }

  void loadKeepsGuiResponsive() {
    QTemporaryDir dir;
    QVERIFY(make_balanced_j8(dir.path()));
    MainWindow w;
    w.resize(1280, 680);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTest::qWait(200);  // the window's own first layouts are not the load's
    QSignalSpy opened(w.jobs(), &JobController::jobOpened);
    Heartbeat beat;
    QTest::qWait(50);
    QElapsedTimer load;
    load.start();
    QVERIFY(w.jobs()->openJob({dir.path()}));
    const int ticks_at_return = beat.ticks;
    QVERIFY(opened.count() > 0 || opened.wait(60000));
    const qint64 load_ms = load.elapsed();
    const int ticks_during = beat.ticks - ticks_at_return;
    QTest::qWait(300);  // the shown job's first layouts and paints count too
    beat.timer.stop();
    std::printf("job open: 8 ranks in %lld ms; heartbeat ticks during the load %d, largest GUI stall %lld ms\n",
                static_cast<long long>(load_ms), ticks_during, static_cast<long long>(beat.max_gap));
    std::fflush(stdout);
    QVERIFY2(ticks_during >= 3, qPrintable(QString("the heartbeat fired %1 times while the job loaded").arg(ticks_during)));
    // The rank files are read and analysed on the worker; what stays on the GUI thread is making the
    // 8 ranks' widgets (about 60 ms alone here). 1 s leaves room for a loaded 2-core CI machine.
    QVERIFY2(beat.max_gap <= 1000, qPrintable(QString("GUI stalled %1 ms").arg(beat.max_gap)));

    // The same job as profiling gives it.
    const prof::job::Job direct = prof::job::load_job({dir.path().toStdString()});
    const prof::job::JobReport expected = prof::job::analyze(direct);
    QVERIFY(w.jobs()->jobShown());
    QCOMPARE(w.jobs()->job()->ranks.size(), direct.ranks.size());
    QCOMPARE(w.jobs()->timelines()->count(), 8);
    QCOMPARE(w.jobs()->ranks()->table()->rowCount(), 8);
    const auto& got = w.jobs()->report();
    QCOMPARE(got.ranks.size(), expected.ranks.size());
    for (std::size_t i = 0; i < got.ranks.size(); ++i) {
      QCOMPARE(got.ranks[i].rank, expected.ranks[i].rank);
      QCOMPARE(got.ranks[i].step_period_ns, expected.ranks[i].step_period_ns);
      QCOMPARE(got.ranks[i].communication_ns, expected.ranks[i].communication_ns);
    }
    QCOMPARE(verdict_keys(got), verdict_keys(expected));
    QVERIFY(!verdict_keys(got).join(' ').contains("straggler"));
  }

  void badFolderKeepsTheShownJob() {
    MainWindow w;
    w.show();
    QVERIFY(test::open_job(w, {job_dir("j2_straggler")}));
    const QString title = w.windowTitle();
    QCOMPARE(w.jobs()->timelines()->rankAt(0), 1);
    QTemporaryDir empty;
    QSignalSpy failed(w.jobs(), &JobController::jobFailed);
    QSignalSpy opened(w.jobs(), &JobController::jobOpened);
    w.jobs()->openJob({empty.path()});
    QVERIFY(failed.count() > 0 || failed.wait(30000));
    QVERIFY2(w.message().startsWith("Cannot open the job"), qPrintable(w.message()));
    QVERIFY(!w.message().contains('\n'));
    QVERIFY(w.message().contains("no session or trace files"));
    QCOMPARE(opened.count(), 0);
    // The straggler job is still shown, whole.
    QVERIFY(w.jobs()->jobShown());
    QCOMPARE(w.windowTitle(), title);
    QCOMPARE(w.jobs()->timelines()->count(), 2);
    QCOMPARE(w.jobs()->timelines()->rankAt(0), 1);
    QCOMPARE(w.timelinePanel()->alternate(), static_cast<QWidget*>(w.jobs()->timelines()));
    QVERIFY(verdict_keys(w.jobs()->report()).join(' ').contains("straggler/1"));
  }

  void laterOpenWins() {
    QTemporaryDir dir;
    QVERIFY(make_balanced_j8(dir.path()));
    MainWindow w;
    w.show();
    QSignalSpy opened(w.jobs(), &JobController::jobOpened);
    QSignalSpy failed(w.jobs(), &JobController::jobFailed);
    QVERIFY(w.jobs()->openJob({dir.path()}));
    QVERIFY(w.jobs()->openJob({job_dir("j2_straggler")}));
    QVERIFY(opened.count() > 0 || opened.wait(60000));
    QTest::qWait(500);  // nothing of the first open comes afterwards
    QCOMPARE(opened.count(), 1);
    QCOMPARE(failed.count(), 0);  // replaced, not failed
    QCOMPARE(w.jobs()->timelines()->count(), 2);
    QCOMPARE(w.jobs()->timelines()->rankAt(0), 1);
    QVERIFY(!w.jobs()->isLoading());
  }

  void cancelKeepsTheShownJob() {
    QTemporaryDir dir;
    QVERIFY(make_balanced_j8(dir.path()));
    MainWindow w;
    w.show();
    QVERIFY(test::open_job(w, {job_dir("j2_straggler")}));
    QSignalSpy failed(w.jobs(), &JobController::jobFailed);
    QSignalSpy opened(w.jobs(), &JobController::jobOpened);
    QVERIFY(w.jobs()->openJob({dir.path()}));
    QVERIFY(w.jobs()->isLoading());
    w.jobs()->cancelLoad();
    QVERIFY(failed.count() > 0 || failed.wait(30000));
    QCOMPARE(failed.last().at(1).toBool(), true);  // cancelled: no error in the message bar
    QTest::qWait(300);
    QCOMPARE(opened.count(), 0);
    QVERIFY(!w.jobs()->isLoading());
    QCOMPARE(w.jobs()->timelines()->count(), 2);
    QCOMPARE(w.jobs()->timelines()->rankAt(0), 1);
  }
};

QTEST_MAIN(TestJobOpen)
#include "test_job_open.moc"
