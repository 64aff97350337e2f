// What the window says while a session or a trace is shown: the Train workspace shows
// the session's model and Run settings read only, under a note naming it, and the status bar its
// device, batch size, AMP and num_workers (a trace: what it does not record); "Run again with these
// settings" loads them for a new run and says which ones this machine cannot keep, and why.
#include <QFileInfo>
#include <QLabel>
#include <QStatusBar>

#include "app/gui/main_window.h"
#include "profiling/analysis/analysis.h"
#include "widgets/layer_table_model.h"
#include "widgets/model_builder.h"
#include "widgets/run_settings.h"
#include "widgets/session_replay.h"
#include "widgets/workspaces/workspaces.h"

namespace ts::gui {

namespace {
QString meta_text(const std::map<std::string, std::string>& meta, const char* key) {
  auto it = meta.find(key);
  return it == meta.end() ? QString() : QString::fromStdString(it->second);
}
}  // namespace

void MainWindow::showSessionSettings(const QString& name) {
  shown_name_ = name;
  const auto s = settings_from_session(shown_meta_, settings_->settings());
  if (!s) {
    showOwnSettings();
    const bool trace = shown_meta_.count("import.format") > 0;
    settings_->showNoSessionSettings(name, trace ? tr("a PyTorch / Chrome trace records no TrainScope run settings")
                                                 : tr("this session has no recorded run settings"));
    updateIdleStatus();
    updateActions();
    return;
  }
  if (const auto model = model_from_session(shown_meta_)) {
    if (!showing_model_) own_model_ = model_->spec();
    showing_model_ = true;
    model_->model()->setSpec(*model);
  }
  const QString device = meta_text(shown_meta_, "device.name");
  settings_->showSession(*s, name, device.isEmpty() ? tr("CUDA %1").arg(s->cuda_device) : device);
  updateIdleStatus();
  updateActions();
}

void MainWindow::showOwnSettings() {
  settings_->showOwn();
  if (showing_model_) model_->model()->setSpec(own_model_);
  showing_model_ = false;
  updateActions();
}

bool MainWindow::showShownStatus() {
  if (shown_name_.isEmpty()) return false;
  const bool trace = shown_meta_.count("import.format") > 0;
  const QString whose = trace ? tr("trace") : tr("session");
  QString device = meta_text(shown_meta_, "device.name");
  if (device.isEmpty()) device = meta_text(shown_meta_, "device.kind") == "cpu" ? tr("CPU") : tr("not recorded");
  device_label_->setText(tr("device: %1 (%2)").arg(device, whose) +
                         simulated_card_status(prof::analysis::run_config(shown_meta_).memory_limit_bytes));
  device_label_->setToolTip(tr("What the shown %1 ran on").arg(whose));
  if (settings_->showingSession()) {
    const RunSettings s = settings_->settings();
    batch_label_->setText(tr("batch size %1").arg(s.batch_size));
    amp_label_->setText(amp_status(s.amp, s.accumulate, s.deterministic));
    workers_label_->setText(tr("num_workers %1%2").arg(s.num_workers).arg(s.pin_memory ? ", pinned" : ""));
  } else {
    for (QLabel* l : {batch_label_, amp_label_, workers_label_}) l->setToolTip(tr("Not recorded in the %1").arg(whose));
    batch_label_->setText(tr("batch size: not recorded"));
    amp_label_->setText(tr("AMP: not recorded"));
    workers_label_->setText(tr("num_workers: not recorded"));
  }
  return true;
}

bool MainWindow::runAgainWithSessionSettings() {
  if (running_) return false;
  auto recorded = settings_from_session(shown_meta_, settings_->settings());
  if (!recorded) return false;
  const auto model = model_from_session(shown_meta_);
  showOwnSettings();  // the user's own settings are the base for what cannot be kept
  const RunSettings own = settings_->settings();
  RunSettings next = *recorded;
  QStringList changed;
  if (next.device == Device::cuda && gpus_.empty()) {
    next.device = Device::cpu;
    changed << tr("device: the session ran on %1; this machine has no usable GPU (%2), so the CPU backend runs it")
                   .arg(meta_text(shown_meta_, "device.name").isEmpty() ? tr("CUDA") : meta_text(shown_meta_, "device.name"),
                        no_gpu_reason_);
  } else if (next.device == Device::cuda && next.cuda_device >= static_cast<int>(gpus_.size())) {
    changed << tr("device: CUDA %1 is not on this machine; CUDA 0 runs it").arg(next.cuda_device);
    next.cuda_device = 0;
  }
  const QString data = recorded_data(shown_meta_);
  if (!data.isEmpty() && data != "sample" && !QFileInfo(data).isDir())
    changed << tr("data: %1 is not on this machine; your choice is kept (%2)")
                   .arg(data, own.data_dir.isEmpty() ? tr("the sample set") : own.data_dir);
  if (const QString why = amp_unavailable_reason(next.device, next.amp); next.amp != AmpMode::off && !why.isEmpty()) {
    changed << tr("AMP: %1").arg(why);
    next.amp = AmpMode::off;
  }
  if (model) model_->model()->setSpec(*model);
  settings_->setSettings(next);
  workspaces_->setMode(workspaces_->mode() == Workspaces::Mode::profile || workspaces_->mode() == Workspaces::Mode::playground
                           ? Workspaces::Mode::train
                           : workspaces_->mode());
  if (changed.isEmpty())
    statusBar()->showMessage(tr("The session's model and settings are loaded: press Start to run them again"), 8000);
  else
    showMessage(tr("The session's model and settings are loaded, except: %1").arg(changed.join("; ")), false);
  updateActions();
  return true;
}

}  // namespace ts::gui
