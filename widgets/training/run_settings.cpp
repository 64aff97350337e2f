// RunSettingsPanel: the form, the dataset choice and the download controls.
#include "widgets/training/run_settings.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QStandardItemModel>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QThread>
#include <QVBoxLayout>

#include "base/errors.h"
#include "engine/cifar10.h"
#include "engine/cpu_amp.h"
#include "engine/memory.h"
#include "widgets/common/text_colour.h"
#include "widgets/common/wrap_check_box.h"
#include "widgets/data/cifar_download.h"

namespace ts::gui {

namespace {

/// A field's range: its knob's in the run configuration's table (runconfig/run_config.h), the same
/// that lessons and setups are checked against.
void knob_range(QSpinBox* b, const char* knob) {
  const runconfig::KnobDef* k = runconfig::find_knob(knob);
  b->setRange(static_cast<int>(k->min), static_cast<int>(k->max));
}
void knob_range(QDoubleSpinBox* b, const char* knob) {
  const runconfig::KnobDef* k = runconfig::find_knob(knob);
  b->setRange(k->min, k->max);
}

}  // namespace

std::int64_t memory_limit_bytes(const RunSettings& s) {
  runconfig::RunConfig c;
  c.memory_limit_gib = s.memory_limit_gib;
  return runconfig::memory_limit_bytes(c);  // below 1 MiB: the field's minimum step keeps it out; off
}

QString default_session_dir() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/sessions/";
}

QString default_checkpoint_dir() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/checkpoints/";
}

QString amp_unavailable_reason(Device device, AmpMode mode) {
  if (mode == AmpMode::off || device == Device::cuda) return {};
  // Each says that the mode needs a CUDA GPU first: a CPU feature named alone ("would need
  // AVX512-BF16") read as a way to AMP on the CPU, which TrainScope's CPU backend has not.
  switch (cpu_amp_refusal(mode)) {
    case CpuAmpRefusal::none: return {};
    case CpuAmpRefusal::fp16_cuda_only:
      return QObject::tr("fp16 needs a CUDA GPU (oneDNN has no fp16 training kernels for x86 CPUs)");
    case CpuAmpRefusal::bf16_no_instructions:
      return QObject::tr("bf16 needs a CUDA GPU (TrainScope's CPU backend trains in fp32; this CPU has no bf16 "
                         "instructions either)");
    case CpuAmpRefusal::bf16_not_implemented:
      return QObject::tr("bf16 needs a CUDA GPU (TrainScope's CPU backend trains in fp32)");
  }
  return QObject::tr("not on the CPU");
}

QString cpu_amp_note(bool cuda_gpu_here) {
  return cuda_gpu_here ? QObject::tr("AMP needs a CUDA GPU: choose one under Device. On the CPU, runs train in fp32.")
                       : QObject::tr("AMP needs a CUDA GPU, which this machine does not have: runs train in fp32.");
}

QString pin_memory_tooltip() {
  return QObject::tr("Page-locked batch buffers: faster, asynchronous host-to-device copies (PyTorch's "
                     "DataLoader(pin_memory=True), usual with num_workers > 0). Default: %1, as in trainscope-run "
                     "(--pin-memory / --no-pin-memory). CUDA runs only: a CPU run records it off.")
      .arg(runconfig::RunConfig{}.pin_memory ? QObject::tr("on") : QObject::tr("off"));
}

QString pinned_status_text(const RunSettings& s) {
  return s.pin_memory && s.device == Device::cuda ? QObject::tr(", pinned") : QString();
}

QString sample_data_dir() {
  // Same rule as trainscope-run: $XDG_CACHE_HOME or ~/.cache, then trainscope/sample-data.
  QString base = qEnvironmentVariable("XDG_CACHE_HOME");
  if (base.isEmpty()) base = QDir::homePath() + "/.cache";
  return base + "/trainscope/sample-data";
}

