// ExportController: File ▸ Export, the shown session (an opened session's store, or the live run's) through the runner's own
// exporters (profiling/export: trainscope-run --export writes the same files): a Chrome trace JSON
// that Perfetto opens (.json, or gzip when the name ends in .gz), the kernel table and the steps as
// CSV; and every plot of the window (training charts, memory, utilization, step breakdown) as PNG
// or PDF into a folder, through save_plot as each plot's own context menu does (at least 1400 px
// wide), and the timeline as shown.
#include "widgets/main/export_controller.h"

#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSet>
#include <exception>
#include <qcustomplot.h>
#include <functional>

#include "profiling/export/chrome_trace.h"
#include "profiling/export/csv.h"
#include "widgets/common/plot_export.h"
#include "widgets/compare/compare_view.h"
#include "widgets/main/main_frame.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/timeline/timeline_view.h"

namespace ts::gui {

namespace {

/// Runs an exporter of profiling/export on `store`: "" when it wrote the file, else one line.
QString run_export(const std::shared_ptr<const prof::EventStore>& store, const QString& path,
                   const std::function<void(const prof::EventStore&, const std::string&)>& write) {
  if (!store) return QObject::tr("Nothing to export: open a session or start a run");
  QApplication::setOverrideCursor(Qt::WaitCursor);
  QString error;
  try {
    write(*store, path.toStdString());
  } catch (const std::exception& e) {
    error = QObject::tr("Could not export %1: %2").arg(QDir::toNativeSeparators(path), QString::fromUtf8(e.what()));
  }
  QApplication::restoreOverrideCursor();
  return error;
}

/// A file name for `plot`: the TrainScope widget holding it ("memory_graph", "utilization_panel",
/// "training_charts" ...), numbered when one holds several.
QString plot_base_name(const QCustomPlot* plot) {
  if (!plot->objectName().isEmpty()) return plot->objectName();
  for (const QObject* o = plot->parent(); o; o = o->parent()) {
    QString cls = QString::fromLatin1(o->metaObject()->className());
    if (!cls.startsWith("ts::gui::")) continue;
    cls = cls.mid(cls.lastIndexOf(':') + 1);
    QString snake;
    for (int i = 0; i < cls.size(); ++i) {
      if (cls[i].isUpper() && i > 0) snake += '_';
      snake += cls[i].toLower();
    }
    return snake;
  }
  return QStringLiteral("plot");
}

}  // namespace

ExportController::ExportController(MainFrame& frame, SessionsController& sessions, QObject* parent)
    : QObject(parent), frame_(frame), sessions_(sessions) {}

QString ExportController::exportChromeTrace(const QString& path) {
  return run_export(frame_.panelHub()->store(), path, [](const prof::EventStore& s, const std::string& p) {
    prof::exporter::export_chrome_trace(s, p);
  });
}

QString ExportController::exportKernelsCsv(const QString& path) {
  return run_export(frame_.panelHub()->store(), path, [](const prof::EventStore& s, const std::string& p) {
    prof::exporter::export_kernels_csv(s, p);
  });
}

QString ExportController::exportStepsCsv(const QString& path) {
  return run_export(frame_.panelHub()->store(), path, [](const prof::EventStore& s, const std::string& p) {
    prof::exporter::export_steps_csv(s, p);
  });
}

/// "All plots": a plot narrower than this is laid out again at this width (its aspect kept), so that a
/// small panel's legend and axis labels fit in the file.
constexpr int kMinExportWidth = 1400;

QStringList ExportController::exportPlots(const QString& dir, const QString& suffix, QString* error) {
  QStringList written, failed;
  QSet<QString> used;
  QList<QCustomPlot*> plots = frame_.frameWindow()->findChildren<QCustomPlot*>();
  if (CompareView* compare = sessions_.compareView()) plots += compare->findChildren<QCustomPlot*>();
  for (QCustomPlot* plot : plots) {
    if (plot->plottableCount() == 0) continue;  // an empty plot (no run yet): nothing to show
    const QString base = plot_base_name(plot);
    QString name = base;
    for (int n = 2; used.contains(name); ++n) name = QString("%1-%2").arg(base).arg(n);
    used.insert(name);
    const QString path = QDir(dir).filePath(name + "." + suffix);
    const QString why = save_plot(plot, path, kMinExportWidth);
    if (why.isEmpty()) written << path;
    else failed << why;
  }
  // The timeline is no QCustomPlot: its view as shown (lanes, zoom), grabbed or rendered into a PDF page.
  for (TimelineView* view : frame_.frameWindow()->findChildren<TimelineView*>()) {
    if (view->data().lanes().empty() || view->width() < 200 || view->height() < 100) continue;
    QString name = QStringLiteral("timeline");
    for (int n = 2; used.contains(name); ++n) name = QString("timeline-%1").arg(n);
    used.insert(name);
    const QString path = QDir(dir).filePath(name + "." + suffix);
    bool ok = false;
    if (suffix.compare("pdf", Qt::CaseInsensitive) == 0) {
      QPdfWriter pdf(path);
      pdf.setResolution(96);
      pdf.setPageSize(QPageSize(QSizeF(view->size()) * 72.0 / 96.0, QPageSize::Point));
      pdf.setPageMargins(QMarginsF());
      QPainter painter;
      ok = painter.begin(&pdf);
      if (ok) view->render(&painter);
      ok = ok && painter.end();
    } else {
      ok = view->grab().save(path);
    }
    if (ok) written << path;
    else failed << tr("cannot write %1: the timeline could not be rendered as %2").arg(path, suffix.toUpper());
  }
  if (error) *error = failed.join("\n");
  return written;
}

QMenu* ExportController::buildMenu() {
  menu_ = new QMenu(tr("&Export"), frame_.frameWindow());
  menu_->setObjectName("menu.export");
  auto save_as = [this](const QString& title, const QString& name, const QString& filter,
                        QString (ExportController::*exporter)(const QString&)) {
    QString path = QFileDialog::getSaveFileName(frame_.frameWindow(), title, name, filter);
    if (path.isEmpty()) return;
    const QString error = (this->*exporter)(path);
    if (!error.isEmpty()) return QMessageBox::warning(frame_.frameWindow(), title, error), void();
    frame_.showStatus(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 5000);
  };
  auto stem = [this] {  // the shown session's name (the title "NAME — TrainScope"), else a default
    const QString title = frame_.frameWindow()->windowTitle();
    const int dash = title.lastIndexOf(QStringLiteral(" — "));
    const QString name = dash > 0 ? QFileInfo(title.left(dash)).completeBaseName() : QString();
    return name.isEmpty() ? QStringLiteral("trainscope-session") : name;
  };
  menu_->addAction(tr("Session as Chrome trace (Perfetto)…"), this, [=] {
    save_as(tr("Export Chrome trace"), stem() + ".json.gz", tr("Chrome trace JSON (*.json.gz *.json)"),
            &ExportController::exportChromeTrace);
  })->setObjectName("export.trace");
  menu_->addAction(tr("Kernels as CSV…"), this, [=] {
    save_as(tr("Export kernels"), stem() + "-kernels.csv", tr("CSV (*.csv)"), &ExportController::exportKernelsCsv);
  })->setObjectName("export.kernels");
  menu_->addAction(tr("Steps as CSV…"), this, [=] {
    save_as(tr("Export steps"), stem() + "-steps.csv", tr("CSV (*.csv)"), &ExportController::exportStepsCsv);
  })->setObjectName("export.steps");
  menu_->addSeparator();
  for (const QString& suffix : {QStringLiteral("png"), QStringLiteral("pdf")}) {
    menu_->addAction(tr("All plots as %1…").arg(suffix.toUpper()), this, [this, suffix] {
      const QString dir = QFileDialog::getExistingDirectory(frame_.frameWindow(), tr("Folder for the plots"));
      if (dir.isEmpty()) return;
      QString error;
      const QStringList files = exportPlots(dir, suffix, &error);
      if (!error.isEmpty()) QMessageBox::warning(frame_.frameWindow(), tr("Export plots"), error);
      frame_.showStatus(tr("%n plot(s) written into %1", nullptr, static_cast<int>(files.size()))
                                   .arg(QDir::toNativeSeparators(dir)), 5000);
    })->setObjectName("export.plots." + suffix);
  }
  connect(menu_, &QMenu::aboutToShow, this, [this] {
    const bool have = frame_.panelHub()->store() != nullptr;
    for (const char* name : {"export.trace", "export.kernels", "export.steps"})
      if (auto* a = menu_->findChild<QAction*>(name)) a->setEnabled(have);
  });
  return menu_;
}

}  // namespace ts::gui
