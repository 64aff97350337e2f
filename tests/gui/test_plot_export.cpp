// Plot export (widgets/plot_export): save_plot writes a non-empty PNG and PDF (checked by their
// magic bytes), reports an unwritable path and an unknown suffix in one line naming the file and
// leaves no file behind; install_plot_export gives the plot a context menu with both actions.
#include <QAction>
#include <QFile>
#include <QMenu>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

#include "widgets/common/count_ticker.h"
#include "widgets/common/plot_export.h"

using namespace ts::gui;

namespace {

QCustomPlot* make_plot() {
  auto* plot = new QCustomPlot;
  plot->resize(480, 320);
  auto* g = plot->addGraph();
  for (int i = 0; i < 50; ++i) g->addData(i, i * i);
  plot->rescaleAxes();
  plot->xAxis->setLabel("step");
  plot->replot();
  return plot;
}

QByteArray head(const QString& path, int n) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.read(n) : QByteArray();
}

}  // namespace

class TestPlotExport : public QObject {
  Q_OBJECT
 private slots:
  void countTickerLabelsAndTickCount() {
    using ts::gui::CountTicker;
    QCOMPARE(CountTicker::label(0, 50000), QString("0"));
    QCOMPARE(CountTicker::label(350000, 50000), QString("350k"));
    QCOMPARE(CountTicker::label(1250000, 250000), QString("1.25M"));
    QCOMPARE(CountTicker::label(950, 50), QString("950"));
    QCOMPARE(CountTicker::label(2.5, 0.5), QString("2.5"));
    QCOMPARE(CountTicker::label(-20000, 10000), QString("-20k"));
    QCOMPARE(CountTicker::fitting_tick_count(110, 21), 2);  // a short classroom chart: two ticks
    QCOMPARE(CountTicker::fitting_tick_count(300, 15), 8);
    QCOMPARE(CountTicker::fitting_tick_count(100, 0), 5);
  }
  void writesPngAndPdf() {
    QTemporaryDir dir;
    std::unique_ptr<QCustomPlot> plot(make_plot());
    const QString png = dir.filePath("plot.png"), pdf = dir.filePath("plot.PDF");
    QCOMPARE(save_plot(plot.get(), png), QString());
    QVERIFY(QFileInfo(png).size() > 1000);
    QCOMPARE(head(png, 8), QByteArray("\x89PNG\r\n\x1a\n", 8));
    QImage img(png);
    QCOMPARE(img.size(), QSize(480, 320));
    QCOMPARE(save_plot(plot.get(), pdf), QString());  // the suffix in any case
    QVERIFY(QFileInfo(pdf).size() > 500);
    QCOMPARE(head(pdf, 5), QByteArray("%PDF-"));
  }

  void reportsErrors() {
    QTemporaryDir dir;
    std::unique_ptr<QCustomPlot> plot(make_plot());
    const QString unwritable = dir.filePath("no/such/folder/plot.png");
    const QString e = save_plot(plot.get(), unwritable);
    QVERIFY(!e.isEmpty());
    QVERIFY(e.contains(unwritable));
    QVERIFY(!e.contains('\n'));
    QVERIFY(!QFile::exists(unwritable));
    QVERIFY(QDir(dir.path()).mkdir("folder.pdf"));  // a folder, not a file
    QVERIFY(!save_plot(plot.get(), dir.filePath("folder.pdf")).isEmpty());
    QVERIFY(QFileInfo(dir.filePath("folder.pdf")).isDir());
    const QString odd = dir.filePath("plot.xyz");
    const QString e2 = save_plot(plot.get(), odd);
    QVERIFY(e2.contains(".xyz"));
    QVERIFY(!QFile::exists(odd));
    QVERIFY(!save_plot(nullptr, dir.filePath("x.png")).isEmpty());
  }

  void contextMenu() {
    std::unique_ptr<QCustomPlot> plot(make_plot());
    QCOMPARE(plot->contextMenuPolicy(), Qt::DefaultContextMenu);
    install_plot_export(plot.get());
    install_plot_export(plot.get());  // idempotent
    QCOMPARE(plot->contextMenuPolicy(), Qt::CustomContextMenu);
    std::unique_ptr<QMenu> menu(make_plot_export_menu(plot.get()));
    QStringList texts;
    for (QAction* a : menu->actions()) texts << a->text();
    QCOMPARE(texts, QStringList({"Save as PNG…", "Save as PDF…"}));
    // The request opens the menu (one popup, closed again here).
    emit plot->customContextMenuRequested(QPoint(10, 10));
    QMenu* shown = nullptr;
    QTRY_VERIFY((shown = plot->findChild<QMenu*>()) != nullptr);
    QCOMPARE(shown->actions().size(), 2);
    shown->close();
  }
};

QTEST_MAIN(TestPlotExport)
#include "test_plot_export.moc"
