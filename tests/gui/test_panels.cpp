// The plot panels on the recorded H200 sessions of tests/data and on hand-built stores:
// memory graph (series, peak = max of the data, capacity line at the meta value, CPU-only message,
// leak rule fires / does not), utilization panel (bucket maths against a hand computation, session
// series, NVML present, CPU-only message), step breakdown (bars sum to the step time, hover, click
// selects the step), and the linked time axis both ways. With TS_PANEL_SHOTS=<dir> it also writes
// screenshots of each panel for the two sessions the issue names.
#include <QDir>
#include <QSignalSpy>
#include <QtTest>
#include <cmath>
#include <qcustomplot.h>

#include "base/format_bytes.h"
#include "engine/host_trace.h"
#include "lessons/lesson_eval.h"
#include "profiling/analysis/series.h"
#include "profiling/event_source.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/panels/breakdown_chart.h"
#include "widgets/panels/memory_graph.h"
#include "widgets/panels/panel_plot.h"
#include "widgets/panels/kernel_table.h"
#include "widgets/panels/utilization_panel.h"
#include "widgets/panels/verdict_panel.h"
#include "gui/plot_probe.h"

using namespace ts;
using namespace ts::gui;
using prof::analysis::SeriesPoint;

namespace {

std::shared_ptr<const prof::EventStore> open_data(const QString& name) {
  const std::string path = std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/" + name.toStdString();
  return prof::open_session(path)->shared_store();
}

/// Max of a named series, read straight from the store (independent of the panels).
std::optional<double> series_max(const prof::EventStore& s, const std::string& name) {
  std::optional<std::uint32_t> id;
  for (std::size_t i = 0; i < s.series.size(); ++i)
    if (s.strings.get(s.series[i].name) == name) id = s.series[i].id;
  std::optional<double> m;
  for (std::size_t i = 0; id && i < s.samples.size(); ++i)
    if (s.samples[i].series == *id) m = std::max(m.value_or(s.samples[i].value), s.samples[i].value);
  return m;
}

std::uint32_t add_series(prof::EventStore& s, const std::string& name, const std::string& unit) {
  const auto id = static_cast<std::uint32_t>(s.series.size() + 1);
  s.append(s.series, prof::SeriesRecord{id, s.strings.intern(name), s.strings.intern(unit)});
  return id;
}

void add_step(prof::EventStore& s, std::int64_t gs, std::int64_t a, std::int64_t b, std::uint32_t tid = 7) {
  prof::StepRecord r;
  r.global_step = gs, r.start = a, r.end = b;
  s.append(s.steps, r);
  prof::HostRangeRecord h;
  h.start = a, h.end = b, h.thread = tid, h.kind = static_cast<std::uint8_t>(trace::RangeKind::step), h.step = gs;
  s.append(s.host_ranges, h);
}

/// A CPU run: steps, CPU % of the trainer (tid 7) and two loaders; no device, no GPU records.
std::shared_ptr<prof::EventStore> cpu_only_store() {
  auto s = std::make_shared<prof::EventStore>();
  s->set_meta("device.kind", "cpu");
  s->set_meta("gpu_activity", "not collected: a CPU run");
  const auto trainer = add_series(*s, "cpu.percent.trainer.7", "%");
  const auto l0 = add_series(*s, "cpu.percent.loader-0.8", "%");
  const auto l1 = add_series(*s, "cpu.percent.loader-1.9", "%");
  for (int i = 0; i < 20; ++i) {
    add_step(*s, i + 1, i * 10'000'000LL, (i + 1) * 10'000'000LL);
    s->append(s->samples, prof::SampleRecord{i * 10'000'000LL, trainer, 95.0});
    s->append(s->samples, prof::SampleRecord{i * 10'000'000LL, l0, 40.0});
    s->append(s->samples, prof::SampleRecord{i * 10'000'000LL, l1, 30.0});
  }
  return s;
}

/// Allocated bytes per step for the leak tests: `bytes(step)`, sampled every `every` steps at the step end.
std::shared_ptr<prof::EventStore> memory_store(int steps, int every, const std::function<double(int)>& bytes) {
  auto s = std::make_shared<prof::EventStore>();
  s->set_meta("device.kind", "cuda");
  s->set_meta("device.total_memory_bytes", "8000000000");
  std::vector<std::uint32_t> ids;
  for (const char* c : {"weights", "gradients", "optimizer_state", "activations", "workspace", "input_batches", "other"})
    ids.push_back(add_series(*s, std::string("memory.allocated.") + c, "bytes"));
  for (int i = 0; i < steps; ++i) {
    add_step(*s, i + 1, i * 1'000'000LL, (i + 1) * 1'000'000LL);
    if (i % every == 0 || i == steps - 1)
      for (std::size_t c = 0; c < ids.size(); ++c)
        s->append(s->samples, prof::SampleRecord{(i + 1) * 1'000'000LL, ids[c], c == 3 ? bytes(i + 1) : 1e6});
  }
  return s;
}

std::vector<prof::analysis::StepEnd> ends_of(int n) {
  std::vector<prof::analysis::StepEnd> e;
  for (int i = 1; i <= n; ++i) e.push_back({i, i * 1000LL});
  return e;
}

std::vector<SeriesPoint> sampled(int n, int every, const std::function<double(int)>& f) {
  std::vector<SeriesPoint> p;
  for (int i = 1; i <= n; ++i)
    if (i % every == 1 || every == 1) p.push_back({i * 1000LL, f(i)});
  return p;
}

/// Hand-built GPU activity for the bucket maths (times in ns; the buckets are 1 ms):
/// kernel A [0, 1 ms) 66 blocks, kernel B [0.5, 1.5 ms) 264 blocks on another stream, an H2D copy of
/// 1 MB [2.5, 3 ms), a memset [3.9, 4.1 ms). H200: 132 SMs, 2048 threads/SM; 256 threads, 32 regs.
std::shared_ptr<prof::EventStore> bucket_store() {
  auto s = std::make_shared<prof::EventStore>();
  s->set_meta("device.kind", "cuda");
  s->set_meta("device.compute_capability", "9.0");
  s->set_meta("device.multiprocessors", "132");
  auto kernel = [&](std::int64_t a, std::int64_t b, int blocks, std::uint32_t stream) {
    prof::KernelRecord k;
    prof::KernelConfig c;
    k.start = a, k.end = b, k.stream = stream, c.grid[0] = blocks, c.grid[1] = c.grid[2] = 1;
    c.block[0] = 256, c.block[1] = c.block[2] = 1, c.registers = 32;
    k.config = s->intern_config(c);
    s->append(s->kernels, k);
  };
  kernel(0, 1'000'000, 66, 7);
  kernel(500'000, 1'500'000, 264, 13);
  prof::MemcpyRecord m;
  m.start = 2'500'000, m.end = 3'000'000, m.bytes = 1'000'000, m.copy_kind = 1;
  s->append(s->memcpys, m);
  prof::MemsetRecord z;
  z.start = 3'900'000, z.end = 4'100'000;
  s->append(s->memsets, z);
  return s;
}

}  // namespace

class TestPanels : public QObject {
  Q_OBJECT
 private slots:
  // A value axis' upper end lands on 1, 2, 2.5 or 5 x 10^k above max + 15 %: one tick step reaches it.
  void niceUpperEndsOnARoundValue() {
    QCOMPARE(nice_upper(19.7e9), 25e9);  // 22.6 GB with headroom -> 25 GB (a lone "0" before)
    QCOMPARE(nice_upper(1e6), 2e6);
    QCOMPARE(nice_upper(80.0), 100.0);
    QCOMPARE(nice_upper(4.0), 5.0);
    QCOMPARE(nice_upper(0.0), 1.0);
  }

