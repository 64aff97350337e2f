// Readable on a projector: the texts at the top of the window and in the Profile workspace's tracks
// whole at 1280x720 and 1920x1080, classroom mode's font included. The verdict banner shows a job's, a
// trace's and a lesson's finding whole (its fix was cut with "…" on one line at 1280 px) in a row
// whose height does not change with its text (a row as tall as its lines moved the lanes under it
// with each verdict); the memory track's title and peaks whole at classroom mode's font (the peaks
// were cut at the track's right edge), every text of it at that font. A lesson opens in the main
// window's place, maximized where it is (at 1920x1080 it opened at 1600x1000 in the screen's corner).
// The offscreen platform's screen is 1920x1080 here (its own is 800x800), as a desktop at that size.
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QRegularExpression>
#include <QScreen>
#include <QTemporaryFile>
#include <QToolBar>
#include <QtTest>

#include <qcustomplot.h>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "gui/plot_probe.h"
#include "gui/window_probe.h"
#include "widgets/lessons/lesson_view.h"
#include "widgets/main/lessons_controller.h"
#include "widgets/panels/memory_graph.h"
#include "widgets/panels/verdict_panel.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/workspaces/workspaces.h"

using namespace ts;
using namespace ts::gui;

namespace {
/// Before the application starts: the offscreen platform with one 1920x1080 screen (its
/// configfile option), where the tests run on the offscreen platform.
const bool kFullHdScreen = [] {
  if (qgetenv("QT_QPA_PLATFORM") != "offscreen") return false;
  static QTemporaryFile config(QDir::tempPath() + "/ts_projector_screen_XXXXXX.json");
  if (!config.open()) return false;
  config.write(R"({"screens": [{"name": "projector", "x": 0, "y": 0, "width": 1920, "height": 1080}]})");
  config.flush();
  qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.fileName().toLocal8Bit());
  return true;
}();

const char* kSession = TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession";
const char* kTrace = TRAINSCOPE_SOURCE_DIR "/../shared/cases/traces/kineto_2021-06_resnet50_nw4_memory.pt.trace.json.gz";

/// A shipped lesson's recorded run: resources/lessons/recorded/LESSON/RUN.tsession.zst.
QString recording(const char* lesson, const char* run) {
  return QStringLiteral(TRAINSCOPE_SOURCE_DIR "/resources/lessons/recorded/%1/%2.tsession.zst").arg(lesson, run);
}

/// "" when `label` shows all of `full` (up to white space and line breaks), each line inside its
/// width and its lines inside its height (QFontMetrics of its font); else what is cut.
QString cut(const QLabel* label, const QString& full) {
  static const QRegularExpression space(QStringLiteral("[\\s\\x{00a0}]"));
  auto bare = [](QString t) { return t.remove(space); };
  const QString shown = label->text();
  if (bare(shown) != bare(full)) return QString("shows \"%1\"\nof \"%2\"").arg(shown, full);
  const QFontMetrics fm(label->font());
  const QRect room = label->contentsRect();
  const QStringList lines = shown.split('\n');
  for (const QString& line : lines)
    if (fm.horizontalAdvance(line) > room.width())
      return QString("a line %1 px wide in %2 px: %3").arg(fm.horizontalAdvance(line)).arg(room.width()).arg(line);
  if (lines.size() * fm.lineSpacing() > room.height())
    return QString("%1 lines of %2 px in %3 px").arg(lines.size()).arg(fm.lineSpacing()).arg(room.height());
  return {};
}

/// `w` shown at `size` (resized after the show: a first start is sized for the screen).
bool show_at(MainWindow& w, QSize size) {
  w.show();
  if (!QTest::qWaitForWindowExposed(&w)) return false;
  w.resize(size);
  return QTest::qWaitFor([&] { return w.size() == size; }, 3000);
}

MemoryGraph* memory_of(MainWindow& w) { return w.timelinePanel()->findChild<MemoryGraph*>(); }

/// Classroom mode on for a scope: off again however the test ends (the application's font is shared).
struct Classroom {
  MainWindow& w;
  explicit Classroom(MainWindow& window) : w(window) { w.lessons()->setClassroomMode(true); }
  ~Classroom() { w.lessons()->setClassroomMode(false); }
};
}  // namespace