RunSettingsPanel::RunSettingsPanel(const std::vector<DeviceInfo>& devices, const QString& no_gpu_reason,
                                   QWidget* parent)
    : QWidget(parent), download_(new CifarDownload(this)) {
  QString cache = qEnvironmentVariable("XDG_CACHE_HOME");
  download_dir_ = (cache.isEmpty() ? QDir::homePath() + "/.cache" : cache) + "/trainscope/cifar10";
  auto* form = new QFormLayout;
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->setRowWrapPolicy(QFormLayout::WrapLongRows);  // a narrow column (classroom font): field under label

  device_ = new QComboBox;
  for (const auto& d : devices)
    device_->addItem(QString("CUDA %1: %2 (%3 GiB)")
                         .arg(d.ordinal)
                         .arg(QString::fromStdString(d.name))
                         .arg(static_cast<double>(d.total_memory_bytes) / (1 << 30), 0, 'f', 0),
                     d.ordinal);
  device_->addItem(tr("CPU (oneDNN, %1 threads)").arg(QThread::idealThreadCount()), -1);
  device_->setToolTip(devices.empty() ? tr("No GPU: %1").arg(no_gpu_reason)
                                      : tr("Where the network trains: a CUDA GPU (TrainScope's cuDNN/cuBLAS engine, "
                                           "profiled by CUPTI) or the CPU (oneDNN)"));
  form->addRow(tr("Device"), device_);

  batch_size_ = new QSpinBox;
  knob_range(batch_size_, "batch_size");
  batch_size_->setToolTip(tr("Images per step: larger batches give the GPU more work per launch and need more memory "
                             "(activations grow with it)"));
  epochs_ = new QSpinBox;
  knob_range(epochs_, "epochs");
  epochs_->setToolTip(tr("Passes over the training set; the test set is evaluated after each"));
  lr_ = new QDoubleSpinBox;
  lr_->setDecimals(6);
  knob_range(lr_, "lr");
  lr_->setSingleStep(1e-4);
  lr_->setToolTip(tr("Learning rate: the step size of each optimizer update (0.001 suits Adam, 0.01-0.1 SGD)"));
  optimizer_ = new QComboBox;
  optimizer_->addItem("SGD", static_cast<int>(OptimizerType::sgd));
  optimizer_->addItem("Adam", static_cast<int>(OptimizerType::adam));
  optimizer_->addItem("AdamW", static_cast<int>(OptimizerType::adamw));
  optimizer_->setToolTip(tr("The update rule, as torch.optim's SGD, Adam and AdamW (decoupled weight decay)"));
  momentum_ = new QDoubleSpinBox;
  knob_range(momentum_, "momentum");
  momentum_->setDecimals(3);
  momentum_->setSingleStep(0.1);
  momentum_->setToolTip(tr("SGD's momentum (Adam and AdamW keep their own moment estimates)"));
  weight_decay_ = new QDoubleSpinBox;
  knob_range(weight_decay_, "weight_decay");
  weight_decay_->setDecimals(5);
  weight_decay_->setSingleStep(1e-4);
  default_wd_ = new QCheckBox(tr("default"));
  default_wd_->setToolTip(tr("PyTorch's default: 0, and 0.01 for AdamW"));
  auto* wd_row = new QHBoxLayout;
  wd_row->addWidget(weight_decay_, 1);
  wd_row->addWidget(default_wd_);
  num_workers_ = new QSpinBox;
  knob_range(num_workers_, "num_workers");
  num_workers_->setToolTip(tr("Data-loader worker threads (0 = the trainer thread loads)"));
  pin_memory_ = new WrapCheckBox(tr("pin_memory (page-locked batch buffers)"));
  pin_memory_->setObjectName("pin_memory");
  pin_memory_->setToolTip(pin_memory_tooltip());
  augment_ = new WrapCheckBox(tr("Augmentation (random crop, padding 4, + horizontal flip)"));
  sync_every_step_ = new WrapCheckBox(tr("Sync every step (read the loss each step, as loss.item() does)"));
  seed_ = new QSpinBox;
  knob_range(seed_, "seed");
  seed_->setToolTip(tr("Seeds the initial weights, the shuffle, augmentation and dropout: the same seed, the same run"));
  record_session_ = new WrapCheckBox(tr("Record session (profile)"));
  record_session_->setObjectName("record_session");
  record_session_->setToolTip(tr("Record the run's profile, losses and accuracy into a session file under %1 "
                                 "(File ▸ Save session as… keeps a copy)").arg(default_session_dir()));

  form->addRow(tr("Batch size"), batch_size_);
  form->addRow(tr("Epochs"), epochs_);
  form->addRow(tr("Learning rate"), lr_);
  form->addRow(tr("Optimizer"), optimizer_);
  form->addRow(tr("Momentum"), momentum_);
  form->addRow(tr("Weight decay"), wd_row);
  form->addRow(tr("num_workers"), num_workers_);
  form->addRow(QString(), pin_memory_);
  form->addRow(QString(), augment_);
  form->addRow(QString(), sync_every_step_);
  form->addRow(tr("Seed"), seed_);
  form->addRow(QString(), record_session_);

  knob_rows_ = {{"device", form, device_, nullptr},         {"batch_size", form, batch_size_, nullptr},
                {"epochs", form, epochs_, nullptr},         {"lr", form, lr_, nullptr},
                {"optimizer", form, optimizer_, nullptr},   {"momentum", form, momentum_, nullptr},
                {"weight_decay", form, nullptr, wd_row},    {"num_workers", form, num_workers_, nullptr},
                {"pin_memory", form, pin_memory_, nullptr}, {"augment", form, augment_, nullptr},
                {"sync_every_step", form, sync_every_step_, nullptr}, {"seed", form, seed_, nullptr},
                {"record_session", form, record_session_, nullptr}};

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(buildSessionNote());
  layout->addLayout(form);
  layout->addWidget(buildPrecisionBox());
  layout->addWidget(buildCheckpointBox());
  layout->addWidget(buildDataBox());
  layout->addStretch(1);

  connect(optimizer_, &QComboBox::currentIndexChanged, this, &RunSettingsPanel::updateOptimizerFields);
  connect(default_wd_, &QCheckBox::toggled, this, &RunSettingsPanel::updateOptimizerFields);
  connect(device_, &QComboBox::currentIndexChanged, this, &RunSettingsPanel::updateAmpChoices);
  for (auto* c : {device_, optimizer_, amp_})
    connect(c, &QComboBox::currentIndexChanged, this, &RunSettingsPanel::settingsChanged);
  for (auto* b : {batch_size_, epochs_, num_workers_, seed_, accumulate_, checkpoint_every_})
    connect(b, &QSpinBox::valueChanged, this, &RunSettingsPanel::settingsChanged);
  for (auto* c : {pin_memory_, augment_, sync_every_step_, deterministic_, cuda_graphs_, record_session_})
    connect(c, &QCheckBox::toggled, this, &RunSettingsPanel::settingsChanged);
  connect(memory_limit_, &QDoubleSpinBox::valueChanged, this, &RunSettingsPanel::settingsChanged);
  run_controls_ = {device_, batch_size_, epochs_, lr_, optimizer_, momentum_, weight_decay_, default_wd_,
                   num_workers_, pin_memory_, augment_, sync_every_step_, seed_, record_session_, amp_, accumulate_,
                   memory_limit_, deterministic_, cuda_graphs_, checkpoint_every_, checkpoint_path_, checkpoint_browse_, data_dir_,
                   choose_, download_button_, sample_};
  setSettings(RunSettings{});
  if (!devices.empty()) device_->setCurrentIndex(0);
}