  void memoryGraphOnSessions_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("b128_nw0_augment") << "gpu_b128_nw0_augment.tsession";
    QTest::newRow("b128_nw4") << "gpu_b128_nw4.tsession";
    QTest::newRow("b16_nw4") << "gpu_b16_nw4.tsession";
  }
  void memoryGraphOnSessions() {
    QFETCH(QString, file);
    const auto store = open_data(file);
    PanelHub hub;
    MemoryGraph g(&hub);
    hub.setStore(store, false);
    g.rebuild();
    for (const char* c : {"weights", "gradients", "optimizer_state", "activations", "workspace", "input_batches", "other"})
      QVERIFY2(g.graphFor(QString("memory.allocated.") + c), c);
    QVERIFY(g.graphFor("device.memory.used"));
    QVERIFY(g.graphFor("cupti.device_memory"));  // the sessions carry CUPTI alloc/free records
    QVERIFY(g.absentMessage().isEmpty());
    // Peak: the max of device.memory.used, as the data (and analysis) have it.
    const auto used_max = series_max(*store, "device.memory.used");
    QVERIFY(used_max);
    QVERIFY(g.peakBytes());
    QCOMPARE(*g.peakBytes(), *used_max);
    QCOMPARE(g.peakSeries(), QString("device.memory.used"));
    const auto report = prof::analysis::analyze(*store);
    QCOMPARE(static_cast<std::int64_t>(*g.peakBytes()), *report.peak_device_memory_bytes);
    // Capacity line at meta device.total_memory_bytes.
    QVERIFY(g.capacityLineBytes());
    QCOMPARE(*g.capacityLineBytes(), std::stod(store->meta().at("device.total_memory_bytes")));
    // The stack's top is the sum of the categories at the last sample.
    double sum = 0;
    for (const char* c : {"weights", "gradients", "optimizer_state", "activations", "workspace", "input_batches", "other"}) {
      const auto* gr = g.graphFor(QString("memory.allocated.") + c);
      Q_UNUSED(gr);
      std::optional<double> last;
      const std::string name = std::string("memory.allocated.") + c;
      for (std::size_t i = 0; i < store->series.size(); ++i)
        if (store->strings.get(store->series[i].name) == name)
          for (std::size_t k = 0; k < store->samples.size(); ++k)
            if (store->samples[k].series == store->series[i].id) last = store->samples[k].value;
      sum += last.value_or(0);
    }
    auto top = g.graphFor("memory.allocated.other")->data();
    QCOMPARE((top->constEnd() - 1)->value, sum);
    QVERIFY(!g.leak().suspected);  // a steady training loop
    // Two figures, two names: the card's use (with the CUDA context) and the network's tensors, the
    // latter written as the lesson table writes its "peak allocated".
    QVERIFY(g.allocatedPeakBytes());
    QVERIFY(*g.allocatedPeakBytes() < *g.peakBytes());
    const QString status = g.statusText();
    QVERIFY2(status.contains("card used peak " + QString::fromStdString(ts::format_bytes(*g.peakBytes(), 1))),
             qPrintable(status));
    QVERIFY2(status.contains("allocated peak " + QString::fromStdString(
                                                     lessons::format_figure("peak_memory_bytes", *g.allocatedPeakBytes()))),
             qPrintable(status));
    QVERIFY2(!status.contains(QRegularExpression("(^|· )peak ")), qPrintable(status));
    // The card's share follows the figure it is of, in its parentheses (not after the allocated peak).
    QVERIFY2(status.contains(QRegularExpression("card used peak [^·]* at [0-9.]+ s \\([0-9.]+ % of [^)]+\\) · allocated peak")),
             qPrintable(status));
    g.setStack(MemoryGraph::Stack::reserved);
    QVERIFY(g.graphFor("memory.reserved.activations"));
    QVERIFY(!g.graphFor("memory.allocated.activations"));
  }

