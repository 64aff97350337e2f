// One run configuration (runconfig/run_config.h) from both front ends: a session recorded by the
// window (TrainingSession) and one recorded by trainscope-run with the same knobs hold the same
// run.config keys, with the same values but for the front end's name; the window's form goes to a
// run configuration and back unchanged, its fields take their ranges from the knob table; "Run again with these settings" reads what either wrote.
#include <QJsonDocument>
#include <QJsonObject>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QProcess>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "profiling/event_source.h"
#include "runconfig/run_config.h"
#include "widgets/lessons/lesson_runner.h"
#include "widgets/training/run_settings.h"
#include "widgets/sessions/session_replay.h"
#include "widgets/training/training_session.h"

using namespace ts;
using namespace ts::gui;

namespace {

std::map<std::string, std::string> session_meta(const QString& path) {
  return prof::open_session(path.toStdString())->store().meta();
}

QJsonObject run_config_of(const std::map<std::string, std::string>& meta) {
  const auto it = meta.find("run.config");
  return it == meta.end() ? QJsonObject() : QJsonDocument::fromJson(QByteArray::fromStdString(it->second)).object();
}

QStringList keys_in_order(const std::string& json) {
  // QJsonObject sorts its keys; the writer's order is checked on the text.
  QStringList keys;
  for (const auto& k : runconfig::run_config_keys())
    if (json.find("\"" + k + "\":") != std::string::npos) keys << QString::fromStdString(k);
  return keys;
}

}  // namespace

