// The verdict panel and banner on hand-built EventStores (as tests/unit/test_analysis.cpp builds
// them) where input_bound, sync_bound, launch_bound, low_utilization and memory_pressure fire: rows,
// severity colours, the evidence and fix, and that clicking a row sets the hub's highlight to the
// verdict's evidence intervals (computed here independently); the scope toggle (last N steps /
// whole run), live re-analysis at most ~2 Hz, and the recorded sessions' verdicts.
#include <QSignalSpy>
#include <map>
#include <tuple>
#include <QPushButton>
#include <QTreeWidget>
#include <QtTest>

#include "engine/host_trace.h"
#include "profiling/event_source.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/panels/verdict_panel.h"

using namespace ts;
using namespace ts::gui;
using K = trace::RangeKind;

namespace {

constexpr std::uint32_t kTid = 7;

struct Builder {
  std::shared_ptr<prof::EventStore> p = std::make_shared<prof::EventStore>();
  prof::EventStore& s = *p;
  std::uint32_t corr = 1;
  prof::StringId launch = s.strings.intern("cudaLaunchKernel_v7000");
  prof::StringId sync_api = s.strings.intern("cudaStreamSynchronize_v3020");
  prof::StringId kname = s.strings.intern("void elementwise_kernel<float>()");
  /// A TrainScope recording (run.config present): the fixes name trainscope-run's options.
  /// trainscope = false: an imported trace's store (no run config: fixes in PyTorch's words).
  explicit Builder(bool trainscope = true) {
    if (trainscope) s.set_meta("run.config", R"({"device":"cuda","batch_size":128,"num_workers":2})");
  }
  void range(K k, std::int64_t a, std::int64_t b, std::int64_t step = -1) {
    prof::HostRangeRecord r;
    r.start = a, r.end = b, r.thread = kTid, r.kind = static_cast<std::uint8_t>(k), r.step = step;
    s.append(s.host_ranges, r);
  }
  void step(std::int64_t gs, std::int64_t a, std::int64_t b) {
    prof::StepRecord r;
    r.global_step = gs, r.start = a, r.end = b;
    s.append(s.steps, r);
    range(K::step, a, b, gs);
  }
  void kernel(std::int64_t a, std::int64_t b, std::int64_t ka, std::int64_t kb, int blocks = 1000) {
    prof::RuntimeRecord rt;
    rt.start = a, rt.end = b, rt.thread = kTid, rt.correlation = corr, rt.name = launch;
    s.append(s.runtime, rt);
    prof::KernelRecord k;
    k.start = ka, k.end = kb, k.correlation = corr++, k.name = kname;
    prof::KernelConfig c;
    c.grid[0] = blocks, c.grid[1] = c.grid[2] = 1, c.block[0] = 256, c.block[1] = c.block[2] = 1, c.registers = 32;
    k.config = s.intern_config(c);
    s.append(s.kernels, k);
  }
  void sync_call(std::int64_t a, std::int64_t b) {
    prof::RuntimeRecord rt;
    rt.start = a, rt.end = b, rt.thread = kTid, rt.correlation = corr++, rt.name = sync_api;
    s.append(s.runtime, rt);
  }
  void h200() {
    s.set_meta("device.kind", "cuda");
    s.set_meta("device.compute_capability", "9.0");
    s.set_meta("device.multiprocessors", "132");
    s.set_meta("device.total_memory_bytes", "150000000000");
  }
};

using Spans = QVector<TimeSpan>;

/// GPU idle gaps of steps 2..n (step 1 is the warm-up the panel leaves out): the complement of the
/// kernels' union inside [window start, window end). host_wait_only: only the gaps whose next kernel
/// was launched (its runtime call started) after the gap began (HTA's host wait).
Spans idle_gaps(const prof::EventStore& s, std::int64_t lo, std::int64_t hi, bool host_wait_only = false) {
  std::map<std::uint32_t, std::int64_t> launch_start;
  for (std::size_t i = 0; i < s.runtime.size(); ++i) launch_start[s.runtime[i].correlation] = s.runtime[i].start;
  std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>> k;
  for (std::size_t i = 0; i < s.kernels.size(); ++i)
    k.push_back({s.kernels[i].start, s.kernels[i].end, launch_start.at(s.kernels[i].correlation)});
  std::sort(k.begin(), k.end());
  Spans out;
  std::int64_t t = lo;
  for (const auto& [a, b, launched] : k) {
    if (b <= lo) continue;
    if (a > t && (!host_wait_only || launched >= t)) out.push_back({t, std::min(a, hi)});
    t = std::max(t, b);
  }
  if (t < hi) out.push_back({t, hi});
  return out;
}

QTreeWidgetItem* row(VerdictPanel& p, const QString& id) {
  for (int i = 0; i < p.tree()->topLevelItemCount(); ++i)
    if (p.tree()->topLevelItem(i)->data(0, Qt::UserRole).toString() == id) return p.tree()->topLevelItem(i);
  return nullptr;
}

/// Clicks the row of verdict `id` as a user would and returns the hub's highlight intervals.
Spans click(VerdictPanel& p, PanelHub& hub, const QString& id) {
  QTreeWidgetItem* it = row(p, id);
  if (!it) return {};
  hub.clearHighlight();
  const QRect r = p.tree()->visualItemRect(it);
  QTest::mouseClick(p.tree()->viewport(), Qt::LeftButton, {}, r.center());
  return hub.highlight().intervals;
}

void wait_result(VerdictPanel& p) { QTRY_VERIFY_WITH_TIMEOUT(p.runner()->result() != nullptr, 10000); }

}  // namespace

