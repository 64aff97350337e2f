// TimelineView / TimelinePanel tests on gpu_b128_nw4.tsession: keyboard, wheel and drag
// navigation change the range as specified (W/S × 0.8 around the mouse, A/D 10 % of the span),
// ruler drag + Z zooms to the selection, hit-testing (a known kernel, nested host ranges), click
// selection and the launch -> kernel flow partner, lane collapse/hide/reorder (also through the
// header menu), the hub's linked range, highlight (intervals scrolled to and shaded, a kernel name
// outlined), search with next/previous, follow live, painted(newest end), the panel's wiring, and
// lane titles that fit the header at larger fonts (kind whole, a thread id's last digits).
#include <QAction>
#include <QApplication>
#include <QLineEdit>
#include <QMenu>
#include <QRegularExpression>
#include <QScrollBar>
#include <QtTest>
#include <map>

#include "engine/host_trace.h"
#include "profiling/event_source.h"
#include "widgets/timeline/categories.h"
#include "widgets/timeline/timeline_details.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"

using namespace ts;
using namespace ts::gui;
using namespace ts::gui::timeline;

namespace {

std::shared_ptr<const prof::EventStore> session() {
  static auto s = prof::open_session(std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/gpu_b128_nw4.tsession")->shared_store();
  return s;
}

constexpr int H = TimelineView::kHeaderWidth;

std::uint32_t kernel_row_at(const prof::EventStore& s, std::int64_t start) {
  for (std::size_t i = 0; i < s.kernels.size(); ++i)
    if (s.kernels[i].start == start) return static_cast<std::uint32_t>(i);
  return UINT32_MAX;
}

/// A point on event `e` of the view (middle of its visible part).
QPoint point_on(const TimelineView& v, const EventRef& r) {
  const Event& e = v.data().event(r);
  const double x0 = std::max(0.0, v.axis().x(e.start)), x1 = std::min(v.plotWidth(), v.axis().x(e.end()));
  return QPoint(H + static_cast<int>((x0 + x1) / 2), v.rowCenterY(r.lane, r.row));
}

}  // namespace

class TestTimelineView : public QObject {
  Q_OBJECT
  PanelHub* hub = nullptr;
  TimelineView* view = nullptr;

 private slots:
  void init() {
    hub = new PanelHub;
    hub->setStore(session(), false);
    view = new TimelineView(hub);
    view->resize(1400, 700);
    view->show();
    QVERIFY(QTest::qWaitForWindowExposed(view));
    QCOMPARE(view->plotWidth(), 1400.0 - H);
  }
  void cleanup() {
    delete view;
    delete hub;
  }