class TestRunConfig : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { test::isolate_settings(); }

  void runnerAndWindowWriteTheSameRunConfig() {
    QTemporaryDir dir;
    RunSettings s = test::small_cpu_run(1, 64);
    // pin_memory left at the window's default, and no --pin-memory option below: both front ends take
    // one default (RunConfig's) and record page-locking off on the CPU (runconfig::to_train_config).
    QCOMPARE(s.pin_memory, runconfig::RunConfig{}.pin_memory);
    s.seed = 11;
    s.lr = 0.003;
    s.optimizer = OptimizerType::sgd;
    s.momentum = 0.9;
    s.accumulate = 2;
    s.record_session = true;
    s.session_path = dir.path() + "/window.tsession";
    TrainingSession session;
    QSignalSpy finished(&session, &TrainingSession::finished);
    QVERIFY(session.start(s, simple_cnn_spec()));
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
    QCOMPARE(finished.at(0).at(0).value<RunOutcome>().kind, RunOutcome::completed);

    const QString runner = lesson_runner_program();
    QVERIFY2(!runner.isEmpty(), "trainscope-run not found");
    QProcess p;
    p.start(runner, {"--device", "cpu", "--epochs", "1", "--batch-size", "64", "--num-workers", "1",
                     "--limit-train", "64", "--log-every", "1", "--seed", "11", "--lr", "0.003",
                     "--optimizer", "sgd", "--momentum", "0.9", "--accumulate", "2", "--quiet",
                     "--session", dir.path() + "/runner.tsession"});
    QVERIFY(p.waitForFinished(120000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());

    const auto wmeta = session_meta(s.session_path), rmeta = session_meta(dir.path() + "/runner.tsession");
    QJsonObject w = run_config_of(wmeta), r = run_config_of(rmeta);
    QCOMPARE(w.value("front_end").toString(), QString("trainscope"));
    QCOMPARE(r.value("front_end").toString(), QString("trainscope-run"));
    QStringList all;
    for (const auto& k : runconfig::run_config_keys()) all << QString::fromStdString(k);
    QCOMPARE(keys_in_order(wmeta.at("run.config")), all);
    QCOMPARE(keys_in_order(rmeta.at("run.config")), all);
    QCOMPARE(w.keys(), r.keys());
    w.remove("front_end");
    r.remove("front_end");
    for (const QString& k : w.keys()) QVERIFY2(w.value(k) == r.value(k), qPrintable(k));
    QCOMPARE(w.value("pin_memory").toBool(), false);  // a CPU run: nothing to page-lock for
    QCOMPARE(w.value("lr").toDouble(), 0.003);
    QCOMPARE(w.value("accumulate").toInt(), 2);

    // Either session's settings come back into the form the same.
    const auto from_window = settings_from_session(wmeta, RunSettings{});
    const auto from_runner = settings_from_session(rmeta, RunSettings{});
    QVERIFY(from_window && from_runner);
    QCOMPARE(from_window->seed, std::uint64_t{11});
    QCOMPARE(from_runner->optimizer, OptimizerType::sgd);
    QCOMPARE(from_runner->momentum, 0.9);
    QCOMPARE(from_runner->accumulate, 2);
    QCOMPARE(to_run_config(*from_window, simple_cnn_spec()).batch_size, to_run_config(*from_runner, simple_cnn_spec()).batch_size);
  }

  void formRoundTripsThroughTheRunConfig() {
    RunSettings s = test::small_cpu_run(3, 640);
    s.device = Device::cuda;
    s.cuda_device = 1;
    s.amp = AmpMode::bf16;
    s.weight_decay = 0.01;
    s.memory_limit_gib = 2.5;
    s.cpu_threads = 3;
    s.checkpoint_every = 2;
    s.data_dir = "/data/cifar";
    s.checkpoint_path = "/ckpt/";
    s.record_session = false;
    const runconfig::RunConfig c = to_run_config(s, simple_cnn_spec());
    QCOMPARE(c.model, std::string("simple_cnn"));
    QCOMPARE(c.device, std::string("cuda"));
    QCOMPARE(c.log_every, 25);  // the window's: every 25 steps on CUDA
    const RunSettings back = with_run_config(RunSettings{}, c);
    QCOMPARE(back.device, Device::cuda);
    QCOMPARE(back.cuda_device, 1);
    QCOMPARE(back.amp, AmpMode::bf16);
    QCOMPARE(back.weight_decay, 0.01);
    QCOMPARE(back.memory_limit_gib, 2.5);
    QCOMPARE(back.cpu_threads, 3);
    QCOMPARE(back.limit_train, std::int64_t{640});
    QCOMPARE(back.epochs, 3);
    QCOMPARE(back.data_dir, QString("/data/cifar"));
    QCOMPARE(back.record_session, true);  // the window's own fields are the base's
    QCOMPARE(back.checkpoint_path, QString());
    const TrainConfig t = to_train_config(s, simple_cnn_spec());
    QCOMPARE(t.checkpoint_path, std::string("/ckpt/"));
    QCOMPARE(t.memory_limit_bytes, std::int64_t{5} << 29);
    QCOMPARE(t.run_config_json, runconfig::run_config_json(c, simple_cnn_spec(), "trainscope"));
  }

  /// pin_memory: one default for the window and trainscope-run (RunConfig's: on, what PyTorch users set
  /// with num_workers > 0), said in the box's tooltip and the runner's --help alike; a CUDA run keeps it.
  void pinMemoryHasOneDefaultSaidInBothFrontEnds() {
    QVERIFY(runconfig::RunConfig{}.pin_memory);
    QCOMPARE(RunSettings{}.pin_memory, runconfig::RunConfig{}.pin_memory);
    RunSettingsPanel panel({}, QString());
    auto* box = panel.findChild<QCheckBox*>("pin_memory");
    QVERIFY(box);
    QCOMPARE(box->isChecked(), runconfig::RunConfig{}.pin_memory);
    QVERIFY2(box->toolTip().contains("Default: on"), qPrintable(box->toolTip()));
    QProcess p;
    p.start(lesson_runner_program(), {"--help"});
    QVERIFY(p.waitForFinished(30000));
    const QString help = QString::fromUtf8(p.readAllStandardOutput());
    QVERIFY2(help.contains("default: on for CUDA runs"), qPrintable(help));
    RunSettings cuda = test::small_cpu_run(1, 64);
    cuda.device = Device::cuda;
    QVERIFY(to_train_config(cuda, simple_cnn_spec()).pin_memory);
    QVERIFY(!to_train_config(test::small_cpu_run(1, 64), simple_cnn_spec()).pin_memory);
  }

  /// The status bar says "pinned" only where the run page-locks: a CPU run with the default pin_memory
  /// trains and records it off (it read "num_workers 2, pinned" for a CPU run), a CUDA run keeps it.
  void statusBarSaysPinnedOnlyForCudaRuns() {
    MainWindow w;
    auto workers = [&] {
      for (QLabel* l : w.findChildren<QLabel*>())
        if (l->text().startsWith("num_workers ")) return l->text();
      return QString();
    };
    RunSettings s = w.runSettings()->settings();
    s.device = Device::cpu;
    s.pin_memory = true;
    w.runSettings()->setSettings(s);
    QTRY_VERIFY(workers().startsWith("num_workers"));
    QVERIFY2(!workers().contains("pinned"), qPrintable(workers()));
    QVERIFY(pinned_status_text(s).isEmpty());
    s.device = Device::cuda;
    QCOMPARE(pinned_status_text(s), QString(", pinned"));
  }

  void formRangesAreTheKnobTable() {
    RunSettingsPanel panel({}, "no GPU in this test");
    const auto* accumulate = panel.findChild<QSpinBox*>("accumulate");
    const auto* cap = panel.findChild<QDoubleSpinBox*>("memory_limit");
    QVERIFY(accumulate && cap);
    QCOMPARE(accumulate->minimum(), static_cast<int>(runconfig::find_knob("accumulate")->min));
    QCOMPARE(accumulate->maximum(), static_cast<int>(runconfig::find_knob("accumulate")->max));
    QCOMPARE(cap->maximum(), runconfig::find_knob("memory_limit_gib")->max);
  }

  // Every field of the form says what it is when hovered (a new user's first question).
  void everyFieldHasATooltip() {
    for (const QString& no_gpu : {QString("no GPU in this test"), QString()}) {
      RunSettingsPanel panel({}, no_gpu);
      int fields = 0;
      QStringList missing;
      for (auto* form : panel.findChildren<QFormLayout*>())
        for (int r = 0; r < form->rowCount(); ++r) {
          auto* label = form->itemAt(r, QFormLayout::LabelRole);
          auto* field = form->itemAt(r, QFormLayout::FieldRole);
          if (!label || !field || !label->widget() || !field->widget()) continue;
          const auto* l = qobject_cast<QLabel*>(label->widget());
          if (!l || l->text().isEmpty()) continue;
          ++fields;
          QWidget* w = field->widget();
          bool tip = !w->toolTip().isEmpty() || !l->toolTip().isEmpty();
          for (auto* child : w->findChildren<QWidget*>()) tip = tip || !child->toolTip().isEmpty();
          if (!tip) missing << l->text();
        }
      QVERIFY(fields >= 8);
      QVERIFY2(missing.isEmpty(), qPrintable("Run settings fields without a tooltip: " + missing.join(", ")));
    }
  }
};

QTEST_MAIN(TestRunConfig)
#include "test_run_config.moc"
