// Acceptance: the GUI thread never stalls more than 50 ms during a CPU training run. A 5 ms
// QTimer heartbeat measures the largest gap between its ticks (minus the interval) while the
// window trains on the sample set with live charts. TS_GUI_HEARTBEAT_SECONDS sets the length
// (default 30 s). A gap counts less the time the thread sat runnable in the kernel's run queue
// (Linux's /proc/thread-self/schedstat, run_delay): on a loaded 2-core machine (ctest -j2, CI) the
// scheduler alone left the ready GUI thread off the CPU for 55-64 ms, which is not the window's
// work; time blocked (a lock, I/O) still counts. Both figures are printed.
#include <QAction>
#include <QElapsedTimer>
#include <QtTest>
#include <cstdio>
#include <fstream>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "widgets/training/run_settings.h"
#include "widgets/training/training_charts.h"

using namespace ts;
using namespace ts::gui;

namespace {
/// ms this thread has waited runnable on a run queue (schedstat's second field, ns), or -1 without it.
double run_queue_wait_ms() {
  std::ifstream f("/proc/thread-self/schedstat");
  long long on_cpu = 0, waited = 0;
  if (!(f >> on_cpu >> waited)) return -1;
  return static_cast<double>(waited) / 1e6;
}
}  // namespace

class TestHeartbeat : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { test::isolate_settings(); }

  void guiNeverStallsDuringCpuRun() {
    const double seconds = qEnvironmentVariableIsSet("TS_GUI_HEARTBEAT_SECONDS")
                               ? qEnvironmentVariable("TS_GUI_HEARTBEAT_SECONDS").toDouble()
                               : 30.0;
    MainWindow w;
    w.resize(1280, 680);  // a 1280x720 screen: the smallest the window is made for
    w.show();
    RunSettings s;
    s.device = Device::cpu;
    s.epochs = 1000;  // stopped by the test
    s.num_workers = 1;
    w.runSettings()->setSettings(s);
    QSignalSpy finished(w.session(), &TrainingSession::finished);
    QSignalSpy progress(w.session(), &TrainingSession::progress);

    constexpr int kInterval = 5;
    QElapsedTimer clock;
    qint64 last = -1, max_gap = 0;
    double last_wait = -1, max_stall = 0;  // max_stall: a gap less its run-queue wait
    QTimer beat;
    beat.setTimerType(Qt::PreciseTimer);
    beat.setInterval(kInterval);
    connect(&beat, &QTimer::timeout, [&] {
      const qint64 now = clock.elapsed();
      const double wait = run_queue_wait_ms();
      if (last >= 0) {
        const qint64 gap = now - last - kInterval;
        max_gap = std::max(max_gap, gap);
        const double queued = wait >= 0 && last_wait >= 0 ? wait - last_wait : 0;
        max_stall = std::max(max_stall, static_cast<double>(gap) - queued);
      }
      last = now, last_wait = wait;
    });
    w.startRun();
    QTRY_VERIFY_WITH_TIMEOUT(progress.count() > 0, 60000);  // measure while training, not while loading
    clock.start();
    beat.start();
    QTest::qWait(static_cast<int>(seconds * 1000));
    beat.stop();
    const int updates = progress.count();
    w.stopAction()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 30000);
    std::printf("heartbeat: max GUI stall %.1f ms (max gap %lld ms with the run-queue wait) over %.0f s of CPU "
                "training (%d chart updates, %d loss points)\n",
                max_stall, static_cast<long long>(max_gap), seconds, updates, w.charts()->lossPoints());
    std::fflush(stdout);
    QVERIFY(updates > 5);
    QVERIFY2(max_stall <= 50, qPrintable(QString("GUI stalled %1 ms (gap %2 ms)").arg(max_stall).arg(max_gap)));
  }
};

QTEST_MAIN(TestHeartbeat)
#include "test_heartbeat.moc"
