// Pictures of the whole screen, not a check: with TS_SCREENSHOTS=DIR, the window as it first opens on
// the screen it runs on (a real X screen under xvfb-run, with or without a window manager; any size and
// QT_SCALE_FACTOR), then each view a teacher shows: Train, Profile with each tab open, a distributed
// job, an imported PyTorch trace, Side by side during a CPU run, Compare, a lesson, classroom mode (a
// lesson, and Profile with a session and a trace) and the environment doctor. The screen is grabbed
// (QScreen::grabWindow(0)), so what lies off-screen or under another window is seen as a user sees
// it. Files: DIR/<view>_<TS_SHOT_TAG>.png (the tag defaults to the screen's size; TS_TOUR_LESSON
// picks the lesson). Without TS_SCREENSHOTS every function skips.
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QTemporaryDir>
#include <QTabWidget>
#include <QtTest>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "gui/measured_session.h"
#include "gui/window_probe.h"
#include "widgets/compare/compare_view.h"
#include "widgets/doctor/doctor_panel.h"
#include "widgets/lessons/lesson_view.h"
#include "widgets/lessons/lessons_panel.h"
#include "widgets/main/lessons_controller.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/training/run_settings.h"
#include "widgets/training/training_session.h"
#include "widgets/workspaces/profile_workspace.h"
#include "widgets/workspaces/workspaces.h"

using namespace ts;
using namespace ts::gui;

namespace {
const char* kSession = TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession";
const char* kOther = TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw0_augment.tsession";
const char* kTrace = TRAINSCOPE_SOURCE_DIR "/../shared/cases/traces/kineto_2021-06_resnet50_nw4_memory.pt.trace.json.gz";

QString out_dir() { return qEnvironmentVariable("TS_SCREENSHOTS"); }

QString tag() {
  const QString t = qEnvironmentVariable("TS_SHOT_TAG");
  if (!t.isEmpty()) return t;
  const QSize s = QGuiApplication::primaryScreen()->geometry().size();
  return QString("%1x%2").arg(s.width()).arg(s.height());
}

/// A tab's title as a file name: "Throughput && accuracy" -> "throughput_accuracy".
QString file_name(QString title) {
  return title.remove('&').toLower().simplified().replace(' ', '_');
}

/// The whole screen after `ms` of settling, into DIR/<view>_<tag>.png.
bool shoot(const QString& view, int ms = 700) {
  QTest::qWait(ms);
  QDir().mkpath(out_dir());
  return QGuiApplication::primaryScreen()->grabWindow(0).save(out_dir() + "/" + view + "_" + tag() + ".png");
}

/// A fresh window as at a first start (no saved settings), shown and settled.
void first_start(MainWindow& w) {
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  QTest::qWait(800);
}

bool lesson_ready(const MainWindow& w, const std::string& name) {
  const LessonView* v = w.lessons()->lessonView();
  return v && v->result() && v->result()->record.lesson.name == name && v->compareView()->state() == CompareView::State::ready;
}
}  // namespace