QWidget* RunSettingsPanel::buildPrecisionBox() {
  auto* box = new QGroupBox(tr("Precision and determinism"));
  auto* form = new QFormLayout(box);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->setRowWrapPolicy(QFormLayout::WrapLongRows);  // a narrow column (classroom font): field under label
  amp_ = new QComboBox;
  amp_->setObjectName("amp");
  amp_->addItem(tr("off (fp32)"), static_cast<int>(AmpMode::off));
  amp_->addItem(tr("fp16 (dynamic loss scaling)"), static_cast<int>(AmpMode::fp16));
  amp_->addItem(tr("bf16"), static_cast<int>(AmpMode::bf16));
  amp_reason_ = new QLabel;
  amp_reason_->setObjectName("amp_reason");
  amp_reason_->setWordWrap(true);
  set_text_colour(amp_reason_, QColor(0x80, 0x50, 0x00));  // by palette: a style sheet froze its font
  amp_reason_->setVisible(false);
  accumulate_ = new QSpinBox;
  accumulate_->setObjectName("accumulate");
  knob_range(accumulate_, "accumulate");
  accumulate_->setSpecialValueText(tr("1 (off)"));
  accumulate_->setToolTip(tr("Micro-batches of the batch size per optimizer step (the loss is divided by N)"));
  memory_limit_ = new QDoubleSpinBox;
  memory_limit_->setObjectName("memory_limit");
  knob_range(memory_limit_, "memory_limit_gib");  // 0: off
  memory_limit_->setDecimals(2);
  memory_limit_->setSingleStep(1);
  memory_limit_->setSuffix(tr(" GiB"));
  memory_limit_->setSpecialValueText(tr("off (the real card)"));
  memory_limit_->setToolTip(tr("Simulate a smaller card: cap the allocator's reserved memory at this many GiB "
                               "(fractions allowed; --memory-limit). A run that needs more stops with the "
                               "out-of-memory message and its advice; the memory graph and the verdicts take the "
                               "cap as the card. 0 = off, the real card."));
  deterministic_ = new WrapCheckBox(tr("Deterministic (same seed, same losses)"));
  deterministic_->setToolTip(tr("Deterministic algorithms (no cuDNN autotuning) and a fixed reduction order"));
  deterministic_->setObjectName("deterministic");
  cuda_graphs_ = new WrapCheckBox(tr("CUDA graphs (one launch per step)"));
  cuda_graphs_->setToolTip(cudaGraphsTip());
  cuda_graphs_->setObjectName("cuda_graphs");
  cuda_graphs_->setChecked(graphs_wanted_);
  // The user's choice, not the unchecking a CPU device does (the box is greyed out first).
  connect(cuda_graphs_, &QCheckBox::toggled, this, [this](bool on) {
    if (cuda_graphs_->isEnabled()) graphs_wanted_ = on;
  });
  form->addRow(tr("AMP (autocast)"), amp_);
  form->addRow(QString(), amp_reason_);
  form->addRow(tr("Gradient accumulation"), accumulate_);
  form->addRow(tr("Simulate a smaller card"), memory_limit_);
  form->addRow(QString(), deterministic_);
  form->addRow(QString(), cuda_graphs_);
  precision_box_ = box;
  for (KnobRow r : std::initializer_list<KnobRow>{{"amp", form, amp_, nullptr},
                                                   {"amp", form, amp_reason_, nullptr},
                                                   {"accumulate", form, accumulate_, nullptr},
                                                   {"memory_limit_gib", form, memory_limit_, nullptr},
                                                   {"deterministic", form, deterministic_, nullptr},
                                                   {"cuda_graphs", form, cuda_graphs_, nullptr}})
    knob_rows_.push_back(r);
  return box;
}

