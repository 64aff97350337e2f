// The Profile workspace's Python tab (widgets/panels/python_lines.h) on hand-built recorded programs:
// the model's rows and shares (samples while kernels run and in the gaps), the timeline's selected
// range changing the rows, the analysed steps without one, the empty states, the stack tooltip, the
// model under QAbstractItemModelTester, and every label readable at 1280x720.
// TS_SCREENSHOTS=DIR writes a session with samples there (python_insight.tsession, SessionRecorder)
// and pictures of the window showing the tab at 1280x720 and 1920x1080 (run it under xvfb-run).
#include <QAbstractItemModelTester>
#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QScreen>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolTip>
#include <QtTest>

#include "app/gui/main_window.h"
#include "engine/host_trace.h"
#include "gui/gui_test_util.h"
#include "profiling/session/session_file.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/panels/python_lines.h"
#include "widgets/panels/stats_table_util.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/workspaces/profile_workspace.h"
#include "widgets/workspaces/workspaces.h"

using namespace ts;
using namespace ts::gui;
using prof::EventStore;

namespace {

constexpr std::uint32_t kTid = 4242;
constexpr std::int64_t kUs = 1000, kMs = 1'000'000;
using K = trace::RangeKind;

struct Builder {
  EventStore& s;
  std::uint32_t corr = 1;
  std::uint32_t frame(const char* fn, const std::string& file, int line) {
    const auto id = static_cast<std::uint32_t>(s.py_frames.size() + 1);
    s.append(s.py_frames, prof::PyFrameRecord{id, s.strings.intern(fn), s.strings.intern(file), line});
    return id;
  }
  /// A stack node: `frame` called from `parent` (0: outermost).
  std::uint32_t stack(std::uint32_t parent, std::uint32_t frame) {
    const auto id = static_cast<std::uint32_t>(s.py_stacks.size() + 1);
    s.append(s.py_stacks, prof::PyStackRecord{id, parent, frame});
    return id;
  }
  void kernel(std::int64_t a, std::int64_t b, const char* name = "void at::native::elementwise_kernel<128, 4>()") {
    prof::KernelRecord k;
    k.start = a, k.end = b, k.correlation = corr++, k.stream = 7, k.name = s.strings.intern(name);
    s.append(s.kernels, k);
  }
  void range(K kind, std::int64_t a, std::int64_t b, const std::string& name) {
    prof::HostRangeRecord r;
    r.start = a, r.end = b, r.thread = kTid, r.kind = static_cast<std::uint8_t>(kind), r.name = s.strings.intern(name);
    s.append(s.host_ranges, r);
  }
  void step(std::int64_t gs, std::int64_t a, std::int64_t b) {
    prof::StepRecord r;
    r.global_step = gs, r.start = a, r.end = b;
    s.append(s.steps, r);
  }
  void meta() {
    s.set_meta("session.source", "injected (trainscope-run -- PROGRAM; profiling/inject)");
    s.set_meta("steps.rule", "optimizer.step calls (Python insight)");
    s.set_meta("steps.thread", std::to_string(kTid));
    s.set_meta("python.insight", "lean");
    s.set_meta("gpu_activity", "collected (CUPTI)");
  }
};

/// 12 steps of 10 ms: a kernel in [t, t+4 ms), samples every ms (at +0.5 ms): 4 while it runs on
/// train.py:40 (3 inside conv.py), 6 in the gap on train.py:52 (load_batch).
std::shared_ptr<EventStore> small_program(bool samples = true) {
  auto store = std::make_shared<EventStore>();
  Builder b{*store};
  b.meta();
  const std::string train = "/home/u/train.py", conv = "/venv/lib/python3.12/site-packages/torch/nn/modules/conv.py";
  const auto main_s = b.stack(0, b.frame("main", train, 80));
  const auto fwd = b.stack(main_s, b.frame("forward", train, 40));
  const auto in_conv = b.stack(fwd, b.frame("_conv_forward", conv, 549));
  const auto load = b.stack(main_s, b.frame("load_batch", train, 52));
  for (int i = 0; i < 12; ++i) {
    const std::int64_t t = i * 10 * kMs;
    b.step(i + 1, t, t + 10 * kMs);
    b.kernel(t, t + 4 * kMs);
    for (int m = 0; samples && m < 10; ++m)
      store->append(store->py_samples, prof::PySampleRecord{t + m * kMs + kMs / 2, kTid,
                                                            m == 0  ? fwd
                                                            : m < 4 ? in_conv
                                                                    : load});
  }
  return store;
}

/// A CIFAR-10 training script as the Python insight records it: 200 steps of 20 ms — the DataLoader's
/// next() (8 ms; the program's own dataset decodes images with PIL), forward (4 ms), backward (5 ms),
/// optimizer.step (1 ms), then 2 ms of the scheduler's step, or on every 10th step a loss.item()
/// that waits for a reduction — sampled at ~97 Hz.
std::shared_ptr<EventStore> cifar_program() {
  auto store = std::make_shared<EventStore>();
  Builder b{*store};
  b.meta();
  store->set_meta("device.name", "NVIDIA H200");
  store->set_meta("device.kind", "cuda");
  store->set_meta("device.compute_capability", "9.0");
  store->set_meta("device.multiprocessors", "132");
  const std::string home = "/home/ana/cifar/", site = "/opt/venv/lib/python3.12/site-packages/",
                    torch = site + "torch/";
  const auto main_s = b.stack(0, b.frame("<module>", home + "train.py", 88));
  const auto run = b.stack(main_s, b.frame("train_one_epoch", home + "train.py", 41));
  const auto next = b.stack(run, b.frame("__next__", torch + "utils/data/dataloader.py", 708));
  const auto fetch = b.stack(next, b.frame("fetch", torch + "utils/data/_utils/fetch.py", 52));
  const auto item = b.stack(fetch, b.frame("__getitem__", home + "datasets.py", 27));
  const auto pil = b.stack(item, b.frame("open", site + "PIL/Image.py", 3431));
  const auto aug = b.stack(item, b.frame("__call__", site + "torchvision/transforms/transforms.py", 95));
  const auto fwd_line = b.stack(main_s, b.frame("train_one_epoch", home + "train.py", 47));
  const auto call = b.stack(fwd_line, b.frame("_call_impl", torch + "nn/modules/module.py", 1750));
  const auto model = b.stack(call, b.frame("forward", home + "model.py", 22));
  const auto conv = b.stack(b.stack(model, b.frame("_call_impl", torch + "nn/modules/module.py", 1750)),
                            b.frame("_conv_forward", torch + "nn/modules/conv.py", 549));
  const auto bwd = b.stack(b.stack(main_s, b.frame("train_one_epoch", home + "train.py", 49)),
                           b.frame("_engine_run_backward", torch + "autograd/graph.py", 825));
  const auto opt = b.stack(b.stack(main_s, b.frame("train_one_epoch", home + "train.py", 50)),
                           b.frame("_single_tensor_adam", torch + "optim/adam.py", 345));
  const auto sync = b.stack(main_s, b.frame("train_one_epoch", home + "train.py", 53));
  const auto sched = b.stack(b.stack(main_s, b.frame("train_one_epoch", home + "train.py", 55)),
                             b.frame("step", torch + "optim/lr_scheduler.py", 238));
  for (int i = 0; i < 200; ++i) {
    const std::int64_t t = 50 * kMs + i * 20 * kMs;
    const bool logs = i % 10 == 9;
    b.step(i + 1, t, t + 20 * kMs);
    b.range(K::data_wait, t, t + 8 * kMs, "data");
    b.range(K::forward, t + 8 * kMs, t + 12 * kMs, "forward");
    b.range(K::backward, t + 12 * kMs, t + 17 * kMs, "backward");
    b.range(K::optimizer, t + 17 * kMs, t + 18 * kMs, "optimizer");
    for (std::int64_t k = t + 8 * kMs + 60 * kUs; k < t + 12 * kMs; k += 180 * kUs) b.kernel(k, k + 150 * kUs);
    for (std::int64_t k = t + 12 * kMs + 20 * kUs; k < t + 17 * kMs; k += 320 * kUs) b.kernel(k, k + 300 * kUs);
    for (std::int64_t k = t + 17 * kMs + 40 * kUs; k < t + 18 * kMs; k += 200 * kUs) b.kernel(k, k + 120 * kUs);
    if (logs) {
      b.kernel(t + 18 * kMs + 30 * kUs, t + 18 * kMs + 400 * kUs, "void at::native::reduce_kernel<512, 1>()");
      b.range(K::other, t + 18 * kMs, t + 20 * kMs, "sync: .item() train.py:53");
      b.range(K::sync, t + 18 * kMs + 20 * kUs, t + 20 * kMs, "cudaStreamSynchronize");
    }
  }
  // Samples every 10.3 ms: they fall on every phase in turn.
  for (std::int64_t at = 50 * kMs; at < 50 * kMs + 200 * 20 * kMs; at += 10'300 * kUs) {
    const std::int64_t in = (at - 50 * kMs) % (20 * kMs), i = (at - 50 * kMs) / (20 * kMs);
    std::uint32_t st;
    if (in < 8 * kMs)
      st = in < 2 * kMs ? next : in < 5 * kMs ? pil : in < 7 * kMs ? aug : item;
    else if (in < 12 * kMs)
      st = in < 9 * kMs ? call : in < 11 * kMs ? conv : model;
    else if (in < 17 * kMs)
      st = bwd;
    else if (in < 18 * kMs)
      st = opt;
    else
      st = i % 10 == 9 ? sync : sched;
    store->append(store->py_samples, prof::PySampleRecord{at, kTid, st});
  }
  return store;
}

/// The text of column `c` of the proxy's shown rows.
QStringList column(const QAbstractItemModel& m, int c) {
  QStringList v;
  for (int r = 0; r < m.rowCount(); ++r) v << m.data(m.index(r, c)).toString();
  return v;
}

/// Every line of `label`'s text fits it: its wrapped height is no taller than the label.
bool fits(const QLabel* label) {
  return !label->isVisible() || label->heightForWidth(label->width()) <= label->height();
}

}  // namespace

