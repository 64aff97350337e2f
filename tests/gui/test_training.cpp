// Training from the window on the CPU and the generated sample set: charts update and the run
// ends cleanly; Stop mid-epoch and Pause leave the window responsive; engine errors become a
// message with the fix; a NaN loss is marked on the chart.
#include <QAction>
#include <QElapsedTimer>
#include <QtTest>
#include <cmath>
#include <qcustomplot.h>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "widgets/compare/compare_tables.h"
#include "widgets/training/run_settings.h"
#include "widgets/training/training_charts.h"

using namespace ts;
using namespace ts::gui;

namespace {
using test::small_cpu_run;
}  // namespace

class TestTraining : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { test::isolate_settings(); }

  void cpuRunUpdatesChartsAndEnds() {
    MainWindow w;
    w.runSettings()->setSettings(small_cpu_run(2, 640));
    QSignalSpy finished(w.session(), &TrainingSession::finished);
    QSignalSpy progress(w.session(), &TrainingSession::progress);
    w.startRun();
    QVERIFY(!w.startAction()->isEnabled());
    QVERIFY(w.stopAction()->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
    const auto out = finished.at(0).at(0).value<RunOutcome>();
    QCOMPARE(out.kind, RunOutcome::completed);
    QCOMPARE(static_cast<int>(out.summary.epochs.size()), 2);
    // (The spy counts on the worker thread; the last updates reach the charts queued after it.)
    QTRY_COMPARE(w.charts()->lossPoints(), 20);  // 10 steps per epoch, every loss shown
    QTRY_COMPARE(w.charts()->accuracyPoints(), 2);
    QVERIFY(w.charts()->throughputPoints() > 0);
    QVERIFY(progress.count() > 0);
    QTRY_VERIFY(w.startAction()->isEnabled());
    QVERIFY(!w.stopAction()->isEnabled());
    QVERIFY(w.message().isEmpty() || w.message().contains("GPU"));
  }

  void stopMidEpochLeavesAppResponsive() {
    MainWindow w;
    w.runSettings()->setSettings(small_cpu_run(5, 0));  // 79 steps per epoch
    QSignalSpy finished(w.session(), &TrainingSession::finished);
    QSignalSpy progress(w.session(), &TrainingSession::progress);
    w.startRun();
    QTRY_VERIFY_WITH_TIMEOUT(progress.count() >= 3, 60000);
    QElapsedTimer t;
    t.start();
    w.stopAction()->trigger();
    QVERIFY(t.elapsed() < 50);  // Stop returns at once; the trainer stops after its step
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 30000);
    QCOMPARE(finished.at(0).at(0).value<RunOutcome>().kind, RunOutcome::stopped);
    QTRY_VERIFY(w.startAction()->isEnabled());
    // The app is usable: change a setting and start again.
    w.runSettings()->setSettings(small_cpu_run(1, 128));
    w.startRun();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 2, 60000);
    QCOMPARE(finished.at(1).at(0).value<RunOutcome>().kind, RunOutcome::completed);
  }

  void pauseHoldsTheTrainerBetweenSteps() {
    MainWindow w;
    w.runSettings()->setSettings(small_cpu_run(5, 0));
    QSignalSpy finished(w.session(), &TrainingSession::finished);
    QSignalSpy progress(w.session(), &TrainingSession::progress);
    w.startRun();
    QTRY_VERIFY_WITH_TIMEOUT(progress.count() >= 2, 60000);
    w.pauseAction()->trigger();
    QVERIFY(w.session()->isPaused());
    // The step in flight (slow on a busy 2-core machine) still reports; then nothing until resumed.
    auto before = progress.count();
    for (int i = 0; i < 20; ++i) {
      QTest::qWait(1000);
      if (progress.count() == before) break;
      before = progress.count();
    }
    QTest::qWait(1500);
    QCOMPARE(progress.count(), before);
    w.pauseAction()->trigger();  // resume
    QTRY_VERIFY_WITH_TIMEOUT(progress.count() > before, 30000);
    w.stopAction()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 30000);
  }

  void engineErrorBecomesMessageWithFix() {
    MainWindow w;
    RunSettings s = small_cpu_run(1, 32);
    s.batch_size = 128;  // larger than the 32 training images: the trainer refuses
    w.runSettings()->setSettings(s);
    QSignalSpy finished(w.session(), &TrainingSession::finished);
    w.startRun();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 60000);
    QCOMPARE(finished.at(0).at(0).value<RunOutcome>().kind, RunOutcome::failed);
    // The spy counts on the worker thread; the window's slot runs queued, so wait for the message.
    QTRY_VERIFY2(w.message().contains("batch size"), qPrintable(w.message() + " / " + finished.at(0).at(0).value<RunOutcome>().message));
    QVERIFY(w.message().contains("Run settings"));
    QTRY_VERIFY(w.startAction()->isEnabled());
  }

  void nonFiniteLossIsMarked() {
    TrainingCharts charts;
    RunInfo info;
    info.steps_per_epoch = 10;
    info.epochs = 1;
    charts.reset(info);
    TrainingUpdate u;
    u.losses = {{1, 2.3f}, {2, 2.2f}, {3, std::nanf("")}};
    u.global_step = 3;
    u.step = 3;
    u.steps_in_epoch = 10;
    charts.addUpdate(u);
    QCOMPARE(charts.lossPoints(), 2);
    QCOMPARE(charts.nonFiniteSteps(), std::vector<std::int64_t>{3});
    QVERIFY(charts.lossPlot()->itemCount() >= 2);  // the line and its label
  }

  /// The Train view's throughput is a per-step rate; Compare's headline is images ÷ training time. The
  /// two figures of one run differ, so they are named apart and each says what the other counts.
  void throughputFiguresAreNamedApart() {
    TrainingCharts charts;
    const QString axis = charts.throughputPlot()->yAxis->label();
    QVERIFY2(axis.contains("per step"), qPrintable(axis));
    QVERIFY2(axis != training_rate_label(), qPrintable(axis));
    const QString chart_tip = charts.throughputPlot()->toolTip();
    QVERIFY2(chart_tip.contains(training_rate_label()), qPrintable(chart_tip));
    QVERIFY2(chart_tip.contains("training time"), qPrintable(chart_tip));
    QVERIFY2(training_rate_tooltip().contains(axis), qPrintable(training_rate_tooltip()));
  }

  /// A short run's loss stays flat near its top, where a legend in the plot's top right sat on it: the
  /// legend is under the plot area, over no point, flat or falling (test_chart_legends checks the
  /// window's charts at 1280x720 and in classroom mode).
  void theLossLegendStaysOffTheCurve() {
    TrainingCharts charts;
    charts.resize(800, 600);
    charts.show();
    QVERIFY(QTest::qWaitForWindowExposed(&charts));
    RunInfo info;
    info.steps_per_epoch = 20;
    info.epochs = 1;
    auto feed = [&](auto loss_at) {
      charts.reset(info);
      TrainingUpdate u;
      for (int i = 1; i <= 20; ++i) u.losses.push_back({i, loss_at(i)});
      u.global_step = u.step = 20, u.steps_in_epoch = 20;
      charts.addUpdate(u);
    };
    auto covered = [&] {
      QCustomPlot* p = charts.lossPlot();
      p->replot();
      const QRect box = p->legend->outerRect();
      int n = box.intersects(p->axisRect()->rect()) ? 1000 : 0;
      for (int g = 0; g < 2; ++g)
        for (auto it = p->graph(g)->data()->constBegin(); it != p->graph(g)->data()->constEnd(); ++it)
          n += box.contains(QPoint(static_cast<int>(p->xAxis->coordToPixel(it->key)), static_cast<int>(p->yAxis->coordToPixel(it->value))));
      return n;
    };
    // Flat after a higher first step (as a short run's loss is): along the top, under the legend.
    feed([](int i) { return i == 1 ? 2.45f : 2.30f - 0.01f * static_cast<float>(i % 3); });
    QTRY_COMPARE(covered(), 0);
    feed([](int i) { return 2.3f / static_cast<float>(i); });  // falling
    QTRY_COMPARE(covered(), 0);
    QVERIFY(charts.lossPlot()->legend->visible());
  }
};

QTEST_MAIN(TestTraining)
#include "test_training.moc"