class TestPanelsVerdicts : public QObject {
  Q_OBJECT
 private slots:
  void inputBound() {
    Builder b;  // 20 steps of 1000 ns, 300 ns data wait at the start of each: 30 % -> high
    Spans expected;
    for (int i = 0; i < 20; ++i) {
      const std::int64_t t = i * 1000;
      b.step(i + 1, t, t + 1000);
      b.range(K::data_wait, t, t + 300);
      b.range(K::forward, t + 300, t + 1000);
      if (i > 0) expected.push_back({t, t + 300});
    }
    PanelHub hub;
    VerdictPanel p(&hub);
    p.resize(700, 400);
    p.show();
    QVERIFY(QTest::qWaitForWindowExposed(&p));
    hub.setStore(b.p, false);
    wait_result(p);
    QCOMPARE(p.verdicts().size(), std::size_t{1});  // a CPU store: no GPU verdicts, never invented
    QTreeWidgetItem* it = row(p, "input_bound");
    QVERIFY(it);
    QCOMPARE(it->text(0), QString("high"));
    QCOMPARE(it->background(0).color(), severity_color("high"));
    QVERIFY(it->text(1).contains("Input-bound"));
    QCOMPARE(it->childCount(), 6);  // four numbers (wait %, ms/step, step ms, num_workers), one per row, the fix, Apply
    QCOMPARE(it->child(3)->text(1), QString("num workers 2"));
    QVERIFY2(it->child(0)->text(1).contains("data-loader wait (raw) 30.0 %"), qPrintable(it->child(0)->text(1)));
    // The fix in the window's words (Run settings' names), not the runner's flags; Apply emits its knobs.
    QVERIFY2(it->child(4)->text(1).contains("In Run settings: num_workers 4, pin_memory on"), qPrintable(it->child(4)->text(1)));
    QVERIFY(!it->child(4)->text(1).contains("--"));
    QVERIFY(p.verdicts()[0].fix.find("--num-workers") != std::string::npos);  // the runner keeps its wording
    QSignalSpy applied(&p, &VerdictPanel::applyRequested);
    QVERIFY(p.applyButton(0));
    p.applyButton(0)->click();
    QCOMPARE(applied.size(), 1);
    RunSettings rs;
    rs.num_workers = 0, rs.pin_memory = false;
    const QStringList changed = apply_fix_settings(applied[0][0].value<std::vector<prof::analysis::FixSetting>>(), rs);
    QCOMPARE(changed, QStringList({"num_workers 0 → 4", "pin_memory off → on"}));
    QCOMPARE(rs.num_workers, 4);
    QVERIFY(rs.pin_memory);
    QVERIFY(apply_fix_settings(p.verdicts()[0].settings, rs).isEmpty());  // applied twice: nothing changes
    QCOMPARE(click(p, hub, "input_bound"), expected);
    QVERIFY(hub.highlight().label.startsWith("input_bound"));
    QVERIFY(p.statusText().contains("19 steps analysed"));
    QVERIFY(p.statusText().contains("no GPU activity"));
  }