  /// In a memory track of any height the legend shows whole or not at all: never squeezed into less
  /// than its lines (three rows overlapping, cut in half, in Side by side at 1280x720).
  void theMemoryLegendIsWholeOrFolded() {
    const auto store = open_data("gpu_b128_nw4.tsession");
    PanelHub hub;
    MemoryGraph g(&hub);
    g.setTrackMode(190);
    g.resize(440, 120);
    g.show();
    hub.setStore(store, true);  // as a run's: the legend's entries arrive with the samples
    QTest::qWait(300);
    g.rebuild();
    QVERIFY(QTest::qWaitForWindowExposed(&g));
    for (int width : {440, 560, 900}) {
      for (int h = 60; h <= 240; h += 6) {
        g.resize(width, h);
        for (int i = 0; i < 3; ++i) g.plot()->replot();  // the fit settles over a replot or two
        const QCPLegend* legend = g.plot()->legend;
        if (!g.legendShown()) continue;
        QVERIFY2(legend->outerRect().height() + 1 >= legend->minimumOuterSizeHint().height(),
                 qPrintable(QString("%1x%2: legend %3 px of %4").arg(width).arg(h).arg(legend->outerRect().height())
                                .arg(legend->minimumOuterSizeHint().height())));
      }
    }
  }

  void memoryGraphCpuOnlySaysSo() {
    PanelHub hub;
    MemoryGraph g(&hub);
    hub.setStore(cpu_only_store(), false);
    g.rebuild();
    QVERIFY(!g.graphFor("device.memory.used"));
    QVERIFY(!g.peakBytes());
    QVERIFY2(g.absentMessage().contains("CPU run"), qPrintable(g.absentMessage()));
  }

  // The absent states read as one sentence: no "data: collected (...)", no "no GPU activity: no GPU activity".
  void absentStatesSayWhyOnce() {
    PanelHub hub;
    MemoryGraph g(&hub);
    UtilizationPanel u(&hub);
    auto trace = cpu_only_store();
    trace->set_meta("device.kind", "cuda");
    trace->set_meta("gpu_activity", "collected (PyTorch profiler trace)");
    hub.setStore(trace, false);
    g.rebuild();
    QVERIFY2(!g.absentMessage().contains("data: collected"), qPrintable(g.absentMessage()));
    QVERIFY2(g.absentMessage().contains("PyTorch profiler trace"), qPrintable(g.absentMessage()));
    auto cpu = cpu_only_store();
    cpu->set_meta("device.kind", "cuda");
    cpu->set_meta("gpu_activity", "no GPU activity: the run is on the CPU");
    hub.setStore(cpu, false);
    hub.setVisibleRange({0, 200'000'000});
    QTRY_VERIFY(u.completedJobs() >= 1 && !u.gpuAbsentMessage().isEmpty() && u.gpuAbsentMessage() != "No events yet");
    QCOMPARE(u.gpuAbsentMessage().count("GPU activity", Qt::CaseInsensitive), 1);
    QVERIFY2(u.gpuAbsentMessage().endsWith("the run is on the CPU"), qPrintable(u.gpuAbsentMessage()));
    KernelTable kernels(&hub);
    QTRY_VERIFY(!kernels.summaryLabel()->text().isEmpty());
    QVERIFY2(kernels.summaryLabel()->text() == "No kernels: the run is on the CPU", qPrintable(kernels.summaryLabel()->text()));
    // A CPU run while it trains (no gpu_activity yet): the GPU row says so from the start, not "No
    // events yet"; the status line says it is a CPU run, not NVML's failure to sample.
    auto live = std::make_shared<prof::EventStore>();  // no gpu_activity until the run ends
    live->set_meta("device.kind", "cpu");
    live->set_meta("samplers.nvml", "NVML series missing: not a GPU run");
    hub.setStore(live, true);
    QTRY_VERIFY(u.completedJobs() >= 2);
    QCOMPARE(u.gpuAbsentMessage(), QString("No GPU activity recorded: the run is on the CPU"));
    QVERIFY2(u.statusText().contains("CPU run") && !u.statusText().contains("NVML") && !u.statusText().contains("measured"),
             qPrintable(u.statusText()));
  }

