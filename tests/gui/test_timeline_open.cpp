// How the timeline opens: an opened session's first view is its steady-state steps (after
// the warm-up step; Fit all still shows everything), a scheduled one's its first analysed window, an
// imported trace's from its first step; Find
// searches every slice (a host range by name, copies, runtime calls) with next/previous; adjacent
// step ranges alternate colours and PyTorch's host ops get shades by name; empty lanes are hidden and
// listed, unchecked, in the lane menu; the ruler's step labels never overlap the selection's label and
// its tick labels are whole.
// A lane with nothing in view (a helper stream that only ran at start-up) says where its events are
// and a double-click shows them. An Nsight Systems export opens through the window's loader and shows
// its streams as lanes.
#include <sqlite3.h>

#include <QAction>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QFileInfo>
#include <QMenu>
#include <QtTest>
#include <set>

#include "engine/host_trace.h"
#include "profiling/event_source.h"
#include "profiling/import/trace_import.h"
#include "widgets/sessions/session_loader.h"
#include "widgets/timeline/categories.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"

using namespace ts;
using namespace ts::gui;
using namespace ts::gui::timeline;

namespace {

const std::string kSource = TRAINSCOPE_SOURCE_DIR;

std::shared_ptr<const prof::EventStore> session() {
  static auto s = prof::open_session(kSource + "/tests/data/gpu_b128_nw4.tsession")->shared_store();
  return s;
}

std::shared_ptr<const prof::EventStore> small_trace() {
  static auto s = prof::import::open_trace(kSource + "/tests/data/traces/kineto_small.json")->shared_store();
  return s;
}

/// The ResNet-50 trace of ../shared (absent on most machines: the tests using it skip).
const char* kResnet = "/../shared/cases/traces/kineto_2021-06_resnet50_nw4_memory.pt.trace.json.gz";

/// The file through SessionLoader, as File ▸ Open and drag and drop load it; null when it failed.
std::shared_ptr<const prof::EventStore> load(const QString& path, QString* error = nullptr) {
  SessionLoader loader;
  QSignalSpy loaded(&loader, &SessionLoader::loaded), failed(&loader, &SessionLoader::failed);
  if (!loader.start(path)) return nullptr;
  if (!QTest::qWaitFor([&] { return !loaded.isEmpty() || !failed.isEmpty(); }, 60000)) return nullptr;
  if (!failed.isEmpty()) {
    if (error) *error = failed.first().first().toString();
    return nullptr;
  }
  return loaded.first().first().value<SessionReplay>().store;
}

/// The stream lanes' keys ("stream:D:S") of a view.
std::set<std::string> stream_lanes(const ts::gui::timeline::TimelineData& d) {
  std::set<std::string> out;
  for (const auto& l : d.lanes())
    if (l.kind == prof::timeline::LaneKind::stream && l.events() > 0) out.insert(l.key);
  return out;
}

/// Pixels of the lane's rows (right of the header) that are neither the background, a step band nor
/// the lane's separator: 0 for a lane that shows nothing at all.
int drawn_pixels(const QImage& img, const TimelineView& view, int lane) {
  const QRect r = view.laneRect(lane).adjusted(view.headerWidth() + 1, 0, 0, -1);
  const QSet<QRgb> background = {qRgb(255, 255, 255), qRgb(240, 242, 247), qRgb(225, 225, 230)};
  int n = 0;
  for (int y = r.top(); y <= r.bottom(); ++y)
    for (int x = r.left(); x <= r.right(); ++x) n += background.contains(img.pixel(x, y) | 0xff000000u) ? 0 : 1;
  return n;
}

struct Shown {
  PanelHub hub;
  TimelineView view{&hub};
  /// An opened session as the window shows it: live while it loads, then the end of the load.
  explicit Shown(std::shared_ptr<const prof::EventStore> store, bool via_load = true) {
    view.resize(1280, 600);
    view.show();
    hub.setStore(std::move(store), via_load);
    view.pull();
    if (via_load) hub.setLive(false);
  }
};

}  // namespace

class TestTimelineOpen : public QObject {
  Q_OBJECT

