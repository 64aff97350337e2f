// A verdict's fix on a machine without a CUDA GPU (this CI): knobs that no device here can run (AMP
// fp16/bf16 on a CPU backend without them) are not proposed in the fix text, the banner or Apply but
// said apart; Apply says in one line what changed and what was not applied and why, and the message
// bar cuts a line too long for the window at a word, never inside one. The Run settings' AMP note
// speaks the window's words (no command-line flags) and does not contradict itself on a bf16 CPU.
// After Apply or Use my settings the status bar says what the form holds, as the next run's.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QRegularExpression>
#include <QLabel>
#include <QPushButton>
#include <QtTest>
#include <algorithm>

#include "app/gui/main_window.h"
#include "engine/cpu_amp.h"
#include "gui/gui_test_util.h"
#include "widgets/common/elided_label.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/panels/verdict_panel.h"
#include "widgets/training/run_settings.h"

using namespace ts;
using namespace ts::gui;
using prof::analysis::FixSetting;

namespace {

const QString kData = QStringLiteral(TRAINSCOPE_SOURCE_DIR "/tests/data/");

bool open(MainWindow& w, const QString& path) {
  QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
  return w.sessions()->openSession(path) && (opened.count() > 0 || opened.wait(30000));
}

/// Whether the CPU backend can run AMP `mode` (then nothing here is refused for it).
bool cpu_runs(AmpMode mode) { return cpu_amp_refusal(mode) == CpuAmpRefusal::none; }

/// `shown` is `full` whole, or a prefix of it that ends at a word's end followed by "…" (no space and
/// no dangling mark before it).
bool cut_at_word(const QString& shown, const QString& full) {
  if (shown == full) return true;
  if (!shown.endsWith(QStringLiteral("…"))) return false;
  const QString prefix = shown.chopped(1);
  return full.startsWith(prefix) && prefix.size() < full.size() && !full[prefix.size()].isLetterOrNumber() &&
         !prefix.isEmpty() && !prefix.back().isSpace() && !QStringLiteral(",;:·—-(→").contains(prefix.back());
}

prof::analysis::Verdict amp_verdict(std::vector<FixSetting> knobs) {
  prof::analysis::Verdict v;
  v.id = "amp_eligible";
  v.severity = "moderate";
  v.title = "fp32 run on tensor-core hardware: AMP-eligible";
  v.fix = "run with --amp bf16";
  v.settings = std::move(knobs);
  return v;
}

/// A CUDA GPU for panels that list devices (no GPU is touched).
DeviceInfo test_gpu() {
  DeviceInfo d;
  d.device = Device::cuda;
  d.ordinal = 0;
  d.name = "Test GPU";
  d.total_memory_bytes = 8ll << 30;
  return d;
}

}  // namespace