class TestScreenTour : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    if (out_dir().isEmpty()) QSKIP("TS_SCREENSHOTS not set");
    test::isolate_settings();
  }
  void init() { QSettings().clear(); }

  void trainAndProfile() {
    MainWindow w;
    first_start(w);
    QVERIFY(shoot("train_first_start"));
    QVERIFY(test::open_session(w, kSession));
    w.workspaces()->setMode(Workspaces::Mode::train);
    QVERIFY(shoot("train_session"));
    w.workspaces()->setMode(Workspaces::Mode::profile);
    QVERIFY(shoot("profile", 1200));
    ProfileWorkspace* profile = w.workspaces()->profile();
    QTabWidget* tabs = profile->tabs();
    for (int i = 0; i < tabs->count(); ++i) {
      profile->showTab(tabs->widget(i));
      QVERIFY(shoot("profile_tab_" + file_name(tabs->tabText(i))));
    }
  }

  void measuredMetrics() {
    // A session with CUPTI PM sampling series: utilization's measured rows beside the estimates.
    QTemporaryDir tmp;
    MainWindow w;
    first_start(w);
    QVERIFY(test::open_session(w, test::write_measured_session(tmp.path(), test::PmKind::sampled)));
    w.workspaces()->setMode(Workspaces::Mode::profile);
    QVERIFY(shoot("measured_profile", 1200));
    ProfileWorkspace* profile = w.workspaces()->profile();
    QTabWidget* tabs = profile->tabs();
    for (int i = 0; i < tabs->count(); ++i) {
      profile->showTab(tabs->widget(i));
      QVERIFY(shoot("measured_profile_tab_" + file_name(tabs->tabText(i))));
    }
  }

  void aJobAndATrace() {
    MainWindow w;
    first_start(w);
    QVERIFY(test::open_job(w, {test::job_dir("j2_straggler")}));
    QVERIFY(shoot("profile_job", 1500));
    if (QFileInfo::exists(kTrace)) {
      QVERIFY(test::open_session(w, kTrace));
      QVERIFY(shoot("profile_trace", 1500));
    }
  }

  void sideBySideDuringARun() {
    MainWindow w;
    w.workspaces()->setMode(Workspaces::Mode::both);
    first_start(w);
    RunSettings s = test::small_cpu_run(1, 1280);
    s.record_session = true;
    w.runSettings()->setSettings(s);
    QSignalSpy finished(w.session(), &TrainingSession::finished);
    QSignalSpy progress(w.session(), &TrainingSession::progress);
    w.startRun();
    QTRY_VERIFY_WITH_TIMEOUT(progress.count() >= 6 || !finished.isEmpty(), 120000);
    QVERIFY(shoot("side_by_side_during_run", 0));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 180000);
    QVERIFY(shoot("side_by_side_after_run", 1500));
  }

  void compare() {
    MainWindow w;
    first_start(w);
    w.sessions()->compareSessions({kSession, kOther});
    CompareView* v = w.sessions()->compareView();
    QTRY_VERIFY_WITH_TIMEOUT(v->state() == CompareView::State::ready, 60000);
    for (int i = 0; i < v->tabs()->count(); ++i) {
      v->tabs()->setCurrentIndex(i);
      QVERIFY(shoot("compare_" + file_name(v->tabs()->tabText(i)), 500));
    }
  }

  void lessonAndClassroom() {
    MainWindow w;
    first_start(w);
    // TS_TOUR_LESSON names another recorded lesson (default dataloader_workers).
    const std::string lesson = qEnvironmentVariable("TS_TOUR_LESSON", "dataloader_workers").toStdString();
    QVERIFY(w.lessons()->runLesson(QString::fromStdString(lesson), true));
    QTRY_VERIFY_WITH_TIMEOUT(lesson_ready(w, lesson), 60000);
    QVERIFY(shoot("lesson", 1200));
    QScrollBar* down = w.lessons()->lessonView()->column()->verticalScrollBar();
    down->setValue(down->maximum());
    QVERIFY(shoot("lesson_numbers"));
    down->setValue(0);
    w.lessons()->setClassroomMode(true);
    QVERIFY(shoot("classroom_lesson", 1200));
    down->setValue(down->maximum());
    QVERIFY(shoot("classroom_lesson_numbers"));
    w.lessons()->lessonView()->hide();
    w.lessons()->lessonsPanel()->hide();
    w.workspaces()->setMode(Workspaces::Mode::train);
    QVERIFY(shoot("classroom_train", 1000));
    w.workspaces()->setMode(Workspaces::Mode::profile);
    QVERIFY(shoot("classroom_profile", 1000));
    ProfileWorkspace* profile = w.workspaces()->profile();
    profile->showTab(profile->tabs()->widget(0));
    QVERIFY(shoot("classroom_profile_tab", 1000));
    w.lessons()->setClassroomMode(false);
  }

  void classroomProfile() {
    // Profile with a session and with a trace open in classroom mode: the banner and the tracks'
    // headers at the class's font (the lesson tour's classroom_profile shows no session).
    MainWindow w;
    first_start(w);
    w.lessons()->setClassroomMode(true);
    QVERIFY(test::open_session(w, kSession));
    w.workspaces()->setMode(Workspaces::Mode::profile);
    QVERIFY(shoot("classroom_profile_session", 1500));
    if (QFileInfo::exists(kTrace)) {
      QVERIFY(test::open_session(w, kTrace));
      QVERIFY(shoot("classroom_profile_trace", 1500));
    }
    w.lessons()->setClassroomMode(false);
  }

  void doctor() {
    MainWindow w;
    first_start(w);
    w.doctorAction()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(w.doctorPanel() && w.doctorPanel()->report() != nullptr, 20000);
    QVERIFY(shoot("doctor", 800));
  }
};

QTEST_MAIN(TestScreenTour)
#include "test_screen_tour.moc"
