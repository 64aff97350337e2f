// Classroom mode: View ▸ Classroom mode scales the application font (×1.5 by default,
// another scale from View ▸ Classroom font size, remembered), swaps in the high-contrast presenter
// palette (every text/background pair >= 7:1), shows the Profile workspace, keeps the window's and
// the lesson window's minimum sizes within a 1280x720 screen (1280x680), hides the Run settings
// knobs the shown lesson does not name, and leaving it restores all of it.
#include <QAction>
#include <QApplication>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QtTest>
#include <cmath>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "widgets/compare/compare_view.h"
#include "widgets/lessons/lesson_view.h"
#include "widgets/main/lessons_controller.h"
#include "widgets/run_settings.h"
#include "widgets/workspaces/workspaces.h"

using namespace ts;
using namespace ts::gui;

namespace {

constexpr int kMaxW = 1280, kMaxH = 680;  // a 1280x720 projector less a title bar

/// WCAG 2.1 contrast ratio of two colours (relative luminance, sRGB): 1 .. 21.
double contrast(const QColor& a, const QColor& b) {
  auto lum = [](const QColor& c) {
    auto ch = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * ch(c.redF()) + 0.7152 * ch(c.greenF()) + 0.0722 * ch(c.blueF());
  };
  const double la = lum(a), lb = lum(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

bool lesson_shown(const MainWindow& w, const std::string& name) {
  return w.lessons()->lessonView() && w.lessons()->lessonView()->result() && w.lessons()->lessonView()->result()->record.lesson.name == name &&
         w.lessons()->lessonView()->compareView()->state() == CompareView::State::ready;
}

}  // namespace

class TestClassroom : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    test::isolate_settings();
    QCoreApplication::setApplicationName("TrainScopeTest-classroom");
  }
  void init() { QSettings().clear(); }

  void presenterPaletteKeepsSevenToOne() {
    const QPalette p = presenter_palette();
    const std::pair<QPalette::ColorRole, QPalette::ColorRole> pairs[] = {
        {QPalette::WindowText, QPalette::Window}, {QPalette::Text, QPalette::Base},
        {QPalette::ButtonText, QPalette::Button}, {QPalette::HighlightedText, QPalette::Highlight},
        {QPalette::ToolTipText, QPalette::ToolTipBase}, {QPalette::Link, QPalette::Base}};
    for (auto [fg, bg] : pairs)
      QVERIFY2(contrast(p.color(QPalette::Active, fg), p.color(QPalette::Active, bg)) >= 7.0,
               qPrintable(QString("roles %1/%2").arg(fg).arg(bg)));
    QVERIFY(contrast(p.color(QPalette::Disabled, QPalette::Text), p.color(QPalette::Disabled, QPalette::Base)) >= 4.5);
  }

  void classroomModeScalesRestoresAndFits() {
    MainWindow w;
    w.show();
    w.workspaces()->setMode(Workspaces::Mode::train);
    const QFont before = QApplication::font();
    const QColor window_before = QApplication::palette().color(QPalette::Window);
    QVERIFY(w.lessons()->classroomAction()->isCheckable());
    w.lessons()->classroomAction()->trigger();
    QVERIFY(w.lessons()->classroomMode());
    QCOMPARE(QApplication::font().pointSizeF(), before.pointSizeF() * 1.5);
    QCOMPARE(QApplication::palette().color(QPalette::WindowText), QColor(Qt::black));
    QCOMPARE(QApplication::palette().color(QPalette::Window), QColor(Qt::white));
    QCOMPARE(w.workspaces()->mode(), Workspaces::Mode::profile);  // the timeline at full width
    QApplication::processEvents();
    const QSize min = w.minimumSizeHint().expandedTo(w.minimumSize());
    QVERIFY2(min.width() <= kMaxW && min.height() <= kMaxH,
             qPrintable(QString("classroom minimum %1x%2").arg(min.width()).arg(min.height())));
    w.lessons()->setClassroomScale(2.0);  // another scale applies at once and is remembered
    QCOMPARE(QApplication::font().pointSizeF(), before.pointSizeF() * 2.0);
    QCOMPARE(QSettings().value("classroom/scale").toDouble(), 2.0);
    w.lessons()->classroomAction()->trigger();
    QVERIFY(!w.lessons()->classroomMode());
    QCOMPARE(QApplication::font().pointSizeF(), before.pointSizeF());
    QCOMPARE(QApplication::palette().color(QPalette::Window), window_before);
    QCOMPARE(w.workspaces()->mode(), Workspaces::Mode::train);
    MainWindow again;  // a new window starts at the remembered scale
    QCOMPARE(again.lessons()->classroomScale(), 2.0);
  }

