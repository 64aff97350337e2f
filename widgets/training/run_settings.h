// The Run settings dock: the knobs of a training run with the field's names (device, batch size,
// epochs, learning rate, optimizer with momentum / weight decay, num_workers, pin_memory,
// augmentation, sync every step, seed; AMP, gradient accumulation, deterministic mode; checkpoint
// every N epochs into a file or folder; simulate a smaller card (an allocator cap in GiB); record a
// profiling session) and the dataset: a CIFAR-10 binary folder (checked for the
// layout: file names, sizes, record format), a download of the official archive, or TrainScope's
// generated sample set (the default, so the first run works offline; it is NOT CIFAR-10).
#pragma once
#include <QString>
#include <QStringList>
#include <QWidget>
#include <cstdint>
#include <vector>

#include "engine/network.h"
#include "engine/optim.h"
#include "engine/trainer.h"
#include "runconfig/run_config.h"

class QFormLayout;
class QLayout;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace ts::gui {

class CifarDownload;

/// A run's settings as a value (crosses to the training thread by copy).
struct RunSettings {
  Device device = Device::cpu;
  int cuda_device = 0;
  int epochs = 2;
  std::int64_t batch_size = 128;
  double lr = 1e-3;
  OptimizerType optimizer = OptimizerType::adam;
  double momentum = 0.0;
  double weight_decay = -1.0;  // < 0: the optimizer's default (0, AdamW 0.01)
  int num_workers = 2;
  bool pin_memory = runconfig::RunConfig{}.pin_memory;  // trainscope-run's default: one for both front ends
  bool augment = false;
  bool sync_every_step = false;
  std::uint64_t seed = 0;
  QString data_dir;            // CIFAR-10 binary folder; empty = the generated sample set
  std::int64_t limit_train = 0;  // 0 = all training images
  int cpu_threads = 0;
  AmpMode amp = AmpMode::off;
  int accumulate = 1;          // micro-batches per optimizer step (1 = off)
  bool deterministic = false;
  bool cuda_graphs = true;     // each step one CUDA-graph replay (trainscope-run --cuda-graphs, on by default)
  /// "Simulate a smaller card": cap the allocator at this many GiB (TrainConfig::memory_limit_bytes,
  /// trainscope-run --memory-limit); 0 = off, the real card.
  double memory_limit_gib = 0;
  int checkpoint_every = 0;    // epochs between checkpoints (0 = none)
  QString checkpoint_path;     // file, or folder ending in '/'; empty: default_checkpoint_dir()
  QString resume_path;         // not in the form: Run ▸ Resume from checkpoint… / --resume
  bool record_session = true;  // record a profiling session (*.tsession) of the run
  QString session_path;        // not in the form: the window names it (default_session_dir() + time)
};

/// The run configuration of these settings and model (runconfig/run_config.h; run_settings_config.cpp):
/// the model as its preset's name or inline, log_every the window's (≥ ~10 loss updates per second:
/// every step on the CPU, ~0.1 s per step, every 25 steps on CUDA).
runconfig::RunConfig to_run_config(const RunSettings& s, const ModelSpec& model);
/// The same without the model (c.model stays the default): the knobs alone, to change them through
/// the knob table (runconfig::apply_knob) and take them back with with_run_config.
runconfig::RunConfig to_run_config(const RunSettings& s);
/// `s` with the knobs of `c` (the model aside); what only the window has (record_session,
/// session_path) and the files (checkpoint_path, resume_path) stay s's.
RunSettings with_run_config(RunSettings s, const runconfig::RunConfig& c);

/// The engine's TrainConfig for these settings and model (runconfig::to_train_config of
/// to_run_config; no checkpoint path: default_checkpoint_dir()); its run_config_json is the
/// session's run.config.
TrainConfig to_train_config(const RunSettings& s, const ModelSpec& model);

/// The default checkpoint folder (ends in '/'): <app data>/checkpoints/.
QString default_checkpoint_dir();

/// Where the window records sessions (ends in '/'): <app data>/sessions/.
QString default_session_dir();

/// Why the device cannot run `mode` ("" when it can), in the window's words (engine/cpu_amp.h's
/// reason on the CPU; CUDA runs all).
QString amp_unavailable_reason(Device device, AmpMode mode);
/// The Run settings' one note when the CPU can run no AMP mode, said once: AMP needs a CUDA GPU (no
/// CPU runs AMP in TrainScope yet, so no CPU feature is named as the way to it), runs train in fp32,
/// and — with `cuda_gpu_here` — choose it under Device; without, this machine has none. The
/// per-mode reasons (amp_unavailable_reason) are the AMP items' tooltips.
QString cpu_amp_note(bool cuda_gpu_here);

/// The pin_memory box's tooltip: what page-locking does and its default (RunConfig's, trainscope-run's
/// too: on for CUDA runs, recorded off on the CPU).
QString pin_memory_tooltip();

/// ", pinned" for the status bar where the run page-locks its batches: a CUDA run with pin_memory (a
/// CPU run trains and records it off, runconfig::to_train_config), else "".
QString pinned_status_text(const RunSettings& s);

/// Where the generated sample set lives (the same folder trainscope-run uses).
QString sample_data_dir();

/// RunSettings::memory_limit_gib in bytes (0 when off); the GiB to bytes rule of --memory-limit.
std::int64_t memory_limit_bytes(const RunSettings& s);

class RunSettingsPanel : public QWidget {
  Q_OBJECT
 public:
  /// `devices`: the CUDA GPUs (list_cuda_devices()); `no_gpu_reason` when there is none.
  RunSettingsPanel(const std::vector<DeviceInfo>& devices, const QString& no_gpu_reason, QWidget* parent = nullptr);
  RunSettings settings() const;
  void setSettings(const RunSettings& s);
  /// Sets the dataset folder ("" = sample set) and checks it; returns the problem ("" when fine).
  QString setDataDir(const QString& dir);
  /// "" when the dataset choice is usable, else why not.
  QString dataProblem() const { return data_problem_; }
  void setRunning(bool running);
  CifarDownload* download() const { return download_; }
  /// Why AMP cannot be chosen on the selected device ("" when fp16 or bf16 is available).
  QString ampUnavailableReason() const;
  /// Where downloads go (Preferences); default ~/.cache/trainscope/cifar10.
  void setDownloadDir(const QString& dir) { download_dir_ = dir; }

