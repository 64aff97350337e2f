// The Profile workspace's tracks and lanes readable at 1280x720 with an analysis tab open, in
// normal and classroom mode, and at 1920x1080.
// TS_SCREENSHOTS=DIR saves Profile with the Verdicts and the Kernels tab open, a plain session and one
// with measured rows, at 1280x720 and 1920x1080, normal and classroom.
#include <QDir>
#include <QFileInfo>
#include <QSplitter>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "gui/measured_session.h"
#include "gui/plot_probe.h"
#include "gui/window_probe.h"
#include "widgets/main/lessons_controller.h"
#include "widgets/panels/memory_graph.h"
#include "widgets/panels/verdict_panel.h"
#include "widgets/panels/utilization_panel.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/workspaces/profile_workspace.h"
#include "widgets/workspaces/workspaces.h"

using namespace ts;
using namespace ts::gui;
using ts::gui::test::clipped_rows;
using ts::gui::test::cut_legends;
using ts::gui::test::cut_texts;
using ts::gui::test::open_in_profile;
using ts::gui::test::open_session;
using ts::gui::test::overlapping_texts;
using ts::gui::test::profile_tab;
using ts::gui::test::shown_ticks;
using ts::gui::test::tick_label_clash;
using ts::gui::test::visible_rows;
using ts::gui::test::whole_lanes;

namespace {
const char* kSession = TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession";
/// A CPU run on the generated sample set, 20 steps: trainscope-run --device cpu --epochs 1 --limit-train 1280
/// --batch-size 64 --num-workers 1 --seed 0 --session cpu_b64_nw1.tsession
const char* kCpuSession = TRAINSCOPE_SOURCE_DIR "/tests/data/cpu_b64_nw1.tsession";

/// A window with `session` open at `size` in the Profile workspace, in classroom mode or not.
struct Shown {
  MainWindow w;
  Shown(const QString& session, QSize size, bool classroom) {
    w.show();
    if (!open_session(w, session)) qWarning("could not open %s", qPrintable(session));
    w.resize(size);  // after the show and the open: the offscreen screen is 800x800
    w.lessons()->setClassroomMode(classroom);
    w.workspaces()->setMode(Workspaces::Mode::profile);
    QTest::qWait(300);
    // The default layout for this size (a larger screen's first show laid it out for the screen).
    w.workspaces()->resetLayout();
    QTest::qWait(300);
  }
  ~Shown() { w.lessons()->setClassroomMode(false); }
};

void sizes_and_modes() {
  QTest::addColumn<QSize>("size");
  QTest::addColumn<bool>("classroom");
  QTest::newRow("1280x720") << QSize(1280, 720) << false;
  QTest::newRow("1280x720, classroom") << QSize(1280, 720) << true;
  QTest::newRow("1920x1080") << QSize(1920, 1080) << false;
  QTest::newRow("1920x1080, classroom") << QSize(1920, 1080) << true;
}

MemoryGraph* s_memory(MainWindow& w) { return w.timelinePanel()->findChild<MemoryGraph*>(); }
UtilizationPanel* s_util(MainWindow& w) { return w.timelinePanel()->findChild<UtilizationPanel*>(); }

/// What a plot's shown rows draw on their value axes: each row's title and tick labels.
QString drawn_ticks(QCustomPlot* plot) {
  QStringList rows;
  for (QCPAxisRect* r : plot->axisRects()) {
    if (!r->visible() || !r->layout()) continue;
    const QCPAxis* y = r->axis(QCPAxis::atLeft);
    QStringList ticks;
    for (const QString& t : y->tickVectorLabels()) ticks << t;
    rows << QString("[%1: %2]").arg(y->label(), ticks.join(' '));
  }
  return rows.join(' ');
}

/// Opens the tab titled `title` of the Profile workspace.
void show_tab(MainWindow& w, const QString& title) {
  if (QWidget* page = profile_tab(w, title)) w.workspaces()->profile()->showTab(page);
}
}  // namespace

