// The kernel table and the layer time table on the recorded H200 session
// tests/data/gpu_b128_nw4.tsession and on hand-built stores: both models under
// QAbstractItemModelTester (also across in-place live updates and resets), numeric sorting, the
// name filter, CSV export parsed back (names with commas, quotes and line breaks), row selection
// setting the hub's highlight, and the live refresh's throttle.
// TS_TABLES_SHOTS=DIR also saves screenshots of both panels there.
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "profiling/analysis/kernel_stats.h"
#include "profiling/analysis/layer_stats.h"
#include "profiling/event_source.h"
#include "widgets/panels/kernel_table.h"
#include "widgets/panels/layer_time_table.h"
#include "widgets/panels/stats_table_util.h"

using namespace ts;
using namespace ts::gui;

namespace {
/// Which way the sort arrow drawn on `section` of `h` points: 1 down, -1 up, 0 none seen. Read from
/// the pixels: the rightmost group of dark columns in the section (the arrow, right of the title),
/// whose widest row is the arrow's base.
int arrow_direction(QHeaderView* h, int section) {
  const QRect r(h->sectionViewportPosition(section), 0, h->sectionSize(section), h->height());
  const QImage img = h->viewport()->grab(r).toImage();
  const int bottom = img.height() - 3;  // above the header's bottom border
  auto dark = [&img](int x, int y) { return qGray(img.pixel(x, y)) < 160; };
  auto dark_column = [&](int x) {
    for (int y = 0; y < bottom; ++y)
      if (dark(x, y)) return true;
    return false;
  };
  int right = img.width() - 3;  // off the section's divider line
  while (right >= 0 && !dark_column(right)) --right;
  int left = right;
  while (left > 0 && dark_column(left - 1)) --left;
  std::vector<int> widths;
  for (int y = 0; y < bottom; ++y) {
    int n = 0;
    for (int x = left; x <= right && right >= 0; ++x) n += dark(x, y);
    if (n > 0) widths.push_back(n);
  }
  if (widths.size() < 2 || widths.front() == widths.back()) return 0;
  return widths.front() > widths.back() ? 1 : -1;
}


std::shared_ptr<const prof::EventStore> session_store() {
  static std::shared_ptr<const prof::EventStore> store =
      prof::open_session(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession")->shared_store();
  return store;
}

/// RFC 4180 parser, independent of the writer: rows of fields.
QList<QStringList> parse_csv(const QString& text) {
  QList<QStringList> rows;
  QStringList row;
  QString field;
  bool quoted = false, any = false;
  for (int i = 0; i < text.size(); ++i) {
    const QChar c = text[i];
    if (quoted) {
      if (c == QLatin1Char('"') && i + 1 < text.size() && text[i + 1] == QLatin1Char('"')) field += c, ++i;
      else if (c == QLatin1Char('"')) quoted = false;
      else field += c;
    } else if (c == QLatin1Char('"')) {
      quoted = true, any = true;
    } else if (c == QLatin1Char(',')) {
      row << field, field.clear();
    } else if (c == QLatin1Char('\r') && i + 1 < text.size() && text[i + 1] == QLatin1Char('\n')) {
      row << field, field.clear(), rows << row, row.clear(), ++i, any = false;
    } else {
      field += c, any = true;
    }
  }
  if (any || !field.isEmpty() || !row.isEmpty()) row << field, rows << row;
  return rows;
}

void add_kernel(prof::EventStore& s, const char* name, std::int64_t start, std::int64_t dur, std::uint32_t corr) {
  prof::KernelRecord k;
  k.start = start, k.end = start + dur, k.correlation = corr, k.name = s.strings.intern(name);
  s.append(s.kernels, k);
}

/// The column's kSortRole values in the shown (proxy) order.
QList<QVariant> column_values(const QAbstractItemModel& m, int column) {
  QList<QVariant> v;
  for (int r = 0; r < m.rowCount(); ++r) v << m.data(m.index(r, column), kSortRole);
  return v;
}

}  // namespace

class TestTables : public QObject {
  Q_OBJECT
 private slots:
  void formats() {
    QCOMPARE(format_ns(812), QStringLiteral("812 ns"));
    QCOMPARE(format_ns(12'400), QStringLiteral("12.4 µs"));
    QCOMPARE(format_ns(3'214'000), QStringLiteral("3.21 ms"));
    QCOMPARE(format_ns(999'999), QStringLiteral("1.00 ms"));
    QCOMPARE(format_bytes_si(896), QStringLiteral("896 B"));
    QCOMPARE(format_bytes_si(16'777'216), QStringLiteral("16.8 MB"));
    QCOMPARE(format_fraction(0.1234), QStringLiteral("12.3 %"));
    QCOMPARE(display_kernel_name(QStringLiteral("void cutlass::Kernel2<sgemm_128x32>(sgemm_128x32::Params)")),
             QStringLiteral("cutlass::Kernel2<sgemm_128x32>"));
    QCOMPARE(display_kernel_name(QStringLiteral("void ts::(anonymous namespace)::k<float>(float*, int (*)(int))")),
             QStringLiteral("ts::(anonymous namespace)::k<float>"));
    QCOMPARE(display_kernel_name(QStringLiteral("sm90_xmma_gemm_f32f32_nn")), QStringLiteral("sm90_xmma_gemm_f32f32_nn"));
    QCOMPARE(display_kernel_name(QStringLiteral("(odd)")), QStringLiteral("(odd)"));
    QCOMPARE(csv_field(QStringLiteral("plain")), QStringLiteral("plain"));
    QCOMPARE(csv_field(QStringLiteral("a, b")), QStringLiteral("\"a, b\""));
    QCOMPARE(csv_field(QStringLiteral("say \"hi\"")), QStringLiteral("\"say \"\"hi\"\"\""));
  }

  void kernelModelUnderTester() {
    KernelTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(kSortRole);
    proxy.sort(KernelTableModel::MeanColumn);
    QAbstractItemModelTester proxy_tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto groups = prof::analysis::kernel_groups(*session_store());
    QVERIFY(groups.size() > 10);
    auto fewer = groups;
    fewer.resize(5);
    model.setGroups(fewer);  // reset
    QCOMPARE(model.rowCount(), 5);
    model.setGroups(groups);  // a superset: in place, the rest appended
    QCOMPARE(model.rowCount(), static_cast<int>(groups.size()));
    QCOMPARE(model.rowOf(QString::fromStdString(fewer[0].name)), 0);
    model.setGroups(fewer);  // names gone: reset
    QCOMPARE(model.rowCount(), 5);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    model.setGroups(groups);
    for (int c = 0; c < KernelTableModel::ColumnCount; ++c) {
      QVERIFY(!model.headerData(c, Qt::Horizontal).toString().isEmpty());
      QVERIFY(model.data(model.index(0, c)).isValid());
    }
  }

  void layerModelUnderTester() {
    LayerTimeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto report = prof::analysis::layer_stats(*session_store());
    QCOMPARE(static_cast<int>(report.layers.size()), 6);
    model.setReport(report);
    model.setReport(report);  // same layers: in place
    QCOMPARE(model.rowCount(), 6);
    QCOMPARE(model.data(model.index(0, LayerTimeModel::LayerColumn)).toString(), QStringLiteral("conv1 (Conv2d) + relu1"));
    QCOMPARE(model.data(model.index(0, LayerTimeModel::ParametersColumn), kSortRole).toLongLong(), 896);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }

  void kernelTableSortsNumerically() {
    PanelHub hub;
    hub.setStore(session_store(), false);
    KernelTable table(&hub);
    QVERIFY(table.model()->rowCount() > 10);
    // Default: total time, largest first.
    auto totals = column_values(*table.proxy(), KernelTableModel::TotalColumn);
    for (int i = 1; i < totals.size(); ++i) QVERIFY(totals[i - 1].toLongLong() >= totals[i].toLongLong());
    for (int col : {int(KernelTableModel::CallsColumn), int(KernelTableModel::MeanColumn), int(KernelTableModel::MaxColumn),
                    int(KernelTableModel::ShareColumn), int(KernelTableModel::OccupancyColumn)}) {
      table.view()->sortByColumn(col, Qt::AscendingOrder);
      const auto v = column_values(*table.proxy(), col);
      for (int i = 1; i < v.size(); ++i)
        QVERIFY2(v[i - 1].toDouble() <= v[i].toDouble(), qPrintable(QStringLiteral("column %1 row %2").arg(col).arg(i)));
    }
    // Numeric, not text: sorted by calls, the shown text would not be in string order here.
    table.view()->sortByColumn(KernelTableModel::CallsColumn, Qt::AscendingOrder);
    QStringList shown;
    for (int r = 0; r < table.proxy()->rowCount(); ++r)
      shown << table.proxy()->data(table.proxy()->index(r, KernelTableModel::CallsColumn)).toString();
    QStringList text_sorted = shown;
    text_sorted.sort();
    QVERIFY(shown != text_sorted);
  }

  /// The sort arrow points the way the rows run: ▼ while the rows go largest first (the Kernels table
  /// opens sorted by Total, descending, and showed ▲), ▲ ascending.
  void sortArrowMatchesTheOrder() {
    PanelHub hub;
    hub.setStore(session_store(), false);
    KernelTable table(&hub);
    table.resize(1000, 300);
    table.show();
    QVERIFY(QTest::qWaitForWindowExposed(&table));
    QHeaderView* h = table.view()->horizontalHeader();
    QCOMPARE(h->sortIndicatorSection(), int(KernelTableModel::TotalColumn));
    QCOMPARE(h->sortIndicatorOrder(), Qt::DescendingOrder);
    QCOMPARE(arrow_direction(h, KernelTableModel::TotalColumn), 1);
    table.view()->sortByColumn(KernelTableModel::TotalColumn, Qt::AscendingOrder);
    QCOMPARE(arrow_direction(h, KernelTableModel::TotalColumn), -1);
    LayerTimeTable layers(&hub);  // the Layers table's header draws its arrow the same way
    layers.resize(1000, 300);
    layers.show();
    QVERIFY(QTest::qWaitForWindowExposed(&layers));
    auto* lv = layers.findChild<QTableView*>();
    QVERIFY(lv);
    lv->sortByColumn(1, Qt::DescendingOrder);
    QCOMPARE(arrow_direction(lv->horizontalHeader(), 1), 1);
  }

  /// The kernels' occupancy is the calculator's theoretical one, beside the Utilization track's
  /// estimated achieved occupancy: its header and tooltip say which it is.
  void kernelOccupancyIsSaidToBeTheoretical() {
    KernelTableModel model;
    const QString header = model.headerData(KernelTableModel::OccupancyColumn, Qt::Horizontal).toString();
    QVERIFY2(header.contains("theor", Qt::CaseInsensitive), qPrintable(header));
    const QString tip = model.headerData(KernelTableModel::OccupancyColumn, Qt::Horizontal, Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains("Theoretical") && tip.contains("est. achieved occupancy") && tip.contains("upper bound"), qPrintable(tip));
  }

  void kernelTableFilter() {
    PanelHub hub;
    hub.setStore(session_store(), false);
    KernelTable table(&hub);
    const auto& groups = table.model()->groups();
    int expected = 0;
    for (const auto& g : groups) expected += QString::fromStdString(g.name).contains(QStringLiteral("CUDNN"), Qt::CaseInsensitive);
    QVERIFY(expected > 0 && expected < static_cast<int>(groups.size()));
    table.filterEdit()->setText(QStringLiteral("CUDNN"));  // typed: case-insensitive substring
    QCOMPARE(table.proxy()->rowCount(), expected);
    for (int r = 0; r < table.proxy()->rowCount(); ++r)
      QVERIFY(table.proxy()->data(table.proxy()->index(r, 0), kSortRole).toString().contains(QStringLiteral("cudnn"), Qt::CaseInsensitive));
    QVERIFY(table.summaryLabel()->text().contains(QStringLiteral("%1 shown").arg(expected)));
    table.setNameFilter(QString());
    QCOMPARE(table.proxy()->rowCount(), static_cast<int>(groups.size()));
  }

  void kernelCsvRoundTrip() {
    PanelHub hub;
    hub.setStore(session_store(), false);
    KernelTable table(&hub);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("kernels.csv"));
    QString error;
    QVERIFY2(table.exportCsv(path, &error), qPrintable(error));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const auto rows = parse_csv(QString::fromUtf8(f.readAll()));
    const auto& groups = table.model()->groups();
    QCOMPARE(rows.size(), static_cast<int>(groups.size()) + 1);
    QCOMPARE(rows[0], (QStringList{"name", "calls", "total_ns", "mean_ns", "min_ns", "max_ns", "share_of_kernel_time",
                                   "mean_theoretical_occupancy", "tensor_cores"}));
    bool comma = false;
    std::int64_t sum = 0;
    for (int r = 1; r < rows.size(); ++r) {
      QCOMPARE(rows[r].size(), 9);
      const int i = table.model()->rowOf(rows[r][0]);
      QVERIFY2(i >= 0, qPrintable(rows[r][0]));
      const auto& g = groups[static_cast<std::size_t>(i)];
      comma = comma || rows[r][0].contains(QLatin1Char(','));
      QCOMPARE(rows[r][1].toLongLong(), g.calls);
      QCOMPARE(rows[r][2].toLongLong(), g.total_ns);
      QCOMPARE(rows[r][3].toDouble(), g.mean_ns);
      QCOMPARE(rows[r][4].toLongLong(), g.min_ns);
      QCOMPARE(rows[r][5].toLongLong(), g.max_ns);
      QCOMPARE(rows[r][6].toDouble(), g.share_of_gpu_time);
      QCOMPARE(rows[r][7].isEmpty(), !g.mean_occupancy.has_value());
      if (g.mean_occupancy) QCOMPARE(rows[r][7].toDouble(), *g.mean_occupancy);
      QCOMPARE(rows[r][8], g.tensor_cores ? QStringLiteral("true") : QStringLiteral("false"));
      sum += rows[r][2].toLongLong();
    }
    QVERIFY(comma);  // template arguments: the quoting was exercised
    QCOMPARE(sum, prof::analysis::total_kernel_ns(groups));
    QVERIFY(!table.exportCsv(dir.filePath(QStringLiteral("no/such/dir/k.csv")), &error));
    QVERIFY(error.contains(QStringLiteral("cannot write")));
  }

  void csvQuotesOddNames() {
    auto store = std::make_shared<prof::EventStore>();
    add_kernel(*store, "k<\"quoted\", 2>", 0, 10, 1);
    add_kernel(*store, "two\nlines", 20, 5, 2);
    add_kernel(*store, " padded ", 30, 1, 3);
    PanelHub hub;
    hub.setStore(store, false);
    KernelTable table(&hub);
    const auto rows = parse_csv(table.csv());
    QCOMPARE(rows.size(), 4);
    QCOMPARE(rows[1][0], QStringLiteral("k<\"quoted\", 2>"));
    QCOMPARE(rows[2][0], QStringLiteral("two\nlines"));
    QCOMPARE(rows[3][0], QStringLiteral(" padded "));
  }

  void selectionSetsHighlight() {
    PanelHub hub;
    hub.setStore(session_store(), false);
    KernelTable table(&hub);
    QSignalSpy spy(&hub, &PanelHub::highlightChanged);
    table.view()->selectRow(2);
    const QString name = table.proxy()->data(table.proxy()->index(2, 0), kSortRole).toString();  // the full name
    QCOMPARE(hub.highlight().kernel_name, name);
    QVERIFY(hub.highlight().label.startsWith(QStringLiteral("kernel: ")));
    QVERIFY(hub.highlight().intervals.isEmpty());
    QCOMPARE(spy.count(), 1);
    QVERIFY(table.selectKernel(QString::fromStdString(table.model()->groups()[0].name)));
    QCOMPARE(hub.highlight().kernel_name, QString::fromStdString(table.model()->groups()[0].name));
    table.view()->clearSelection();
    QVERIFY(hub.highlight().empty());
  }

  void liveRefreshIsThrottledAndKeepsSelection() {
    auto store = std::make_shared<prof::EventStore>();
    add_kernel(*store, "first", 0, 100, 1);
    PanelHub hub;
    hub.setRefreshIntervalMs(10);
    KernelTable table(&hub);
    table.refresher()->setMinIntervalMs(300);
    hub.setStore(store, true);
    QTRY_COMPARE(table.model()->rowCount(), 1);
    QVERIFY(table.selectKernel(QStringLiteral("first")));
    QElapsedTimer t;
    t.start();
    std::uint32_t corr = 2;
    while (t.elapsed() < 1500) {  // ~150 ticks of new rows in 1.5 s
      add_kernel(*store, corr % 2 ? "first" : "second", corr * 10, 10, corr);
      ++corr;
      QTest::qWait(10);
    }
    QTRY_COMPARE(table.model()->totalCalls(), static_cast<std::int64_t>(corr - 1));
    QCOMPARE(table.model()->rowCount(), 2);
    // At most one run per 300 ms (+ the first and the catch-up run), far fewer than the ticks.
    QVERIFY2(table.refresher()->backgroundRuns() <= 1500 / 300 + 3,
             qPrintable(QString::number(table.refresher()->backgroundRuns())));
    QVERIFY(table.refresher()->backgroundRuns() >= 2);
    QCOMPARE(hub.highlight().kernel_name, QStringLiteral("first"));  // selection kept across updates
    const QModelIndexList sel = table.view()->selectionModel()->selectedRows();
    QCOMPARE(sel.size(), 1);
    QCOMPARE(sel.front().data().toString(), QStringLiteral("first"));
    hub.setLive(false);
  }

  void visibleRangeOnly() {
    auto store = std::make_shared<prof::EventStore>();
    add_kernel(*store, "early", 0, 100, 1);
    add_kernel(*store, "late", 1000, 100, 2);
    PanelHub hub;
    hub.setStore(store, false);
    KernelTable table(&hub);
    QCOMPARE(table.model()->rowCount(), 2);
    hub.setVisibleRange({500, 2000});
    table.setVisibleRangeOnly(true);
    QCOMPARE(table.model()->rowCount(), 1);
    QCOMPARE(QString::fromStdString(table.model()->groups()[0].name), QStringLiteral("late"));
    hub.setVisibleRange({0, 50});
    QCOMPARE(QString::fromStdString(table.model()->groups()[0].name), QStringLiteral("early"));
    table.setVisibleRangeOnly(false);
    QCOMPARE(table.model()->rowCount(), 2);
  }

  /// A CPU run's layers show no GPU columns (every row read "0 ns" and "0.0 %" there).
  void layerTableOfACpuRunHasNoGpuColumns() {
    PanelHub hub;
    auto store = std::make_shared<prof::EventStore>();
    store->set_meta("device.kind", "cpu");
    hub.setStore(store, false);
    LayerTimeTable table(&hub);
    for (int c : {LayerTimeModel::ForwardGpuColumn, LayerTimeModel::BackwardGpuColumn, LayerTimeModel::GpuShareColumn,
                  LayerTimeModel::EvalGpuColumn})
      QVERIFY(table.view()->isColumnHidden(c));
    QVERIFY(!table.view()->isColumnHidden(LayerTimeModel::ForwardHostColumn));
  }

  /// Without layer ranges the table says why: "yet" only where more can come (TrainScope's own run);
  /// an imported trace or a recorded program never has them.
  void aSessionWithoutLayerRangesSaysWhy() {
    for (bool own : {true, false}) {
      PanelHub hub;
      auto store = std::make_shared<prof::EventStore>();
      if (own) store->set_meta("run.model_spec", "{}");
      else store->set_meta("import.format", "kineto");
      hub.setStore(store, false);
      LayerTimeTable table(&hub);
      QTRY_VERIFY(!table.summaryLabel()->text().isEmpty());
      const QString text = table.summaryLabel()->text();
      QVERIFY2(text.contains("yet") == own, qPrintable(text));
      if (!own) QVERIFY2(text.contains("imported trace"), qPrintable(text));
    }
  }

  void layerTableOnTheSession() {
    PanelHub hub;
    hub.setStore(session_store(), false);
    LayerTimeTable table(&hub);
    QCOMPARE(table.model()->rowCount(), 6);
    const auto& r = table.model()->report();
    QCOMPARE(r.steps, 79);  // the warm-up step left out
    for (const auto& l : r.layers) {
      if (l.type != "Conv2d") continue;
      QVERIFY(l.forward.gpu_kernel_ns > 0);
      QVERIFY(l.backward.gpu_kernel_ns > 0);
    }
    QVERIFY(!table.view()->isColumnHidden(LayerTimeModel::ForwardGpuColumn));  // a GPU run's kernels
    table.setSkipWarmup(false);
    QCOMPARE(table.model()->report().steps, 80);
    QVERIFY(table.summaryLabel()->text().contains(QStringLiteral("not measured")));
    // CSV parsed back.
    const auto rows = parse_csv(table.csv());
    QCOMPARE(rows.size(), 7);
    QCOMPARE(rows[0][LayerTimeModel::ForwardGpuColumn], QStringLiteral("forward_gpu_kernel_ns"));
    QCOMPARE(rows[1][0], QStringLiteral("layer 0 (Conv2d conv1)"));
    QCOMPARE(rows[1][LayerTimeModel::ForwardGpuColumn].toLongLong(), table.model()->report().layers[0].forward.gpu_kernel_ns);
    QCOMPARE(rows[1][LayerTimeModel::ActivationsColumn].toLongLong(), 32LL * 32 * 32 * 128 * 4);
    // Sorting by backward GPU time, numerically.
    table.view()->sortByColumn(LayerTimeModel::BackwardGpuColumn, Qt::DescendingOrder);
    const auto v = column_values(*table.proxy(), LayerTimeModel::BackwardGpuColumn);
    for (int i = 1; i < v.size(); ++i) QVERIFY(v[i - 1].toLongLong() >= v[i].toLongLong());
    hub.clear();
    QCOMPARE(table.model()->rowCount(), 0);
  }

  void screenshots() {
    const QString dir = qEnvironmentVariable("TS_TABLES_SHOTS");
    if (dir.isEmpty()) QSKIP("set TS_TABLES_SHOTS=DIR to save screenshots");
    PanelHub hub;
    hub.setStore(session_store(), false);
    KernelTable kernels(&hub);
    kernels.resize(1100, 520);
    kernels.show();
    kernels.view()->selectRow(1);
    QTest::qWait(50);
    QVERIFY(kernels.grab().save(dir + QStringLiteral("/kernel_table.png")));
    kernels.resize(640, 420);
    QTest::qWait(50);
    QVERIFY(kernels.grab().save(dir + QStringLiteral("/kernel_table_narrow.png")));
    LayerTimeTable layers(&hub);
    layers.resize(1300, 330);
    layers.show();
    QTest::qWait(50);
    QVERIFY(layers.grab().save(dir + QStringLiteral("/layer_table.png")));
  }
};

QTEST_MAIN(TestTables)
#include "test_tables.moc"