  void syncBound() {
    Builder b;  // per step: kernel [0, 900), host sync [100, 900) while the GPU drains: 10.1 % idle after it
    b.h200();
    // A run that read the loss every step (a fix proposes only what the run did not have).
    b.s.set_meta("run.config", R"({"device":"cuda","batch_size":128,"num_workers":2,"sync_every_step":true})");
    Spans expected;
    for (int i = 0; i < 20; ++i) {
      const std::int64_t t = i * 1000;
      b.step(i + 1, t, t + 1000);
      b.kernel(t, t + 1, t + 1, t + 900);
      b.range(K::sync, t + 100, t + 900);
      b.sync_call(t + 100, t + 900);
      if (i > 0) expected.push_back({t + 100, t + 900});
    }
    PanelHub hub;
    VerdictPanel p(&hub);
    p.resize(700, 400);
    p.show();
    QVERIFY(QTest::qWaitForWindowExposed(&p));
    hub.setStore(b.p, false);
    wait_result(p);
    QTreeWidgetItem* it = row(p, "sync_bound");
    QVERIFY(it);
    QCOMPARE(it->text(0), QString("moderate"));
    QCOMPARE(it->background(0).color(), severity_color("moderate"));
    QVERIFY(it->child(0)->text(1).contains("GPU idle in host syncs"));
    QVERIFY2(it->child(it->childCount() - 2)->text(1).contains("sync every step off"),
             qPrintable(it->child(it->childCount() - 2)->text(1)));
    QCOMPARE(click(p, hub, "sync_bound"), expected);
    QVERIFY(!row(p, "low_utilization"));  // 90 % busy
  }

  void launchBoundAndLowUtilization() {
    Builder b;  // 50 launches of 2 us per step, 1 us CPU work between, 0.5 us kernels: launch-bound
    b.h200();
    const std::int64_t period = 50 * 3000;
    for (int i = 0; i < 20; ++i) {
      const std::int64_t t = i * period;
      b.step(i + 1, t, t + period);
      b.range(K::forward, t, t + period);
      for (int k = 0; k < 50; ++k) {
        const std::int64_t a = t + k * 3000 + 1000;
        b.kernel(a, a + 2000, a + 2001, a + 2501, 66);
      }
    }
    PanelHub hub;
    VerdictPanel p(&hub);
    p.resize(700, 500);
    p.show();
    QVERIFY(QTest::qWaitForWindowExposed(&p));
    hub.setStore(b.p, false);
    wait_result(p);
    QTreeWidgetItem* lb = row(p, "launch_bound");
    QTreeWidgetItem* lu = row(p, "low_utilization");
    QVERIFY(lb && lu);
    QCOMPARE(lb->text(0), QString("high"));
    QCOMPARE(lu->text(0), QString("high"));  // 16.7 % busy < 25 %
    QCOMPARE(lu->background(0).color(), severity_color("high"));
    QCOMPARE(p.tree()->indexOfTopLevelItem(lb) < 2 && p.tree()->indexOfTopLevelItem(lu) < 2, true);  // high first
    // Windows of steps 2..20: [period, 20 * period + 501) (the last kernel ends 501 ns after its step).
    const Spans gaps = idle_gaps(b.s, period, 20 * period + 501);
    QCOMPARE(click(p, hub, "low_utilization"), gaps);
    // Host-wait gaps only (the trainer never waited for data or synced): step 1's last kernel, launched
    // before step 2's window began, leaves a 1 ns gap that is not host wait.
    const Spans host_gaps = idle_gaps(b.s, period, 20 * period + 501, true);
    QCOMPARE(host_gaps.size(), gaps.size() - 1);
    QCOMPARE(click(p, hub, "launch_bound"), host_gaps);
    QVERIFY(lb->child(1)->text(1).contains("median kernel 0.50 µs"));
    // Fixes: launch-bound doubles the batch (memory use unknown here); low utilisation is advice only.
    using prof::analysis::FixSetting;
    const int lbi = p.tree()->indexOfTopLevelItem(lb), lui = p.tree()->indexOfTopLevelItem(lu);
    QCOMPARE(p.verdicts()[static_cast<std::size_t>(lbi)].settings, (std::vector<FixSetting>{{"batch_size", "256"}}));
    QVERIFY2(p.fixText(lbi).startsWith("In Run settings: batch size 256"), qPrintable(p.fixText(lbi)));
    QVERIFY(p.applyButton(lbi));
    QVERIFY(!p.applyButton(lui));
    QVERIFY(!p.apply(lui));
    QVERIFY2(p.fixText(lui).startsWith("See the idle breakdown") && !p.fixText(lui).contains("--"), qPrintable(p.fixText(lui)));
  }