  // An opened session's settings (run_settings_session.cpp). While a session is shown,
  // the form shows what it was recorded with, read only, under a note naming the session (its
  // device as recorded, also when this machine lacks it); the user's own settings come back with
  // showOwn(). A trace records no TrainScope settings: the note says so and the form stays the
  // user's, editable.
  /// Shows `s` (the session `name`'s recorded settings; `device_text` as the session names its
  /// device, e.g. "CUDA 0: NVIDIA H200") read only.
  void showSession(const RunSettings& s, const QString& name, const QString& device_text);
  /// A shown file that records no run settings (`why`: "a PyTorch trace records no TrainScope run
  /// settings"): the note says so; the form keeps the user's settings, editable.
  void showNoSessionSettings(const QString& name, const QString& why);
  /// The user's own settings again, editable (no note).
  void showOwn();
  bool showingSession() const { return showing_; }

  /// Classroom mode: only the rows of these knobs (lesson knob names: batch_size, num_workers,
  /// pin_memory, amp, ...; weight_decay and record_session too) are shown, the rest hidden, the
  /// Checkpoints box with them; an empty list shows every row again. The dataset stays.
  void setShownKnobs(const QStringList& knobs);
  /// Whether the row of `knob` is shown (true for every knob when no list is set).
  bool knobShown(const QString& knob) const;
  /// The note over the form ("" when hidden).
  QString sessionNote() const;

 signals:
  /// The note's "Run again with these settings" / "Use my settings" buttons.
  void runAgainRequested();
  void ownSettingsRequested();
  void dataChanged(bool usable);
  /// Any knob changed (the status bar follows the form between runs).
  void settingsChanged();

 private:
  QWidget* buildDataBox();
  QWidget* buildPrecisionBox();
  QWidget* buildCheckpointBox();
  void updateAmpChoices();  // and the CUDA-graphs box, which needs a CUDA device too
  static QString cudaGraphsTip();
  void chooseCheckpointPath();
  void chooseFolder();
  void startDownload();
  void updateOptimizerFields();

  QComboBox* device_;
  QSpinBox *batch_size_, *epochs_, *num_workers_, *seed_;
  QDoubleSpinBox *lr_, *momentum_, *weight_decay_;
  QComboBox *optimizer_, *amp_;
  QSpinBox *accumulate_, *checkpoint_every_;
  QDoubleSpinBox* memory_limit_;  // GiB, 0 = off
  struct KnobRow {
    const char* knob;
    QFormLayout* form;
    QWidget* widget;  // the row's field, or
    QLayout* layout;  // the row's field layout (weight decay + its "default" box)
  };
  std::vector<KnobRow> knob_rows_;
  QStringList shown_knobs_;
  QWidget *precision_box_ = nullptr, *checkpoint_box_ = nullptr;
  QCheckBox *deterministic_, *cuda_graphs_;
  bool graphs_wanted_ = true;  // the CUDA-graphs choice, kept while a CPU device greys the box out
  QLabel* amp_reason_;
  QLineEdit* checkpoint_path_;
  QPushButton* checkpoint_browse_;
  QCheckBox *pin_memory_, *augment_, *sync_every_step_, *default_wd_, *record_session_;
  QLineEdit* data_dir_;
  QLabel* data_status_;
  QPushButton *choose_, *download_button_, *sample_, *cancel_;
  QProgressBar* download_progress_;
  CifarDownload* download_;
  QString data_problem_;
  QString download_dir_;
  std::int64_t limit_train_ = 0;  // not in the form: set by --limit-train
  QList<QWidget*> run_controls_;
  QWidget* buildSessionNote();
  void setFormEnabled(bool enabled);
  void showOwnDevice();  // removes the session's device item
  QWidget* note_box_ = nullptr;
  QLabel* note_ = nullptr;
  QPushButton* note_run_again_ = nullptr;
  RunSettings own_;          // the user's settings while a session's are shown
  bool showing_ = false;     // the form shows a session's settings (read only)
  bool running_ = false;
  int session_device_item_ = -1;  // the combo item added for a device this machine lacks
};

}  // namespace ts::gui
