// Plot export (see plot_export.h).
#include "widgets/common/plot_export.h"

#include <algorithm>

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QStandardPaths>
#include <qcustomplot.h>

namespace ts::gui {

QString save_plot(QCustomPlot* plot, const QString& path, int min_width) {
  if (!plot) return QStringLiteral("cannot save the plot: no plot");
  const QString suffix = QFileInfo(path).suffix().toLower();
  const bool raster = suffix == "png" || suffix == "jpg" || suffix == "jpeg" || suffix == "bmp";
  if (!raster && suffix != "pdf")
    return QStringLiteral("cannot save the plot as %1: unknown file type \"%2\" (use .png, .pdf, .jpg or .bmp)")
        .arg(path, suffix.isEmpty() ? QStringLiteral("no suffix") : "." + suffix);
  // Open the file first: QCustomPlot only says true/false, the file system says why.
  const bool existed = QFileInfo::exists(path);
  {
    QFile probe(path);
    if (!probe.open(QIODevice::WriteOnly)) return QStringLiteral("cannot write %1: %2").arg(path, probe.errorString());
  }
  int w = 0, h = 0;  // 0: QCustomPlot's own size
  if (min_width > 0 && plot->width() > 0 && plot->width() < min_width) {
    w = min_width;
    // Between 14:5 and 4:3: a flat strip becomes a readable chart, a tall narrow panel a page-wide one.
    h = std::clamp(plot->height() * min_width / plot->width(), min_width * 5 / 14, min_width * 3 / 4);
  }
  bool ok = false;
  if (suffix == "png") ok = plot->savePng(path, w, h);
  else if (suffix == "jpg" || suffix == "jpeg") ok = plot->saveJpg(path, w, h);
  else if (suffix == "bmp") ok = plot->saveBmp(path, w, h);
  else ok = plot->savePdf(path, w, h);
  if (!ok || QFileInfo(path).size() == 0) {
    if (!existed) QFile::remove(path);
    return QStringLiteral("cannot write %1: the plot could not be rendered as %2").arg(path, suffix.toUpper());
  }
  return {};
}

namespace {

void save_with_dialog(QCustomPlot* plot, const QString& suffix, const QString& filter) {
  static QString last_dir = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
  QString path = QFileDialog::getSaveFileName(plot, QObject::tr("Save plot"), last_dir + "/plot." + suffix, filter);
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) path += "." + suffix;
  last_dir = QFileInfo(path).absolutePath();
  const QString error = save_plot(plot, path);
  if (!error.isEmpty()) QMessageBox::warning(plot, QObject::tr("Save plot"), error);
}

}  // namespace

QMenu* make_plot_export_menu(QCustomPlot* plot) {
  auto* menu = new QMenu(plot);
  menu->addAction(QObject::tr("Save as PNG…"), plot,
                  [plot] { save_with_dialog(plot, "png", QObject::tr("PNG image (*.png)")); });
  menu->addAction(QObject::tr("Save as PDF…"), plot,
                  [plot] { save_with_dialog(plot, "pdf", QObject::tr("PDF document (*.pdf)")); });
  return menu;
}

void install_plot_export(QCustomPlot* plot) {
  if (!plot || plot->property("ts_plot_export").toBool()) return;
  plot->setProperty("ts_plot_export", true);
  plot->setContextMenuPolicy(Qt::CustomContextMenu);
  QObject::connect(plot, &QWidget::customContextMenuRequested, plot, [plot](const QPoint& pos) {
    QMenu* menu = make_plot_export_menu(plot);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(plot->mapToGlobal(pos));
  });
}

}  // namespace ts::gui