  void onlyTheLessonsKnobsAreShown() {
    MainWindow w;
    w.show();
    QVERIFY(w.lessons()->runLesson("batch_size", true));  // the recording: no GPU needed
    QTRY_VERIFY_WITH_TIMEOUT(lesson_shown(w, "batch_size"), 60000);
    RunSettingsPanel* rs = w.runSettings();
    auto* memory_limit = rs->findChild<QDoubleSpinBox*>("memory_limit");
    auto* checkpoint = rs->findChild<QSpinBox*>("checkpoint_every");
    QVERIFY(memory_limit && checkpoint);
    QVERIFY(rs->knobShown("lr"));  // outside classroom mode every knob is there
    QVERIFY(memory_limit->isVisibleTo(rs));
    w.lessons()->setClassroomMode(true);
    QVERIFY(w.lessons()->lessonView()->presenting());
    for (const char* named : {"batch_size", "num_workers", "pin_memory", "epochs"}) QVERIFY2(rs->knobShown(named), named);
    for (const char* other : {"lr", "optimizer", "momentum", "augment", "seed", "amp", "memory_limit_gib"})
      QVERIFY2(!rs->knobShown(other), other);
    QVERIFY(!memory_limit->isVisibleTo(rs));
    QVERIFY(!checkpoint->isVisibleTo(rs));
    const QSize lmin = w.lessons()->lessonView()->minimumSizeHint().expandedTo(w.lessons()->lessonView()->minimumSize());
    QVERIFY2(lmin.width() <= kMaxW && lmin.height() <= kMaxH,
             qPrintable(QString("lesson window minimum %1x%2").arg(lmin.width()).arg(lmin.height())));
    w.lessons()->setClassroomMode(false);
    QVERIFY(rs->knobShown("lr"));
    QVERIFY(memory_limit->isVisibleTo(rs));
    QVERIFY(checkpoint->isVisibleTo(rs));
    QVERIFY(!w.lessons()->lessonView()->presenting());
  }

  void screenshotsWhenAsked() {
    const QString dir = qEnvironmentVariable("TS_SCREENSHOTS");
    if (dir.isEmpty()) QSKIP("TS_SCREENSHOTS not set");
    QDir().mkpath(dir);
    MainWindow w;
    w.resize(1280, 680);
    w.show();
    QVERIFY(w.lessons()->runLesson("dataloader_workers", true));
    QTRY_VERIFY_WITH_TIMEOUT(lesson_shown(w, "dataloader_workers"), 60000);
    w.lessons()->setClassroomMode(true);
    w.workspaces()->setMode(Workspaces::Mode::train);  // the knobs the lesson names
    QTest::qWait(800);
    QVERIFY(w.grab().save(dir + "/classroom_train_1280x680.png"));
    for (QSize size : {QSize(1280, 680), QSize(1920, 1040)}) {
      w.lessons()->lessonView()->resize(size);
      w.lessons()->lessonView()->setPresenting(true);
      QTest::qWait(1200);
      QVERIFY(w.lessons()->lessonView()->grab().save(dir + QString("/classroom_lesson_%1x%2.png").arg(size.width()).arg(size.height())));
    }
    w.lessons()->setClassroomMode(false);
  }
};

QTEST_MAIN(TestClassroom)
#include "test_classroom.moc"