class TestProfileTracks : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString measured_;

 private slots:
  void initTestCase() {
    test::isolate_settings();
    QVERIFY(dir_.isValid());
    measured_ = test::write_measured_session(dir_.path(), test::PmKind::sampled);
  }
  void init() { QSettings().clear(); }

  /// With any tab open, each track's tick labels as drawn (no replot of the test's own: the layout
  /// the user sees) are apart and whole, and the memory scale has three of them: the memory track's
  /// "200 MB", "100 MB", "0" were drawn 12 px apart, ticks placed for the plot's height before the
  /// tab opened.
  void trackLabelsAreApartAsDrawn_data() { sizes_and_modes(); }
  void trackLabelsAreApartAsDrawn() {
    QFETCH(QSize, size);
    QFETCH(bool, classroom);
    Shown s(kSession, size, classroom);
    auto* memory = s.w.timelinePanel()->findChild<MemoryGraph*>();
    auto* util = s.w.timelinePanel()->findChild<UtilizationPanel*>();
    QTabWidget* tabs = s.w.workspaces()->profile()->tabs();
    for (int i = 0; i < tabs->count(); ++i) {
      s.w.workspaces()->profile()->showTab(tabs->widget(i));
      QTest::qWait(300);
      for (QCustomPlot* plot : {memory->plot(), util->plot()}) {
        const QString why = tick_label_clash(plot);
        QVERIFY2(why.isEmpty(), qPrintable(QString("%1 tab, %2: %3").arg(tabs->tabText(i), plot->parentWidget()->metaObject()->className(), why)));
      }
      QVERIFY2(shown_ticks(memory->plot()->yAxis) >= 3,
               qPrintable(QString("%1 tab: %2 memory ticks").arg(tabs->tabText(i)).arg(shown_ticks(memory->plot()->yAxis))));
    }
  }

  /// The verdict banner's severity chip (coloured by a style sheet) grows with the classroom font
  /// like the line beside it, and comes back to the desktop's size after it.
  void theVerdictChipScalesWithTheFont() {
    Shown s(kSession, QSize(1280, 720), false);
    auto* banner = s.w.findChild<VerdictBanner*>();
    QVERIFY(banner);
    QTRY_VERIFY(banner->hasContent());
    QLabel* chip = nullptr;
    for (QLabel* l : banner->findChildren<QLabel*>())
      if (l->text() == "moderate") chip = l;
    QVERIFY(chip);
    const double normal = chip->font().pointSizeF();
    // Drawn in the severity's colour (its palette's, in a tool bar whose roles are a button's).
    const QImage drawn = chip->grab().toImage();
    QCOMPARE(drawn.pixelColor(2, drawn.height() / 2), banner->color());
    QCOMPARE(normal, QApplication::font().pointSizeF());
    QVERIFY(chip->font().bold());
    s.w.lessons()->setClassroomMode(true);
    QApplication::processEvents();
    QVERIFY2(std::abs(chip->font().pointSizeF() - normal * s.w.lessons()->classroomScale()) < 0.01,
             qPrintable(QString("the chip at %1 pt, the application at %2 pt").arg(chip->font().pointSizeF()).arg(QApplication::font().pointSizeF())));
    QVERIFY(chip->font().bold());
    QTRY_VERIFY2(chip->height() >= QFontMetrics(chip->font()).height(),
                 qPrintable(QString("the chip %1 px high, its text %2").arg(chip->height()).arg(QFontMetrics(chip->font()).height())));
    s.w.lessons()->setClassroomMode(false);
    QApplication::processEvents();
    QCOMPARE(chip->font().pointSizeF(), normal);
  }

  /// The memory track shows its legend under its scale at 1280x720 and 1920x1080 with any tab open
  /// (it showed only with the track dragged taller), and in the opening layout.
  void theMemoryLegendShowsWithATabOpen_data() {
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("classroom");
    QTest::newRow("1280x720") << QSize(1280, 720) << false;
    QTest::newRow("1920x1080") << QSize(1920, 1080) << false;
    QTest::newRow("1920x1080, classroom") << QSize(1920, 1080) << true;
  }
  void theMemoryLegendShowsWithATabOpen() {
    QFETCH(QSize, size);
    QFETCH(bool, classroom);
    Shown s(kSession, size, classroom);
    QCustomPlot* plot = s.w.timelinePanel()->findChild<MemoryGraph*>()->plot();
    auto laid_out = [plot] {
      const auto elements = plot->plotLayout()->elements(true);
      return std::find(elements.begin(), elements.end(), plot->legend) != elements.end() && cut_legends(plot).isEmpty();
    };
    QVERIFY2(laid_out(), "the opening layout");
    QTabWidget* tabs = s.w.workspaces()->profile()->tabs();
    for (int i = 0; i < tabs->count(); ++i) {
      s.w.workspaces()->profile()->showTab(tabs->widget(i));
      QTest::qWait(300);
      QVERIFY2(laid_out(), qPrintable(QString("%1 tab: the memory track %2 px").arg(tabs->tabText(i)).arg(plot->height())));
      QVERIFY2(shown_ticks(plot->yAxis) >= 3, qPrintable(tabs->tabText(i)));
    }
  }

  /// The opening view (steps 2 to 9 of a short run) ends before the allocator's first sample: the
  /// card's use and the cudaMalloc'd bytes held into it are drawn, on an axis fitted to them. A range
  /// before every sample says so instead of staying blank; Fit all shows the samples and drops the note.
  void aBlankMemoryRangeIsSaid() {
    Shown s(kSession, QSize(1280, 720), false);
    auto* graph = s.w.timelinePanel()->findChild<MemoryGraph*>();
    QCustomPlot* plot = graph->plot();
    auto said = [plot] {
      for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* t = qobject_cast<QCPItemText*>(plot->item(i)); t && t->visible() && t->text().contains("No memory sample"))
          return t->text();
      return QString();
    };
    QVERIFY2(said().isEmpty(), qPrintable(said()));
    QVERIFY(!graph->linesOffScale());
    s.w.panelHub()->setVisibleRange({0, 1'000'000});  // before the first sample of any series
    QTRY_VERIFY2(said().contains("567.3 ms"), qPrintable(said()));
    // Nothing is off scale in a range without samples: the card's "off scale ↑" note ran into it.
    QVERIFY2(overlapping_texts(plot).isEmpty(), qPrintable(overlapping_texts(plot)));
    s.w.timelinePanel()->view()->fitAll();
    QTRY_VERIFY(said().isEmpty());
  }

  /// A session with measured GPU metrics opens with the measured rows whole beside the estimated GPU
  /// row, at 1280x720 (the tabs start collapsed there) and 1920x1080 with a tab open: the 240 px
  /// track folded them away ("drag taller"). Classroom mode's larger rows fit at 1920x1080.
  void measuredRowsShowBesideTheEstimatesByDefault_data() {
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("classroom");
    QTest::newRow("1280x720") << QSize(1280, 720) << false;
    QTest::newRow("1920x1080") << QSize(1920, 1080) << false;
    QTest::newRow("1920x1080, classroom") << QSize(1920, 1080) << true;
  }
  void measuredRowsShowBesideTheEstimatesByDefault() {
    QFETCH(QSize, size);
    QFETCH(bool, classroom);
    Shown s(measured_, size, classroom);
    auto* util = s.w.timelinePanel()->findChild<UtilizationPanel*>();
    QTRY_VERIFY_WITH_TIMEOUT(util->graphFor("pm.sm_active"), 10000);
    QTest::qWait(300);
    auto check = [&](const QString& when) {
      QVERIFY2(util->measuredRowsShown(), qPrintable(when + ": " + util->statusText()));
      const QString clipped = clipped_rows(util->plot());
      QVERIFY2(clipped.isEmpty(), qPrintable(when + ": " + clipped));
      const QString cut = cut_legends(util->plot());
      QVERIFY2(cut.isEmpty(), qPrintable(when + ": " + cut));
      QVERIFY2(whole_lanes(s.w.timelinePanel()->view()) >= 4, qPrintable(when));
    };
    check("the opening layout");
    if (size.height() < 1080) return;
    show_tab(s.w, "Verdicts");
    QTest::qWait(300);
    check("the Verdicts tab open");
  }

  /// At 1920x1080 a tab's opening leaves the timeline its room: 8 lanes or more above the tracks at
  /// their default heights, the tab near its 30 % (the room the tracks did not need went to the tab:
  /// 4 lanes and two squeezed tracks above a Verdicts tab half empty).
  void aTabAtFullHdLeavesTheTimelineItsRoom() {
    Shown s(kSession, QSize(1920, 1080), false);
    show_tab(s.w, "Verdicts");
    QTest::qWait(400);
    ProfileWorkspace* profile = s.w.workspaces()->profile();
    const QList<int> split = profile->mainSplitter()->sizes();
    QVERIFY2(split.value(1) <= (split.value(0) + split.value(1)) * 40 / 100,
             qPrintable(QString("timeline %1, tab %2").arg(split.value(0)).arg(split.value(1))));
    QVERIFY2(whole_lanes(s.w.timelinePanel()->view()) >= 8, qPrintable(QString::number(whole_lanes(s.w.timelinePanel()->view()))));
    const QList<int> tracks = s.w.timelinePanel()->trackSplitter()->sizes();
    QVERIFY2(tracks.value(1) >= 120 && tracks.value(2) >= 200, qPrintable(QString("memory %1, utilization %2").arg(tracks.value(1)).arg(tracks.value(2))));
  }

  /// A track's minimum that grows after the default heights were set (the measured rows' legends
  /// arrive in steps while a session opens) makes the splitter raise the row: that is no drag. Taken
  /// as one, utilization stayed at that minimum with both measured rows folded beside a half-empty
  /// Verdicts tab (1920x1080 without a window manager, half of the starts).
  void aMinimumThatGrowsIsNoDrag() {
    Shown s(measured_, QSize(1920, 1080), false);
    auto* util = s.w.timelinePanel()->findChild<UtilizationPanel*>();
    QTRY_VERIFY_WITH_TIMEOUT(util->graphFor("pm.sm_active"), 10000);
    ProfileWorkspace* profile = s.w.workspaces()->profile();
    profile->setTabsCollapsed(true);  // the tracks at their default heights, as wanted
    QTest::qWait(300);
    QVERIFY(!profile->trackHeightsDragged());
    QSplitter* column = s.w.timelinePanel()->trackSplitter();
    const int before = column->sizes().value(2);
    util->setMinimumHeight(before + 40);  // the row's minimum grows past its height
    QTRY_VERIFY_WITH_TIMEOUT(column->sizes().value(2) >= before + 40, 3000);
    QTest::qWait(200);
    QVERIFY2(!profile->trackHeightsDragged(), "a raised minimum taken for the user's drag");
    util->setMinimumHeight(0);
    QTest::qWait(300);
    QVERIFY2(util->measuredRowsShown(), qPrintable(util->statusText()));
    // A drag of the handle above utilization is the user's.
    QSplitterHandle* handle = column->handle(2);
    const QPoint at(handle->width() / 2, handle->height() / 2);
    QTest::mousePress(handle, Qt::LeftButton, {}, at);
    QTest::mouseMove(handle, at - QPoint(0, 15));
    QTest::mouseRelease(handle, Qt::LeftButton, {}, at - QPoint(0, 15));
    QVERIFY(profile->trackHeightsDragged());
  }

  /// Classroom mode at 1280x720 with a tab open: the tab shows its table's rows (the Kernels table
  /// showed none), the lanes keep four whole lanes, and the tracks show whole rows or fold to their
  /// header lines (their title and numbers) where no room is left for their plots.
  void aTabOpenInClassroomModeShowsItsRows() {
    Shown s(kSession, QSize(1280, 720), true);
    ProfileWorkspace* profile = s.w.workspaces()->profile();
    QTabWidget* tabs = profile->tabs();
    auto* memory = s.w.timelinePanel()->findChild<MemoryGraph*>();
    auto* util = s.w.timelinePanel()->findChild<UtilizationPanel*>();
    for (int i = 0; i < tabs->count(); ++i) {
      profile->showTab(tabs->widget(i));
      QTest::qWait(300);
      const QString tab = tabs->tabText(i);
      const int rows = visible_rows(tabs->widget(i));
      if (rows >= 0) QVERIFY2(rows >= 3, qPrintable(QString("%1 tab: %2 rows").arg(tab).arg(rows)));
      QVERIFY2(whole_lanes(s.w.timelinePanel()->view()) >= 4, qPrintable(QString("%1 tab: %2 lanes").arg(tab).arg(whole_lanes(s.w.timelinePanel()->view()))));
      for (QCustomPlot* plot : {memory->plot(), util->plot()}) {
        if (!plot->isVisible()) continue;  // folded: the track's header line
        const QString clipped = clipped_rows(plot);
        QVERIFY2(clipped.isEmpty(), qPrintable(QString("%1 tab: %2").arg(tab, clipped)));
      }
    }
  }

  /// A CPU run's Utilization track shows its CPU row whole with any tab open (the Layers tab at
  /// 1280x720 folded it, leaving the GPU row's "no GPU activity"); where a tab leaves the tracks only
  /// their header lines (classroom mode at 1280x720) the header says it is a CPU run.
  void aCpuRunKeepsItsCpuRowWithATabOpen_data() {
    sizes_and_modes();
    QTest::newRow("1280x720 under openbox: 1278x696") << QSize(1278, 696) << false;
    QTest::newRow("1280x680") << QSize(1280, 680) << false;
  }
  void aCpuRunKeepsItsCpuRowWithATabOpen() {
    QFETCH(QSize, size);
    QFETCH(bool, classroom);
    Shown s(kCpuSession, size, classroom);
    auto* util = s.w.timelinePanel()->findChild<UtilizationPanel*>();
    QTRY_VERIFY_WITH_TIMEOUT(util->cpuRun() && util->graphFor("cpu.trainer"), 10000);
    QCPAxisRect* cpu = util->graphFor("cpu.trainer")->keyAxis()->axisRect();
    QTabWidget* tabs = s.w.workspaces()->profile()->tabs();
    for (int i = 0; i < tabs->count(); ++i) {
      s.w.workspaces()->profile()->showTab(tabs->widget(i));
      QTest::qWait(300);
      const QString tab = tabs->tabText(i);
      if (!util->plot()->isVisible()) {  // folded: the track's header line
        QVERIFY2(util->statusText().contains("CPU run"), qPrintable(QString("%1 tab: %2").arg(tab, util->statusText())));
        continue;
      }
      QVERIFY2(cpu->visible() && cpu->layout(), qPrintable(QString("%1 tab: the CPU row folded, the track %2 px").arg(tab).arg(util->height())));
      const QString clipped = clipped_rows(util->plot());
      QVERIFY2(clipped.isEmpty(), qPrintable(QString("%1 tab: %2").arg(tab, clipped)));
      QVERIFY2(cpu->height() >= QFontMetrics(cpu->axis(QCPAxis::atLeft)->tickLabelFont()).height() + 2,
               qPrintable(QString("%1 tab: a CPU row of %2 px").arg(tab).arg(cpu->height())));
    }
  }

  /// Side by side (Ctrl+3) at 1280x720: the memory track's scale is whole, its top label ("160 MB")
  /// included, and apart, and its texts whole ("No memory sample in the shown range: ..." stood over
  /// the short track's top and bottom), with the tabs collapsed and with each tab open, a GPU run's
  /// session, one with measured rows and a CPU run's; the tracks and the open tab's chart are drawn as
  /// a replot of their own would draw them (a plot laid out while hidden kept another height's ticks).
  void sideBySideKeepsTheMemoryScaleWhole_data() {
    QTest::addColumn<QSize>("size");
    QTest::addColumn<QString>("session");
    const struct {
      QSize size;
      QString session;
    } rows[] = {{{1280, 720}, kSession},  {{1280, 720}, measured_}, {{1280, 720}, kCpuSession},
                {{1278, 696}, kSession},  {{1278, 696}, measured_}, {{1280, 680}, measured_}};
    for (const auto& r : rows)
      QTest::newRow(qPrintable(QString("%1x%2, %3").arg(r.size.width()).arg(r.size.height()).arg(QFileInfo(r.session).baseName())))
          << r.size << r.session;
  }
  void sideBySideKeepsTheMemoryScaleWhole() {
    QFETCH(QSize, size);
    QFETCH(QString, session);
    MainWindow w;
    w.show();
    QVERIFY(open_session(w, session));
    w.resize(size);
    w.workspaces()->setMode(Workspaces::Mode::profile);
    QTest::qWait(300);
    w.workspaces()->setMode(Workspaces::Mode::both);  // as Ctrl+3 does
    QTest::qWait(400);
    auto* memory = s_memory(w);
    ProfileWorkspace* profile = w.workspaces()->profile();
    QTabWidget* tabs = profile->tabs();
    for (int i = -1; i < tabs->count(); ++i) {
      if (i >= 0) profile->showTab(tabs->widget(i));
      QTest::qWait(300);
      const QString when = i < 0 ? QString("the tabs collapsed") : tabs->tabText(i) + " tab";
      if (memory->plot()->isVisible()) {
        const QString why = tick_label_clash(memory->plot());
        QVERIFY2(why.isEmpty(), qPrintable(when + ": " + why));
        QVERIFY2(shown_ticks(memory->plot()->yAxis) >= 3, qPrintable(when));
        const QString cut = cut_texts(memory->plot());
        QVERIFY2(cut.isEmpty(), qPrintable(when + ": " + cut));
      }
      QList<QCustomPlot*> plots = {memory->plot(), s_util(w)->plot()};
      if (i >= 0) plots << tabs->widget(i)->findChildren<QCustomPlot*>();
      for (QCustomPlot* plot : plots) {
        if (!plot->isVisible()) continue;
        const QString drawn = drawn_ticks(plot);
        plot->replot();
        QVERIFY2(drawn == drawn_ticks(plot), qPrintable(QString("%1, %2: drawn %3, a replot draws %4")
                                                             .arg(when, plot->parentWidget()->metaObject()->className(), drawn, drawn_ticks(plot))));
      }
    }
  }

  /// The time ruler's two lines ("at ...", "span ...") and every lane's title are as tall as the
  /// timeline's font, classroom mode's too: the ruler's lines ran into the first lane, and a lane of
  /// one row cut its title ("Copies H2D") at the classroom size.
  void theRulerAndLaneTitlesFitTheFont_data() { sizes_and_modes(); }
  void theRulerAndLaneTitlesFitTheFont() {
    QFETCH(QSize, size);
    QFETCH(bool, classroom);
    Shown s(kSession, size, classroom);
    show_tab(s.w, "Kernels");
    QTest::qWait(200);
    TimelineView* view = s.w.timelinePanel()->view();
    const int line = QFontMetrics(view->font()).height();
    const std::vector<int> order = view->laneOrder();
    QVERIFY(order.size() >= 4);
    const QRect first = view->laneRect(order.front());
    QVERIFY2(first.top() >= 2 * line, qPrintable(QString("the first lane at y %1 under a ruler of two %2 px lines").arg(first.top()).arg(line)));
    for (int lane : order) {
      const QRect r = view->laneRect(lane);
      QVERIFY2(r.height() >= line + 2 * TimelineView::kLanePad,
               qPrintable(QString("%1: %2 px for a %3 px title").arg(view->data().laneTitle(lane)).arg(r.height()).arg(line)));
    }
  }

  void screenshotsWhenAsked() {
    const QString dir = qEnvironmentVariable("TS_SCREENSHOTS");
    if (dir.isEmpty()) QSKIP("TS_SCREENSHOTS not set");
    QDir().mkpath(dir);
    for (bool classroom : {false, true})
      for (const QString& session : {QString(kSession), measured_})
        for (QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
          QSettings().clear();
          MainWindow w;
          QVERIFY(open_in_profile(w, session, size, classroom));
          QTest::qWait(700);
          const QString at = QString("%1%2_%3x%4")
                                 .arg(session == measured_ ? "measured_" : "")
                                 .arg(classroom ? "classroom_" : "")
                                 .arg(size.width())
                                 .arg(size.height());
          QVERIFY(w.grab().save(dir + QString("/tracks_%1_default.png").arg(at)));
          for (const QString& tab : {QString("Verdicts"), QString("Kernels"), QString("Layers")}) {
            show_tab(w, tab);
            QTest::qWait(700);
            QVERIFY(w.grab().save(dir + QString("/tracks_%1_%2.png").arg(at, tab.toLower())));
          }
          w.lessons()->setClassroomMode(false);
        }
  }
};

QTEST_MAIN(TestProfileTracks)
#include "test_profile_tracks.moc"