  void keyboardNavigation() {
    const std::int64_t a = 550'000'000;
    view->setRange({a, a + 1'210'000});  // 1000 ns per pixel at 1210 px
    QTest::mouseMove(view, QPoint(H + 300, 200));
    const std::int64_t under = view->axis().t(300);
    QTest::keyClick(view, Qt::Key_W);
    QCOMPARE(view->range().end - view->range().start, std::int64_t{968'000});  // × 0.8
    QVERIFY(std::abs(view->axis().t(300) - under) <= 1);                         // around the mouse
    QTest::keyClick(view, Qt::Key_S);
    QCOMPARE(view->range().end - view->range().start, std::int64_t{1'210'000});
    QVERIFY(std::abs(view->axis().t(300) - under) <= 1);
    const std::int64_t s0 = view->range().start;
    QTest::keyClick(view, Qt::Key_D);
    QCOMPARE(view->range().start, s0 + 121'000);  // 10 % of the span
    QTest::keyClick(view, Qt::Key_A);
    QTest::keyClick(view, Qt::Key_A);
    QCOMPARE(view->range().start, s0 - 121'000);
    QCOMPARE(hub->visibleRange(), view->range());  // the linked axis follows
    QVERIFY(!hub->followLive());                   // a user move stops following
    // Ctrl+wheel: one notch zooms × 0.8 around the pointer.
    QWheelEvent wheel(QPointF(H + 300, 200), view->mapToGlobal(QPointF(H + 300, 200)), {}, QPoint(0, 120), Qt::NoButton,
                      Qt::ControlModifier, Qt::NoScrollPhase, false);
    const std::int64_t before = view->axis().t(300);
    QApplication::sendEvent(view, &wheel);
    QCOMPARE(view->range().end - view->range().start, std::int64_t{968'000});
    QVERIFY(std::abs(view->axis().t(300) - before) <= 1);
    // F fits all.
    QTest::keyClick(view, Qt::Key_F);
    QVERIFY(view->range().start <= view->data().minTime() && view->range().end >= view->data().maxTime());
  }

  void dragPansAndRulerSelects() {
    const std::int64_t a = 560'000'000;
    view->setRange({a, a + 1'210'000});
    // Drag the lanes 100 px to the right: earlier times come into view (100 µs at 1 µs/px).
    QTest::mousePress(view, Qt::LeftButton, {}, QPoint(H + 500, 300));
    QTest::mouseMove(view, QPoint(H + 550, 300));
    QTest::mouseMove(view, QPoint(H + 600, 300));
    QTest::mouseRelease(view, Qt::LeftButton, {}, QPoint(H + 600, 300));
    QCOMPARE(view->range().start, a - 100'000);
    QVERIFY(!view->timeSelection());
    // Drag on the ruler selects [t(200), t(400)]; Z zooms to it.
    const std::int64_t t200 = view->axis().t(200), t400 = view->axis().t(400);
    QTest::mousePress(view, Qt::LeftButton, {}, QPoint(H + 200, 10));
    QTest::mouseMove(view, QPoint(H + 300, 10));
    QTest::mouseMove(view, QPoint(H + 400, 10));
    QTest::mouseRelease(view, Qt::LeftButton, {}, QPoint(H + 400, 10));
    QVERIFY(view->timeSelection());
    QCOMPARE(view->timeSelection()->start, t200);
    QCOMPARE(view->timeSelection()->end, t400);
    QTest::keyClick(view, Qt::Key_Z);
    QCOMPARE(view->range().start, t200);
    QCOMPARE(view->range().end, t400);
    // Shift+drag on the lanes selects too; Esc clears.
    QTest::mousePress(view, Qt::LeftButton, Qt::ShiftModifier, QPoint(H + 100, 300));
    QTest::mouseMove(view, QPoint(H + 200, 300));
    QTest::mouseRelease(view, Qt::LeftButton, Qt::ShiftModifier, QPoint(H + 200, 300));
    QVERIFY(view->timeSelection());
    QTest::keyClick(view, Qt::Key_Escape);
    QVERIFY(!view->timeSelection());
  }

  void hitTestingAndSelection() {
    const auto& s = *session();
    const std::uint32_t row = kernel_row_at(s, 559721020);  // implicit_convolve_sgemm, step 2
    QVERIFY(row != UINT32_MAX);
    const EventRef k = view->data().find(s, Source::kernel, row);
    QVERIFY(k.valid());
    view->setRange({559'500'000, 560'400'000});
    const QPoint p = point_on(*view, k);
    QCOMPARE(view->eventAt(p), k);
    // A click selects it; its flow partner is the launching cudaLaunchKernel (correlation 6298).
    QTest::mouseClick(view, Qt::LeftButton, {}, p);
    QCOMPARE(view->selectedEvent(), k);
    const EventRef launch = view->flowPartner();
    QVERIFY(launch.valid());
    QCOMPARE(view->data().event(launch).source, Source::runtime);
    QCOMPARE(s.runtime[view->data().event(launch).row].correlation, 6298u);
    // Nested host ranges at 559.65 ms on the trainer lane: row 0 = step 2, row 1 = forward layer 0.
    const int trainer = view->data().trainerLane();
    const int x = H + static_cast<int>(view->axis().x(559'650'000));
    const EventRef outer = view->eventAt(QPoint(x, view->rowCenterY(trainer, 0)));
    const EventRef inner = view->eventAt(QPoint(x, view->rowCenterY(trainer, 1)));
    QVERIFY(outer.valid() && inner.valid());
    QCOMPARE(s.host_ranges[view->data().event(outer).row].kind, static_cast<std::uint8_t>(trace::RangeKind::step));
    QCOMPARE(s.host_ranges[view->data().event(outer).row].step, std::int64_t{2});
    QCOMPARE(s.host_ranges[view->data().event(inner).row].kind, static_cast<std::uint8_t>(trace::RangeKind::forward));
    QCOMPARE(QString::fromStdString(s.strings.get(s.host_ranges[view->data().event(inner).row].layer)),
             QString("layer 0 (Conv2d conv1)"));
    // Nothing in the header or ruler; a click on empty space clears the selection.
    QVERIFY(!view->eventAt(QPoint(10, p.y())).valid());
    QVERIFY(!view->eventAt(QPoint(p.x(), 5)).valid());
    const int loader = view->data().laneIndex("thread:loader-0");
    QTest::mouseClick(view, Qt::LeftButton, {}, QPoint(H + 5, view->rowCenterY(loader, 0)));
    QVERIFY(!view->selectedEvent().valid());
  }

  void lanesCollapseHideReorder() {
    const int trainer = view->data().trainerLane();
    const int rows = static_cast<int>(view->data().lanes()[static_cast<std::size_t>(trainer)].rows.size());
    QVERIFY(rows >= 2);
    QCOMPARE(view->laneRect(trainer).height(), rows * view->rowHeight() + 2 * TimelineView::kLanePad);
    view->setLaneCollapsed(trainer, true);
    QCOMPARE(view->laneRect(trainer).height(), view->rowHeight() + 2 * TimelineView::kLanePad);
    // A click on the header toggles it back.
    QTest::mouseClick(view, Qt::LeftButton, {}, QPoint(20, view->laneRect(trainer).center().y()));
    QVERIFY(!view->isLaneCollapsed(trainer));
    // Hide through the header menu; show all brings it back.
    const int loader = view->data().laneIndex("thread:loader-1");
    const auto before = view->laneOrder();
    std::unique_ptr<QMenu> menu(view->laneMenu(loader, view));
    menu->findChild<QAction*>("hide")->trigger();
    QVERIFY(view->isLaneHidden(loader));
    QCOMPARE(view->laneOrder().size(), before.size() - 1);
    QVERIFY(view->laneRect(loader).isEmpty());
    menu.reset(view->laneMenu(-1, view));
    QVERIFY(menu->findChild<QAction*>("show_all")->isEnabled());
    menu->findChild<QAction*>("show_all")->trigger();
    QCOMPARE(view->laneOrder(), before);
    // Move a stream up by one: it swaps with the lane above.
    const int stream = view->data().laneIndex("stream:0:13");
    const auto pos = [&](int lane) {
      const auto o = view->laneOrder();
      return std::find(o.begin(), o.end(), lane) - o.begin();
    };
    const auto p0 = pos(stream);
    const int above = view->laneOrder()[static_cast<std::size_t>(p0 - 1)];
    menu.reset(view->laneMenu(stream, view));
    menu->findChild<QAction*>("up")->trigger();
    QCOMPARE(pos(stream), p0 - 1);
    QCOMPARE(pos(above), p0);
    QVERIFY(view->laneRect(stream).top() < view->laneRect(above).top());
    view->moveLane(stream, +1);
    QCOMPARE(pos(stream), p0);
  }

  /// Lane titles in the header at the desktop's font and classroom mode's (x1.5, x2): the header is
  /// 190 px at the desktop's font and widens as a larger one needs; each title fits it, whole where
  /// it can; where not, the kind ("CUDA API") stays whole and a thread id keeps its last digits
  /// ("CUDA API · thread 1921478656" was cut to "CUDA API · threa…": which thread?).
  void laneTitlesKeepTheirKindAndThread() {
    auto store = std::make_shared<prof::EventStore>();  // two CUDA API threads of long ids, no names
    for (std::uint32_t tid : {1921470u, 1921533u}) {
      prof::RuntimeRecord r;
      r.start = 10, r.end = 20, r.thread = tid, r.correlation = tid, r.name = store->strings.intern("cudaMemGetInfo");
      store->runtime.push(r);
    }
    PanelHub ids_hub;
    ids_hub.setStore(store, false);
    TimelineView ids(&ids_hub);
    ids.resize(1400, 300);
    ids.show();
    const QFont normal = QApplication::font();
    for (double scale : {1.0, 1.5, 2.0}) {
      QFont f = normal;
      f.setPointSizeF(normal.pointSizeF() * scale);
      for (TimelineView* v : {view, &ids}) {
        v->setFont(f);
        const QFontMetrics fm(v->font());
        const int header = v->headerWidth();
        if (scale == 1.0) QCOMPARE(header, H);
        QCOMPARE(v->plotWidth(), 1400.0 - header);  // the plot area gives way
        int threads = 0;
        for (int lane : v->data().defaultOrder()) {
          const QString line = v->laneHeaderText(lane), full = v->data().laneTitle(lane), shown = line.mid(2);
          const QString what = QString("x%1: \"%2\" shown as \"%3\"").arg(scale).arg(full, line);
          QVERIFY2(fm.horizontalAdvance(line) <= header - 10, qPrintable(what));  // after the arrow ("▾ ")
          if (fm.horizontalAdvance(line.left(2) + full) <= header - 10) QVERIFY2(shown == full, qPrintable(what));
          if (full.contains(" · ")) QVERIFY2(shown.startsWith(full.section(" · ", 0, 0) + " · "), qPrintable(what));
          if (const QRegularExpressionMatch m = QRegularExpression("thread (\\d+)$").match(full); m.hasMatch()) {
            QVERIFY2(shown.endsWith(m.captured(1).right(3)), qPrintable(what));
            ++threads;
          }
        }
        if (v == &ids) QCOMPARE(threads, 2);
      }
    }
    // At x2 the two ids are told apart by the digits that differ.
    const QStringList shown = {ids.laneHeaderText(ids.data().defaultOrder()[0]),
                               ids.laneHeaderText(ids.data().defaultOrder()[1])};
    QVERIFY2(shown[0] != shown[1], qPrintable(shown.join(" | ")));
    // A trace's named threads ("thread 5555 (python)", as Kineto names them): the id stays, the
    // suffix where it fits (the middle elided to "CUDA API · thread …python)" for both threads).
    const QFont big = [&] { QFont f = normal; f.setPointSizeF(normal.pointSizeF() * 1.5); return f; }();
    for (const QFont& font : {normal, big}) {
      const QFontMetrics fm(font);
      // The room the header keeps for a title (TimelineView::fitHeader(): the kind and four digits).
      const int room = std::max(TimelineView::kHeaderWidth - 30, fm.horizontalAdvance("CUDA API · …0000"));
      QStringList titles;
      for (const char* name : {"thread 5555 (python)", "thread 5786 (python)"})
        titles << timeline::fit_lane_title(QString("CUDA API · ") + name, fm, room);
      QVERIFY2(titles[0] != titles[1] && titles[0].contains("5555") && titles[1].contains("5786"), qPrintable(titles.join(" | ")));
      QVERIFY2(fm.horizontalAdvance(titles[0]) <= room, qPrintable(titles[0]));
    }
    view->setFont(normal);
  }

  void hubRangeAndHighlight() {
    // The hub's range moves the view (the memory and utilization plots share it).
    hub->setVisibleRange({600'000'000, 601'000'000});
    QCOMPARE(view->range(), (TimeSpan{600'000'000, 601'000'000}));
    // Highlight intervals: the view scrolls to the first one and shades it.
    Highlight h;
    h.label = "input_bound: data-loader wait";
    h.intervals = {{522'035'338, 522'839'542}, {559'535'702, 559'549'223}};
    hub->setHighlight(h);
    QVERIFY(view->range().start <= h.intervals[0].start && view->range().end >= h.intervals[0].end);
    QCOMPARE(hub->visibleRange(), view->range());
    const QImage img = view->grab().toImage();
    const int xm = H + static_cast<int>(view->axis().x((h.intervals[0].start + h.intervals[0].end) / 2));
    const int empty_y = view->height() - 5;  // below the lanes: only the band is there
    const QColor band = img.pixelColor(xm, empty_y), outside = img.pixelColor(H + 2, empty_y);
    QVERIFY2(band.red() > band.blue() + 30, qPrintable(band.name()));  // orange tint
    QCOMPARE(outside, QColor(Qt::white));
    // Highlight a kernel name: every instance outlined, the first scrolled into view.
    const auto& s = *session();
    std::string adam;
    int instances = 0;
    for (std::size_t i = 0; i < s.kernels.size(); ++i) {
      const std::string& n = s.strings.get(s.kernels[i].name);
      if (n.find("adam_kernel") != std::string::npos) adam = n, ++instances;
    }
    QCOMPARE(instances, 80);
    Highlight k;
    k.label = "kernel: adam";
    k.kernel_name = QString::fromStdString(adam);
    hub->setHighlight(k);
    QCOMPARE(view->outlinedCount(), 80);
    std::int64_t first = INT64_MAX;
    for (std::size_t i = 0; i < s.kernels.size(); ++i)
      if (s.strings.get(s.kernels[i].name) == adam) first = std::min(first, s.kernels[i].start);
    QVERIFY(view->range().start <= first && view->range().end > first);
    hub->clearHighlight();
    QCOMPARE(view->outlinedCount(), 0);
  }

  void searchNextPrevious() {
    const auto& s = *session();
    int expect = 0;
    for (std::size_t i = 0; i < s.kernels.size(); ++i) {
      QString n = QString::fromStdString(demangle(s.strings.get(s.kernels[i].name))).toLower();
      expect += n.contains("sgemm");
    }
    QVERIFY(expect > 100);
    view->setSearch("SGEMM");
    QCOMPARE(view->matchCount(), expect);
    view->fitAll();
    QVERIFY(view->nextMatch());
    const EventRef m1 = view->selectedEvent();
    QVERIFY(view->isMatch(m1));
    QVERIFY(view->nextMatch());
    const EventRef m2 = view->selectedEvent();
    QVERIFY(view->data().event(m2).start > view->data().event(m1).start);
    const Event& e2 = view->data().event(m2);
    QVERIFY(view->range().start <= e2.start && view->range().end >= e2.end());  // centred on it
    QVERIFY(view->prevMatch());
    QCOMPARE(view->selectedEvent(), m1);
    view->setSearch("no such kernel");
    QCOMPARE(view->matchCount(), 0);
    QVERIFY(!view->nextMatch());
  }

  /// The ruler's "at" line says a round time as its tick labels do, to the ms ("at 12.000 s", not
  /// "at 12.000000 s"); a time position keeps the µs it has.
  void theRulerSaysARoundTimeShortly() {
    auto store = std::make_shared<prof::EventStore>();
    for (int i = 0; i <= 13; ++i) {
      prof::KernelRecord k;
      k.start = i * 1'000'000'000LL, k.end = k.start + 5'000, k.stream = 7, k.name = store->strings.intern("k");
      store->kernels.push(k);
    }
    PanelHub h;
    h.setStore(store, false);
    TimelineView v(&h);
    v.resize(1200, 300);
    v.setRange({11'990'000'000, 12'490'000'000});  // ticks 50 ms apart: the first at 12 s
    v.grab();
    QCOMPARE(v.rulerAtText(), QStringLiteral("at 12.000 s"));
    QCOMPARE(format_time(12'000'000'000), QStringLiteral("12.000 s"));
    QCOMPARE(format_time(12'340'000'000), QStringLiteral("12.340 s"));
    QCOMPARE(format_time(12'345'600'000), QStringLiteral("12.3456 s"));
    QCOMPARE(format_time(12'345'678'000), QStringLiteral("12.345678 s"));
    QCOMPARE(format_time(-2'500'000'000), QStringLiteral("-2.500 s"));
    QCOMPARE(format_time(559'707'000), QStringLiteral("559.707 ms"));
  }

  void followLiveAndPainted() {
    auto live = std::make_shared<prof::EventStore>();
    auto kernel = [&](std::int64_t start) {
      prof::KernelRecord k;
      k.start = start, k.end = start + 5'000, k.stream = 7, k.name = live->strings.intern("k");
      live->kernels.push(k);
    };
    for (int i = 0; i < 100; ++i) kernel(i * 10'000);
    PanelHub h;
    h.setStore(live, true);
    TimelineView v(&h);
    v.resize(1000, 300);
    QSignalSpy painted(&v, &TimelineView::painted);
    v.grab();
    QCOMPARE(painted.count(), 1);
    QCOMPARE(painted.at(0).at(0).toLongLong(), std::int64_t{99 * 10'000 + 5'000});
    QCOMPARE(v.newestShownEnd(), std::int64_t{995'000});
    // New rows on the tick: the view follows the newest one and shows the last 4 steps (steps of
    // 100 us here: a span of ~4 steps whatever the user had before).
    v.setRange({0, 200'000});
    for (int i = 100; i < 200; ++i) kernel(i * 10'000);
    for (int i = 0; i < 20; ++i) {
      prof::StepRecord st;
      st.global_step = i + 1, st.start = i * 100'000, st.end = st.start + 100'000;
      live->steps.push(st);
    }
    h.tick();
    QVERIFY(v.range().end >= 1'995'000);
    const std::int64_t span = v.range().end - v.range().start;
    QVERIFY2(span >= 395'000 && span <= 420'000, qPrintable(QString::number(span)));
    v.grab();
    QCOMPARE(v.newestShownEnd(), std::int64_t{1'995'000});
    // Steps ahead of the newest GPU record (CUPTI delivers late): still a span of 4 steps.
    for (int i = 20; i < 30; ++i) {
      prof::StepRecord st;
      st.global_step = i + 1, st.start = i * 100'000, st.end = st.start + 100'000;
      live->steps.push(st);
    }
    kernel(2'000'000);  // the newest kernel; the host's steps run to 3 ms
    h.tick();
    QCOMPARE(v.range().end - v.range().start >= 395'000, true);
    // A user pan stops following; later rows do not move the view.
    QTest::keyClick(&v, Qt::Key_A);
    QVERIFY(!h.followLive());
    const TimeSpan held = v.range();
    for (int i = 200; i < 300; ++i) kernel(i * 10'000);
    h.tick();
    QCOMPARE(v.range(), held);
    QCOMPARE(v.data().eventCount(), std::size_t{301});
    h.setFollowLive(true);  // the panel's re-enable button
    for (int i = 300; i < 310; ++i) kernel(i * 10'000);
    h.tick();
    QVERIFY(v.range().end >= 3'095'000);
  }

  void panelWiring() {
    TimelinePanel panel(hub);
    panel.resize(1400, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const auto& s = *session();
    const EventRef k = panel.view()->data().find(s, Source::kernel, kernel_row_at(s, 559721020));
    panel.view()->selectEvent(k);
    QMap<QString, QString> d;
    for (const auto& [key, value] : panel.details()->rows()) d[key] = value;
    QCOMPARE(d["Layer"], QString("layer 0 (Conv2d conv1) · forward"));
    QVERIFY(panel.details()->toPlainText().contains("implicit_convolve_sgemm"));
    // A range selection shows its breakdown; the rows sum to the range.
    panel.view()->selectEvent({});
    panel.view()->setTimeSelection(TimeSpan{559'535'653, 560'309'089});
    d.clear();
    for (const auto& [key, value] : panel.details()->rows()) d[key] = value;
    QCOMPARE(d["total"], format_ns(560'309'089 - 559'535'653));
    QVERIFY(d["kernel"].endsWith("%)"));
    // The search box drives the view.
    panel.searchBox()->setText("adam");
    QCOMPARE(panel.view()->search(), QString("adam"));
    QCOMPARE(panel.matchLabel()->text(), QString("80 match(es)"));
    QTest::keyClick(panel.searchBox(), Qt::Key_Return);
    QVERIFY(panel.view()->isMatch(panel.view()->selectedEvent()));
  }

  // The lanes' scroll bar: shown when the lanes do not fit, moving it scrolls the view, and the
  // view's own scrolling (wheel) moves it; hidden when everything fits.
  void laneScrollBar() {
    TimelinePanel panel(hub);
    panel.resize(1200, 260);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTRY_VERIFY(panel.laneScrollBar()->isVisible());
    QVERIFY(panel.view()->maxScrollY() > 0);
    QCOMPARE(panel.laneScrollBar()->maximum(), panel.view()->maxScrollY());
    panel.laneScrollBar()->setValue(panel.laneScrollBar()->maximum());
    QCOMPARE(panel.view()->scrollY(), panel.view()->maxScrollY());
    panel.view()->setScrollY(0);
    QTRY_COMPARE(panel.laneScrollBar()->value(), 0);
    panel.resize(1200, 1400);
    QTRY_VERIFY(!panel.laneScrollBar()->isVisible());
  }

  // A host lane keyed by its thread id (an overview written before the thread had its name) takes the
  // name from the session's threads table: "loader-0", not "thread 486".
  void aThreadLaneTakesItsNameFromTheThreadsTable() {
    prof::EventStore store;
    store.threads.push(prof::ThreadRecord{486, store.strings.intern("loader-0")});
    prof::SessionOverview o;
    o.t0 = 0, o.t1 = 1'000'000, o.bins = 16, o.events = 1;
    prof::OverviewLane lane;
    lane.kind = prof::timeline::LaneKind::host_thread;
    lane.key = "tid:486", lane.id = 486, lane.tids = {486};
    o.lanes.push_back(lane);
    timeline::TimelineData data;
    data.setOverview(store, o);
    QCOMPARE(data.laneTitle(data.laneIndex("tid:486")), QString("loader-0"));
  }

  // While an opened session loads, the view paints the file's overview in the lanes the
  // events will fill (same keys, titles, rows), with nothing to hover or select; when the load ends
  // the events replace it.
  void overviewWhileLoadingThenEvents() {
    const auto& full = *session();
    QVERIFY(full.overview());  // format 1 file: migrated in memory
    auto partial = std::make_shared<prof::EventStore>();  // as read_session leaves it before the events
    for (std::size_t i = 0; i < full.threads.size(); ++i) {
      prof::ThreadRecord t = full.threads[i];
      t.name = partial->strings.intern(full.strings.get(t.name));
      partial->threads.push(t);
    }
    for (std::size_t i = 0; i < full.steps.size(); ++i) partial->steps.push(full.steps[i]);
    partial->set_overview(full.overview());
    PanelHub loading;
    TimelineView v(&loading);
    v.resize(1400, 700);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    loading.setStore(partial, true);
    QVERIFY(v.data().isOverview());
    QCOMPARE(v.data().eventCount(), view->data().eventCount());  // the file's count, before any event
    QCOMPARE(v.data().steps().size(), view->data().steps().size());
    std::map<std::string, std::pair<QString, std::size_t>> shown, loaded;
    for (int i : v.data().defaultOrder()) shown[v.data().lanes()[i].key] = {v.data().laneTitle(i), v.data().lanes()[i].rows.size()};
    for (int i : view->data().defaultOrder())
      loaded[view->data().lanes()[i].key] = {view->data().laneTitle(i), view->data().lanes()[i].rows.size()};
    QVERIFY(shown == loaded);
    QCOMPARE(v.range().start, full.overview()->t0);
    QVERIFY(!v.eventAt(QPoint(H + 300, 60)).valid());  // overview bins are not events
    v.grab();                                          // paints without labels or store lookups
    // The load ends: the events replace the overview.
    loading.setStore(session(), true);
    QVERIFY(!v.data().isOverview() || v.data().eventCount() == view->data().eventCount());
    loading.setLive(false);
    QVERIFY(!v.data().isOverview());
    QCOMPARE(v.data().eventCount(), view->data().eventCount());
  }
};

QTEST_MAIN(TestTimelineView)
#include "test_timeline_view.moc"