class TestFixApply : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    test::isolate_settings();
    if (cpu_runs(AmpMode::bf16) && cpu_runs(AmpMode::fp16)) QSKIP("this CPU backend runs AMP: nothing is refused");
  }

  void fixTextLeavesOutWhatThisMachineCannotRun() {
    const auto v = amp_verdict({{"amp", "bf16"}});
    QVERIFY(window_fix_text(v, true, true).startsWith("In Run settings: AMP bf16 for the next run"));
    // Without a GPU: what applies, said once; a knob that cannot apply is not proposed at all.
    const QString here = window_fix_text(v, true, false);
    QVERIFY2(!here.contains("In Run settings"), qPrintable(here));
    QCOMPARE(here, QString("AMP bf16 on a machine with a CUDA GPU (this one has none)"));
    const auto mixed = amp_verdict({{"num_workers", "4"}, {"amp", "fp16"}});
    QCOMPARE(window_fix_text(mixed, true, false), QString("In Run settings: num_workers 4 for the next run"));
    QVERIFY(fix_setting_unavailable_here({"amp", "off"}, false).isEmpty());
    QVERIFY(fix_setting_unavailable_here({"batch_size", "256"}, false).isEmpty());
  }

  void applyHereSaysWhatChangedAndWhatNot() {
    RunSettings s;
    s.device = Device::cpu;
    s.num_workers = 0;
    const FixOutcome o = apply_fix_here({{"num_workers", "4"}, {"amp", "bf16"}}, s, false);
    QCOMPARE(o.text(), QString("num_workers 0 → 4; AMP bf16 not applied: no CUDA GPU on this machine"));
    QCOMPARE(s.num_workers, 4);
    QCOMPARE(s.amp, AmpMode::off);
    // A GPU here but the CPU chosen: not applied either, and the way to it said.
    RunSettings cpu;
    cpu.device = Device::cpu;
    const FixOutcome g = apply_fix_here({{"amp", "bf16"}}, cpu, true);
    QVERIFY(g.changed.isEmpty());
    QCOMPARE(g.refused, QStringList{"AMP bf16 not applied: Device is the CPU, which has no bf16 AMP: choose a CUDA GPU"});
    RunSettings gpu;
    gpu.device = Device::cuda;
    QCOMPARE(apply_fix_here({{"amp", "bf16"}}, gpu, true).changed, QStringList{"AMP off → bf16"});
  }

  void wordElision() {
    const QFontMetrics fm(QApplication::font());
    const QString text = "Run settings for the next run: num_workers 0 → 4; AMP bf16 not applied: no CUDA GPU";
    for (int w = 60; w < fm.horizontalAdvance(text) + 20; w += 7) {
      const QString e = elide_at_word(text, fm, w);
      QVERIFY2(cut_at_word(e, text), qPrintable(QString("%1 px: '%2'").arg(w).arg(e)));
      QVERIFY2(fm.horizontalAdvance(e) <= w, qPrintable(QString("%1 px: '%2'").arg(w).arg(e)));
    }
    QCOMPARE(elide_at_word(text, fm, 10000), text);
  }

  void applyOnAGpuSessionWithoutAGpu() {
    MainWindow w;
    if (!w.gpus().empty()) QSKIP("this machine has a CUDA GPU");
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    RunSettings before = w.runSettings()->settings();
    before.num_workers = 0;
    w.runSettings()->setSettings(before);
    QVERIFY(open(w, kData + "gpu_b128_nw0_augment.tsession"));  // an H200's run, shown read only
    VerdictPanel* p = w.verdictPanel();
    QVERIFY(!p->cudaGpuHere());
    QTRY_VERIFY_WITH_TIMEOUT(!p->verdicts().empty(), 15000);
    // No verdict proposes AMP for the next run here; one that has only AMP has no Apply.
    for (int r = 0; r < static_cast<int>(p->verdicts().size()); ++r) {
      const auto& v = p->verdicts()[static_cast<std::size_t>(r)];
      QVERIFY2(!p->fixText(r).contains(QRegularExpression("In Run settings:[^.]*AMP")), qPrintable(p->fixText(r)));
      const bool only_amp = !v.settings.empty() && std::all_of(v.settings.begin(), v.settings.end(),
                                                               [](const FixSetting& f) { return f.knob == "amp"; });
      if (only_amp) {
        QVERIFY(!p->applyButton(r));
        QVERIFY(!p->apply(r));
      }
    }
    // The banner proposes nothing this machine cannot run, and says "not applicable" nowhere.
    const QString banner = w.verdictBanner()->text();
    QVERIFY2(!banner.contains(QRegularExpression("In Run settings:[^.]*AMP")) && !banner.contains("not applicable") &&
                 !banner.contains("AMP bf16") && !banner.contains("AMP fp16"),
             qPrintable(banner));
    for (int r = 0; r < static_cast<int>(p->verdicts().size()); ++r)
      QVERIFY2(!p->fixText(r).contains("not applicable"), qPrintable(p->fixText(r)));

    // Apply of a fix with a knob this machine can take and one it cannot: one line that says both.
    emit p->applyRequested({{"num_workers", "4"}, {"amp", "bf16"}}, "Input-bound: the trainer waits for the next batch");
    const QString m = w.message();
    QVERIFY2(m.startsWith("Run settings for the next run: num_workers 0 → 4; AMP bf16 not applied: no CUDA GPU on "
                          "this machine"),
             qPrintable(m));
    QVERIFY2(m.contains("device CUDA → CPU: no CUDA GPU on this machine"), qPrintable(m));
    QVERIFY(!m.contains("AMP off → bf16"));
    const RunSettings after = w.runSettings()->settings();
    QCOMPARE(after.num_workers, 4);
    QCOMPARE(after.amp, AmpMode::off);
    QCOMPARE(after.device, Device::cpu);
    auto* amp = w.runSettings()->findChild<QComboBox*>("amp");
    QCOMPARE(amp->currentData().toInt(), static_cast<int>(AmpMode::off));
    // The bar at 1280 px: what changed and what was not applied are seen whole; a longer rest is
    // cut at a word.
    auto* label = w.findChild<ElidedLabel*>("message");
    QVERIFY(label);
    QCOMPARE(label->fullText(), m);
    // The bar wraps on up to four lines: the lines read as the message, or its start cut at a word.
    QVERIFY2(cut_at_word(label->text().replace('\n', ' '), m), qPrintable(label->text()));
    QVERIFY2(label->text().replace('\n', ' ').contains("AMP bf16 not applied: no CUDA GPU on this machine"),
             qPrintable(label->text()));
    w.resize(700, 720);  // narrower: still cut at a word
    QTRY_VERIFY(label->text() != m);
    QVERIFY2(cut_at_word(label->text().replace('\n', ' '), m), qPrintable(label->text()));
  }

  /// One number per quantity: while the form shows the session's settings the status bar says the
  /// session's; after Apply or Use my settings it says what the form holds, named as the next run's
  /// (it said "num_workers 0, pinned" and "NVIDIA H200 (session)" beside a form of num_workers 4).
  void theStatusBarSaysWhatTheFormHolds() {
    MainWindow w;
    w.show();
    RunSettings mine = w.runSettings()->settings();
    mine.num_workers = 2;
    w.runSettings()->setSettings(mine);
    const StatusLabels labels = w.statusLabels();
    auto said = [&] { return w.statusText(); };
    QVERIFY(open(w, kData + "gpu_b128_nw0_augment.tsession"));  // recorded num_workers 0
    QVERIFY(w.runSettings()->showingSession());
    QCOMPARE(w.runSettings()->settings().num_workers, 0);
    QVERIFY2(labels.workers->text().startsWith("num_workers 0") && labels.device->text().contains("(session)"), qPrintable(said()));

    emit w.verdictPanel()->applyRequested({{"num_workers", "4"}}, "Input-bound: the trainer waits for the next batch");
    QCOMPARE(w.runSettings()->settings().num_workers, 4);
    QVERIFY2(labels.workers->text().startsWith("num_workers 4") && labels.device->text().contains("(next run)") &&
                 !said().contains("(session)"),
             qPrintable(said()));
    QCOMPARE(labels.batch->text(), QString("batch size %1").arg(w.runSettings()->settings().batch_size));

    QVERIFY(open(w, kData + "gpu_b128_nw0_augment.tsession"));  // the session's settings again
    QVERIFY2(labels.workers->text().startsWith("num_workers 0") && labels.device->text().contains("(session)"), qPrintable(said()));
    QPushButton* own = nullptr;
    for (auto* b : w.runSettings()->findChildren<QPushButton*>())
      if (b->text() == "Use my settings") own = b;
    QVERIFY(own && !w.runSettings()->sessionNote().isEmpty());
    own->click();
    QVERIFY(!w.runSettings()->showingSession());
    QCOMPARE(w.runSettings()->settings().num_workers, 4);  // the user's, Apply's included
    QVERIFY2(labels.workers->text().startsWith("num_workers 4") && labels.device->text().contains("(next run)") &&
                 !said().contains("(session)"),
             qPrintable(said()));
  }

  void ampNoteInTheWindowsWords() {
    // No GPU here: one note for fp16 and bf16 that agree, fp32, and no flag of the runner.
    RunSettingsPanel none({}, "no CUDA device found");
    RunSettings s;
    s.device = Device::cpu;
    none.setSettings(s);
    const QString note = none.ampUnavailableReason();
    QCOMPARE(note, cpu_amp_note(false));
    QVERIFY2(!note.contains("--"), qPrintable(note));
    QVERIFY2(note.contains("fp32") && note.contains("this machine does not have"), qPrintable(note));
    QVERIFY2(!note.contains("choose"), qPrintable(note));
    // Said once: one sentence on what AMP needs, no CPU feature named as a way to it (the note said
    // "bf16 would need AVX512-BF16 or AMX" and then "AMP needs a CUDA GPU").
    QCOMPARE(note.count("CUDA GPU"), 1);
    QVERIFY2(!note.contains("AVX") && !note.contains("AMX") && !note.contains("would need"), qPrintable(note));
    auto* amp = none.findChild<QComboBox*>("amp");
    QVERIFY(!amp->isEnabled());
    QCOMPARE(amp->toolTip(), note);
    for (int i = 1; i < amp->count(); ++i) {  // each mode's tooltip says first what it needs
      const QString tip = amp->itemData(i, Qt::ToolTipRole).toString();
      QVERIFY2(!tip.isEmpty() && !tip.contains("--") && tip.contains("needs a CUDA GPU") && !tip.contains("would need"),
               qPrintable(tip));
    }
    // A GPU here, the CPU chosen: the note says where AMP is.
    RunSettingsPanel with_gpu({test_gpu()}, QString());
    with_gpu.setSettings(s);
    QCOMPARE(with_gpu.ampUnavailableReason(), cpu_amp_note(true));
    QVERIFY(cpu_amp_note(true).contains("choose one under Device"));
  }

  void cudaGraphsNeedACudaDevice() {
    // As fp16: on the CPU the box is greyed and unchecked (a setup asking for graphs included) and says why.
    RunSettings s;
    s.device = Device::cpu;
    s.cuda_graphs = true;
    RunSettingsPanel none({}, "no CUDA device found");
    none.setSettings(s);
    auto* graphs = none.findChild<QCheckBox*>("cuda_graphs");
    QVERIFY(graphs);
    QVERIFY(!graphs->isEnabled());
    QVERIFY(!graphs->isChecked());
    QVERIFY(!none.settings().cuda_graphs);
    QVERIFY2(graphs->toolTip().contains("this machine has none"), qPrintable(graphs->toolTip()));
    RunSettingsPanel with_gpu({test_gpu()}, QString());
    with_gpu.setSettings(s);
    auto* g = with_gpu.findChild<QCheckBox*>("cuda_graphs");
    QVERIFY(!g->isEnabled());
    QVERIFY2(g->toolTip().contains("choose one under Device"), qPrintable(g->toolTip()));
    // The GPU chosen: the box is live again, and a setup's graphs stay on.
    s.device = Device::cuda;
    with_gpu.setSettings(s);
    QVERIFY(g->isEnabled());
    QVERIFY(g->isChecked());
    QVERIFY(with_gpu.settings().cuda_graphs);
    QVERIFY2(g->toolTip().contains("CUDA graph"), qPrintable(g->toolTip()));
  }

  void cudaGraphsAreOnByDefaultAndKeepTheChoiceAcrossTheCpu() {
    QVERIFY(RunSettings{}.cuda_graphs);
    RunSettingsPanel panel({test_gpu()}, QString());
    RunSettings s;
    s.device = Device::cuda;
    panel.setSettings(s);
    auto* g = panel.findChild<QCheckBox*>("cuda_graphs");
    QComboBox* device = nullptr;  // the combo whose items are the devices (the CPU's data is -1)
    for (auto* c : panel.findChildren<QComboBox*>())
      if (c->findData(-1) >= 0 && c->itemText(c->findData(-1)).startsWith("CPU")) device = c;
    QVERIFY(g && device);
    QVERIFY(g->isEnabled() && g->isChecked());
    const int cpu = device->findData(-1), gpu = device->currentIndex();
    QVERIFY(cpu >= 0 && cpu != gpu);
    device->setCurrentIndex(cpu);  // the CPU greys it out and unchecks it...
    QVERIFY(!g->isEnabled() && !g->isChecked());
    QVERIFY(!panel.settings().cuda_graphs);
    device->setCurrentIndex(gpu);  // ...and the GPU again brings the default back
    QVERIFY(g->isEnabled() && g->isChecked());
    g->setChecked(false);  // the user's "off" survives a trip to the CPU
    device->setCurrentIndex(cpu);
    device->setCurrentIndex(gpu);
    QVERIFY(!g->isChecked());
    QVERIFY(!panel.settings().cuda_graphs);
  }

  void screenshotsWhenAsked() {
    const QString dir = qEnvironmentVariable("TS_SCREENSHOTS");
    if (dir.isEmpty()) QSKIP("TS_SCREENSHOTS not set");
    QDir().mkpath(dir);
    for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
      MainWindow w;
      w.resize(size);
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      QVERIFY(open(w, kData + "gpu_b128_nw0_augment.tsession"));
      QTRY_VERIFY_WITH_TIMEOUT(!w.verdictPanel()->verdicts().empty(), 15000);
      QTest::qWait(500);
      const QString base = QString("%1/%2x%3").arg(dir).arg(size.width()).arg(size.height());
      QVERIFY(w.grab().save(base + "_verdicts.png"));
      for (int r = 0; r < static_cast<int>(w.verdictPanel()->verdicts().size()); ++r)
        if (w.verdictPanel()->apply(r)) break;
      QTest::qWait(500);
      QVERIFY(w.grab().save(base + "_applied.png"));
    }
  }
};

QTEST_MAIN(TestFixApply)
#include "test_fix_apply.moc"