  void leakRule() {
    using prof::analysis::check_leak;
    const auto ends = ends_of(60);
    // Grows 1 MiB per step, sampled every 5 steps: fires, with the rate.
    auto grow = check_leak(sampled(60, 5, [](int i) { return 1e8 + i * 1048576.0; }), ends);
    QVERIFY(grow.suspected);
    QVERIFY(std::abs(grow.bytes_per_step - 1048576.0) < 1048576.0 * 0.15);
    // Constant: no.
    QVERIFY(!check_leak(sampled(60, 5, [](int) { return 1e8; }), ends).suspected);
    // One allocation that stays (a bigger workspace at step 30): no.
    QVERIFY(!check_leak(sampled(60, 1, [](int i) { return i < 30 ? 1e8 : 3e8; }), ends).suspected);
    // Growth below 4 KiB/step (a scalar history): no; just above: yes.
    QVERIFY(!check_leak(sampled(60, 1, [](int i) { return 1e8 + i * 4000.0; }), ends).suspected);
    QVERIFY(check_leak(sampled(60, 1, [](int i) { return 1e8 + i * 4200.0; }), ends).suspected);
    // Too short a run (< 20 steps): no.
    QVERIFY(!check_leak(sampled(15, 1, [](int i) { return 1e8 + i * 1e7; }), ends_of(15)).suspected);
    // Sawtooth (freed every 10 steps): the growing tail is < 20 steps: no.
    QVERIFY(!check_leak(sampled(60, 1, [](int i) { return 1e8 + (i % 10) * 1e7; }), ends).suspected);
    // Grew early, flat since (warm-up): no rise in the second half: no.
    QVERIFY(!check_leak(sampled(60, 1, [](int i) { return 1e8 + std::min(i, 6) * 1e7; }), ends).suspected);
    // The graph flags it, and not on a steady store.
    PanelHub hub;
    MemoryGraph g(&hub);
    hub.setStore(memory_store(60, 4, [](int i) { return 5e7 + i * 2e6; }), false);
    g.rebuild();
    QVERIFY(g.leak().suspected);
    QVERIFY(g.statusText().contains("possible leak"));
    QCOMPARE(g.leak().last_step, 60);
    hub.setStore(memory_store(60, 4, [](int) { return 5e7; }), false);
    g.rebuild();
    QVERIFY(!g.leak().suspected);
    QVERIFY(!g.statusText().contains("leak"));
    // No device.memory.used: the peak falls back to the allocator's total.
    QVERIFY(g.peakBytes());
    QCOMPARE(*g.peakBytes(), 5e7 + 6 * 1e6);
  }

  /// A sample's value holds until the next one and, after the last, to the end of the recording: a
  /// recorded lesson's allocator, sampled once or twice late in a short run, drew nothing in the
  /// opening steps (or nothing at all from one sample) until a zoom took in the samples.
  void memorySamplesHoldToTheEnd() {
    auto s = std::make_shared<prof::EventStore>();
    s->set_meta("device.kind", "cuda");
    const auto weights = add_series(*s, "memory.allocated.weights", "bytes");
    for (int i = 0; i < 20; ++i) add_step(*s, i + 1, i * 1'000'000LL, (i + 1) * 1'000'000LL);
    s->append(s->samples, prof::SampleRecord{5'000'000LL, weights, 4e7});
    PanelHub hub;
    MemoryGraph g(&hub);
    hub.setStore(s, false);
    g.rebuild();
    QCPGraph* w = g.graphFor("memory.allocated.weights");
    QVERIFY(w);
    bool found = false;
    const QCPRange keys = w->data()->keyRange(found);
    QVERIFY(found);
    QCOMPARE(keys.lower, 0.005);
    QCOMPARE(keys.upper, 0.020);  // the last step's end
    hub.setVisibleRange({12'000'000, 16'000'000});  // after the sample: its value is drawn there
    QVERIFY2(g.rangeMessage().isEmpty(), qPrintable(g.rangeMessage()));
  }