  void traceFixesHaveNothingToApply() {
    Builder b(false);  // an imported torch.profiler trace: no run config
    for (int i = 0; i < 20; ++i) {
      const std::int64_t t = i * 1000;
      b.step(i + 1, t, t + 1000);
      b.range(K::data_wait, t, t + 300);
    }
    PanelHub hub;
    VerdictPanel p(&hub);
    hub.setStore(b.p, false);
    wait_result(p);
    QCOMPARE(p.verdicts().size(), std::size_t{1});
    QVERIFY(!p.fixesApply());
    QVERIFY(p.verdicts()[0].settings.empty());
    QVERIFY2(p.fixText(0).contains("DataLoader(num_workers="), qPrintable(p.fixText(0)));
    QVERIFY(!p.applyButton(0));
    QVERIFY(!p.apply(0));
  }

  void lowUtilizationAlone() {
    Builder b;  // one kernel per 1000 ns step, 499 ns long: 49.9 % busy -> moderate
    for (int i = 0; i < 20; ++i) {
      b.step(i + 1, i * 1000, i * 1000 + 1000);
      b.kernel(i * 1000, i * 1000 + 1, i * 1000, i * 1000 + 499);
    }
    PanelHub hub;
    VerdictPanel p(&hub);
    VerdictBanner banner(&p);
    banner.resize(900, 28);
    hub.setStore(b.p, false);
    wait_result(p);
    QCOMPARE(p.verdicts().size(), std::size_t{1});
    QCOMPARE(p.verdicts()[0].id, std::string("low_utilization"));
    QCOMPARE(row(p, "low_utilization")->background(0).color(), severity_color("moderate"));
    // The banner: the verdict, its colour, a click highlights its evidence.
    QVERIFY(banner.text().startsWith("Low GPU utilization"));
    QVERIFY2(banner.text().contains("fix: See the idle breakdown") && !banner.text().contains("--"), qPrintable(banner.text()));
    QCOMPARE(banner.color(), severity_color("moderate"));
    QSignalSpy details(&banner, &VerdictBanner::detailsRequested);
    QTest::mouseClick(&banner, Qt::LeftButton);
    QCOMPARE(details.count(), 1);
    QCOMPARE(hub.highlight().intervals, idle_gaps(b.s, 1000, 20000));
  }

  void memoryPressurePeak() {
    Builder b;
    b.h200();
    const auto used = static_cast<std::uint32_t>(1);
    b.s.append(b.s.series, prof::SeriesRecord{used, b.s.strings.intern("device.memory.used"), b.s.strings.intern("bytes")});
    for (int i = 0; i < 20; ++i) {
      b.step(i + 1, i * 1000, i * 1000 + 1000);
      b.kernel(i * 1000, i * 1000 + 1, i * 1000 + 1, i * 1000 + 990);
      b.s.append(b.s.samples, prof::SampleRecord{i * 1000LL, used, i == 12 ? 146e9 : 100e9});
    }
    PanelHub hub;
    VerdictPanel p(&hub);
    p.resize(700, 400);
    p.show();
    QVERIFY(QTest::qWaitForWindowExposed(&p));
    hub.setStore(b.p, false);
    wait_result(p);
    QTreeWidgetItem* it = row(p, "memory_pressure");
    QVERIFY(it);
    QCOMPARE(it->text(0), QString("high"));  // 97.3 % > 97 %
    QCOMPARE(click(p, hub, "memory_pressure"), (Spans{{12000, 13000}}));
    // The fix: half the batch, twice the micro-batches (the same effective batch).
    const int i = p.tree()->indexOfTopLevelItem(it);
    RunSettings rs;
    rs.batch_size = 128, rs.accumulate = 1;
    QCOMPARE(apply_fix_settings(p.verdicts()[static_cast<std::size_t>(i)].settings, rs),
             QStringList({"batch size 128 → 64", "gradient accumulation 1 → 2"}));
    QCOMPARE(rs.batch_size, std::int64_t{64});
    QCOMPARE(rs.accumulate, 2);
  }

