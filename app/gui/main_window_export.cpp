// MainWindow: File ▸ Export and applying a verdict's fix.
// Export: the shown session (an opened session's store, or the live run's) through the runner's own
// exporters (profiling/export: trainscope-run --export writes the same files): a Chrome trace JSON
// that Perfetto opens (.json, or gzip when the name ends in .gz), the kernel table and the steps as
// CSV; and every plot of the window (training charts, memory, utilization, step breakdown) as PNG
// or PDF into a folder, through save_plot as each plot's own context menu does.
// Fixes: a verdict's Apply (VerdictPanel::applyRequested) sets its knobs in the Run settings for the
// next run; the message bar says what changed ("Run settings: num_workers 0 → 4, pin_memory off → on").
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSet>
#include <QStatusBar>
#include <exception>
#include <qcustomplot.h>
#include <functional>

#include "app/gui/main_window.h"
#include "profiling/export/chrome_trace.h"
#include "profiling/export/csv.h"
#include "widgets/compare/compare_view.h"
#include "widgets/panel_hub.h"
#include "widgets/panels/verdict_panel.h"
#include "widgets/plot_export.h"
#include "widgets/run_settings.h"

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

QString MainWindow::exportChromeTrace(const QString& path) {
  return run_export(hub_->store(), path, [](const prof::EventStore& s, const std::string& p) {
    prof::exporter::export_chrome_trace(s, p);
  });
}

QString MainWindow::exportKernelsCsv(const QString& path) {
  return run_export(hub_->store(), path, [](const prof::EventStore& s, const std::string& p) {
    prof::exporter::export_kernels_csv(s, p);
  });
}

QString MainWindow::exportStepsCsv(const QString& path) {
  return run_export(hub_->store(), path, [](const prof::EventStore& s, const std::string& p) {
    prof::exporter::export_steps_csv(s, p);
  });
}

QStringList MainWindow::exportPlots(const QString& dir, const QString& suffix, QString* error) {
  QStringList written, failed;
  QSet<QString> used;
  QList<QCustomPlot*> plots = findChildren<QCustomPlot*>();
  if (compare_) plots += compare_->findChildren<QCustomPlot*>();
  for (QCustomPlot* plot : plots) {
    if (plot->plottableCount() == 0) continue;  // an empty plot (no run yet): nothing to show
    const QString base = plot_base_name(plot);
    QString name = base;
    for (int n = 2; used.contains(name); ++n) name = QString("%1-%2").arg(base).arg(n);
    used.insert(name);
    const QString path = QDir(dir).filePath(name + "." + suffix);
    const QString why = save_plot(plot, path);
    if (why.isEmpty()) written << path;
    else failed << why;
  }
  if (error) *error = failed.join("\n");
  return written;
}

QMenu* MainWindow::buildExportMenu() {
  export_menu_ = new QMenu(tr("&Export"), this);
  export_menu_->setObjectName("menu.export");
  auto save_as = [this](const QString& title, const QString& name, const QString& filter,
                        QString (MainWindow::*exporter)(const QString&)) {
    QString path = QFileDialog::getSaveFileName(this, title, name, filter);
    if (path.isEmpty()) return;
    const QString error = (this->*exporter)(path);
    if (!error.isEmpty()) return QMessageBox::warning(this, title, error), void();
    statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 5000);
  };
  auto stem = [this] {  // the shown session's name (the title "NAME — TrainScope"), else a default
    const QString title = windowTitle();
    const int dash = title.lastIndexOf(QStringLiteral(" — "));
    const QString name = dash > 0 ? QFileInfo(title.left(dash)).completeBaseName() : QString();
    return name.isEmpty() ? QStringLiteral("trainscope-session") : name;
  };
  export_menu_->addAction(tr("Session as Chrome trace (Perfetto)…"), this, [=] {
    save_as(tr("Export Chrome trace"), stem() + ".json.gz", tr("Chrome trace JSON (*.json.gz *.json)"),
            &MainWindow::exportChromeTrace);
  })->setObjectName("export.trace");
  export_menu_->addAction(tr("Kernels as CSV…"), this, [=] {
    save_as(tr("Export kernels"), stem() + "-kernels.csv", tr("CSV (*.csv)"), &MainWindow::exportKernelsCsv);
  })->setObjectName("export.kernels");
  export_menu_->addAction(tr("Steps as CSV…"), this, [=] {
    save_as(tr("Export steps"), stem() + "-steps.csv", tr("CSV (*.csv)"), &MainWindow::exportStepsCsv);
  })->setObjectName("export.steps");
  export_menu_->addSeparator();
  for (const QString& suffix : {QStringLiteral("png"), QStringLiteral("pdf")}) {
    export_menu_->addAction(tr("All plots as %1…").arg(suffix.toUpper()), this, [this, suffix] {
      const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder for the plots"));
      if (dir.isEmpty()) return;
      QString error;
      const QStringList files = exportPlots(dir, suffix, &error);
      if (!error.isEmpty()) QMessageBox::warning(this, tr("Export plots"), error);
      statusBar()->showMessage(tr("%n plot(s) written into %1", nullptr, static_cast<int>(files.size()))
                                   .arg(QDir::toNativeSeparators(dir)), 5000);
    })->setObjectName("export.plots." + suffix);
  }
  connect(export_menu_, &QMenu::aboutToShow, this, [this] {
    const bool have = hub_->store() != nullptr;
    for (const char* name : {"export.trace", "export.kernels", "export.steps"})
      if (auto* a = export_menu_->findChild<QAction*>(name)) a->setEnabled(have);
  });
  return export_menu_;
}

void MainWindow::connectFixes() {
  connect(verdicts_, &VerdictPanel::applyRequested, this,
          [this](const std::vector<prof::analysis::FixSetting>& fix, const QString& verdict) {
            // An opened session's settings are shown read only: the fix goes onto them, loaded for a
            // new run as Run again does (saying what this machine cannot keep).
            QString kept;
            if (settings_->showingSession() && runAgainWithSessionSettings()) kept = message();
            RunSettings s = settings_->settings();
            const QStringList changed = apply_fix_settings(fix, s);
            const QString prefix = kept.isEmpty() ? QString() : kept + QStringLiteral(" · ");
            if (changed.isEmpty()) {
              showMessage(prefix + tr("Run settings already have this fix (%1)").arg(verdict), false);
              return;
            }
            settings_->setSettings(s);
            showMessage(prefix + tr("Run settings: %1 — for the next run (fix for: %2)").arg(changed.join(", "), verdict), false);
          });
}

}  // namespace ts::gui