 private slots:
  void initialViewIsTheSteadyStateSteps() {
    for (bool via_load : {true, false}) {
      Shown w(session(), via_load);
      const auto& steps = session()->steps;
      QVERIFY(steps.size() > TimelineView::kInitialSteps + 1);
      QCOMPARE(w.view.warmupSteps(), 1);
      const TimeSpan r = w.view.range();
      QVERIFY2(r.start >= steps[0].end, "the first view starts after the warm-up step");
      QCOMPARE(r.start, steps[1].start);
      QVERIFY(r.end >= steps[TimelineView::kInitialSteps].end);  // kInitialSteps steps after the warm-up
      QVERIFY(r.end <= steps[TimelineView::kInitialSteps + 1].start);
      QVERIFY(r.end - r.start < (w.view.data().maxTime() - w.view.data().minTime()) / 4);
      w.view.fitAll();  // Fit all: everything, start-up included
      QCOMPARE(w.view.range().start, w.view.data().minTime());
      QCOMPARE(w.view.range().end, w.view.data().maxTime());
    }
  }

  void aScheduledSessionOpensOnItsFirstWindow() {
    // The same session marked as recorded on wait=15,active=5: steps 16-20 are its first window, 17 the
    // first the analysis reads; the opening view shows that window, not steps 2-9, which such a
    // recording leaves untraced (they would show an idle GPU).
    QTemporaryDir dir;
    const QString path = dir.filePath("scheduled.tsession");
    QVERIFY(QFile::copy(QString::fromStdString(kSource) + "/tests/data/gpu_b128_nw4.tsession", path));
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
    QCOMPARE(sqlite3_exec(db, "INSERT OR REPLACE INTO meta(key, value) VALUES('session.schedule', 'wait=15,warmup=0,active=5,repeat=0')",
                          nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    const auto store = load(path);
    QVERIFY(store);
    Shown w(store, false);
    const auto& steps = store->steps;
    QVERIFY(steps.size() > 21);
    QCOMPARE(steps[16].global_step, std::int64_t{17});
    QCOMPARE(w.view.range().start, steps[16].start);
    QVERIFY(w.view.range().end > steps[19].start);   // through step 20, the window's last
    QVERIFY(w.view.range().end <= steps[20].start);  // and not into the untraced step 21
  }

  void traceOpensOnItsFirstStep() {
    Shown w(small_trace());
    QCOMPARE(w.view.warmupSteps(), 0);  // torch.profiler recorded after its own warm-up
    QVERIFY(small_trace()->steps.size() > 0);
    QCOMPARE(w.view.range().start, small_trace()->steps[0].start);
  }

  void findSearchesHostRangesCopiesAndCalls() {
    Shown w(small_trace());
    w.view.setSearch("dataloader");
    QCOMPARE(w.view.matchCount(), 1);  // enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__
    QVERIFY(w.view.nextMatch());
    const EventRef m = w.view.selectedEvent();
    QCOMPARE(w.view.data().event(m).source, Source::host_range);
    QVERIFY(w.view.searchName(w.view.data().event(m)).contains("DataLoader"));
    QVERIFY(w.view.prevMatch() || w.view.selectedEvent() == m);
    w.view.setSearch("Memcpy HtoD");
    int h2d = 0;
    for (std::size_t i = 0; i < small_trace()->memcpys.size(); ++i) h2d += small_trace()->memcpys[i].copy_kind == 1;
    QCOMPARE(w.view.matchCount(), h2d);
    QVERIFY(w.view.matchCount() > 0);
    w.view.setSearch("cudaStreamSynchronize");
    QVERIFY(w.view.matchCount() >= 1);
    w.view.setSearch("aten::conv2d");
    QVERIFY(w.view.nextMatch());
    QCOMPARE(w.view.data().event(w.view.selectedEvent()).source, Source::host_range);

    // A TrainScope session: a host range by name (the trainer's data waits) among kernels.
    Shown s(session());
    const auto& st = *session();
    const std::string wait = "data wait";
    int expect = 0;
    for (std::size_t i = 0; i < st.host_ranges.size(); ++i) {
      const auto& h = st.host_ranges[i];
      std::string n = st.strings.get(h.name) + " " + st.strings.get(h.layer);
      std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
      expect += n.find(wait) != std::string::npos;
    }
    if (expect == 0) QSKIP("no data wait range in the fixture");
    s.view.setSearch(QString::fromStdString(wait));
    QVERIFY(s.view.matchCount() >= expect);
    QVERIFY(s.view.nextMatch());
    QCOMPARE(s.view.data().event(s.view.selectedEvent()).source, Source::host_range);
  }

  void adjacentStepsAndHostOpsAreToldApart() {
    Shown w(session());
    const int trainer = w.view.data().trainerLane();
    QVERIFY(trainer >= 0);
    const Row& top = w.view.data().lanes()[static_cast<std::size_t>(trainer)].rows[0];
    QVERIFY(top.events.size() > 2);
    QCOMPARE(static_cast<Category>(top.events[0].category), Category::step);
    QVERIFY(w.view.eventColor(top.events[0]) != w.view.eventColor(top.events[1]));
    QCOMPARE(w.view.eventColor(top.events[0]), w.view.eventColor(top.events[2]));

    const QString resnet = QString::fromStdString(kSource) + kResnet;
    if (!QFileInfo::exists(resnet)) QSKIP("../shared's ResNet-50 trace is not here");
    Shown t(prof::import::open_trace(resnet.toStdString())->shared_store());
    std::set<QRgb> shades;
    std::set<std::string> names;
    for (const Lane& l : t.view.data().lanes())
      for (const Row& r : l.rows)
        for (const Event& e : r.events)
          if (e.source == Source::host_range && static_cast<Category>(e.category) == Category::host_other) {
            shades.insert(t.view.eventColor(e).rgb());
            names.insert(t.view.searchName(e).toStdString());
          }
    QVERIFY(names.size() > 20);
    QVERIFY2(shades.size() >= 6, "PyTorch's CPU ops: shades of their category by name");
  }

  void emptyLanesAreHiddenAndListed() {
    const QString resnet = QString::fromStdString(kSource) + kResnet;
    if (!QFileInfo::exists(resnet)) QSKIP("../shared's ResNet-50 trace is not here");
    Shown t(prof::import::open_trace(resnet.toStdString())->shared_store());
    const auto& d = t.view.data();
    QStringList hidden;
    for (int l : d.defaultOrder())
      if (t.view.isLaneHidden(l)) {
        hidden << d.laneTitle(l);
        QVERIFY(t.view.isEmptyLane(l));
      }
    QVERIFY2(hidden.size() >= 2, qPrintable(hidden.join(", ")));  // "/", "Traces/", the "PyTorch Profiler (0)" span
    for (int l : t.view.laneOrder()) QVERIFY(!t.view.isEmptyLane(l));
    // The lane menu lists them unchecked; checking one shows it.
    QMenu m;
    t.view.fillLaneMenu(&m, -1);
    QAction* entry = nullptr;
    for (QAction* a : m.actions())
      if (a->isCheckable() && !a->isChecked()) entry = entry ? entry : a;
    QVERIFY(entry);
    QVERIFY(entry->text().contains("(empty)"));
    const int before = t.view.hiddenLaneCount();
    entry->setChecked(true);
    QCOMPARE(t.view.hiddenLaneCount(), before - 1);
    // A session: its lanes have events; none is hidden.
    Shown s(session());
    QCOMPARE(s.view.hiddenLaneCount(), 0);
  }

  void aLaneWithNothingInViewSaysWhereItsEventsAre() {
    // Streams 15 and 16 of the H200 session ran cuDNN's and cuBLAS's start-up work only (before the
    // steady-state steps the first view shows), stream 158 of a DDP rank cuDNN's FFT algorithm search.
    struct Case {
      std::string file, key;
      std::size_t events;
    };
    for (const Case& c : {Case{"/tests/data/gpu_b128_nw4.tsession", "stream:0:15", 26},
                          Case{"/tests/data/jobs/j2_straggler/ddp-rank0.tsession", "stream:0:158", 6}}) {
      Shown w(prof::open_session(kSource + c.file)->shared_store());
      const int lane = w.view.data().laneIndex(c.key);
      QVERIFY2(lane >= 0 && !w.view.isLaneHidden(lane), c.key.c_str());
      const TimelineView::OffView off = w.view.offView(lane);
      QCOMPARE(off.before, c.events);
      QCOMPARE(off.after, std::size_t{0});
      QVERIFY(off.span.end <= w.view.range().start);
      const QString note = w.view.offViewNote(lane);
      QVERIFY2(note.contains(QString("%1 kernels earlier").arg(c.events)), qPrintable(note));
      // Every shown lane draws something in its rows: events, or the note.
      const QImage img = w.view.grab().toImage();
      for (int l : w.view.laneOrder())
        if (!w.view.laneRect(l).isEmpty() && w.view.laneRect(l).bottom() < w.view.height())
          QVERIFY2(drawn_pixels(img, w.view, l) > 20, qPrintable(w.view.data().laneTitle(l) + " looks empty"));
      // A lane with something in view has no note.
      QVERIFY(w.view.offViewNote(w.view.data().trainerLane()).isEmpty());
      // A double-click on its row shows its events.
      const QRect r = w.view.laneRect(lane);
      QTest::mouseDClick(&w.view, Qt::LeftButton, {}, QPoint(w.view.headerWidth() + 40, r.center().y()));
      QVERIFY(w.view.range().start <= off.span.start && w.view.range().end >= off.span.end);
      QVERIFY(w.view.offViewNote(lane).isEmpty());
      QVERIFY(drawn_pixels(w.view.grab().toImage(), w.view, lane) > 20);
    }
  }

  void rulerLabelsNeverOverlap() {
    Shown w(session());
    const auto& steps = session()->steps;
    // A selection across three steps: its length label sits where their step labels would be.
    w.view.setTimeSelection(TimeSpan{steps[2].start, steps[4].end});
    w.view.grab();
    const auto& labels = w.view.rulerLabels();
    QVERIFY(labels.size() >= 3);
    for (std::size_t i = 0; i < labels.size(); ++i)
      for (std::size_t j = i + 1; j < labels.size(); ++j)
        QVERIFY2(!labels[i].intersects(labels[j]), qPrintable(QString("labels %1 and %2 overlap").arg(i).arg(j)));
    w.view.setTimeSelection(std::nullopt);
    w.view.grab();
    QVERIFY(w.view.rulerLabels().size() > labels.size() - 1);  // the step labels are back
    // The ticks' labels are whole at any width: the last one was cut at the right edge ("+16").
    for (int width : {1280, 1091, 777, 650}) {
      w.view.resize(width, 400);
      w.view.grab();
      QVERIFY(!w.view.rulerTickLabels().empty());
      for (const QRectF& r : w.view.rulerTickLabels())
        QVERIFY2(r.left() >= w.view.headerWidth() && r.right() <= width,
                 qPrintable(QString("a tick label at x %1-%2 in a %3 px view").arg(r.left()).arg(r.right()).arg(width)));
    }
  }

  void nsysExportShowsItsStreamsAsLanes() {
    // The newer-layout fixture (tests/data/nsys/newer_meta_v2.sql), built into a .sqlite file.
    QTemporaryDir dir;
    const QString path = dir.filePath("report.sqlite");
    QFile sql(QString::fromStdString(kSource) + "/tests/data/nsys/newer_meta_v2.sql");
    QVERIFY(sql.open(QIODevice::ReadOnly));
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
    QCOMPARE(sqlite3_exec(db, sql.readAll().constData(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    const auto store = load(path);
    QVERIFY(store);
    QCOMPARE(store->meta().at("import.kind"), std::string("Nsight Systems export"));
    Shown w(store, false);
    QCOMPARE(stream_lanes(w.view.data()), (std::set<std::string>{"stream:0:7", "stream:0:13"}));
    QCOMPARE(w.view.range().start, store->steps[0].start);  // opens on its first NVTX step
    // A report, not its export: the loader fails with the export hint.
    const QString rep = dir.filePath("report.nsys-rep");
    QFile f(rep);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("not sqlite");
    f.close();
    QString error;
    QVERIFY(!load(rep, &error));
    QVERIFY2(error.contains("nsys export --type sqlite"), qPrintable(error));
    // The real export of ../shared: 12 kernels on 10 streams, 10 stream lanes.
    const QString real = QString::fromStdString(kSource) +
                         "/../shared/cases/traces/nsys_2022.1_windows_gtx1060_concurrent_streams.sqlite";
    if (!QFileInfo::exists(real)) QSKIP("../shared's Nsight Systems export is not here");
    const auto r = load(real);
    QVERIFY(r);
    Shown v(r, false);
    QCOMPARE(stream_lanes(v.view.data()).size(), std::size_t{10});
  }
};

QTEST_MAIN(TestTimelineOpen)
#include "test_timeline_open.moc"
