// The Train charts' legends never cover a curve: in Side by side at 1280x720 and in classroom mode
// (x1.5 and x2, Train and Side by side, at 1280x680 and 1920x1040), during a run and with a session's
// whole run, each chart that names its series shows them all in a legend that is whole, outside its
// plot area and over none of its points. Inside the plot area the legend went to the corner that
// hid the fewest points: the Throughput legend sat on the per-step and smoothed curves in Side by
// side, and at classroom mode's font the Throughput and Training loss legends covered most of
// their small plots.
#include <QSettings>
#include <QSignalSpy>
#include <QtTest>
#include <qcustomplot.h>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "gui/plot_probe.h"
#include "widgets/main/lessons_controller.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/training/training_charts.h"
#include "widgets/workspaces/workspaces.h"

using namespace ts;
using namespace ts::gui;
using ts::gui::test::cut_legends;

namespace {

const char* kSession = TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession";

/// A run 12 steps into 40, its loss and images/s jumping between the top and the bottom of their
/// axes, so that every corner of each plot area holds points (the curves' smoothed lines between).
void feed_a_run_in_progress(TrainingCharts* charts) {
  RunInfo info;
  info.steps_per_epoch = 20;
  info.epochs = 2;
  charts->reset(info);
  for (int i = 1; i <= 12; ++i) {
    TrainingUpdate u;
    u.losses = {{i, i % 2 ? 2.4f : 0.05f}};
    u.epoch = 1, u.step = u.global_step = i, u.steps_in_epoch = 20;
    u.step_images_per_s = i % 2 ? 300.0 : 8.0;
    u.images_per_s = 150, u.elapsed_s = 0.1 * i;
    charts->addUpdate(u);
  }
}

/// Why `plot`'s legend hides part of its chart ("" when it does not): an entry missing for a named
/// series, the legend cut, over the plot area, or over a point of a curve (pixels as laid out now).
QString legend_over_the_curves(QCustomPlot* plot) {
  plot->replot();  // laid out at the plot's size now (the legend's columns fitted before it)
  const QCPLegend* legend = plot->legend;
  for (int g = 0; g < plot->graphCount(); ++g)
    if (!plot->graph(g)->name().isEmpty() && plot->graph(g)->dataCount() > 0 && !legend->hasItemWithPlottable(plot->graph(g)))
      return QString("\"%1\" is not in the legend").arg(plot->graph(g)->name());
  if (!legend->visible()) return "the legend is hidden";
  if (const QString cut = cut_legends(plot); !cut.isEmpty())
    return QString("%1; the title row %2 px, the axis rect %3 px with a plot area of %4 px")
        .arg(cut).arg(plot->plotLayout()->element(0, 0)->outerRect().height())
        .arg(plot->axisRect()->outerRect().height()).arg(plot->axisRect()->height());
  const QRect box = legend->outerRect(), area = plot->axisRect()->rect();
  const auto at = [](const QRect& r) { return QString("%1,%2 %3x%4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height()); };
  if (box.intersects(area)) return QString("the legend (%1) is over the plot area (%2)").arg(at(box), at(area));
  for (int g = 0; g < plot->graphCount(); ++g)
    for (auto it = plot->graph(g)->data()->constBegin(); it != plot->graph(g)->data()->constEnd(); ++it) {
      const QPoint p(qRound(plot->xAxis->coordToPixel(it->key)), qRound(plot->yAxis->coordToPixel(it->value)));
      if (box.contains(p))
        return QString("the legend (%1) covers \"%2\" at step %3").arg(at(box), plot->graph(g)->name()).arg(it->key);
    }
  return {};
}

/// legend_over_the_curves() of the charts of `w` with two lines or more, Training loss and Throughput
/// (Test accuracy's one line needs no legend), prefixed with `where`; both must be shown.
void check_the_legends(MainWindow& w, const QString& where) {
  QTest::qWait(300);  // the window's layout, the charts' timer replot
  int legends = 0;
  for (QCustomPlot* plot : w.charts()->findChildren<QCustomPlot*>()) {
    const auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
    if (!title || (title->text() != "Training loss" && title->text() != "Throughput")) continue;
    QVERIFY2(plot->isVisible() && plot->height() > 50, qPrintable(where + ": " + title->text() + " is not shown"));
    const QString why = legend_over_the_curves(plot);
    QVERIFY2(why.isEmpty(), qPrintable(QString("%1, %2 (%3x%4 px): %5")
                                           .arg(where, title->text()).arg(plot->width()).arg(plot->height()).arg(why)));
    ++legends;
  }
  QCOMPARE(legends, 2);
}

/// The charts of `w` in workspace `mode` with a run in progress, then with the session's whole run
/// (opening it may show another workspace).
void check_both_runs(MainWindow& w, Workspaces::Mode mode, const QString& where) {
  w.workspaces()->setMode(mode);
  feed_a_run_in_progress(w.charts());
  check_the_legends(w, where + ", a run in progress");
  if (QTest::currentTestFailed()) return;
  QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
  QVERIFY(w.sessions()->openSession(kSession) && opened.wait(20000));
  w.workspaces()->setMode(mode);
  check_the_legends(w, where + ", a session");
}

}  // namespace

class TestChartLegends : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    test::isolate_settings();
    QCoreApplication::setApplicationName("TrainScopeTest-chart-legends");
  }
  void init() { QSettings().clear(); }

  void sideBySideAt1280x720() {
    MainWindow w;
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    check_both_runs(w, Workspaces::Mode::both, "Side by side at 1280x720");
  }

  void classroomMode() {
    for (QSize size : {QSize(1280, 680), QSize(1920, 1040)})
      for (double scale : {1.5, 2.0})
        for (auto mode : {Workspaces::Mode::train, Workspaces::Mode::both}) {
          MainWindow w;
          w.show();
          QVERIFY(QTest::qWaitForWindowExposed(&w));
          w.lessons()->setClassroomScale(scale);
          w.lessons()->setClassroomMode(true);
          w.resize(size);
          check_both_runs(w, mode, QString("classroom x%1 in %2 at %3x%4")
                                 .arg(scale)
                                 .arg(mode == Workspaces::Mode::train ? "Train" : "Side by side")
                                 .arg(size.width())
                                 .arg(size.height()));
          w.lessons()->setClassroomMode(false);
          if (QTest::currentTestFailed()) return;
        }
  }
};

QTEST_MAIN(TestChartLegends)
#include "test_chart_legends.moc"