  /// A recorded lesson's caching allocator takes its memory (CUPTI's cudaMalloc records) before the
  /// first step and its categories are first sampled late: the opening steps showed nothing. The
  /// cudaMalloc'd bytes hold from the last record to the end, and where the range has no stack the
  /// axis fits the lines held into it (the card's use, off scale beside the stack elsewhere).
  void memoryHeldBeforeTheFirstAllocatorSample() {
    auto s = std::make_shared<prof::EventStore>();
    s->set_meta("device.kind", "cuda");
    const auto used = add_series(*s, "device.memory.used", "bytes");
    const auto weights = add_series(*s, "memory.allocated.weights", "bytes");
    s->append(s->samples, prof::SampleRecord{1'000'000LL, used, 9e8});
    auto cuda_malloc = [&](std::int64_t t, std::uint8_t op, std::uint64_t address, std::int64_t bytes) {
      prof::MemoryRecord m;
      m.time = t, m.op = op, m.memory_kind = 3, m.address = address, m.bytes = bytes;  // 3: device memory
      s->append(s->memory, m);
    };
    cuda_malloc(2'000'000LL, 1, 0x1000, 300'000'000);
    cuda_malloc(3'000'000LL, 1, 0x2000, 200'000'000);
    cuda_malloc(4'000'000LL, 2, 0x2000, 200'000'000);
    for (int i = 0; i < 20; ++i) add_step(*s, i + 1, 10'000'000LL + i * 1'000'000LL, 11'000'000LL + i * 1'000'000LL);
    s->append(s->samples, prof::SampleRecord{25'000'000LL, weights, 5e7});
    PanelHub hub;
    MemoryGraph g(&hub);
    hub.setStore(s, false);
    g.rebuild();
    QCPGraph* held = g.graphFor("cupti.device_memory");
    QVERIFY(held);
    bool found = false;
    const QCPRange keys = held->data()->keyRange(found);
    QVERIFY(found);
    QCOMPARE(keys.upper, 0.030);  // the last step's end
    QCOMPARE((held->data()->constEnd() - 1)->value, 3e8);
    hub.setVisibleRange({12'000'000, 16'000'000});  // the opening steps: no allocator sample yet
    QVERIFY2(g.rangeMessage().isEmpty(), qPrintable(g.rangeMessage()));
    QVERIFY(!g.linesOffScale());
    QVERIFY(g.plot()->yAxis->range().upper >= 9e8);
    hub.setVisibleRange({26'000'000, 29'000'000});  // the stack drawn: the card's line off scale above it
    QVERIFY(g.linesOffScale());
    QVERIFY(g.plot()->yAxis->range().upper < 9e8);
    QVERIFY2(g.rangeMessage().isEmpty(), qPrintable(g.rangeMessage()));
  }

  void bucketMathsByHand() {
    const auto s = bucket_store();
    const auto dev = prof::analysis::device_props(s->meta());
    const auto b = prof::analysis::bucket_gpu(*s, s->counts(), 0, 4'000'000, 1'000'000, dev);
    QCOMPARE(b.count(), std::size_t{4});
    QVERIFY(b.gpu_present);
    // Union of busy: [0, 1.5 ms) + [2.5, 3 ms) + [3.9, 4.1 ms).
    const double busy[] = {1.0, 0.5, 0.5, 0.1};
    for (int i = 0; i < 4; ++i) QVERIFY2(std::abs(b.busy[i] - busy[i]) < 1e-12, qPrintable(QString::number(i)));
    // SM efficiency: A 66/132 = 0.5 (1 ms in bucket 0), B 264/132 -> 1 (0.5 ms in 0, 0.5 ms in 1).
    QVERIFY(std::abs(b.sm_efficiency[0] - (0.5 * 1.0 + 1.0 * 0.5) / 1.5) < 1e-12);
    QCOMPARE(b.sm_efficiency[1], 1.0);
    QVERIFY(std::isnan(b.sm_efficiency[2]) && std::isnan(b.sm_efficiency[3]));
    // Achieved occupancy (Kineto): min(blocks/SM, 8 active) x 256 / 2048: A 0.0625, B 0.25.
    QVERIFY(std::abs(b.achieved_occupancy[0] - (0.0625 * 1.0 + 0.25 * 0.5) / 1.5) < 1e-12);
    QCOMPARE(b.achieved_occupancy[1], 0.25);
    // H2D: 1 MB inside bucket 2 (1 ms) = 1e9 B/s; none elsewhere.
    QCOMPARE(b.h2d_bytes_per_s[2], 1e9);
    QCOMPARE(b.h2d_bytes_per_s[0] + b.h2d_bytes_per_s[1] + b.h2d_bytes_per_s[3], 0.0);
    QCOMPARE(prof::analysis::nice_bucket_ns(4'000'000, 4), std::int64_t{1'000'000});
    QCOMPARE(prof::analysis::nice_bucket_ns(4'100'000, 4), std::int64_t{2'000'000});

    // The panel shows the same numbers over the hub's range.
    PanelHub hub;
    UtilizationPanel p(&hub);
    p.setTargetBuckets(4);
    hub.setStore(s, false);
    hub.setVisibleRange({0, 4'000'000});
    QTRY_VERIFY(p.completedJobs() >= 1 && p.buckets().bucket_ns == 1'000'000 && p.buckets().from == 0);
    QVERIFY(p.gpuAbsentMessage().isEmpty());
    auto busy_graph = p.graphFor("gpu.busy");
    QVERIFY(busy_graph);
    for (int i = 0; i < 4; ++i) QVERIFY(std::abs(busy_graph->data()->at(i)->value - 100 * busy[i]) < 1e-9);
    QVERIFY(p.graphFor("h2d"));
    QVERIFY(!p.graphFor("gpu.utilization"));  // no NVML samples: absent, not zero
  }