QWidget* RunSettingsPanel::buildCheckpointBox() {
  auto* box = new QGroupBox(tr("Checkpoints"));
  auto* form = new QFormLayout(box);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->setRowWrapPolicy(QFormLayout::WrapLongRows);  // a narrow column (classroom font): field under label
  checkpoint_every_ = new QSpinBox;
  checkpoint_every_->setObjectName("checkpoint_every");
  checkpoint_every_->setRange(0, 1000);
  checkpoint_every_->setSpecialValueText(tr("never"));
  checkpoint_every_->setPrefix(tr("every "));
  checkpoint_every_->setSuffix(tr(" epoch(s)"));
  checkpoint_every_->setToolTip(tr("Save the weights, optimizer state and counters every N epochs (Run ▸ Resume from "
                                   "checkpoint continues from one)"));
  checkpoint_path_ = new QLineEdit;
  checkpoint_path_->setObjectName("checkpoint_path");
  checkpoint_path_->setPlaceholderText(default_checkpoint_dir());
  checkpoint_path_->setToolTip(tr("A .tsckpt file, or a folder (ending in /) for checkpoint-epochN.tsckpt files"));
  checkpoint_browse_ = new QPushButton(tr("Folder…"));
  auto* row = new QHBoxLayout;
  row->addWidget(checkpoint_path_, 1);
  row->addWidget(checkpoint_browse_);
  form->addRow(tr("Checkpoint"), checkpoint_every_);
  form->addRow(tr("Into"), row);
  connect(checkpoint_browse_, &QPushButton::clicked, this, &RunSettingsPanel::chooseCheckpointPath);
  checkpoint_box_ = box;
  return box;
}

