// Timeline model tests: TimeAxis mapping, LOD merge (no event lost, totals preserved,
// cost bounded by pixels), incremental build (a store grown in pieces gives the same lanes as one
// read), nesting of host ranges into rows, the details of a known kernel of gpu_b128_nw4.tsession,
// and a range's breakdown summing to its length with the documented priority.
#include <QtTest>
#include <random>

#include "engine/host_trace.h"
#include "profiling/analysis/range.h"
#include "profiling/event_source.h"
#include "widgets/timeline/categories.h"
#include "widgets/timeline/lod.h"
#include "widgets/timeline/time_axis.h"
#include "widgets/timeline/timeline_data.h"
#include "widgets/timeline/timeline_details.h"

using namespace ts;
using namespace ts::gui;
using namespace ts::gui::timeline;

namespace {

std::shared_ptr<const prof::EventStore> load(const char* name) {
  return prof::open_session(std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/" + name)->shared_store();
}

/// Rows of a lane as comparable tuples.
std::vector<std::tuple<int, std::int64_t, std::int64_t, int, std::uint32_t, int>> flatten(const Lane& l) {
  std::vector<std::tuple<int, std::int64_t, std::int64_t, int, std::uint32_t, int>> out;
  for (std::size_t r = 0; r < l.rows.size(); ++r)
    for (const Event& e : l.rows[r].events)
      out.emplace_back(static_cast<int>(r), e.start, e.end(), static_cast<int>(e.source), static_cast<std::uint32_t>(e.row), static_cast<std::uint8_t>(e.category));
  return out;
}

/// Checks the LOD items of a walk: contiguous, every event once, busy totals equal durations.
void check_walk(const Row& row, const TimeAxis& axis, std::size_t* items_out = nullptr) {
  std::size_t expect_first = row.firstEndingAfter(axis.start());
  const std::size_t expect_end = row.firstStartingAt(axis.end());
  std::int64_t busy = 0;
  std::size_t items = 0;
  lod_walk(row, axis, axis.start(), axis.end(), 1.0, [&](const LodItem& it) {
    QCOMPARE(it.first, expect_first);  // contiguous: nothing skipped, nothing twice
    QVERIFY(it.last > it.first);
    if (!it.merged) {
      QCOMPARE(it.last, it.first + 1);
      QVERIFY(it.x1 - it.x0 >= 1.0);
    } else {
      for (std::size_t i = it.first; i < it.last; ++i) {  // merged events are narrower than a pixel
        QVERIFY(axis.x(row.events[i].end()) - axis.x(row.events[i].start) < 1.0 || it.last - it.first == 1);
        // ... and a block spans no empty pixel: each event starts in the pixel where the one before
        // it ended (or earlier).
        if (i > it.first)
          QVERIFY2(axis.x(row.events[i].start) < std::floor(axis.x(row.events[i - 1].end())) + 1.0 + 1e-9,
                   qPrintable(QString("event %1 starts %2 px after the previous end")
                                  .arg(i)
                                  .arg(axis.x(row.events[i].start) - axis.x(row.events[i - 1].end()))));
      }
    }
    busy += it.busy_ns;
    expect_first = it.last;
    ++items;
  });
  QCOMPARE(expect_first, expect_end);
  QCOMPARE(busy, row.busySum(row.firstEndingAfter(axis.start()), expect_end));
  if (items_out) *items_out = items;
}

}  // namespace

class TestTimeline : public QObject {
  Q_OBJECT
 private slots:
  void timeAxisMapping() {
    TimeAxis a;
    a.setWidth(1000);
    a.setBounds(0, 10'000'000);
    a.setRange(1'000'000, 2'000'000);
    QCOMPARE(a.x(1'000'000), 0.0);
    QCOMPARE(a.x(2'000'000), 1000.0);
    QCOMPARE(a.x(1'500'000), 500.0);
    QCOMPARE(a.t(250.0), std::int64_t{1'250'000});
    QCOMPARE(a.nsPerPx(), 1000.0);
    // Zoom in around x = 250: the time there stays there, the span shrinks by the factor.
    a.zoom(0.5, 250);
    QCOMPARE(a.span(), std::int64_t{500'000});
    QCOMPARE(a.t(250.0), std::int64_t{1'250'000});
    QCOMPARE(a.start(), std::int64_t{1'125'000});
    // Pan by 100 px = 50 µs at 500 ns/px.
    a.panPx(100);
    QCOMPARE(a.start(), std::int64_t{1'175'000});
    a.panNs(-175'000);
    QCOMPARE(a.start(), std::int64_t{1'000'000});
    // Clamp: never narrower than kMinSpanNs, never wider than the bounds + margins, never far outside.
    a.zoom(1e-9, 0);
    QCOMPARE(a.span(), TimeAxis::kMinSpanNs);
    a.zoom(1e9, 0);
    QCOMPARE(a.span(), std::int64_t{11'000'000});  // 10 ms + 2 × 5 %
    QCOMPARE(a.start(), std::int64_t{-500'000});
    a.setRange(9'000'000, 30'000'000);
    QVERIFY(a.end() <= 10'500'000);
    a.panNs(-100'000'000);
    QCOMPARE(a.start(), std::int64_t{-500'000});
    a.fitAll();
    QCOMPARE(a.start(), std::int64_t{0});
    QCOMPARE(a.end(), std::int64_t{10'000'000});
    a.setRange(5, 1);  // reversed: swapped, then widened to the minimum span
    QCOMPARE(a.start(), std::int64_t{1});
    QCOMPARE(a.span(), TimeAxis::kMinSpanNs);
  }

  void lodMergeKeepsEveryEvent() {
    // 200k non-overlapping events with gaps and durations over 5 orders of magnitude.
    std::mt19937_64 rng(7);
    Row row;
    std::int64_t t = 0;
    for (int i = 0; i < 200'000; ++i) {
      t += static_cast<std::int64_t>(rng() % 5000);
      const std::int64_t d = (i % 1000 == 0) ? 50'000'000 : static_cast<std::int64_t>(1 + rng() % 20'000);
      row.push(Event{t, t + d, static_cast<std::uint32_t>(i), Source::kernel, 0});
      t += d;
    }
    TimeAxis a;
    a.setWidth(1920);
    a.setBounds(0, t);
    a.fitAll();
    std::size_t items = 0;
    check_walk(row, a, &items);
    QVERIFY2(items <= 2 * 1920 + 10, qPrintable(QString::number(items)));  // O(pixels), not O(events)
    // Zoomed in at several places, and a window cutting events at both ends.
    for (double f : {0.3, 0.01, 1e-4}) {
      a.fitAll();
      a.zoom(f, 700);
      check_walk(row, a);
    }
    a.setRange(row.events[1000].start + 10, row.events[1500].end() - 10);
    check_walk(row, a);
    // Everything visible and wide: one box per event.
    Row few;
    for (int i = 0; i < 10; ++i) few.push(Event{i * 1000, i * 1000 + 900, static_cast<std::uint32_t>(i)});
    a.setBounds(0, 10'000);
    a.fitAll();
    int boxes = 0;
    lod_walk(few, a, a.start(), a.end(), 1.0, [&](const LodItem& it) { boxes += it.merged ? 0 : 1; });
    QCOMPARE(boxes, 10);
    // Sparse narrow events that each cross a pixel edge stay apart (they chained into one block).
    Row sparse;
    for (int i = 0; i < 7; ++i) {  // 350 ns per pixel: each event is 30 ns (0.09 px) across a pixel edge
      const std::int64_t edge = (i * 143 + 3) * 350;
      sparse.push(Event{edge - 10, edge + 20, static_cast<std::uint32_t>(i)});
    }
    a.setWidth(1000);
    a.setBounds(0, 350'000);
    a.setRange(0, 350'000);
    int blocks = 0;
    lod_walk(sparse, a, a.start(), a.end(), 1.0, [&](const LodItem& it) {
      ++blocks;
      QCOMPARE(it.last - it.first, std::size_t{1});
    });
    QCOMPARE(blocks, 7);
    check_walk(sparse, a);
  }

  void hostRangesNestIntoRows() {
    // step [0,100) > forward [10,40) > (nothing); backward [50,90); children arrive before the parent.
    Lane lane;
    merge_into_lane(lane, {Event{10, 40, 1, Source::host_range}, Event{50, 90, 2, Source::host_range}});
    QCOMPARE(lane.rows.size(), std::size_t{1});
    merge_into_lane(lane, {Event{0, 100, 3, Source::host_range}});
    QCOMPARE(lane.rows.size(), std::size_t{2});
    QCOMPARE(lane.rows[0].events.size(), std::size_t{1});
    QCOMPARE(lane.rows[0].events[0].row, 3u);
    QCOMPARE(lane.rows[1].events.size(), std::size_t{2});
    // Back-to-back events (one ends when the next starts) share a row.
    Lane chain;
    merge_into_lane(chain, {Event{0, 10, 1}, Event{10, 20, 2}, Event{20, 30, 4}});
    QCOMPARE(chain.rows.size(), std::size_t{1});
    // Overlapping (not nested) events still never share a row.
    merge_into_lane(lane, {Event{95, 150, 4, Source::host_range}});
    for (const Row& r : lane.rows)
      for (std::size_t i = 1; i < r.events.size(); ++i) QVERIFY(r.events[i - 1].end() <= r.events[i].start);
  }

  void incrementalBuildEqualsOneRead() {
    const auto store = load("gpu_b128_nw4.tsession");
    const prof::StoreCounts all = store->counts();
    TimelineData once;
    once.ingest(*store, all);
    for (int pieces : {2, 7}) {
      TimelineData grown;
      for (int k = 1; k <= pieces; ++k) {
        auto part = [&](std::size_t n) { return n * static_cast<std::size_t>(k) / static_cast<std::size_t>(pieces); };
        prof::StoreCounts c = all;
        c.kernels = part(all.kernels), c.memcpys = part(all.memcpys), c.memsets = part(all.memsets);
        c.runtime = part(all.runtime), c.syncs = part(all.syncs), c.host_ranges = part(all.host_ranges);
        c.threads = part(all.threads), c.steps = part(all.steps);
        grown.ingest(*store, c);
      }
      QCOMPARE(grown.eventCount(), once.eventCount());
      QCOMPARE(grown.defaultOrder().size(), once.defaultOrder().size());
      for (int l : once.defaultOrder()) {
        const Lane& a = once.lanes()[static_cast<std::size_t>(l)];
        const int gl = grown.laneIndex(a.key);
        QVERIFY2(gl >= 0, a.key.c_str());
        QVERIFY2(flatten(a) == flatten(grown.lanes()[static_cast<std::size_t>(gl)]), a.key.c_str());
      }
      QCOMPARE(grown.steps().size(), once.steps().size());
    }
    // Every event of the store is in exactly one lane; rows never overlap.
    const std::size_t expect = all.kernels + all.memcpys + all.memsets + all.runtime + all.syncs + all.host_ranges;
    QCOMPARE(once.eventCount(), expect);
    std::size_t in_lanes = 0;
    for (const Lane& l : once.lanes()) {
      in_lanes += l.events();
      for (const Row& r : l.rows)
        for (std::size_t i = 1; i < r.events.size(); ++i) QVERIFY(r.events[i - 1].end() <= r.events[i].start);
    }
    QCOMPARE(in_lanes, expect);
    // The budget: at most 64 bytes per event in the GUI's structures.
    QVERIFY2(once.bytes() <= 64 * once.eventCount(), qPrintable(QString::number(double(once.bytes()) / once.eventCount())));
    // Lanes: trainer first (with nested rows: step > forward/backward), four loader lanes, streams.
    const auto order = once.defaultOrder();
    QCOMPARE(once.laneTitle(order.front()), QString("trainer"));
    QVERIFY(once.lanes()[static_cast<std::size_t>(order.front())].rows.size() >= 2);
    QCOMPARE(once.laneTitle(order[1]), QString("CUDA API · trainer"));
    int loaders = 0, streams = 0;
    for (int l : order) {
      loaders += once.laneTitle(l).startsWith("loader-");
      streams += once.lanes()[static_cast<std::size_t>(l)].kind == LaneKind::stream;
    }
    QCOMPARE(loaders, 4);
    QCOMPARE(streams, 3);  // kernels ran on streams 13, 15 and 16 (14 carried only copies)
  }

  void detailsOfAKnownKernel() {
    const auto store = load("gpu_b128_nw4.tsession");
    TimelineData data;
    data.ingest(*store, store->counts());
    // The implicit_convolve_sgemm kernel of step 2 at 559721020 ns (sqlite3: kernel_view).
    std::uint32_t row = UINT32_MAX;
    for (std::size_t i = 0; i < store->kernels.size(); ++i)
      if (store->kernels[i].start == 559721020) row = static_cast<std::uint32_t>(i);
    QVERIFY(row != UINT32_MAX);
    const EventRef ref = data.find(*store, Source::kernel, row);
    QVERIFY(ref.valid());
    const auto props = prof::analysis::device_props(store->meta());
    QMap<QString, QString> d;
    for (const auto& [k, v] : event_details(*store, data, props, ref)) d[k] = v;
    QCOMPARE(d["Name"], QString("implicit_convolve_sgemm"));  // short first: grid and block stay in view
    QVERIFY(d["Full name"].startsWith("void implicit_convolve_sgemm<float, float, 1024, 5, 5, 3, 3, 3, 1, false, false, true>("));
    QCOMPARE(d["Category"], QString("GEMM / conv kernel"));
    QCOMPARE(d["Duration"], QString("23.87 µs"));
    QCOMPARE(d["Grid"], QString("(4096, 1, 1)"));
    QCOMPARE(d["Block"], QString("(8, 8, 1)"));
    QCOMPARE(d["Registers / thread"], QString("64"));
    QCOMPARE(d["Shared memory"], QString("2304 B static + 0 B dynamic"));
    // 64 regs × 64 threads = 4096 regs/block → 16 blocks of 65536 → 1024 of 2048 threads (cc 9.0).
    QVERIFY2(d["Theoretical occupancy"].startsWith("50.0 % (16 blocks/SM"), qPrintable(d["Theoretical occupancy"]));
    QCOMPARE(d["Stream"], QString("13 (device 0)"));
    QCOMPARE(d["Correlation id"], QString("6298"));
    QCOMPARE(d["Launched by"], QString("cudaLaunchKernel at 559.707 ms (%1)").arg(format_ns(store->runtime[*data.runtimeOf(*store, 6298)].end - 559706880)));
    QCOMPARE(d["Layer"], QString("layer 0 (Conv2d conv1) · forward"));
    QCOMPARE(d["Step"], QString("2 (epoch 1, step 2)"));
    // The hover tooltip: the name, then the telling fields.
    const QString tip = event_tooltip(*store, data, props, ref);
    QVERIFY(tip.startsWith("implicit_convolve_sgemm\n"));
    QVERIFY2(tip.contains("\nDuration: 23.87 µs\n") && tip.contains("\nGrid: (4096, 1, 1)\n") &&
                 tip.contains("\nStep: 2 (epoch 1, step 2)"),
             qPrintable(tip));
    // Mangled names are demangled.
    QCOMPARE(QString::fromStdString(demangle("_ZN2ts7kernels3fooEv")), QString("ts::kernels::foo()"));
    QCOMPARE(short_kernel_name("void ts::kernels::(anonymous namespace)::adam_kernel<float>(ts::kernels::OptimizerArgs)"),
             QString("adam_kernel"));
  }

  void runtimeLaneOfANamedThreadWithoutRanges() {
    // The profiler's sampler calls cudaMemGetInfo: its runtime lane carries the thread's name.
    prof::EventStore s;
    s.threads.push({474, s.strings.intern("sampler")});
    prof::RuntimeRecord r;
    r.start = 10, r.end = 20, r.thread = 474, r.correlation = 1, r.name = s.strings.intern("cudaMemGetInfo");
    s.runtime.push(r);
    TimelineData d;
    d.ingest(s, s.counts());
    QStringList titles;
    for (std::size_t i = 0; i < d.lanes().size(); ++i) titles << d.laneTitle(static_cast<int>(i));
    QVERIFY2(titles.contains("CUDA API · sampler"), qPrintable(titles.join(", ")));
  }

  void graphReplaysAreBarsInTheirStreamLane() {
    // A hybrid recording: a kernel of a window and, after it, a whole CUDA-graph replay on the same stream.
    prof::EventStore s;
    prof::KernelRecord k;
    k.start = 100, k.end = 200, k.stream = 13, k.correlation = 1, k.name = s.strings.intern("relu_kernel");
    s.kernels.push(k);
    s.graph_replays.push(prof::GraphReplayRecord{1'000, 451'000, 0, 0, 1, 13, 2, 5});
    TimelineData d;
    d.ingest(s, s.counts());
    const int lane = d.laneIndex(prof::timeline::stream_lane_key(0, 13));
    QVERIFY(lane >= 0);
    QCOMPARE(d.lanes().size(), std::size_t{1});  // the replay shares its kernels' lane
    QCOMPARE(d.lanes()[static_cast<std::size_t>(lane)].events(), std::size_t{2});
    const EventRef ref = d.find(s, Source::graph_replay, 0);
    QVERIFY(ref.valid());
    QCOMPARE(static_cast<Category>(d.event(ref).category), Category::graph_replay);
    QCOMPARE(category_label(Category::graph_replay), QString("CUDA graph replay"));
    QVERIFY(category_color(Category::graph_replay) != category_color(Category::other_kernel));
    const QString tip = event_tooltip(s, d, prof::analysis::DeviceProps{}, ref);
    QVERIFY2(tip.startsWith("CUDA graph replay\n") && tip.contains("Duration: 450.0 µs") &&
                 tip.contains("traced only in the profile schedule's windows"),
             qPrintable(tip));
  }

  void kernelFamilies() {
    QCOMPARE(kernel_category("void implicit_convolve_sgemm<float>(int)"), Category::gemm_conv);
    QCOMPARE(kernel_category("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8"), Category::gemm_conv);
    QCOMPARE(kernel_category("void ts::kernels::adam_kernel<float>()"), Category::optimizer);
    QCOMPARE(kernel_category("void cudnn::pooling_fw_4d_kernel<float>()"), Category::pooling);
    QCOMPARE(kernel_category("void ts::kernels::cross_entropy_kernel<float>()"), Category::reduction_loss);
    QCOMPARE(kernel_category("void ts::kernels::epilogue_forward_kernel<float>()"), Category::elementwise);
    QCOMPARE(kernel_category("void cudnn::bn_fw_tr_1C11_kernel_NCHW<float>()"), Category::batchnorm);
    QCOMPARE(kernel_category("mystery"), Category::other_kernel);
    QCOMPARE(kernel_category("ncclKernel_AllReduce_RING_LL_Sum_float"), Category::communication);  // not "reduce"
  }

  void rangeBreakdownSumsToLength() {
    const auto store = load("gpu_b128_nw4.tsession");
    const prof::StoreCounts c = store->counts();
    const std::int64_t a = store->steps[10].start, b = store->steps[14].end;
    for (auto [s, e] : {std::pair{a, b}, std::pair{a + 12345, a + 99'999}, std::pair{std::int64_t{0}, b}}) {
      const auto br = prof::analysis::range_breakdown(*store, c, s, e);
      QCOMPARE(br.total(), e - s);
      for (auto v : br.ns) QVERIFY(v >= 0);
    }
    QVERIFY(prof::analysis::range_breakdown(*store, c, a, b)[prof::analysis::Category::kernel] > 0);
    QCOMPARE(prof::analysis::range_breakdown(*store, c, b, a).total(), std::int64_t{0});
    // Priority on a hand-made store: a kernel over a runtime call over a forward range.
    prof::EventStore st;
    st.host_ranges.push({0, 1000, 0, 0, 7, static_cast<std::uint8_t>(trace::RangeKind::step)});
    st.host_ranges.push({100, 900, 0, 0, 7, static_cast<std::uint8_t>(trace::RangeKind::forward)});
    prof::RuntimeRecord r;
    r.start = 200, r.end = 500, r.thread = 7, r.name = st.strings.intern("cudaLaunchKernel");
    st.runtime.push(r);
    prof::KernelRecord k;
    k.start = 400, k.end = 700;
    st.kernels.push(k);
    const auto br = prof::analysis::range_breakdown(st, st.counts(), 0, 1000);
    using C = prof::analysis::Category;
    QCOMPARE(br[C::kernel], std::int64_t{300});    // 400-700
    QCOMPARE(br[C::runtime], std::int64_t{200});   // 200-400
    QCOMPARE(br[C::cpu_exec], std::int64_t{300});  // 100-200, 700-900
    QCOMPARE(br[C::other], std::int64_t{200});     // 0-100, 900-1000
    QCOMPARE(br.total(), std::int64_t{1000});
    const auto rows = range_details(br, {0, 1000});
    QCOMPARE(rows[1].first, QString("kernel"));
    QCOMPARE(rows[1].second, QString("300 ns (30.0 %)"));
  }
};

QTEST_MAIN(TestTimeline)
#include "test_timeline.moc"
