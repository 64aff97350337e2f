// Help ▸ Environment doctor with a fake probe (doctor::set_probe_factory): the findings first,
// problems red and warnings amber; a machine without an NVIDIA GPU healthy, with what works there; the full report with the Qt version below, Copy as Markdown puts
// the bug report (without the host name) on the clipboard, and Check again reads the probe again.
#include <unistd.h>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QTreeWidget>
#include <QtTest>
#include <atomic>

#include "app/gui/main_window.h"
#include "common/healthy_environment.h"
#include "doctor/host.h"
#include "doctor/probe.h"
#include "gui/gui_test_util.h"
#include "widgets/doctor/doctor_panel.h"

using namespace ts;
using namespace ts::gui;

namespace {

std::atomic<int> g_probes{0};

/// One problem (cuDNN older than the headers) and one warning (persistence off).
doctor::Environment sick() {
  doctor::Environment e = doctor::test::healthy_environment();
  e.libraries[0].loaded = doctor::Reading<std::string>::of("9.14.0");
  e.libraries[0].loaded_code = 91400;
  e.gpus[0].persistence = doctor::Reading<bool>::of(false);
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  e.host.os = doctor::Reading<std::string>::of(std::string("Ubuntu 24.04 on ") + host);
  return e;
}

/// The tests' probe: the sick machine, counted.
std::unique_ptr<doctor::Probe> sick_factory() {
  ++g_probes;
  return std::make_unique<doctor::FakeProbe>(sick());
}

}  // namespace