class TestProjector : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { test::isolate_settings(); }
  void init() { QSettings().clear(); }

  /// The banner's text whole, on at most its two lines, for the findings that took 1.2 to 1.4 lines
  /// of 1280 px: a job's straggler, a PyTorch trace's launch-bound, a lesson's sync-bound.
  void theVerdictBannerIsWhole_data() {
    QTest::addColumn<QSize>("size");
    QTest::addColumn<QString>("what");
    for (QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
      const QString at = QString(" at %1x%2").arg(size.width()).arg(size.height());
      QTest::newRow(qPrintable("job" + at)) << size << QString("job");
      QTest::newRow(qPrintable("trace" + at)) << size << QString(kTrace);
      QTest::newRow(qPrintable("lesson" + at)) << size << recording("sync_points", "before");
    }
  }
  void theVerdictBannerIsWhole() {
    QFETCH(QSize, size);
    QFETCH(QString, what);
    if (what != "job" && !QFile::exists(what)) QSKIP("the shared Kineto trace is not beside the checkout");
    MainWindow w;
    QVERIFY(show_at(w, size));
    w.workspaces()->setMode(Workspaces::Mode::profile);
    if (what == "job") QVERIFY(test::open_job(w, {test::job_dir("j2_straggler")}));
    else QVERIFY(test::open_session(w, what));
    VerdictBanner* banner = w.verdictBanner();
    QTRY_VERIFY_WITH_TIMEOUT(banner->text().contains(" — fix: "), 10000);
    QTRY_VERIFY2(cut(banner->line(), banner->text()).isEmpty(), qPrintable(cut(banner->line(), banner->text())));
    QVERIFY(banner->line()->text().count('\n') < VerdictBanner::kLines);
  }

  /// The banner's row is as tall for a finding of one line as for one of two, and the lanes under it
  /// keep their height: a row as tall as its lines moved them when the analysis said another verdict
  /// (Profile's track splitter did not give the lanes their height back).
  void theBannerRowKeepsItsHeightWhateverItsText() {
    MainWindow w;
    QVERIFY(show_at(w, QSize(1280, 720)));
    w.workspaces()->setMode(Workspaces::Mode::profile);
    auto* row = w.findChild<QToolBar*>("toolbar.verdict");
    VerdictBanner* banner = w.verdictBanner();
    QList<int> heights;
    for (const QString& path : {QString(kSession), recording("sync_points", "before"), QString(kSession)}) {
      const bool two = path != kSession;
      QVERIFY(test::open_session(w, path));
      QTRY_VERIFY_WITH_TIMEOUT(banner->text().contains(" — fix: ") && banner->line()->text().contains('\n') == two, 10000);
      QTest::qWait(200);  // the window's layout after the banner's
      heights << row->height() << banner->height() << w.centralWidget()->height();
    }
    QCOMPARE(heights.mid(3, 3), heights.mid(0, 3));
    QCOMPARE(heights.mid(6, 3), heights.mid(0, 3));
    // Two lines of its font, whatever the text.
    QVERIFY(banner->line()->contentsRect().height() >= VerdictBanner::kLines * banner->line()->fontMetrics().lineSpacing());
  }

  /// Classroom mode at 1280x720 (and 1920x1080): the memory track's title and peaks whole, each text
  /// at the classroom's font. The peaks of the sample session (on one line, cut at the track's edge),
  /// of a lesson's run and of a run on a simulated card (its share: cut at the desktop's font too).
  void theMemoryHeaderIsWholeInClassroomMode_data() {
    QTest::addColumn<QSize>("size");
    QTest::addColumn<QString>("path");
    for (QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
      const QString at = QString(" at %1x%2").arg(size.width()).arg(size.height());
      QTest::newRow(qPrintable("sample session" + at)) << size << QString(kSession);
      QTest::newRow(qPrintable("dataloader_workers before" + at)) << size << recording("dataloader_workers", "before");
      QTest::newRow(qPrintable("out_of_memory accumulate" + at)) << size << recording("out_of_memory", "accumulate");
    }
  }
  void theMemoryHeaderIsWholeInClassroomMode() {
    QFETCH(QSize, size);
    QFETCH(QString, path);
    MainWindow w;
    QVERIFY(show_at(w, size));
    const double desktop_pt = QApplication::font().pointSizeF();
    Classroom classroom(w);
    QVERIFY(test::open_session(w, path));
    w.workspaces()->setMode(Workspaces::Mode::profile);
    MemoryGraph* memory = memory_of(w);
    QTRY_VERIFY(!memory->peaksText().isEmpty());
    QCOMPARE(QApplication::font().pointSizeF(), desktop_pt * w.lessons()->classroomScale());
    QTRY_VERIFY2(cut(memory->statusLabel(), memory->peaksText()).isEmpty(),
                 qPrintable(cut(memory->statusLabel(), memory->peaksText())));
    QLabel* title = memory->titleLabel();
    QFont bold = title->font();
    bold.setBold(true);
    QVERIFY2(QFontMetrics(bold).horizontalAdvance("Memory") <= title->contentsRect().width(), qPrintable(QString::number(title->width())));
    for (QWidget* control : {static_cast<QWidget*>(memory->findChild<QComboBox*>()), static_cast<QWidget*>(memory->findChild<QCheckBox*>())})
      QVERIFY2(control->width() >= control->sizeHint().width() && control->height() >= control->sizeHint().height(),
               qPrintable(QString("%1 %2x%3, needs %4x%5").arg(control->metaObject()->className()).arg(control->width()).arg(control->height())
                              .arg(control->sizeHint().width()).arg(control->sizeHint().height())));
    // Every text at the classroom's font: the header's labels follow the application's, the plot's
    // scale and legend (which QCustomPlot keeps apart) were scaled with it.
    for (QLabel* label : {title, memory->statusLabel()}) QCOMPARE(label->font().pointSizeF(), QApplication::font().pointSizeF());
    QCustomPlot* plot = memory->plot();
    QCOMPARE(plot->yAxis->tickLabelFont().pointSizeF(), QApplication::font().pointSizeF());
    QVERIFY(std::abs(plot->legend->font().pointSizeF() - 0.9 * QApplication::font().pointSizeF()) < 0.01);
    QVERIFY2(test::cut_legends(plot).isEmpty(), qPrintable(test::cut_legends(plot)));
  }

  /// Classroom mode at 1280x720: no text of the tracks' plots stands out of them. A PyTorch trace's
  /// utilization track folds its CPU row, whose "No CPU samples" stayed where the row was last laid
  /// out, half under the track's bottom edge.
  void noTrackTextIsCutInClassroomMode_data() {
    QTest::addColumn<QString>("path");
    QTest::newRow("small trace") << QString(TRAINSCOPE_SOURCE_DIR "/tests/data/traces/kineto_small.json");
    QTest::newRow("shared trace") << QString(kTrace);
    QTest::newRow("sample session") << QString(kSession);
  }
  void noTrackTextIsCutInClassroomMode() {
    QFETCH(QString, path);
    if (!QFile::exists(path)) QSKIP("the shared Kineto trace is not beside the checkout");
    MainWindow w;
    QVERIFY(show_at(w, QSize(1280, 720)));
    Classroom classroom(w);
    QVERIFY(test::open_session(w, path));
    w.workspaces()->setMode(Workspaces::Mode::profile);
    QTest::qWait(500);
    for (QCustomPlot* plot : w.timelinePanel()->findChildren<QCustomPlot*>())
      QVERIFY2(test::cut_texts(plot).isEmpty(), qPrintable(plot->parentWidget()->metaObject()->className() + QString(": ") + test::cut_texts(plot)));
  }

  /// A lesson opens in the window's place: at a first start on a 1920x1080 screen both at 1600x1000
  /// in its middle, and maximized beside a maximized window (sized on its own, it opened at 1600x1000
  /// in the screen's corner); one already open stays where the user put it.
  void aLessonOpensInTheWindowsPlace() {
    if (!kFullHdScreen) QSKIP("needs the offscreen platform's 1920x1080 screen");
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.screen()->geometry().size(), QSize(1920, 1080));
    QTest::qWait(300);
    const QRect place = w.geometry();
    QCOMPARE(place.size(), QSize(1600, 1000));
    auto shown = [&w](const std::string& name) {
      const LessonView* v = w.lessons()->lessonView();
      return v && v->isVisible() && v->result() && v->result()->record.lesson.name == name;
    };
    QVERIFY(w.lessons()->runLesson("dataloader_workers", true));
    QTRY_VERIFY_WITH_TIMEOUT(shown("dataloader_workers"), 60000);
    LessonView* v = w.lessons()->lessonView();
    QTRY_COMPARE(v->geometry(), place);
    QVERIFY(!v->isMaximized());
    // Open, it stays where it is for the next lesson.
    const QRect moved(place.topLeft() - QPoint(100, 20), place.size() - QSize(200, 100));
    v->setGeometry(moved);
    QVERIFY(w.lessons()->runLesson("sync_points", true));
    QTRY_VERIFY_WITH_TIMEOUT(shown("sync_points"), 60000);
    QCOMPARE(v->geometry(), moved);
    // Closed, and opened again beside a maximized window: maximized too.
    v->close();
    w.showMaximized();
    QTRY_VERIFY(w.isMaximized());
    QVERIFY(w.lessons()->runLesson("dataloader_workers", true));
    QTRY_VERIFY_WITH_TIMEOUT(shown("dataloader_workers"), 60000);
    QTRY_VERIFY(v->isMaximized());
    QTRY_COMPARE(v->geometry(), w.geometry());
  }
};

QTEST_MAIN(TestProjector)
#include "test_projector.moc"