void RunSettingsPanel::setShownKnobs(const QStringList& knobs) {
  shown_knobs_ = knobs;
  const bool all = knobs.isEmpty();
  for (const KnobRow& r : knob_rows_) {
    const bool on = all || knobs.contains(QLatin1String(r.knob));
    if (r.widget) r.form->setRowVisible(r.widget, on);
    else r.form->setRowVisible(r.layout, on);
  }
  bool any_precision = false;
  for (const KnobRow& r : knob_rows_)
    if (r.form->parentWidget() == precision_box_ && knobShown(QLatin1String(r.knob))) any_precision = true;
  precision_box_->setVisible(any_precision);
  checkpoint_box_->setVisible(all);  // no lesson knob: checkpoints are not a lesson's subject
}

bool RunSettingsPanel::knobShown(const QString& knob) const {
  return shown_knobs_.isEmpty() || shown_knobs_.contains(knob);
}

void RunSettingsPanel::chooseCheckpointPath() {
  QString start = checkpoint_path_->text().trimmed();
  if (start.isEmpty()) start = default_checkpoint_dir();
  const QString dir = QFileDialog::getExistingDirectory(this, tr("Checkpoint folder"), start);
  if (!dir.isEmpty()) checkpoint_path_->setText(dir.endsWith('/') ? dir : dir + '/');
}

void RunSettingsPanel::updateAmpChoices() {
  const Device dev = device_->currentData().toInt() >= 0 ? Device::cuda : Device::cpu;
  auto* model = qobject_cast<QStandardItemModel*>(amp_->model());
  QStringList reasons;
  for (int i = 1; i < amp_->count(); ++i) {
    const QString why = amp_unavailable_reason(dev, static_cast<AmpMode>(amp_->itemData(i).toInt()));
    model->item(i)->setEnabled(why.isEmpty());
    model->item(i)->setToolTip(why);
    if (!why.isEmpty()) reasons << why;
  }
  if (!model->item(amp_->currentIndex())->isEnabled()) amp_->setCurrentIndex(0);
  const bool none = reasons.size() == amp_->count() - 1;
  // When no mode is left, one note for both (the per-mode reasons stay the items' tooltips).
  amp_reason_->setText(none ? cpu_amp_note(device_->findData(0) >= 0) : QString());
  amp_reason_->setVisible(none);
  amp_->setToolTip(none ? amp_reason_->text() : tr("Mixed precision: fp16 with dynamic loss scaling, or bf16"));
  amp_->setEnabled(!none && device_->isEnabled());
  // CUDA graphs need a CUDA device as fp16 does: on the CPU greyed, unchecked and saying why.
  const bool cuda = dev == Device::cuda;
  cuda_graphs_->setEnabled(cuda && device_->isEnabled());
  cuda_graphs_->setChecked(cuda && graphs_wanted_);  // back on CUDA, the choice made there (on by default)
  cuda_graphs_->setToolTip(cuda ? cudaGraphsTip()
                           : device_->findData(0) >= 0 ? tr("CUDA graphs need a CUDA GPU: choose one under Device.")
                                                       : tr("CUDA graphs need a CUDA GPU; this machine has none."));
}

QString RunSettingsPanel::cudaGraphsTip() {
  return tr("Capture each training step once as a CUDA graph and replay it: the CPU launches one graph instead of "
            "every kernel, so small batches stop waiting on the host. On by default. Replayed kernels keep their layers "
            "(Layers tab, details); the host's per-layer ranges are drawn for the captured step only. CUDA only; "
            "steps with gradient accumulation stay eager.");
}

QString RunSettingsPanel::ampUnavailableReason() const { return amp_reason_->isVisible() || !amp_->isEnabled() ? amp_reason_->text() : QString(); }