  void scopeLastStepsOrWholeRun() {
    Builder b;  // 60 steps; the last 10 wait 200 ns of 1000 for data
    for (int i = 0; i < 60; ++i) {
      b.step(i + 1, i * 1000, i * 1000 + 1000);
      if (i >= 50) b.range(K::data_wait, i * 1000, i * 1000 + 200);
    }
    PanelHub hub;
    VerdictPanel p(&hub);
    p.setScope(VerdictPanel::Scope::last_steps, 10);
    hub.setStore(b.p, false);
    QTRY_VERIFY(p.runner()->result() && p.runner()->result()->options.last_steps == 10);
    QCOMPARE(p.verdicts().size(), std::size_t{1});
    QCOMPARE(p.verdicts()[0].severity, std::string("high"));  // 20 % of the last 10 steps
    p.setScope(VerdictPanel::Scope::whole_run);
    QTRY_VERIFY(p.runner()->result() && p.runner()->result()->options.last_steps == 0);
    QVERIFY(p.verdicts().empty());  // 2000 ns of 59000: 3.4 %
    QVERIFY(p.statusText().contains("whole run"));
    QVERIFY(p.statusText().contains("no bottleneck"));
    // A window wider than the run is the whole run, and says so (not "last 100 steps" over 59).
    p.setScope(VerdictPanel::Scope::last_steps, 100);
    QTRY_VERIFY(p.runner()->result() && p.runner()->result()->options.last_steps == 100);
    QVERIFY2(p.statusText().contains("whole run: fewer than 100 steps"), qPrintable(p.statusText()));
    QVERIFY(!p.statusText().contains("last 100 steps"));
    p.setScope(VerdictPanel::Scope::last_steps, 10);
    QTRY_VERIFY(p.runner()->result() && p.runner()->result()->options.last_steps == 10);
    QVERIFY2(p.statusText().contains("last 10 steps"), qPrintable(p.statusText()));
  }

  void liveUpdatesAtMostTwiceASecond() {
    Builder b;
    b.step(1, 0, 1000);
    PanelHub hub;
    hub.setRefreshIntervalMs(20);
    VerdictPanel p(&hub);
    hub.setStore(b.p, true);
    QVERIFY(p.statusText().contains("Analysing") || p.statusText().contains("need at least"));
    QElapsedTimer t;
    t.start();
    int step = 1;
    while (t.elapsed() < 2000) {  // a step every 10 ms, input-bound from the start
      ++step;
      b.range(K::data_wait, step * 1000, step * 1000 + 400);
      b.step(step, step * 1000, step * 1000 + 1000);
      QTest::qWait(10);
    }
    hub.setLive(false);
    QTRY_VERIFY(!p.runner()->running() && p.runner()->result() && p.runner()->result()->report.steps >= 40);
    const int runs = p.runner()->completedRuns();
    QVERIFY2(runs >= 2 && runs <= 7, qPrintable(QString::number(runs)));  // <= 2 Hz over ~2.x s, + the final one
    QCOMPARE(p.verdicts().size(), std::size_t{1});
    QCOMPARE(p.verdicts()[0].id, std::string("input_bound"));
  }

  void recordedSessions_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("expected");
    QTest::newRow("b128_nw0_augment") << "gpu_b128_nw0_augment.tsession" << "input_bound";
    QTest::newRow("b16_nw4") << "gpu_b16_nw4.tsession" << "launch_bound";
  }
  void recordedSessions() {
    QFETCH(QString, file);
    QFETCH(QString, expected);
    const auto store = prof::open_session(std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/" + file.toStdString())->shared_store();
    PanelHub hub;
    VerdictPanel p(&hub);
    p.setScope(VerdictPanel::Scope::whole_run);
    hub.setStore(store, false);
    QTRY_VERIFY(p.runner()->result() && p.runner()->result()->options.last_steps == 0);
    QVERIFY2(row(p, expected), qPrintable(p.statusText()));
    // The analysis the runner did equals the runner's own --analyze (whole run, warm-up 1).
    prof::analysis::Options o;
    o.warmup_steps = 1;
    const auto direct = prof::analysis::analyze(*store, o);
    QCOMPARE(p.verdicts().size(), direct.verdicts.size());
    int idx = p.tree()->indexOfTopLevelItem(row(p, expected));
    p.activate(idx);
    QVERIFY(!hub.highlight().intervals.isEmpty());
    qInfo("%s: %zu verdicts, analysis + evidence %.2f ms (worker thread)", qPrintable(file), p.verdicts().size(),
          p.runner()->lastAnalysisMs());
  }
};

QTEST_MAIN(TestPanelsVerdicts)
#include "test_panels_verdicts.moc"
