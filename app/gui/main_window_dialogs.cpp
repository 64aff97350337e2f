// MainWindow's dialogs: About (versions of Qt, CUDA runtime, driver, cuDNN, the GPU or "no GPU"),
// the environment doctor (widgets/doctor) and Preferences (download folder, loss smoothing), kept in QSettings.
#include <QDialog>
#include <QDir>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QMessageBox>
#include <QSettings>

#include "app/gui/main_window.h"
#include "profiling/steps/step_rule.h"
#include "widgets/doctor/doctor_panel.h"
#include "widgets/sessions/session_loader.h"
#include "widgets/training/run_settings.h"
#include "widgets/training/training_charts.h"

namespace ts::gui {
namespace {

QString cuda_version(std::int64_t v) {  // CUDA runtime / driver: 13000 -> 13.0
  return v > 0 ? QString("%1.%2").arg(v / 1000).arg((v % 1000) / 10) : QString("–");
}

QString cudnn_version(std::int64_t v) {  // cuDNN 9: 91400 -> 9.14.0
  return v > 0 ? QString("%1.%2.%3").arg(v / 10000).arg((v % 10000) / 100).arg(v % 100) : QString("–");
}

QString default_download_dir() {
  QString cache = qEnvironmentVariable("XDG_CACHE_HOME");
  return (cache.isEmpty() ? QDir::homePath() + "/.cache" : cache) + "/trainscope/cifar10";
}

}  // namespace

void MainWindow::showAbout() {
  QString text = tr("<h3>TrainScope %1</h3><p>A visual profiler and playground for GPU training.</p>"
                    "<p>Qt %2 (built with %3)</p>")
                     .arg(TRAINSCOPE_VERSION, qVersion(), QT_VERSION_STR);
  if (gpus_.empty()) {
    text += tr("<p><b>no GPU</b>: %1<br>Runs use the CPU backend (oneDNN).</p>").arg(no_gpu_reason_.toHtmlEscaped());
  } else {
    for (const auto& d : gpus_)
      text += tr("<p><b>GPU %1: %2</b> (%3 GiB, compute capability %4.%5, %6 SMs)<br>"
                 "CUDA runtime %7, driver %8, cuDNN %9</p>")
                  .arg(d.ordinal)
                  .arg(QString::fromStdString(d.name).toHtmlEscaped())
                  .arg(static_cast<double>(d.total_memory_bytes) / (1 << 30), 0, 'f', 1)
                  .arg(d.compute_capability_major)
                  .arg(d.compute_capability_minor)
                  .arg(d.multiprocessors)
                  .arg(cuda_version(d.runtime_version), cuda_version(d.driver_version), cudnn_version(d.cudnn_version));
  }
  QMessageBox::about(this, tr("About TrainScope"), text);
}

DoctorPanel* MainWindow::showDoctor() {
  if (!doctor_panel_) doctor_panel_ = new DoctorPanel(this);
  else doctor_panel_->refresh();
  doctor_panel_->show();
  doctor_panel_->raise();
  return doctor_panel_;
}

void MainWindow::applyPreferences() {
  QSettings s;
  charts_->setSmoothing(s.value("prefs/loss_smoothing", 0.9).toDouble());
  settings_->setDownloadDir(s.value("prefs/download_dir", default_download_dir()).toString());
}

void MainWindow::showPreferences() {
  QSettings s;
  QDialog dialog(this);
  dialog.setWindowTitle(tr("Preferences"));
  auto* form = new QFormLayout(&dialog);
  auto* download = new QLineEdit(s.value("prefs/download_dir", default_download_dir()).toString());
  download->setMinimumWidth(360);
  auto* smoothing = new QDoubleSpinBox;
  smoothing->setRange(0.0, 0.99);
  smoothing->setSingleStep(0.05);
  smoothing->setValue(s.value("prefs/loss_smoothing", 0.9).toDouble());
  smoothing->setToolTip(tr("Exponential moving average of the loss line (0 = none), as TensorBoard's smoothing"));
  auto* step_range = new QLineEdit(s.value(kStepRangeKey, prof::kDefaultStepRange).toString());
  step_range->setObjectName("prefs.step_range");
  step_range->setToolTip(tr("A trace without ProfilerStep#N takes its steps from the host ranges (NVTX, record_function) "
                            "whose whole name matches this regular expression (case-insensitive, a step number after it "
                            "allowed: \"step\" matches \"step 12\"); with none, the whole trace is one step. "
                            "trainscope-run --step-range"));
  form->addRow(tr("CIFAR-10 download folder"), download);
  form->addRow(tr("Loss smoothing"), smoothing);
  form->addRow(tr("Trace step ranges"), step_range);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  form->addRow(buttons);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  if (dialog.exec() != QDialog::Accepted) return;
  try {
    const prof::StepRangePattern checked(step_range->text().trimmed().toStdString());
    s.setValue(kStepRangeKey, QString::fromStdString(checked.text()));
  } catch (const Error& e) {  // the other preferences are kept; the pattern stays as it was
    showMessage(tr("Trace step ranges not changed: %1").arg(QString::fromUtf8(e.what())), true);
  }
  s.setValue("prefs/download_dir", download->text().trimmed().isEmpty() ? default_download_dir() : download->text().trimmed());
  s.setValue("prefs/loss_smoothing", smoothing->value());
  applyPreferences();
}

}  // namespace ts::gui
