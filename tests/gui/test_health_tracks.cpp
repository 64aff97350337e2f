// The GPU-health series as tracks of the Utilization panel (the Profile workspace's
// utilization track): NVML PCIe RX/TX in the H2D row, the SM clock's maximum and a red mark for each
// sample whose clock-event reasons held the clock down (not for idle / applications clocks).
#include <qcustomplot.h>

#include <QDir>
#include <QtTest>
#include <memory>

#include "base/nvml.h"
#include "profiling/event_store.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/panels/utilization_panel.h"

using namespace ts;
using namespace ts::gui;

namespace {

std::uint32_t add_series(prof::EventStore& s, const std::string& name, const std::string& unit) {
  const auto id = static_cast<std::uint32_t>(s.series.size() + 1);
  s.append(s.series, prof::SeriesRecord{id, s.strings.intern(name), s.strings.intern(unit)});
  return id;
}

/// 40 sampler rounds 50 ms apart; rounds 10..19 power-capped at 1400 MHz, the rest idle at 1980 MHz.
std::shared_ptr<prof::EventStore> health_store(bool throttle) {
  auto s = std::make_shared<prof::EventStore>();
  const auto reasons = add_series(*s, "gpu.clock_event_reasons", "bitmask");
  const auto clock = add_series(*s, "gpu.sm_clock", "MHz");
  const auto max = add_series(*s, "gpu.sm_clock_max", "MHz");
  const auto rx = add_series(*s, "gpu.pcie_rx", "bytes/s");
  const auto tx = add_series(*s, "gpu.pcie_tx", "bytes/s");
  for (int i = 0; i < 40; ++i) {
    const std::int64_t t = i * 50'000'000LL;
    const bool held = throttle && i >= 10 && i < 20;
    const std::uint64_t bits =
        held ? nvml::kReasonSwPowerCap : nvml::kReasonGpuIdle | nvml::kReasonApplicationsClocksSetting;
    s->append(s->samples, prof::SampleRecord{t, reasons, static_cast<double>(bits)});
    s->append(s->samples, prof::SampleRecord{t, clock, held ? 1400.0 : 1980.0});
    s->append(s->samples, prof::SampleRecord{t, max, 1980.0});
    if (i % 4 == 0) {
      s->append(s->samples, prof::SampleRecord{t, rx, 20e9});
      s->append(s->samples, prof::SampleRecord{t, tx, 1e9});
    }
  }
  return s;
}

}  // namespace

class TestHealthTracks : public QObject {
  Q_OBJECT
 private slots:
  void throttledSamplesAreMarkedOnTheClockRow() {
    PanelHub hub;
    UtilizationPanel p(&hub);
    hub.setStore(health_store(true), false);
    QTRY_VERIFY(p.graphFor("gpu.throttled"));
    QCPGraph* marks = p.graphFor("gpu.throttled");
    QCOMPARE(marks->data()->size(), 10);
    for (auto it = marks->data()->constBegin(); it != marks->data()->constEnd(); ++it) {
      QCOMPARE(it->value, 1400.0);  // at the SM clock of that round
      QVERIFY(it->key >= 0.5 - 1e-9 && it->key < 1.0);
    }
    QCOMPARE(marks->lineStyle(), QCPGraph::lsNone);
    QVERIFY(p.graphFor("gpu.sm_clock_max"));
    QVERIFY(p.graphFor("gpu.pcie_rx"));
    QVERIFY(p.graphFor("gpu.pcie_tx"));
    QCOMPARE(p.graphFor("gpu.pcie_rx")->data()->size(), 10);
    // The H2D row's axis holds the PCIe throughput.
    QVERIFY(p.graphFor("gpu.pcie_rx")->valueAxis()->range().upper >= 20e9);
  }

  void idleAndApplicationClocksAreNotMarked() {
    PanelHub hub;
    UtilizationPanel p(&hub);
    hub.setStore(health_store(false), false);
    QTRY_VERIFY(p.graphFor("gpu.sm_clock_max"));
    QVERIFY(!p.graphFor("gpu.throttled"));
  }

  void screenshotsWhenAsked() {
    const QString dir = qEnvironmentVariable("TS_SCREENSHOTS");
    if (dir.isEmpty()) QSKIP("TS_SCREENSHOTS not set");
    QDir().mkpath(dir);
    PanelHub hub;
    UtilizationPanel p(&hub);
    hub.setStore(health_store(true), false);
    QTRY_VERIFY(p.graphFor("gpu.throttled"));
    for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
      p.resize(size);
      p.show();
      QTest::qWait(300);
      QVERIFY(p.grab().save(QString("%1/health_tracks_%2x%3.png").arg(dir).arg(size.width()).arg(size.height())));
    }
  }
};

QTEST_MAIN(TestHealthTracks)
#include "test_health_tracks.moc"