class TestPythonLines : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { test::isolate_settings(); }

  void rowsAndSharesOfTheAnalysedSteps() {
    PanelHub hub;
    hub.setStore(small_program(), false);
    PythonLinesTable table(&hub);
    PythonLinesModel* m = table.model();
    QCOMPARE(m->rowCount(), 2);  // train.py:40 is one row, inside conv or on the line itself
    const auto& p = m->lines();
    QVERIFY(p.analysed_steps);
    QCOMPARE(p.steps, std::int64_t{11});  // the warm-up step left out, as the verdicts do
    QCOMPARE(p.samples, std::int64_t{110});
    QCOMPARE(p.idle_samples, std::int64_t{66});
    // Shown sorted by samples: load_batch (all in the gaps), the forward line (33 samples inside conv, 11
    // on the line itself: one row, named by conv where most of them were).
    QSortFilterProxyModel* v = table.proxy();
    QCOMPARE(column(*v, PythonLinesModel::LineColumn), (QStringList{"train.py:52", "train.py:40"}));
    QCOMPARE(column(*v, PythonLinesModel::FunctionColumn), (QStringList{"load_batch", "forward"}));
    QCOMPARE(column(*v, PythonLinesModel::SamplesColumn), (QStringList{"66", "44"}));
    QCOMPARE(column(*v, PythonLinesModel::RangeShareColumn), (QStringList{"60.0 %", "40.0 %"}));
    QCOMPARE(column(*v, PythonLinesModel::IdleShareColumn), (QStringList{"100.0 %", "0.0 %"}));
    QCOMPARE(column(*v, PythonLinesModel::InnermostColumn), (QStringList{"—", "conv.py:549 _conv_forward"}));
    // Numeric sorting: ascending samples puts the smallest first.
    v->sort(PythonLinesModel::SamplesColumn, Qt::AscendingOrder);
    QCOMPARE(v->data(v->index(0, PythonLinesModel::SamplesColumn), kSortRole).toLongLong(), 44);
    const QString header = table.headerLabel()->text();
    QVERIFY2(header.contains("analysed steps") && header.contains("110 samples") && header.contains("1000 Hz") &&
                 header.contains("66 while the GPU idled"),
             qPrintable(header));
    QVERIFY(table.emptyLabel()->isHidden());
  }

  void theTooltipIsTheLinesMostFrequentStack() {
    PanelHub hub;
    hub.setStore(small_program(), false);
    PythonLinesTable table(&hub);
    const QModelIndex conv = table.proxy()->index(1, PythonLinesModel::InnermostColumn);
    const QString tip = table.proxy()->data(conv, Qt::ToolTipRole).toString();
    const QStringList lines = tip.split('\n');
    QVERIFY2(lines.size() >= 4, qPrintable(tip));
    QVERIFY2(lines[0].contains("train.py:40") && lines[0].contains("33 of its 44"), qPrintable(tip));
    QCOMPARE(lines[1], QString("    train.py:80 main"));  // outermost first
    QCOMPARE(lines[2], QString(" ▶ train.py:40 forward"));
    QCOMPARE(lines[3], QString("    conv.py:549 _conv_forward"));
    QVERIFY2(tip.contains("44 samples, 40.0 % of the range; 0 while the GPU idled"), qPrintable(tip));
  }

  void theSelectedRangeChangesTheRows() {
    PanelHub hub;
    hub.setStore(small_program(), false);
    TimelineView timeline(&hub);
    PythonLinesTable table(&hub, &timeline);
    QCOMPARE(table.model()->rowCount(), 2);
    timeline.setTimeSelection(TimeSpan{4 * kMs, 10 * kMs});  // the first gap: load_batch only
    QVERIFY(table.range());
    QCOMPARE(table.model()->rowCount(), 1);
    QCOMPARE(table.model()->lines().lines[0].where, std::string("train.py:52"));
    QCOMPARE(table.model()->lines().samples, std::int64_t{6});
    QCOMPARE(column(*table.proxy(), PythonLinesModel::IdleShareColumn), QStringList{"100.0 %"});
    QVERIFY2(table.headerLabel()->text().startsWith("Selected range"), qPrintable(table.headerLabel()->text()));
    timeline.setTimeSelection(TimeSpan{0, 4 * kMs});  // the first kernel: the GPU never idled
    QCOMPARE(table.model()->rowCount(), 1);
    QCOMPARE(column(*table.proxy(), PythonLinesModel::IdleShareColumn), (QStringList{"0.0 %"}));
    timeline.setTimeSelection(TimeSpan{200 * kMs, 300 * kMs});  // after the recording
    QVERIFY(table.view()->isHidden());
    QVERIFY2(table.emptyLabel()->text().contains("in the selected range"), qPrintable(table.emptyLabel()->text()));
    timeline.setTimeSelection(std::nullopt);  // Esc: the analysed steps again
    QVERIFY(!table.range());
    QCOMPARE(table.model()->rowCount(), 2);
    QVERIFY(table.model()->lines().analysed_steps);
  }

  void withoutSamplesItSaysWhy() {
    PanelHub hub;
    PythonLinesTable table(&hub);
    QVERIFY(table.view()->isHidden());
    QVERIFY(table.emptyLabel()->text().contains("No events"));
    hub.setStore(small_program(false), false);
    QCOMPARE(table.model()->rowCount(), 0);
    QVERIFY(table.view()->isHidden());
    QVERIFY(table.headerLabel()->isHidden());
    QCOMPARE(table.emptyLabel()->text(), PythonLinesTable::noSamplesText());
    QVERIFY(table.emptyLabel()->text().contains("trainscope-run --python"));
    hub.setStore(small_program(), false);
    QCOMPARE(table.model()->rowCount(), 2);
    QVERIFY(!table.view()->isHidden());
  }

  void theModelUnderTester() {
    PythonLinesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(kSortRole);
    proxy.sort(PythonLinesModel::RangeShareColumn);
    QAbstractItemModelTester proxy_tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto store = small_program();
    model.setLines(prof::analysis::python_lines(*store, 0, 0, 1));  // reset
    QCOMPARE(model.rowCount(), 2);
    model.setLines(prof::analysis::python_lines(*store, 0, 60 * kMs));  // the same lines: in place
    QCOMPARE(model.rowCount(), 2);
    model.setLines(prof::analysis::python_lines(*store, 4 * kMs, 10 * kMs));  // fewer: reset
    QCOMPARE(model.rowCount(), 1);
    for (int c = 0; c < PythonLinesModel::ColumnCount; ++c) {
      QVERIFY(!model.headerData(c, Qt::Horizontal).toString().isEmpty());
      QVERIFY(!model.headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty());
    }
    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }

  void everyLabelIsReadableAt1280x720() {
    MainWindow w;
    w.resize(1280, 720);
    w.show();
    PanelHub* hub = w.panelHub();
    hub->setStore(cifar_program(), false);
    auto* table = w.findChild<PythonLinesTable*>();
    QVERIFY(table);
    w.workspaces()->setMode(Workspaces::Mode::profile);
    QTest::qWait(100);  // the workspace's first layout (the tabs collapse below 820 px: opened by a click)
    w.workspaces()->profile()->showTab(table);
    QTRY_VERIFY_WITH_TIMEOUT(table->model()->rowCount() >= 8, 10000);
    QTest::qWait(100);
    QTabWidget* tabs = w.workspaces()->profile()->tabs();
    const int at = tabs->indexOf(table);
    QCOMPARE(tabs->tabText(at), QString("Python"));
    QVERIFY(QFontMetrics(tabs->tabBar()->font()).horizontalAdvance("Python") < tabs->tabBar()->tabRect(at).width());
    QVERIFY2(fits(table->headerLabel()), qPrintable(table->headerLabel()->text()));
    QVERIFY(table->view()->isVisible());
    QVERIFY2(table->view()->viewport()->height() >= 3 * table->view()->verticalHeader()->defaultSectionSize(),
             qPrintable(QString("table %1 px high").arg(table->view()->viewport()->height())));
    const QHeaderView* h = table->view()->horizontalHeader();
    const QFontMetrics header_fm(h->font()), cell_fm(table->view()->font());
    for (int c = 0; c < PythonLinesModel::ColumnCount; ++c) {
      const QString title = table->model()->headerData(c, Qt::Horizontal).toString();
      QVERIFY2(header_fm.horizontalAdvance(title) < h->sectionSize(c), qPrintable(title));
      for (int r = 0; r < table->proxy()->rowCount(); ++r) {
        const QString cell = table->proxy()->data(table->proxy()->index(r, c)).toString();
        QVERIFY2(cell_fm.horizontalAdvance(cell) < h->sectionSize(c), qPrintable(title + ": " + cell));
      }
    }
    QVERIFY(h->sectionViewportPosition(PythonLinesModel::InnermostColumn) +
                h->sectionSize(PythonLinesModel::InnermostColumn) <=
            table->view()->viewport()->width());
    // The one line of a session without samples fits too.
    hub->setStore(small_program(false), false);
    QTRY_VERIFY(table->emptyLabel()->isVisible());
    QVERIFY2(fits(table->emptyLabel()), qPrintable(table->emptyLabel()->text()));
  }

  // Pictures to look at (not a check): the window with the tab at 1280x720 and 1920x1080.
  void screenshotsWhenAsked() {
    const QString dir = qEnvironmentVariable("TS_SCREENSHOTS");
    if (dir.isEmpty()) QSKIP("TS_SCREENSHOTS not set");
    QDir().mkpath(dir);
    const QString path = dir + "/python_insight.tsession";
    {
      const auto store = cifar_program();
      prof::SessionRecorder rec(path.toStdString(), *store);
      QVERIFY(rec.write_batch());
      rec.close();
    }
    for (QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
      MainWindow w;
      w.resize(size);
      w.show();
      QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
      QVERIFY(w.sessions()->openSession(path));
      QVERIFY(opened.wait(20000));
      QTest::qWait(300);  // the workspace's first layout
      auto* table = w.findChild<PythonLinesTable*>();
      w.workspaces()->profile()->showTab(table);
      QTRY_VERIFY_WITH_TIMEOUT(table->model()->rowCount() > 0, 10000);
      QTest::qWait(800);
      const QString name = QString("%1/python_tab_%2x%3").arg(dir).arg(size.width()).arg(size.height());
      QVERIFY(w.grab().save(name + ".png"));
      // The first row's tooltip (its stack) over the window, as the screen shows it.
      QTableView* view = table->view();
      const QRect cell = view->visualRect(table->proxy()->index(0, PythonLinesModel::LineColumn));
      const QPoint at = view->viewport()->mapToGlobal(cell.center());
      QToolTip::showText(at, table->proxy()->data(table->proxy()->index(0, 0), Qt::ToolTipRole).toString(), view);
      QTest::qWait(400);
      QVERIFY(w.screen()->grabWindow(0).save(name + "_tooltip.png"));
      QToolTip::hideText();
      TimelineView* timeline = w.timelinePanel()->view();
      timeline->setTimeSelection(TimeSpan{50 * kMs + 20 * kMs, 50 * kMs + 60 * kMs});  // steps 2-3
      QTest::qWait(500);
      QVERIFY(w.grab().save(name + "_selection.png"));
    }
  }
};

QTEST_MAIN(TestPythonLines)
#include "test_python_lines.moc"
