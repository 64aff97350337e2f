// AMP, gradient accumulation, deterministic mode and checkpoints from the window (CPU, sample set):
// AMP is refused on the CPU with the engine's reason; the form's accumulation / deterministic reach
// TrainConfig; checkpoint every epoch writes files and Resume continues from one; a garbage
// checkpoint fails the run with the engine's one-line error and the app stays usable; an fp16 skipped
// step is marked on the loss chart and the loss scale is shown.
#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "widgets/main/checkpoints_controller.h"
#include "widgets/training/run_settings.h"
#include "widgets/training/training_charts.h"

using namespace ts;
using namespace ts::gui;

namespace {
using test::small_cpu_run;

RunOutcome run_to_end(MainWindow& w, QSignalSpy& finished, int count) {
  [&] { QTRY_VERIFY_WITH_TIMEOUT(finished.count() == count, 120000); }();
  return finished.at(count - 1).at(0).value<RunOutcome>();
}
}  // namespace

class TestAmpCheckpoints : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { test::isolate_settings(); }

  void ampDisabledOnCpuWithReason() {
    MainWindow w;
    RunSettings s = small_cpu_run(1, 128);
    s.amp = AmpMode::fp16;  // the CPU cannot: the form falls back to off
    w.runSettings()->setSettings(s);
    auto* amp = w.runSettings()->findChild<QComboBox*>("amp");
    QVERIFY(amp);
    QVERIFY(!amp->isEnabled());
    QCOMPARE(w.runSettings()->settings().amp, AmpMode::off);
    QVERIFY(!cpu_amp_support(AmpMode::fp16, nullptr));
    // The window's words (no runner flags), one note for fp16 and bf16 (test_fix_apply.cpp has the rest).
    const QString reason = w.runSettings()->ampUnavailableReason();
    QCOMPARE(reason, cpu_amp_note(!w.gpus().empty()));
    QVERIFY2(!reason.contains("--"), qPrintable(reason));
    QVERIFY(amp->toolTip().contains(reason));
    QVERIFY2(w.statusText().contains("AMP off"), qPrintable(w.statusText()));
  }

  void accumulationAndDeterministicReachTrainConfig() {
    MainWindow w;
    RunSettings s = small_cpu_run(1, 128);
    s.accumulate = 4;
    s.deterministic = true;
    s.checkpoint_every = 3;
    s.checkpoint_path = "/tmp/x/";
    w.runSettings()->setSettings(s);
    const RunSettings back = w.runSettings()->settings();
    const TrainConfig c = to_train_config(back, simple_cnn_spec());
    QCOMPARE(c.accumulate, 4);
    QVERIFY(c.deterministic);
    QCOMPARE(c.checkpoint_every, 3);
    QCOMPARE(QString::fromStdString(c.checkpoint_path), QString("/tmp/x/"));
    QCOMPARE(c.amp, AmpMode::off);
    QVERIFY(QString::fromStdString(c.run_config_json).contains("\"accumulate\":4"));
    QVERIFY2(w.statusText().contains("accumulate 4") && w.statusText().contains("deterministic") &&
                 w.statusText().contains("num_workers 1"),
             qPrintable(w.statusText()));
    // Accumulation runs on the CPU: 4 micro-batches per update.
    QSignalSpy finished(w.session(), &TrainingSession::finished);
    w.startRun();
    const RunOutcome out = run_to_end(w, finished, 1);
    QCOMPARE(out.kind, RunOutcome::completed);
    QCOMPARE(out.summary.counters.train_steps, 2);
    QCOMPARE(out.summary.counters.optimizer_steps, 1);  // 2 micro-batches < 4: one update, at the epoch's end
  }

  void checkpointEveryEpochThenResume() {
    QTemporaryDir dir;
    MainWindow w;
    RunSettings s = small_cpu_run(2, 256);  // 4 steps per epoch
    s.checkpoint_every = 1;
    s.checkpoint_path = dir.path() + "/";
    w.runSettings()->setSettings(s);
    QSignalSpy finished(w.session(), &TrainingSession::finished);
    QSignalSpy saved(w.session(), &TrainingSession::checkpointSaved);
    w.startRun();
    QCOMPARE(run_to_end(w, finished, 1).kind, RunOutcome::completed);
    QCOMPARE(saved.count(), 2);
    const QString first = dir.path() + "/checkpoint-epoch1.tsckpt";
    QVERIFY(QFile::exists(first));
    QVERIFY(QFile::exists(dir.path() + "/checkpoint-epoch2.tsckpt"));
    QTRY_VERIFY2(w.message().contains("checkpoint-epoch2.tsckpt"), qPrintable(w.message()));

    // Resume from epoch 1's checkpoint: only epoch 2 runs, its steps continue the count.
    w.runSettings()->setSettings(small_cpu_run(2, 256));
    QTRY_VERIFY(w.checkpoints()->resumeAction()->isEnabled());
    w.checkpoints()->resumeFrom(first);
    const RunOutcome out = run_to_end(w, finished, 2);
    QCOMPARE(out.kind, RunOutcome::completed);
    QCOMPARE(out.summary.first_epoch, 2);
    QCOMPARE(static_cast<int>(out.summary.epochs.size()), 1);
    QCOMPARE(out.summary.epochs[0].epoch, 2);
    QCOMPARE(out.summary.counters.train_steps, 8);
    QTRY_COMPARE(w.charts()->lossPoints(), 4);  // the last updates reach the charts queued after the spy
  }

  void saveCheckpointWhileTraining() {
    QTemporaryDir dir;
    MainWindow w;
    w.runSettings()->setSettings(small_cpu_run(2, 640));
    QVERIFY(!w.checkpoints()->saveAction()->isEnabled());  // idle: nothing to save
    QSignalSpy finished(w.session(), &TrainingSession::finished);
    QSignalSpy saved(w.session(), &TrainingSession::checkpointSaved);
    QSignalSpy progress(w.session(), &TrainingSession::progress);
    w.startRun();
    QVERIFY(w.checkpoints()->saveAction()->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(progress.count() >= 1, 60000);
    const QString path = dir.path() + "/manual.tsckpt";
    QVERIFY(w.checkpoints()->requestCheckpoint(path));
    QTRY_VERIFY_WITH_TIMEOUT(saved.count() == 1, 60000);
    QCOMPARE(saved.at(0).at(0).toString(), path);
    QVERIFY(QFile::exists(path));
    QTRY_VERIFY(w.message().contains("manual.tsckpt"));  // the window's slot runs queued
    QCOMPARE(run_to_end(w, finished, 1).kind, RunOutcome::completed);
    QTRY_VERIFY(!w.checkpoints()->saveAction()->isEnabled());  // the window's finished slot may run after the spy's
  }

  void garbageCheckpointShowsErrorAndAppStaysUsable() {
    QTemporaryDir dir;
    const QString bad = dir.path() + "/garbage.tsckpt";
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("this is not a checkpoint at all, just some bytes\n");
    f.close();
    MainWindow w;
    w.runSettings()->setSettings(small_cpu_run(1, 128));
    QSignalSpy finished(w.session(), &TrainingSession::finished);
    w.checkpoints()->resumeFrom(bad);
    const RunOutcome out = run_to_end(w, finished, 1);
    QCOMPARE(out.kind, RunOutcome::failed);
    // The window shows the error from its own queued slot, which may run after the spy saw finished.
    QTRY_VERIFY2(w.message().contains(bad) && w.message().contains("not a TrainScope checkpoint"), qPrintable(w.message()));
    QVERIFY(!w.message().contains('\n'));
    QTRY_VERIFY(w.startAction()->isEnabled());
    w.startRun();  // a fresh run: the failed resume path is not kept
    const RunOutcome again = run_to_end(w, finished, 2);
    QCOMPARE(again.kind, RunOutcome::completed);
    QCOMPARE(again.summary.first_epoch, 1);
  }

  void skippedStepIsMarkedWithLossScale() {
    TrainingCharts charts;
    RunInfo info;
    info.steps_per_epoch = 10;
    info.epochs = 1;
    info.amp = AmpMode::fp16;
    charts.reset(info);
    const int items = charts.lossPlot()->itemCount();
    TrainingUpdate u;
    u.losses = {{1, 2.3f}, {2, 2.2f}, {3, 2.25f}, {4, 2.1f}};
    u.loss_scales = {65536.f, -65536.f, 32768.f, 32768.f};  // step 2 overflowed and was skipped
    u.global_step = 4;
    u.step = 4;
    u.steps_in_epoch = 10;
    charts.addUpdate(u);
    QCOMPARE(charts.lossPoints(), 4);  // the skipped step's loss is still plotted
    QCOMPARE(charts.skippedSteps(), std::vector<std::int64_t>{2});
    QCOMPARE(charts.lossPlot()->graph(2)->dataCount(), 1);  // the orange marker
    QVERIFY(charts.lossPlot()->itemCount() >= items + 2);  // dotted line and its label
    QCOMPARE(charts.lossScale(), 32768.f);
    QVERIFY2(charts.ampText().contains("32768") && charts.ampText().contains("1 skipped"), qPrintable(charts.ampText()));
    QVERIFY(charts.progressText().contains("scale 32768"));
    // A later update without overflow keeps the mark (an overflow never vanishes).
    TrainingUpdate v;
    v.losses = {{5, 2.0f}};
    v.loss_scales = {32768.f};
    v.global_step = v.step = 5;
    v.steps_in_epoch = 10;
    charts.addUpdate(v);
    QCOMPARE(charts.skippedSteps().size(), std::size_t{1});
    QCOMPARE(charts.lossPlot()->graph(2)->dataCount(), 1);
    if (const QString shots = qEnvironmentVariable("TS_GUI_SHOTS"); !shots.isEmpty()) {  // for looking at
      charts.resize(900, 600);
      charts.lossPlot()->replot();
      charts.grab().save(shots + "/skipped-step.png");
    }
  }
};

QTEST_MAIN(TestAmpCheckpoints)
#include "test_amp_checkpoints.moc"
