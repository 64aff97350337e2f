// The main window's File ▸ Export (export_controller.cpp): the shown session (an opened session's
// store, or the live run's) through the runner's own exporters (profiling/export: trainscope-run
// --export writes the same files): a Chrome trace JSON that Perfetto opens (.json, or gzip when the
// name ends in .gz), the kernel table and the steps as CSV; and every plot of the window (training
// charts, memory, utilization, step breakdown, the Compare window's) as PNG or PDF into a folder,
// through save_plot as each plot's own context menu does.
#pragma once
#include <QObject>
#include <QString>
#include <QStringList>

class QMenu;

namespace ts::gui {

class MainFrame;
class SessionsController;

class ExportController : public QObject {
  Q_OBJECT
 public:
  /// `sessions` holds the Compare window, whose plots are exported with the window's.
  ExportController(MainFrame& frame, SessionsController& sessions, QObject* parent);

  /// The Export submenu of File (made once).
  QMenu* buildMenu();
  QMenu* menu() const { return menu_; }
  /// The shown session through profiling/export; "" when written, else one line saying why not
  /// (nothing shown, the exporter's error).
  QString exportChromeTrace(const QString& path);
  QString exportKernelsCsv(const QString& path);
  QString exportStepsCsv(const QString& path);
  /// Every plot with data as DIR/<panel>.<suffix> ("png" or "pdf"); returns the files written, and
  /// in `error` (when given) one line per plot that could not be written.
  QStringList exportPlots(const QString& dir, const QString& suffix, QString* error = nullptr);

 private:
  MainFrame& frame_;
  SessionsController& sessions_;
  QMenu* menu_ = nullptr;
};

}  // namespace ts::gui