QWidget* RunSettingsPanel::buildDataBox() {
  auto* box = new QGroupBox(tr("Dataset"));
  auto* v = new QVBoxLayout(box);
  data_dir_ = new QLineEdit;
  data_dir_->setPlaceholderText(tr("CIFAR-10 binary folder (empty: the generated sample set)"));
  connect(data_dir_, &QLineEdit::editingFinished, this, [this] { setDataDir(data_dir_->text().trimmed()); });
  v->addWidget(data_dir_);
  auto* buttons = new QHBoxLayout;
  choose_ = new QPushButton(tr("Choose folder…"));
  download_button_ = new QPushButton(tr("Download CIFAR-10"));
  download_button_->setToolTip(tr("The official binary archive (162 MB) from cs.toronto.edu, checked by MD5"));
  sample_ = new QPushButton(tr("Use sample set"));
  sample_->setToolTip(tr("TrainScope's generated images in the CIFAR-10 layout (works offline; NOT CIFAR-10)"));
  // Two buttons a row: three side by side set the form's minimum width at classroom mode's font.
  buttons->addWidget(choose_);
  buttons->addWidget(sample_);
  v->addLayout(buttons);
  auto* download_row = new QHBoxLayout;
  download_row->addWidget(download_button_);
  download_row->addStretch(1);
  v->addLayout(download_row);
  auto* progress_row = new QHBoxLayout;
  download_progress_ = new QProgressBar;
  download_progress_->setVisible(false);
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->setVisible(false);
  progress_row->addWidget(download_progress_, 1);
  progress_row->addWidget(cancel_);
  v->addLayout(progress_row);
  data_status_ = new QLabel;
  data_status_->setWordWrap(true);
  data_status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  v->addWidget(data_status_);

  connect(choose_, &QPushButton::clicked, this, &RunSettingsPanel::chooseFolder);
  connect(sample_, &QPushButton::clicked, this, [this] { setDataDir({}); });
  connect(download_button_, &QPushButton::clicked, this, &RunSettingsPanel::startDownload);
  connect(cancel_, &QPushButton::clicked, download_, &CifarDownload::cancel);
  connect(download_, &CifarDownload::progress, this, [this](qint64 got, qint64 total, const QString& phase) {
    download_progress_->setRange(0, total > 0 ? 1000 : 0);
    if (total > 0) download_progress_->setValue(static_cast<int>(1000 * got / total));
    download_progress_->setFormat(phase + " %p%");
  });
  connect(download_, &CifarDownload::finished, this, [this](const QString& dir) {
    download_progress_->setVisible(false);
    cancel_->setVisible(false);
    setRunning(false);
    setDataDir(dir);
  });
  connect(download_, &CifarDownload::failed, this, [this](const QString& why) {
    download_progress_->setVisible(false);
    cancel_->setVisible(false);
    setRunning(false);
    set_text_colour(data_status_, QColor(0xa0, 0x00, 0x00));
    data_status_->setText(why + tr(" — choose an existing folder or use the sample set."));
  });
  return box;
}

void RunSettingsPanel::updateOptimizerFields() {
  const auto t = static_cast<OptimizerType>(optimizer_->currentData().toInt());
  momentum_->setEnabled(t == OptimizerType::sgd && device_->isEnabled());
  weight_decay_->setEnabled(!default_wd_->isChecked() && device_->isEnabled());
}

RunSettings RunSettingsPanel::settings() const {
  RunSettings s;
  const int d = device_->currentData().toInt();
  s.device = d >= 0 ? Device::cuda : Device::cpu;
  s.cuda_device = d >= 0 ? d : 0;
  s.epochs = epochs_->value();
  s.batch_size = batch_size_->value();
  s.lr = lr_->value();
  s.optimizer = static_cast<OptimizerType>(optimizer_->currentData().toInt());
  s.momentum = momentum_->value();
  s.weight_decay = default_wd_->isChecked() ? -1.0 : weight_decay_->value();
  s.num_workers = num_workers_->value();
  s.pin_memory = pin_memory_->isChecked();
  s.augment = augment_->isChecked();
  s.sync_every_step = sync_every_step_->isChecked();
  s.record_session = record_session_->isChecked();
  s.seed = static_cast<std::uint64_t>(seed_->value());
  s.data_dir = data_dir_->text().trimmed();
  s.limit_train = limit_train_;
  s.amp = static_cast<AmpMode>(amp_->currentData().toInt());
  s.accumulate = accumulate_->value();
  s.memory_limit_gib = memory_limit_->value();
  s.deterministic = deterministic_->isChecked();
  s.cuda_graphs = cuda_graphs_->isChecked();
  s.checkpoint_every = checkpoint_every_->value();
  s.checkpoint_path = checkpoint_path_->text().trimmed();
  return s;
}