  void utilizationOnSessions_data() { memoryGraphOnSessions_data(); }
  void utilizationOnSessions() {
    QFETCH(QString, file);
    const auto store = open_data(file);
    PanelHub hub;
    UtilizationPanel p(&hub);
    hub.setStore(store, false);
    QTRY_VERIFY(p.completedJobs() >= 1);
    QVERIFY(p.gpuAbsentMessage().isEmpty());
    for (const char* k : {"gpu.busy", "gpu.sm_efficiency", "gpu.achieved_occupancy", "cpu.trainer", "h2d",
                          "gpu.utilization", "gpu.memory_utilization", "gpu.sm_clock", "gpu.power"})
      QVERIFY2(p.graphFor(k), k);
    // Loader workers only where the sampler caught them (they live one epoch; b128_nw4's were never sampled).
    bool loaders = false;
    for (std::size_t i = 0; i < store->series.size(); ++i)
      loaders |= store->strings.get(store->series[i].name).rfind("cpu.percent.loader-", 0) == 0;
    QCOMPARE(p.graphFor("cpu.loaders") != nullptr, loaders);
    QVERIFY(!file.contains("nw0") || !loaders);
    // Busy time over the buckets = the union of every kernel, copy and memset (independent merge).
    std::vector<std::pair<std::int64_t, std::int64_t>> iv;
    for (std::size_t i = 0; i < store->kernels.size(); ++i) iv.push_back({store->kernels[i].start, store->kernels[i].end});
    for (std::size_t i = 0; i < store->memcpys.size(); ++i) iv.push_back({store->memcpys[i].start, store->memcpys[i].end});
    for (std::size_t i = 0; i < store->memsets.size(); ++i) iv.push_back({store->memsets[i].start, store->memsets[i].end});
    std::sort(iv.begin(), iv.end());
    std::int64_t total = 0, a = 0, b = INT64_MIN;
    for (const auto& [s, e] : iv) {
      if (s > b) total += b > a ? b - a : 0, a = s, b = e;
      else b = std::max(b, e);
    }
    total += b - a;
    double busy_ns = 0;
    for (double v : p.buckets().busy) busy_ns += v * static_cast<double>(p.buckets().bucket_ns);
    QVERIFY2(std::abs(busy_ns - static_cast<double>(total)) < 1e-6 * static_cast<double>(total),
             qPrintable(QString("%1 vs %2").arg(busy_ns).arg(total)));
    qInfo("%s: %zu buckets of %lld ns in %.2f ms", qPrintable(file), p.buckets().count(),
          static_cast<long long>(p.buckets().bucket_ns), p.lastJobMs());
  }

  /// A CPU run's track prefers its CPU row beside the GPU row (which only says there is no GPU
  /// activity): the CPU row was folded away under it in Profile at 1280x720.
  void aCpuRunPrefersItsCpuRow() {
    PanelHub hub;
    UtilizationPanel p(&hub);
    p.setTrackMode(120);
    p.resize(900, 300);
    p.show();
    auto gpu = cpu_only_store();
    gpu->set_meta("device.kind", "cuda");
    hub.setStore(gpu, false);
    QTRY_VERIFY(p.completedJobs() >= 1);
    const int gpu_run = p.preferredTrackHeight();
    hub.setStore(cpu_only_store(), false);
    QTRY_VERIFY(p.completedJobs() >= 2);
    QVERIFY(p.cpuRun());
    QVERIFY2(p.preferredTrackHeight() > gpu_run, qPrintable(QString("%1 vs %2").arg(p.preferredTrackHeight()).arg(gpu_run)));
  }

  /// A CPU run's track keeps its CPU row whole at every height that shows a row: the GPU row, which
  /// only says there is no GPU activity, folds first (a tab opened at 1280x720 left the track its
  /// GPU row's message, the CPU row folded away or squeezed to no scale). Where the GPU row shows, its
  /// message stays inside it (wrapped in two lines, it ran over the row's axis in Side by side).
  void aCpuRunKeepsItsCpuRowAtAnyHeight() {
    PanelHub hub;
    UtilizationPanel p(&hub);
    p.setTrackMode(190);
    p.resize(900, 300);
    p.show();
    QVERIFY(QTest::qWaitForWindowExposed(&p));
    hub.setStore(cpu_only_store(), false);
    QTRY_VERIFY(p.completedJobs() >= 1);
    QTRY_VERIFY(p.graphFor("cpu.trainer"));
    QCPAxisRect* cpu = p.graphFor("cpu.trainer")->keyAxis()->axisRect();
    for (int width : {440, 900})
      for (int h = p.plotMinimumHeight(); h <= p.preferredTrackHeight() + 60; h += 3) {
        p.resize(width, h);
        for (int i = 0; i < 3; ++i) p.plot()->replot();  // the rows' fit settles over a replot or two
        const QString at = QString("%1x%2 (minimum %3, preferred %4)").arg(width).arg(h).arg(p.plotMinimumHeight()).arg(p.preferredTrackHeight());
        QVERIFY2(cpu->visible() && cpu->layout(), qPrintable(at + ": the CPU row folded"));
        const QString clipped = test::clipped_rows(p.plot());
        QVERIFY2(clipped.isEmpty(), qPrintable(at + ": " + clipped));
        for (int i = 0; i < p.plot()->itemCount(); ++i) {
          auto* t = qobject_cast<QCPItemText*>(p.plot()->item(i));
          if (!t || !t->visible() || !t->position->axisRect() || !t->position->axisRect()->visible()) continue;
          const QRectF box = QRectF(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition()).normalized();
          const QRect row = t->position->axisRect()->rect();  // the plot area: over its axis, it is struck through
          QVERIFY2(box.top() >= row.top() - 1 && box.bottom() <= row.bottom() + 2,
                   qPrintable(QString("%1: \"%2\" at y %3-%4 in a row at y %5-%6").arg(at, t->text().simplified()).arg(box.top())
                                  .arg(box.bottom()).arg(row.top()).arg(row.bottom())));
        }
      }
  }

