// Acceptance: the GUI thread never stalls more than 50 ms during a CPU training run. A 5 ms
// QTimer heartbeat measures the largest gap between its ticks (minus the interval) while the
// window trains on the sample set with live charts. TS_GUI_HEARTBEAT_SECONDS sets the length
// (default 30 s).
#include <QAction>
#include <QElapsedTimer>
#include <QtTest>
#include <cstdio>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "widgets/training/run_settings.h"
#include "widgets/training/training_charts.h"

using namespace ts;
using namespace ts::gui;

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
    QTimer beat;
    beat.setTimerType(Qt::PreciseTimer);
    beat.setInterval(kInterval);
    connect(&beat, &QTimer::timeout, [&] {
      const qint64 now = clock.elapsed();
      if (last >= 0) max_gap = std::max(max_gap, now - last - kInterval);
      last = now;
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
    std::printf("heartbeat: max GUI stall %lld ms over %.0f s of CPU training (%d chart updates, %d loss points)\n",
                static_cast<long long>(max_gap), seconds, updates, w.charts()->lossPoints());
    std::fflush(stdout);
    QVERIFY(updates > 5);
    QVERIFY2(max_gap <= 50, qPrintable(QString("GUI stalled %1 ms").arg(max_gap)));
  }
};

QTEST_MAIN(TestHeartbeat)
#include "test_heartbeat.moc"
