// "Simulate a smaller card" in the window (--memory-limit): the Run settings field reaches the
// engine's TrainConfig and the session's run.config; a CPU run past the cap fails with the simulated
// card's OOM message and the accumulation fix; a session recorded at a cap shows it again (Run
// settings, status bar, details, "Run again"), and the memory graph draws the card's line at the cap,
// labelled as simulated.
#include <QDir>
#include <QDoubleSpinBox>
#include <QScrollArea>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/panels/memory_graph.h"
#include "widgets/training/run_settings.h"

using namespace ts;
using namespace ts::gui;

namespace {
QDoubleSpinBox* memory_limit_field(QWidget& w) { return w.findChild<QDoubleSpinBox*>("memory_limit"); }
}  // namespace

class TestMemoryLimit : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    test::isolate_settings();
    // Its own settings and session folder: the other GUI tests, run beside it by ctest -j, read and
    // clear the shared recent-sessions list that opening a session writes.
    QCoreApplication::setApplicationName("TrainScopeTest-memory-limit");
  }

  void fieldReachesTheRunConfig() {
    RunSettingsPanel panel({}, "no GPU here");
    QDoubleSpinBox* field = memory_limit_field(panel);
    QVERIFY(field);
    QCOMPARE(field->value(), 0.0);
    QVERIFY2(field->text().contains("off"), qPrintable(field->text()));  // 0 = the real card
    QCOMPARE(to_train_config(panel.settings(), simple_cnn_spec()).memory_limit_bytes, std::int64_t{0});
    QSignalSpy changed(&panel, &RunSettingsPanel::settingsChanged);
    field->setValue(0.5);
    QVERIFY(changed.count() >= 1);
    const RunSettings s = panel.settings();
    QCOMPARE(s.memory_limit_gib, 0.5);
    const TrainConfig c = to_train_config(s, simple_cnn_spec());
    QCOMPARE(c.memory_limit_bytes, kGiB / 2);
    const QJsonObject knobs = QJsonDocument::fromJson(QByteArray::fromStdString(c.run_config_json)).object();
    QCOMPARE(knobs.value("memory_limit_bytes").toInteger(), kGiB / 2);
    RunSettings other = s;
    other.memory_limit_gib = 8;
    panel.setSettings(other);
    QCOMPARE(field->value(), 8.0);
    QCOMPARE(memory_limit_bytes(panel.settings()), 8 * kGiB);
  }

  void cpuRunPastTheCapSaysSimulatedWithTheFix() {
    MainWindow w;
    RunSettings s = test::small_cpu_run(1, 512);
    s.batch_size = 256;  // about 1 MiB per sample on the CPU: 256 MiB does not fit 0.12 GiB
    s.memory_limit_gib = 0.12;
    s.record_session = false;
    w.runSettings()->setSettings(s);
    QVERIFY2(w.statusText().contains("simulated 0.12 GiB card"), qPrintable(w.statusText()));
    QSignalSpy finished(w.session(), &TrainingSession::finished);
    w.startRun();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 60000);
    const auto out = finished.at(0).at(0).value<RunOutcome>();
    QCOMPARE(out.kind, RunOutcome::failed);
    QVERIFY2(out.message.startsWith("Out of memory on the simulated 0.12 GiB card: out of memory (simulated 0.12 GiB "
                                    "card, --memory-limit 0.12)"),
             qPrintable(out.message));
    QVERIFY2(out.fix.contains("with gradient accumulation") && out.fix.contains("(the same effective batch)"),
             qPrintable(out.fix));
    QTRY_VERIFY2(w.message().contains("simulated 0.12 GiB card"), qPrintable(w.message()));
    QTRY_VERIFY(w.startAction()->isEnabled());
  }

  void recordedSessionShowsItsCap() {
    MainWindow w;
    RunSettings s = test::small_cpu_run(1, 256);
    s.memory_limit_gib = 0.25;
    w.runSettings()->setSettings(s);
    QSignalSpy finished(w.session(), &TrainingSession::finished);
    w.startRun();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
    QCOMPARE(finished.at(0).at(0).value<RunOutcome>().kind, RunOutcome::completed);
    QTRY_VERIFY(!w.sessions()->lastSessionPath().isEmpty());
    const QString recorded = w.sessions()->lastSessionPath();

    w.runSettings()->setSettings(test::small_cpu_run(1, 256));  // the user's own: the real card
    QCOMPARE(memory_limit_field(*w.runSettings())->value(), 0.0);
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QVERIFY(w.sessions()->openSession(recorded));
    QVERIFY(opened.wait(20000));
    QVERIFY(w.runSettings()->showingSession());
    QDoubleSpinBox* field = memory_limit_field(*w.runSettings());
    QCOMPARE(field->value(), 0.25);
    QVERIFY(!field->isEnabled());  // read only, as the session's other knobs
    QVERIFY2(w.statusText().contains("simulated 0.25 GiB card"), qPrintable(w.statusText()));
    QVERIFY2(w.sessions()->details().contains("simulated card: 0.25 GiB"), qPrintable(w.sessions()->details()));

    MemoryGraph g(w.panelHub());
    g.rebuild();
    QVERIFY(g.capacitySimulated());
    QVERIFY(g.capacityLineBytes());
    QCOMPARE(*g.capacityLineBytes(), static_cast<double>(kGiB / 4));
    QVERIFY2(g.capacityLabel().startsWith("simulated card ") && g.capacityLabel().endsWith("(--memory-limit 0.25)"),
             qPrintable(g.capacityLabel()));
    QVERIFY2(g.statusText().contains("of the simulated"), qPrintable(g.statusText()));

    QVERIFY(w.sessions()->runAgainWithSessionSettings());  // a CPU session on a CPU machine: every knob kept
    QCOMPARE(w.runSettings()->settings().memory_limit_gib, 0.25);
    QVERIFY(memory_limit_field(*w.runSettings())->isEnabled());
  }

  // Pictures to look at (not a check): TS_SCREENSHOTS=DIR saves the window at 1280x720 and 1920x1080
  // with Run settings scrolled to the "Simulate a smaller card" field, set to 8 GiB.
  void screenshotsWhenAsked() {
    const QString dir = qEnvironmentVariable("TS_SCREENSHOTS");
    if (dir.isEmpty()) QSKIP("TS_SCREENSHOTS not set");
    QDir().mkpath(dir);
    MainWindow w;
    RunSettings s = test::small_cpu_run(1, 256);
    s.memory_limit_gib = 8;
    w.runSettings()->setSettings(s);
    w.show();
    for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
      w.resize(size);
      QTest::qWait(500);
      QDoubleSpinBox* field = memory_limit_field(*w.runSettings());
      for (QWidget* p = field->parentWidget(); p; p = p->parentWidget())
        if (auto* area = qobject_cast<QScrollArea*>(p)) area->ensureWidgetVisible(field);
      QTest::qWait(300);
      QVERIFY(w.grab().save(dir + QString("/memory_limit_%1x%2.png").arg(size.width()).arg(size.height())));
    }
  }

  void memoryGraphWithoutACapKeepsTheRealCard() {
    auto store = std::make_shared<prof::EventStore>();
    store->set_meta("device.kind", "cuda");
    store->set_meta("device.total_memory_bytes", "150000000000");
    store->set_meta("run.config", R"({"device":"cuda","batch_size":128})");
    const auto id = static_cast<std::uint32_t>(1);
    store->append(store->series, prof::SeriesRecord{id, store->strings.intern("memory.reserved.weights"),
                                                    store->strings.intern("bytes")});
    store->append(store->samples, prof::SampleRecord{1000, id, 1e9});
    PanelHub hub;
    MemoryGraph g(&hub);
    hub.setStore(store, false);
    g.rebuild();
    QVERIFY(!g.capacitySimulated());
    QCOMPARE(*g.capacityLineBytes(), 150e9);
    QVERIFY2(g.capacityLabel().startsWith("card capacity"), qPrintable(g.capacityLabel()));
    store->set_meta("run.config", R"({"device":"cuda","batch_size":128,"memory_limit_bytes":8589934592})");
    g.rebuild();
    QVERIFY(g.capacitySimulated());
    QCOMPARE(*g.capacityLineBytes(), static_cast<double>(8 * kGiB));
    QVERIFY2(g.capacityLabel().contains("simulated card") && g.capacityLabel().contains("--memory-limit 8"),
             qPrintable(g.capacityLabel()));
  }
};

QTEST_MAIN(TestMemoryLimit)
#include "test_memory_limit.moc"