class TestDoctor : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    test::isolate_settings();
    doctor::set_probe_factory(sick_factory);
  }
  void cleanupTestCase() { doctor::set_probe_factory(nullptr); }

  void helpMenuShowsFindingsFirstColouredByGrade() {
    MainWindow w;
    QVERIFY(w.doctorAction());
    QVERIFY(w.doctorAction()->text().contains("doctor"));
    w.doctorAction()->trigger();
    DoctorPanel* p = w.doctorPanel();
    QVERIFY(p);
    QTRY_VERIFY_WITH_TIMEOUT(p->report() != nullptr, 10000);
    QTreeWidget* f = p->findingsView();
    QCOMPARE(f->topLevelItemCount(), 2);
    QVERIFY(f->isVisibleTo(p));
    QCOMPARE(f->topLevelItem(0)->data(0, Qt::UserRole).toString(), QString("cudnn_older_than_headers"));
    QCOMPARE(f->topLevelItem(0)->text(0), QString("Problem"));
    QCOMPARE(f->topLevelItem(1)->text(0), QString("Warning"));
    const QColor red = f->topLevelItem(0)->foreground(0).color(), amber = f->topLevelItem(1)->foreground(0).color();
    QVERIFY(red.red() > 150 && red.green() < 80);
    QVERIFY(amber.red() > 150 && amber.green() > 80 && amber.blue() < 50);
    QCOMPARE(f->topLevelItem(0)->childCount(), 2);  // cause, fix
    QVERIFY(f->topLevelItem(0)->child(0)->text(1).contains("9.14.0"));
    QVERIFY(p->summaryLabel()->text().contains("1 problem(s), 1 warning(s)"));
    const QString text = p->reportView()->toPlainText();
    QVERIFY(text.contains("NVIDIA H200"));
    QVERIFY(text.contains(QString("Qt ")) || text.contains(QString("  Qt")));
    QVERIFY(text.contains(qVersion()));
  }

  void copyAsMarkdownLeavesTheHostOut() {
    DoctorPanel p;
    QTRY_VERIFY_WITH_TIMEOUT(p.report() != nullptr, 10000);
    QVERIFY(p.copyMarkdownButton()->isEnabled());
    p.copyMarkdownButton()->click();
    const QString md = QApplication::clipboard()->text();
    QVERIFY(md.startsWith("## TrainScope environment"));
    QVERIFY(md.contains("**Problem:** cuDNN is older than the headers"));
    QVERIFY(md.contains("| Qt |"));
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    QVERIFY(!md.contains(QRegularExpression("\\b" + QRegularExpression::escape(host) + "\\b")));
    QVERIFY(md.contains("<host>"));
  }

  void noGpuMachineIsHealthyAndSaysWhatWorks() {
    doctor::set_probe_factory([] { return std::make_unique<doctor::FakeProbe>(doctor::test::no_gpu_environment()); });
    DoctorPanel p;
    QTRY_VERIFY_WITH_TIMEOUT(p.report() != nullptr, 10000);
    doctor::set_probe_factory(sick_factory);
    QCOMPARE(p.findingsView()->topLevelItemCount(), 0);
    QVERIFY(!p.findingsView()->isVisibleTo(&p));  // no empty table under "Nothing wrong found"
    const QString summary = p.summaryLabel()->text();
    QVERIFY2(summary.startsWith("Nothing wrong found. No NVIDIA GPU on this machine (a state, not a fault)."),
             qPrintable(summary));
    QVERIFY2(summary.contains("Works here: CPU training with oneDNN"), qPrintable(summary));
    QCOMPARE(p.summaryLabel()->palette().color(QPalette::WindowText), p.palette().color(QPalette::WindowText));
    const QString text = p.reportView()->toPlainText();
    QVERIFY2(text.contains("not applicable: no NVIDIA GPU") && !text.contains("refused"), qPrintable(text));
    if (const QString dir = qEnvironmentVariable("TS_SCREENSHOTS"); !dir.isEmpty()) {
      QDir().mkpath(dir);
      p.resize(1000, 680);
      p.show();
      QTest::qWait(300);
      QVERIFY(p.grab().save(dir + "/doctor_no_gpu.png"));
    }
  }

  /// On a machine with no NVIDIA device on its PCI bus the window's message bar says so in the
  /// doctor's words, not in the runtime's ("cudaErrorInsufficientDriver (CUDA driver version is
  /// insufficient …)" read as a driver to update beside the doctor's "Nothing wrong found").
  void theWindowSaysNoGpuAsTheDoctorDoes() {
    const auto pci = doctor::read_nvidia_pci("/sys/bus/pci/devices");
    if (!pci || !pci->empty()) QSKIP("an NVIDIA device is on this machine's PCI bus, or the bus cannot be read");
    MainWindow w;
    w.show();
    QVERIFY2(w.message().startsWith("No NVIDIA GPU on this machine: runs use the CPU backend"), qPrintable(w.message()));
    QVERIFY2(!w.message().contains("insufficient"), qPrintable(w.message()));
    QCOMPARE(w.noGpuReason(), QString("no NVIDIA GPU on this machine"));
  }

  void checkAgainReadsTheProbeAgain() {
    DoctorPanel p;
    QSignalSpy ready(&p, &DoctorPanel::reportReady);
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 10000);
    const int before = g_probes.load();
    p.refresh();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 2, 10000);
    QCOMPARE(g_probes.load(), before + 1);
  }

  void closingWhileTheProbeRunsIsSafe() {
    const int before = g_probes.load();
    auto* p = new DoctorPanel;
    QPointer<DoctorPanel> gone(p);
    delete p;
    QVERIFY(gone.isNull());
    // The worker outlives its panel: it still probes, and its queued result finds the panel gone.
    QTRY_COMPARE_WITH_TIMEOUT(g_probes.load(), before + 1, 10000);
    QTest::qWait(200);
  }

  void screenshotsWhenAsked() {
    const QString dir = qEnvironmentVariable("TS_SCREENSHOTS");
    if (dir.isEmpty()) QSKIP("TS_SCREENSHOTS not set");
    QDir().mkpath(dir);
    for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
      MainWindow w;
      w.resize(size);
      w.show();
      w.doctorAction()->trigger();
      DoctorPanel* p = w.doctorPanel();
      QTRY_VERIFY_WITH_TIMEOUT(p->report() != nullptr, 10000);
      QTest::qWait(300);
      const QString name = QString("%1/doctor_%2x%3.png").arg(dir).arg(size.width()).arg(size.height());
      QVERIFY(p->window()->grab().save(name));
    }
  }
};

QTEST_MAIN(TestDoctor)
#include "test_doctor.moc"
