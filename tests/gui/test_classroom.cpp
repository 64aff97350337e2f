// Classroom mode: View ▸ Classroom mode scales the application font (×1.5 by default,
// another scale from View ▸ Classroom font size, remembered), swaps in the high-contrast presenter
// palette (every text/background pair >= 7:1), shows the Profile workspace, keeps the window's and
// the lesson window's minimum sizes within a 1280x720 screen (1280x680), hides the Run settings
// knobs the shown lesson does not name, and leaving it restores all of it. Every plot text (tick
// labels, axis titles, legends and their items, text items) scales with the font, once (x1.5, not
// x2.25), and comes back to the very font it had, a session's opened in the mode too; the window's
// minimum stays within 1280x680 with a session's plots at the classroom size; the lesson window at
// 1280x720 cuts no label's text. The message bar scales too; the tracks' tick labels never meet or
// get cut, nothing open or a session, at 1280x680 and 1920x1040; the lanes' header widens for a
// CUDA API lane's kind and thread digits, and the tracks' plot areas follow it. Every label and
// button of the Train workspace scales and comes back, those coloured by the form too.
#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QDoubleSpinBox>
#include <QCheckBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QtTest>
#include <cmath>
#include <qcustomplot.h>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "gui/plot_probe.h"
#include "gui/window_probe.h"
#include "widgets/model/model_builder.h"
#include "widgets/compare/compare_view.h"
#include "widgets/lessons/lesson_view.h"
#include "widgets/lessons/lessons_panel.h"
#include "widgets/main/lessons_controller.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/training/run_settings.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/workspaces/train_workspace.h"
#include "widgets/workspaces/workspaces.h"

using namespace ts;
using namespace ts::gui;
using ts::gui::test::tick_label_clash;

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

const char* kSession = TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession";

/// Every text font of `plot`, named: its axes' tick labels and titles, its legends (the main one
/// and those in the layout) and their items, its title elements and text items.
QList<QPair<QString, QFont>> plot_fonts(QCustomPlot* plot) {
  QList<QPair<QString, QFont>> out;
  const QString p = plot->objectName() + "/" + plot->parentWidget()->metaObject()->className();
  for (QCPAxisRect* r : plot->axisRects())
    for (QCPAxis* a : r->axes()) out << qMakePair(p + " tick labels", a->tickLabelFont()) << qMakePair(p + " axis title", a->labelFont());
  QList<QCPLegend*> legends;
  if (plot->legend) legends << plot->legend;
  for (QCPLayoutElement* e : plot->plotLayout()->elements(true)) {
    if (auto* l = qobject_cast<QCPLegend*>(e); l && !legends.contains(l)) legends << l;
    if (auto* t = qobject_cast<QCPTextElement*>(e)) out << qMakePair(p + " title " + t->text(), t->font());
  }
  for (QCPLegend* l : legends) {
    out << qMakePair(p + " legend", l->font());
    for (int i = 0; i < l->itemCount(); ++i)  // a wrapped legend's grid has empty cells
      if (l->item(i)) out << qMakePair(p + QString(" legend item %1").arg(i), l->item(i)->font());
  }
  for (int i = 0; i < plot->itemCount(); ++i)
    if (auto* t = qobject_cast<QCPItemText*>(plot->item(i))) out << qMakePair(p + " text item " + t->text(), t->font());
  return out;
}

QList<QPair<QString, QFont>> all_plot_fonts(const QWidget& w) {
  QList<QPair<QString, QFont>> out;
  for (QCustomPlot* plot : w.findChildren<QCustomPlot*>()) out << plot_fonts(plot);
  return out;
}