void RunSettingsPanel::setSettings(const RunSettings& s) {
  const int want = s.device == Device::cuda ? s.cuda_device : -1;
  const int i = device_->findData(want);
  if (i >= 0) device_->setCurrentIndex(i);
  epochs_->setValue(s.epochs);
  batch_size_->setValue(static_cast<int>(s.batch_size));
  lr_->setValue(s.lr);
  optimizer_->setCurrentIndex(optimizer_->findData(static_cast<int>(s.optimizer)));
  momentum_->setValue(s.momentum);
  default_wd_->setChecked(s.weight_decay < 0);
  weight_decay_->setValue(s.weight_decay < 0 ? 0.0 : s.weight_decay);
  num_workers_->setValue(s.num_workers);
  pin_memory_->setChecked(s.pin_memory);
  augment_->setChecked(s.augment);
  sync_every_step_->setChecked(s.sync_every_step);
  record_session_->setChecked(s.record_session);
  seed_->setValue(static_cast<int>(s.seed));
  limit_train_ = s.limit_train;
  amp_->setCurrentIndex(amp_->findData(static_cast<int>(s.amp)));
  accumulate_->setValue(s.accumulate);
  memory_limit_->setValue(s.memory_limit_gib);
  deterministic_->setChecked(s.deterministic);
  graphs_wanted_ = s.cuda_graphs;
  cuda_graphs_->setChecked(s.cuda_graphs);
  checkpoint_every_->setValue(s.checkpoint_every);
  checkpoint_path_->setText(s.checkpoint_path);
  setDataDir(s.data_dir);
  updateOptimizerFields();
  updateAmpChoices();
  emit settingsChanged();
}

QString RunSettingsPanel::setDataDir(const QString& dir) {
  data_dir_->setText(dir);
  if (dir.isEmpty()) {
    data_problem_.clear();
    set_text_colour(data_status_, QColor(0x80, 0x50, 0x00));
    data_status_->setText(tr("Sample set: TrainScope's generated images (NOT CIFAR-10), in %1. "
                             "Choose a CIFAR-10 folder or download it for real results.")
                              .arg(sample_data_dir()));
  } else {
    data_problem_ = QString::fromStdString(check_cifar10_folder(dir.toStdString()));
    if (data_problem_.isEmpty()) {
      set_text_colour(data_status_, QColor(0x00, 0x60, 0x00));
      data_status_->setText(tr("CIFAR-10 binary layout found in %1.").arg(dir));
    } else {
      set_text_colour(data_status_, QColor(0xa0, 0x00, 0x00));
      data_status_->setText(tr("Not a CIFAR-10 binary folder: %1. Expected data_batch_1..5.bin and "
                               "test_batch.bin of 3073-byte records (the binary version, not the Python one).")
                                .arg(data_problem_));
    }
  }
  emit dataChanged(data_problem_.isEmpty());
  return data_problem_;
}

void RunSettingsPanel::chooseFolder() {
  const QString dir = QFileDialog::getExistingDirectory(this, tr("CIFAR-10 binary folder"), data_dir_->text());
  if (!dir.isEmpty()) setDataDir(dir);
}

void RunSettingsPanel::startDownload() {
  download_progress_->setVisible(true);
  download_progress_->setValue(0);
  cancel_->setVisible(true);
  setRunning(true);
  cancel_->setEnabled(true);
  set_text_colour(data_status_, QColor());
  data_status_->setText(tr("Downloading %1 into %2 …").arg(download_->url().toString(), download_dir_));
  download_->start(download_dir_);
}

void RunSettingsPanel::setRunning(bool running) {
  running_ = running;
  for (auto* w : run_controls_) w->setEnabled(!running && !showing_);
  updateOptimizerFields();
  updateAmpChoices();
}

}  // namespace ts::gui