  void utilizationCpuOnlySaysNoGpu() {
    PanelHub hub;
    UtilizationPanel p(&hub);
    hub.setStore(cpu_only_store(), false);
    QTRY_VERIFY(p.completedJobs() >= 1);
    QVERIFY2(p.gpuAbsentMessage().contains("No GPU activity"), qPrintable(p.gpuAbsentMessage()));
    QVERIFY(p.gpuAbsentMessage().contains("CPU run"));
    QVERIFY(!p.graphFor("gpu.busy"));
    QVERIFY(!p.graphFor("h2d"));
    QVERIFY(!p.graphFor("gpu.utilization"));
    QVERIFY(p.graphFor("cpu.trainer"));
    // A CPU run has no copies: no empty H2D row (its GPU row says why there is no GPU activity).
    QTRY_VERIFY(p.shownRows().contains("CPU %"));
    QVERIFY2(!p.shownRows().contains("H2D"), qPrintable(p.shownRows().join(", ")));
    auto loaders = p.graphFor("cpu.loaders");
    QVERIFY(loaders);
    QCOMPARE(loaders->data()->at(0)->value, 70.0);  // 40 % + 30 %, one sampler round
  }

  /// A session recorded on wait=3,active=3: only steps 4-6, 10-12, ... have GPU records (busy 80 % of
  /// each). The untraced steps are gaps in the GPU rows, not an idle GPU, and the header's GPU busy
  /// counts the traced steps alone (it read ~40 % over the whole range: half the steps idle).
  void utilizationLeavesUntracedStepsOut() {
    auto s = std::make_shared<prof::EventStore>();
    s->set_meta("device.kind", "cuda");
    s->set_meta("gpu_activity", "collected (CUPTI)");
    s->set_meta("session.schedule", "wait=3,warmup=0,active=3,repeat=0");
    const std::int64_t ms = 1'000'000;
    for (int i = 0; i < 24; ++i) {
      add_step(*s, i + 1, i * ms, (i + 1) * ms);
      if (i % 6 < 3) continue;
      prof::KernelRecord k;
      k.start = i * ms + ms / 10, k.end = k.start + 8 * ms / 10, k.correlation = static_cast<std::uint32_t>(i + 1);
      k.name = s->strings.intern("gemm");
      s->append(s->kernels, k);
    }
    PanelHub hub;
    UtilizationPanel p(&hub);
    hub.setStore(s, false);
    QTRY_VERIFY(p.completedJobs() >= 1);
    QTRY_VERIFY(!p.tracedBuckets().empty());
    const QString text = p.statusText();
    QVERIFY2(text.contains("of the traced steps shown (profile schedule)"), qPrintable(text));
    const int at = text.indexOf("GPU busy ");
    QVERIFY(at >= 0);
    const double busy = text.mid(at + 9).section(' ', 0, 0).toDouble();
    QVERIFY2(busy > 70 && busy < 90, qPrintable(text));  // the traced steps' 80 %, not ~40 %
    auto g = p.graphFor("gpu.busy");
    QVERIFY(g);
    int gaps = 0;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) gaps += std::isnan(it->value);
    QVERIFY2(gaps > 0, "untraced buckets draw as gaps");
  }

  void breakdownBarsSumToStepTime_data() { memoryGraphOnSessions_data(); }
  void breakdownBarsSumToStepTime() {
    QFETCH(QString, file);
    const auto store = open_data(file);
    PanelHub hub;
    BreakdownChart c(&hub);
    c.resize(700, 400);
    c.show();
    hub.setStore(store, false);
    QTRY_VERIFY(!c.steps().empty());
    QCOMPARE(c.steps().size(), store->steps.size());  // every step, the warm-up one too
    for (std::size_t i = 0; i < c.steps().size(); ++i) {
      double sum = 0;
      for (int k = 0; k < prof::analysis::kCategoryCount; ++k) {
        auto d = c.bars(static_cast<prof::analysis::Category>(k))->data();
        QCOMPARE(d->at(static_cast<int>(i))->key, static_cast<double>(c.steps()[i].global_step));
        sum += d->at(static_cast<int>(i))->value;
      }
      QVERIFY(std::abs(sum - c.steps()[i].wall() / 1e6) < 1e-9);
    }
    QVERIFY(!c.offScale().empty() && c.offScale().front() == 0);  // the warm-up step (cuDNN search)
    // Every step drawn, the mean over the analysed ones: the figure the verdicts and Compare give.
    prof::analysis::Options verdicts_options;  // as the Verdicts tab and Compare count the steps
    verdicts_options.warmup_steps = prof::analysis::kDefaultWarmupSteps;
    const auto r = prof::analysis::analyze(*store, verdicts_options);
    QCOMPARE(r.steps, static_cast<std::int64_t>(store->steps.size()) - 1);
    double ns = 0;
    for (int k = 0; k < prof::analysis::kCategoryCount; ++k) ns += static_cast<double>(r.breakdown.ns[k]);
    const QString mean = QString("mean step window %1 ms over the %2 analysed").arg(ns / 1e6 / r.steps, 0, 'f', 3).arg(r.steps);
    QTRY_VERIFY2(c.statusText().contains(mean), qPrintable(c.statusText() + " / " + mean));
    QVERIFY(c.hoverText(4).startsWith(QString("step %1:").arg(c.steps()[4].global_step)));
    QVERIFY(c.hoverText(4).contains("kernel"));
    // A click on step 5's bar selects its window on the hub.
    QVERIFY(QTest::qWaitForWindowExposed(&c));
    c.plot()->replot();
    const double x = c.plot()->xAxis->coordToPixel(static_cast<double>(c.steps()[4].global_step));
    const double y = c.plot()->yAxis->coordToPixel(c.steps()[4].wall() / 2e6);
    QTest::mouseClick(c.plot(), Qt::LeftButton, {}, QPoint(static_cast<int>(x), static_cast<int>(y)));
    QCOMPARE(hub.visibleRange(), (TimeSpan{c.steps()[4].start, c.steps()[4].end}));
    QVERIFY(!hub.followLive());
  }

  void linkedTimeAxis() {
    const auto store = open_data("gpu_b128_nw4.tsession");
    PanelHub hub;
    MemoryGraph m(&hub);
    UtilizationPanel u(&hub);
    m.resize(600, 350), u.resize(600, 450);
    m.show(), u.show();
    hub.setStore(store, false);
    m.rebuild();
    QTRY_VERIFY(u.completedJobs() >= 1);
    // Hub -> plots.
    hub.setVisibleRange({500'000'000, 600'000'000});
    QCOMPARE(m.plot()->xAxis->range().lower, 0.5);
    QCOMPARE(m.plot()->xAxis->range().upper, 0.6);
    for (int i = 0; i < u.plot()->axisRectCount(); ++i)
      QCOMPARE(u.plot()->axisRect(i)->axis(QCPAxis::atBottom)->range().upper, 0.6);
    // New buckets for the new range.
    QTRY_VERIFY(u.buckets().from >= 490'000'000 && u.buckets().from <= 500'000'000);
    // Plot -> hub and the other panel: a wheel zoom on the memory graph (a user action).
    QVERIFY(QTest::qWaitForWindowExposed(&m));
    const QPoint centre = m.plot()->axisRect()->rect().center();
    QWheelEvent wheel(centre, m.plot()->mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(m.plot(), &wheel);
    const QCPRange r = m.plot()->xAxis->range();
    QVERIFY(r.size() < 0.1 - 1e-6);  // zoomed in
    QCOMPARE(hub.visibleRange(), (TimeSpan{s_to_ns(r.lower), s_to_ns(r.upper)}));
    QVERIFY(!hub.followLive());
    QVERIFY(std::abs(u.plot()->axisRect(0)->axis(QCPAxis::atBottom)->range().lower - r.lower) < 1e-9);
    // A programmatic setRange on an axis counts as a user change too (the hub follows).
    u.plot()->axisRect(1)->axis(QCPAxis::atBottom)->setRange(0.52, 0.54);
    QCOMPARE(hub.visibleRange(), (TimeSpan{520'000'000, 540'000'000}));
    QCOMPARE(m.plot()->xAxis->range().lower, 0.52);
  }

  void screenshots_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("b128_nw0_augment") << "gpu_b128_nw0_augment.tsession";
    QTest::newRow("b16_nw4") << "gpu_b16_nw4.tsession";
  }
  void screenshots() {
    const QString dir = qEnvironmentVariable("TS_PANEL_SHOTS");
    if (dir.isEmpty()) QSKIP("set TS_PANEL_SHOTS=<dir> to write the panels' screenshots");
    QFETCH(QString, file);
    QDir().mkpath(dir);
    PanelHub hub;
    MemoryGraph m(&hub);
    UtilizationPanel u(&hub);
    BreakdownChart b(&hub);
    VerdictPanel v(&hub);
    VerdictBanner banner(&v);
    v.setScope(VerdictPanel::Scope::whole_run);
    m.resize(760, 420), u.resize(760, 560), b.resize(760, 380), v.resize(640, 420), banner.resize(900, 30);
    for (QWidget* w : std::initializer_list<QWidget*>{&m, &u, &b, &v, &banner}) w->show();
    hub.setStore(open_data(file), false);
    m.rebuild();
    QTRY_VERIFY(u.completedJobs() >= 1 && !b.steps().empty() && v.runner()->result());
    QTest::qWait(200);
    const QString stem = dir + "/" + QFileInfo(file).baseName();
    for (auto [w, name] : std::initializer_list<std::pair<QWidget*, const char*>>{
             {&m, "memory"}, {&u, "utilization"}, {&b, "breakdown"}, {&v, "verdicts"}, {&banner, "banner"}}) {
      const QPixmap px = w->grab();
      QVERIFY(!px.isNull());
      QVERIFY(px.save(stem + "_" + name + ".png"));
    }
    v.activate(0);
    qInfo("%s: verdict analysis %.2f ms, utilization buckets %.2f ms, breakdown analysis %.2f ms", qPrintable(file),
          v.runner()->lastAnalysisMs(), u.lastJobMs(), b.runner()->lastAnalysisMs());
  }
};

QTEST_MAIN(TestPanels)
#include "test_panels.moc"