double font_size(const QFont& f) { return f.pointSizeF() > 0 ? f.pointSizeF() : f.pixelSize(); }

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
    QTest::qWait(50);  // the Profile workspace's first layout, which shows the details pane, has run
    QVERIFY(!w.timelinePanel()->detailsVisible());
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
    // A workspace chosen during the mode stays when it ends.
    w.lessons()->classroomAction()->trigger();
    QCOMPARE(w.workspaces()->mode(), Workspaces::Mode::profile);
    w.workspaces()->setMode(Workspaces::Mode::both);
    w.lessons()->classroomAction()->trigger();
    QVERIFY(!w.lessons()->classroomMode());
    QCOMPARE(w.workspaces()->mode(), Workspaces::Mode::both);
    MainWindow again;  // a new window starts at the remembered scale
    QCOMPARE(again.lessons()->classroomScale(), 2.0);
  }

  /// The message bar (a warning or an engine error under the toolbars) grows with the classroom
  /// font like every other text, bold for an error, and comes back to the desktop's size after it.
  void theMessageBarScalesWithTheFont() {
    MainWindow w;
    w.show();
    auto* label = w.findChild<QLabel*>("message");
    QVERIFY(label);
    for (bool error : {false, true}) {
      w.showMessage(error ? "The run failed: out of memory — use a smaller batch size" : "No usable GPU: runs use the CPU", error);
      const double normal = QApplication::font().pointSizeF();
      QCOMPARE(label->font().pointSizeF(), normal);
      QCOMPARE(label->font().bold(), error);
      for (double scale : {1.5, 2.0}) {
        w.lessons()->setClassroomScale(scale);
        w.lessons()->setClassroomMode(true);
        QApplication::processEvents();
        QVERIFY2(std::abs(label->font().pointSizeF() - normal * scale) < 0.01,
                 qPrintable(QString("error %1, x%2: the message at %3 pt, the application at %4 pt")
                                .arg(error).arg(scale).arg(label->font().pointSizeF()).arg(QApplication::font().pointSizeF())));
        QCOMPARE(label->font().bold(), error);
        QTRY_VERIFY2(label->height() >= QFontMetrics(label->font()).height(),  // the bar is as tall as its text
                     qPrintable(QString("label %1 px high, its text %2").arg(label->height()).arg(QFontMetrics(label->font()).height())));
        w.lessons()->setClassroomMode(false);
        QApplication::processEvents();
        QCOMPARE(label->font().pointSizeF(), normal);
      }
    }
  }

  /// Every label and button of the Train workspace grows with the classroom font and comes back to
  /// its own size after it, those the form colours too (the AMP note, the dataset's status, the
  /// session's settings note and its buttons): a style sheet had kept them at the desktop's size.
  void everyTrainTextScalesWithTheFont() {
    MainWindow w;
    w.show();
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QVERIFY(w.sessions()->openSession(kSession) && opened.wait(20000));  // the session's settings note
    w.workspaces()->setMode(Workspaces::Mode::train);
    // The AMP note shows where this machine has no CUDA GPU; elsewhere it is shown here as it would be.
    auto* amp = w.findChild<QLabel*>("amp_reason");
    QVERIFY(amp);
    if (amp->isHidden()) {
      amp->setText("AMP needs a CUDA GPU, which this machine does not have: runs train in fp32.");
      amp->show();
    }
    QApplication::processEvents();
    auto texts = [&w] {
      QList<QWidget*> out;
      for (QWidget* c : w.workspaces()->train()->findChildren<QWidget*>())
        if ((qobject_cast<QLabel*>(c) || qobject_cast<QAbstractButton*>(c)) && c->isVisible()) out << c;
      return out;
    };
    auto name = [](QWidget* c) {
      const QString text = qobject_cast<QLabel*>(c) ? qobject_cast<QLabel*>(c)->text() : qobject_cast<QAbstractButton*>(c)->text();
      return QString("%1 %2 \"%3\"").arg(c->metaObject()->className(), c->objectName(), text.left(60));
    };
    const double app_normal = font_size(QApplication::font());
    QHash<QWidget*, double> normal;
    for (QWidget* c : texts()) normal.insert(c, font_size(c->font()));
    QVERIFY(normal.size() > 10);
    QVERIFY(normal.contains(amp));
    w.lessons()->setClassroomMode(true);
    w.workspaces()->setMode(Workspaces::Mode::train);
    QApplication::processEvents();
    int checked = 0;
    for (QWidget* c : texts()) {
      const double now = font_size(c->font());
      const double want = normal.value(c, app_normal) * 1.5;
      QVERIFY2(std::abs(now - want) < 0.01, qPrintable(QString("%1: %2 in classroom mode, %3 wanted").arg(name(c)).arg(now).arg(want)));
      ++checked;
    }
    QVERIFY(checked > 10);
    w.lessons()->setClassroomMode(false);
    QApplication::processEvents();
    for (auto it = normal.cbegin(); it != normal.cend(); ++it)
      QVERIFY2(std::abs(font_size(it.key()->font()) - it.value()) < 0.01,
               qPrintable(QString("%1: %2 after classroom mode, was %3").arg(name(it.key())).arg(font_size(it.key()->font())).arg(it.value())));
  }

  void plotTextsScaleOnceAndComeBackExactly() {
    MainWindow w;
    w.resize(1280, 680);
    w.show();
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QVERIFY(w.sessions()->openSession(kSession) && opened.wait(20000));
    w.workspaces()->setMode(Workspaces::Mode::profile);
    QTest::qWait(300);
    const auto before = all_plot_fonts(w);
    QVERIFY(before.size() > 20);  // the tracks' and the tabs' plots with their legends
    QVERIFY(w.timelinePanel()->detailsVisible());
    auto check_scale = [&](double k) {
      const auto now = all_plot_fonts(w);
      QCOMPARE(now.size(), before.size());
      for (int i = 0; i < now.size(); ++i)
        QVERIFY2(std::abs(font_size(now[i].second) - font_size(before[i].second) * k) < 0.01,
                 qPrintable(QString("%1: %2, was %3 (x%4 wanted)").arg(now[i].first).arg(font_size(now[i].second))
                                .arg(font_size(before[i].second)).arg(k)));
    };
    w.lessons()->setClassroomMode(true);
    check_scale(1.5);
    QVERIFY(!w.timelinePanel()->detailsVisible());  // the timeline at the window's full width
    w.lessons()->setClassroomScale(2.0);  // from x1.5 to x2: x2 of the original, not x3
    check_scale(2.0);
    w.lessons()->setClassroomScale(1.5);
    check_scale(1.5);
    // A plot made while the mode is on is made at the large font and comes down with the others.
    auto* late = new QCustomPlot(&w);
    const double late_in = font_size(late->xAxis->tickLabelFont());
    w.lessons()->setClassroomMode(false);
    QVERIFY(std::abs(font_size(late->xAxis->tickLabelFont()) - late_in / 1.5) < 0.01);
    delete late;
    const auto after = all_plot_fonts(w);
    QCOMPARE(after.size(), before.size());
    for (int i = 0; i < before.size(); ++i)
      QVERIFY2(after[i].second == before[i].second,
               qPrintable(QString("%1: %2, was %3").arg(after[i].first, after[i].second.toString(), before[i].second.toString())));
    QVERIFY(w.timelinePanel()->detailsVisible());
  }

  /// A session opened in classroom mode draws its tracks' texts at the classroom's font, and at the
  /// desktop's again after it: the utilization rows' legends, out of the plot's layout when the mode
  /// began, kept the desktop's size (7.65 pt beside 13.5 pt tick labels), and leaving the mode shrank
  /// them to two thirds of it.
  void tracksOfASessionOpenedInClassroomModeScaleWithIt() {
    MainWindow w;
    w.resize(1280, 680);
    w.show();
    w.lessons()->setClassroomMode(true);
    const auto leave = qScopeGuard([&w] { w.lessons()->setClassroomMode(false); });
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QVERIFY(w.sessions()->openSession(kSession) && opened.wait(20000));
    w.workspaces()->setMode(Workspaces::Mode::profile);
    QTest::qWait(300);
    // Each legend's items between 80 % and 100 % of the application's font (they are drawn at 85-90 %
    // of it), each tick label at it; the tracks' plots are the timeline panel's.
    auto off_scale = [&w] {
      const double app = QApplication::font().pointSizeF();
      QStringList off;
      for (QCustomPlot* plot : w.timelinePanel()->findChildren<QCustomPlot*>())
        for (const auto& [name, font] : plot_fonts(plot)) {
          const double k = font.pointSizeF() / app;
          const bool legend = name.contains(" legend");
          if (name.contains(" tick labels") ? std::abs(k - 1.0) > 0.01 : legend && (k < 0.8 || k > 1.0))
            off << QString("%1 %2 pt").arg(name).arg(font.pointSizeF());
        }
      return off.join(", ");
    };
    QVERIFY(w.timelinePanel()->findChildren<QCustomPlot*>().size() >= 2);
    QVERIFY2(off_scale().isEmpty(), qPrintable("classroom mode: " + off_scale()));
    w.lessons()->setClassroomMode(false);
    QTest::qWait(100);
    QVERIFY2(off_scale().isEmpty(), qPrintable("after it: " + off_scale()));
  }

  void minimumSizeFitsWithTheSessionsPlots() {
    MainWindow w;
    w.show();
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QVERIFY(w.sessions()->openSession(kSession) && opened.wait(20000));
    for (auto m : {Workspaces::Mode::profile, Workspaces::Mode::train}) {
      w.workspaces()->setMode(m);
      QApplication::processEvents();
      const QSize normal = w.minimumSizeHint().expandedTo(w.minimumSize());
      w.lessons()->setClassroomMode(true);
      w.workspaces()->setMode(m);
      QTest::qWait(200);  // the plots' layouts at the large font
      const QSize min = w.minimumSizeHint().expandedTo(w.minimumSize());
      QVERIFY2(min.width() <= kMaxW && min.height() <= kMaxH,
               qPrintable(QString("%1 in classroom mode: minimum %2x%3 (%4x%5 outside it)")
                              .arg(mode_name(m)).arg(min.width()).arg(min.height()).arg(normal.width()).arg(normal.height())));
      w.lessons()->setClassroomMode(false);
      QApplication::processEvents();
    }
  }

  /// The Profile workspace's tracks (memory, utilization) keep every tick label whole and apart at
  /// 1280x680 and 1920x1040, at every classroom scale, with nothing open and with a session: the GPU
  /// row's "0" met the CPU row's "100" in classroom mode, and the top row's "100" was left out.
  void trackTickLabelsNeverMeet() {
    MainWindow w;
    w.show();
    for (bool session : {false, true}) {
      if (session) {
        QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
        QVERIFY(w.sessions()->openSession(kSession) && opened.wait(20000));
      }
      for (QSize size : {QSize(1280, 680), QSize(1920, 1040)})
        for (double scale : {1.0, 1.25, 1.5, 2.0}) {
          w.lessons()->setClassroomScale(scale);
          w.lessons()->setClassroomMode(scale > 1.0);
          w.resize(size);
          w.workspaces()->setMode(Workspaces::Mode::profile);
          QTest::qWait(300);
          int plots = 0;
          for (QCustomPlot* plot : w.timelinePanel()->findChildren<QCustomPlot*>()) {
            if (!plot->isVisible()) continue;
            for (int i = 0; i < 3; ++i) plot->replot();  // keep_readable's ticks and margins take effect
            const QString why = tick_label_clash(plot);
            QVERIFY2(why.isEmpty(), qPrintable(QString("%1, %2x%3, x%4, %5: %6")
                                                   .arg(session ? "session" : "nothing open")
                                                   .arg(size.width())
                                                   .arg(size.height())
                                                   .arg(scale)
                                                   .arg(plot->parentWidget()->metaObject()->className(), why)));
            ++plots;
          }
          QCOMPARE(plots, 2);  // memory and utilization
        }
      w.lessons()->setClassroomMode(false);
    }
  }

  /// The lanes' header widens with the classroom font as a CUDA API lane's kind and a thread id's
  /// last digits need ("CUDA API · thread 1921478656" was cut to "CUDA API · threa…": which
  /// thread?), every lane title fits it, and the tracks' plot areas start where the lanes' do, at
  /// every scale and back at the desktop's font.
  void laneHeaderWidensAndTracksFollow() {
    MainWindow w;
    w.show();
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QVERIFY(w.sessions()->openSession(kSession) && opened.wait(20000));
    w.resize(1280, 680);
    w.workspaces()->setMode(Workspaces::Mode::profile);
    TimelineView* view = w.timelinePanel()->view();
    for (double scale : {1.0, 1.5, 2.0, 1.0}) {
      w.lessons()->setClassroomScale(scale);
      w.lessons()->setClassroomMode(scale > 1.0);
      QTest::qWait(300);
      if (scale == 1.0) QCOMPARE(view->headerWidth(), TimelineView::kHeaderWidth);
      const QFontMetrics fm(view->font());
      int threads = 0;
      for (int lane : view->laneOrder()) {
        const QString line = view->laneHeaderText(lane), full = view->data().laneTitle(lane);
        const QString what =
            QString("x%1, %2 px header: \"%3\" shown as \"%4\"").arg(scale).arg(view->headerWidth()).arg(full, line);
        QVERIFY2(fm.horizontalAdvance(line) <= view->headerWidth() - 10, qPrintable(what));
        const QRegularExpressionMatch m = QRegularExpression("^CUDA API · thread (\\d+)$").match(full);
        if (!m.hasMatch()) continue;
        QVERIFY2(line.contains("CUDA API · ") && line.endsWith(m.captured(1).right(4)), qPrintable(what));
        ++threads;
      }
      QVERIFY(threads >= 1);  // the session's CUPTI thread without a host range
      const int lanes_left = view->mapToGlobal(QPoint(view->headerWidth(), 0)).x();
      for (QCustomPlot* plot : w.timelinePanel()->findChildren<QCustomPlot*>()) {
        plot->replot();
        for (QCPAxisRect* r : plot->axisRects())
          if (r->visible() && r->layout())
            QVERIFY2(plot->mapToGlobal(QPoint(r->left(), 0)).x() == lanes_left,
                     qPrintable(QString("x%1: a track's plot area at %2, the lanes' at %3")
                                    .arg(scale)
                                    .arg(plot->mapToGlobal(QPoint(r->left(), 0)).x())
                                    .arg(lanes_left)));
      }
    }
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

  /// Every built-in lesson's window fits 1280x680 at its smallest, in normal and classroom mode: the
  /// window is top-level, so its layout's minimum is the window's, and a window manager could not fit
  /// cpu_vs_gpu's (1278x718 at y=20 under openbox at 1280x720: its last lane off-screen).
  void everyLessonWindowFitsAProjector() {
    MainWindow w;
    w.show();
    for (const char* name : {"cpu_vs_gpu", "dataloader_workers", "sync_points", "batch_size", "mixed_precision",
                             "out_of_memory", "pinned_memory"}) {
      QVERIFY2(w.lessons()->runLesson(name, true), name);
      QTRY_VERIFY_WITH_TIMEOUT(lesson_shown(w, name), 60000);
      for (bool classroom : {false, true}) {
        w.lessons()->setClassroomMode(classroom);
        QTest::qWait(100);
        LessonView* v = w.lessons()->lessonView();
        const QSize min = v->minimumSizeHint().expandedTo(v->minimumSize());
        QVERIFY2(min.width() <= kMaxW && min.height() <= kMaxH,
                 qPrintable(QString("%1%2: minimum %3x%4").arg(name, classroom ? " (classroom)" : "").arg(min.width()).arg(min.height())));
      }
      w.lessons()->setClassroomMode(false);
    }
  }

  /// The key numbers are whole in classroom mode at 1280x680: every word of every cell fits its
  /// column (the label column took 250 px and the runs' numbers read "47… img/s").
  void theKeyNumbersAreWholeInClassroomMode() {
    MainWindow w;
    w.show();
    QVERIFY(w.lessons()->runLesson("mixed_precision", true));
    QTRY_VERIFY_WITH_TIMEOUT(lesson_shown(w, "mixed_precision"), 60000);
    LessonView* v = w.lessons()->lessonView();
    QTest::qWait(2000);  // the window's fits to the (800x800 offscreen) screen first, as above
    w.lessons()->setClassroomMode(true);
    v->resize(kMaxW, kMaxH);
    v->setPresenting(true);  // the split as classroom mode sets it, at this size
    QTest::qWait(300);
    QTableWidget* t = v->figuresTable();
    auto leave = qScopeGuard([&w] { w.lessons()->setClassroomMode(false); });  // on a failure too
    for (int c = 0; c < t->columnCount(); ++c)
      for (int r = 0; r + 1 < t->rowCount(); ++r) {  // the last row, the verdicts' titles, wraps at will
        const QTableWidgetItem* it = t->item(r, c);
        if (!it) continue;
        const QFontMetrics ifm(it->font());
        for (const QString& word : it->text().split(QRegularExpression("\\s+"), Qt::SkipEmptyParts))
          QVERIFY2(ifm.horizontalAdvance(word) + 8 <= t->columnWidth(c),
                   qPrintable(QString("row %1 column %2: '%3' needs %4 px of %5").arg(r).arg(c).arg(word)
                                  .arg(ifm.horizontalAdvance(word) + 8).arg(t->columnWidth(c))));
      }
  }

  /// The Lessons window's description is whole or scrolls at classroom mode's font in its 900x560
  /// (its last paragraph was cut under the buttons, out of reach).
  void theLessonDescriptionScrollsInClassroomMode() {
    MainWindow w;
    w.show();
    LessonsPanel* panel = w.lessons()->showLessonsPanel();
    w.lessons()->setClassroomMode(true);
    panel->resize(900, 560);
    QVERIFY(panel->select("cpu_vs_gpu"));
    QTest::qWait(200);
    auto* area = panel->findChild<QScrollArea*>("lessons.details_scroll");
    QVERIFY(area);
    QWidget* text = area->widget();
    const int need = text->heightForWidth(area->viewport()->width());
    QVERIFY2(text->height() >= need - 2, qPrintable(QString("%1 px shown of %2").arg(text->height()).arg(need)));
    w.lessons()->setClassroomMode(false);
  }

  /// In classroom mode at 1280x680 the Train workspace's charts keep their tick labels apart (the
  /// throughput axis once stacked eight 6-digit labels into 110 px).
  void chartTickLabelsStayApartInClassroomMode() {
    MainWindow w;
    w.show();
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QVERIFY(w.sessions()->openSession(kSession) && opened.wait(20000));
    w.resize(1280, 680);
    w.lessons()->setClassroomMode(true);
    w.workspaces()->setMode(Workspaces::Mode::train);
    QTest::qWait(400);
    int checked = 0;
    for (QCustomPlot* plot : w.findChildren<QCustomPlot*>()) {
      if (!plot->isVisible()) continue;
      plot->replot();
      for (QCPAxis* a : {plot->xAxis, plot->yAxis}) {
        QVector<double> px;
        for (double t : a->tickVector())
          if (a->range().contains(t)) px << a->coordToPixel(t);
        const QFontMetrics fm(a->tickLabelFont());
        const QStringList labels = a->tickVectorLabels().toList();
        for (int i = 1; i < px.size(); ++i) {
          const double apart = std::abs(px[i] - px[i - 1]);
          const int need = a->orientation() == Qt::Vertical ? fm.height()
                                                            : (fm.horizontalAdvance(labels.value(i)) + fm.horizontalAdvance(labels.value(i - 1))) / 2;
          QVERIFY2(apart >= need, qPrintable(QString("%1: ticks %2 px apart, labels need %3 px (%4)")
                                                 .arg(plot->objectName().isEmpty() ? plot->parentWidget()->metaObject()->className() : plot->objectName())
                                                 .arg(apart).arg(need).arg(labels.join(' '))));
        }
        ++checked;
      }
    }
    QVERIFY(checked >= 6);  // loss, accuracy and throughput, two axes each
    w.lessons()->setClassroomMode(false);
  }

  /// The story, the promises and the key numbers scroll as one column at 1280x680, in classroom
  /// mode too: no part of the lesson in a box with its own scroll bar, every key-number row shown.
  void theLessonColumnScrollsAsOne() {
    MainWindow w;
    w.show();
    QVERIFY(w.lessons()->runLesson("dataloader_workers", true));
    QTRY_VERIFY_WITH_TIMEOUT(lesson_shown(w, "dataloader_workers"), 60000);
    LessonView* v = w.lessons()->lessonView();
    // The lesson window is fitted to the screen (offscreen: 800x800) again up to 1.8 s after it
    // shows (MainWindow::fitToolWindow): under load one of those fits undid the resize below.
    QTest::qWait(2000);
    for (bool classroom : {false, true}) {
      w.lessons()->setClassroomMode(classroom);
      v->resize(1280, 680);
      v->setPresenting(classroom);
      QTest::qWait(300);
      QWidget* column = v->column()->widget();
      QVERIFY(column->isAncestorOf(v->storyLabel()) && column->isAncestorOf(v->checksLabel()));
      QVERIFY(column->findChildren<QScrollArea*>().isEmpty());
      int boxes = 0;  // scrolling widgets other than a table's own headers
      for (QAbstractScrollArea* a : column->findChildren<QAbstractScrollArea*>()) boxes += qobject_cast<QHeaderView*>(a) ? 0 : 1;
      QCOMPARE(boxes, 1);  // the key-number table, which shows every row
      QTableWidget* t = v->figuresTable();
      int rows_h = 0;
      for (int r = 0; r < t->rowCount(); ++r) rows_h += t->rowHeight(r);
      QVERIFY2(t->viewport()->height() >= rows_h,
               qPrintable(QString("classroom %1: %2 px of rows in a %3 px table").arg(classroom).arg(rows_h).arg(t->viewport()->height())));
      QVERIFY(!t->verticalScrollBar()->isVisible());
      // The numbers under each promise: the class's size when presenting, small beside the story.
      QCOMPARE(v->checksLabel()->text().contains("<small>"), !classroom);
      // The verdicts cell: one verdict (its title) a line, the row as tall as its lines at the least
      // (its last line was cut through the middle in classroom mode, its names mid-word).
      const int last = t->rowCount() - 1;
      for (int c = 0; c < t->columnCount(); ++c)
        if (const QTableWidgetItem* it = t->item(last, c); it && !it->text().contains("none")) {
          const QFontMetrics fm(t->font());
          const qsizetype lines = it->text().split('\n').size();
          QCOMPARE(lines, static_cast<qsizetype>(v->result()->runs[static_cast<std::size_t>(c)].verdicts.size()));
          // ...and as tall as its titles at the column's width once the layout settles (it kept the
          // height of the narrower first layout, a blank under the titles).
          const QAbstractItemView* view = t;  // QTableView's sizeHintForRow is protected
          auto fitted = [&] {
            return t->rowHeight(last) == std::max(view->sizeHintForRow(last), t->verticalHeader()->sectionSizeHint(last));
          };
          QTRY_VERIFY2(fitted(), qPrintable(QString("classroom %1: the row %2 px, its titles %3 px")
                                                .arg(classroom).arg(t->rowHeight(last)).arg(view->sizeHintForRow(last))));
          QVERIFY2(t->rowHeight(last) >= static_cast<int>(lines) * fm.lineSpacing(),
                   qPrintable(QString("classroom %1: %2 px for %3 verdicts").arg(classroom).arg(t->rowHeight(last)).arg(lines)));
        }
    }
    w.lessons()->setClassroomMode(false);
  }

  /// Every knob of Run settings readable in classroom mode at 1280x680: the form is no wider than
  /// its column (long check boxes wrap, a form row puts its field under its label), so nothing is
  /// cut at the right edge behind a horizontal scroll bar.
  void theRunSettingsFitTheirColumnInClassroomMode() {
    MainWindow w;
    w.show();
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QVERIFY(w.sessions()->openSession(kSession) && opened.wait(20000));  // the session's settings note too
    w.resize(1280, 680);
    w.lessons()->setClassroomMode(true);
    w.workspaces()->setMode(Workspaces::Mode::train);
    QTest::qWait(400);
    auto* scroll = w.findChild<QScrollArea*>("train.settings_scroll");
    QVERIFY(scroll);
    QWidget* form = scroll->widget();
    QVERIFY2(form->width() <= scroll->viewport()->width() && !scroll->horizontalScrollBar()->isVisible(),
             qPrintable(QString("form %1 px (minimum %2) in a %3 px column").arg(form->width()).arg(form->minimumSizeHint().width()).arg(scroll->viewport()->width())));
    auto heights_fit = [form](const QString& when) {
      for (QCheckBox* c : form->findChildren<QCheckBox*>()) {
        if (!c->isVisible() || !c->hasHeightForWidth()) continue;
        const int need = c->heightForWidth(c->width());
        if (c->height() < need || c->height() > need + 4)  // cut, or a gap under the text
          return QString("%1, %2: %3 px high at %4 px wide, its text needs %5").arg(when, c->text()).arg(c->height()).arg(c->width()).arg(need);
      }
      return QString();
    };
    // The form's wrapped rows settle over a few layout passes; on a loaded machine (ctest -j2) 400 ms
    // was not always enough, so the check waits up to 5 s for them before it reports.
    QString why;
    QTRY_VERIFY2_WITH_TIMEOUT((why = heights_fit("classroom 1280x680")).isEmpty(), qPrintable(why), 5000);
    w.lessons()->setClassroomMode(false);
    w.resize(1920, 1040);
    QTRY_VERIFY2_WITH_TIMEOUT((why = heights_fit("1920x1040")).isEmpty(), qPrintable(why), 5000);
  }

  /// The model table's column titles stay whole at the classroom font in a 1280x720 window (its
  /// arguments column takes what the others leave; "Parameters" was drawn as "arameter").
  void theModelTableHeadersAreWholeInClassroomMode() {
    MainWindow w;
    w.show();
    w.resize(kMaxW, kMaxH);
    w.lessons()->setClassroomMode(true);
    w.workspaces()->setMode(Workspaces::Mode::train);
    auto* table = w.modelBuilder()->findChild<QTableView*>();
    QVERIFY(table);
    QTest::qWait(300);  // the layout at the classroom font has settled
    QVERIFY2(test::cut_headers(table).isEmpty(), qPrintable(test::cut_headers(table)));
    w.lessons()->setClassroomMode(false);
  }

  void screenshotsWhenAsked() {
    const QString dir = qEnvironmentVariable("TS_SCREENSHOTS");
    if (dir.isEmpty()) QSKIP("TS_SCREENSHOTS not set");
    QDir().mkpath(dir);
    MainWindow w;
    w.show();
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QVERIFY(w.sessions()->openSession(kSession) && opened.wait(20000));
    w.resize(1280, 680);  // after the open: the offscreen screen is smaller
    QVERIFY(w.lessons()->runLesson("dataloader_workers", true));
    QTRY_VERIFY_WITH_TIMEOUT(lesson_shown(w, "dataloader_workers"), 60000);
    w.lessons()->setClassroomMode(true);
    w.workspaces()->setMode(Workspaces::Mode::train);  // the knobs the lesson names
    QTest::qWait(800);
    QVERIFY(w.grab().save(dir + "/classroom_train_1280x680.png"));
    w.workspaces()->setMode(Workspaces::Mode::profile);  // the plots' texts at the classroom size
    QTest::qWait(800);
    QVERIFY(w.grab().save(dir + "/classroom_profile_1280x680.png"));
    for (QSize size : {QSize(1280, 680), QSize(1920, 1040)}) {
      w.lessons()->lessonView()->resize(size);
      w.lessons()->lessonView()->setPresenting(true);
      QTest::qWait(1200);
      QVERIFY(w.lessons()->lessonView()->grab().save(dir + QString("/classroom_lesson_%1x%2.png").arg(size.width()).arg(size.height())));
      // The promises' numbers and the key numbers, further down the column.
      QScrollBar* down = w.lessons()->lessonView()->column()->verticalScrollBar();
      down->setValue(down->maximum());
      QTest::qWait(300);
      QVERIFY(w.lessons()->lessonView()->grab().save(
          dir + QString("/classroom_lesson_numbers_%1x%2.png").arg(size.width()).arg(size.height())));
      down->setValue(0);
    }
    w.lessons()->setClassroomMode(false);
  }
};

QTEST_MAIN(TestClassroom)
#include "test_classroom.moc"
