// PlaygroundWorkspace (playground_workspace.h): the family list, the knobs and their checks, Run and
// what happens without a GPU. The views, sessions and compare are in playground_views.cpp.
#include "widgets/playground/playground_workspace.h"

#include <QCheckBox>
#include <QDateTime>
#include <QDir>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStandardPaths>
#include <QShowEvent>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "base/errors.h"
#include "playground/knobs.h"
#include "playground/ladder.h"
#include "lessons/session_pack.h"
#include "widgets/common/text_colour.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/playground/playground_runner.h"

namespace ts::gui {

namespace {
/// The family list's groups, in the order of the CUDA chapter (docs/playground.md "Families").
struct Group {
  const char* title;
  std::vector<const char*> families;
};
const std::vector<Group>& groups() {
  static const std::vector<Group> g = {{"First kernel", {"vector_add"}},
                                       {"Memory", {"copy", "stride", "transpose"}},
                                       {"Reduction", {"reduction"}},
                                       {"GEMM", {"sgemm", "tensor"}},
                                       {"Warps", {"divergence", "occupancy"}}};
  return g;
}

QLabel* note_label(const QString& object_name) {
  auto* l = new QLabel;
  l->setObjectName(object_name);
  l->setWordWrap(true);
  return l;
}
}  // namespace

PlaygroundWorkspace::PlaygroundWorkspace(bool gpu, const QString& no_gpu_reason, QWidget* parent)
    : QWidget(parent),
      gpu_(gpu),
      no_gpu_reason_(no_gpu_reason),
      hub_(new PanelHub(this)),
      runner_(new PlaygroundRunner(this)) {
  setObjectName("workspace.playground");
  auto* split = new QSplitter(Qt::Horizontal);
  split->setObjectName("playground.split");
  split->addWidget(buildControls());
  split->addWidget(buildViews());
  split->setStretchFactor(0, 0);
  split->setStretchFactor(1, 1);
  split->setChildrenCollapsible(false);
  split->setSizes({250, 1030});
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(0, 0, 0, 0);
  lay->addWidget(split);
  // The runner prints its ladders at the end: the status ticks each second with the elapsed time
  // and the last line it printed (the command line at first).
  auto* tick = new QTimer(this);
  tick->setInterval(1000);
  auto show_progress = [this] {
    setStatus(
        tr("Running %1 on the GPU, %2 s: %3").arg(family_).arg(runner_->seconds(), 0, 'f', 0).arg(runner_->lastLine()),
        false);
  };
  connect(tick, &QTimer::timeout, this, show_progress);
  connect(runner_, &PlaygroundRunner::progress, this, show_progress);
  connect(runner_, &PlaygroundRunner::progress, tick, qOverload<>(&QTimer::start));
  connect(runner_, &PlaygroundRunner::finished, tick, &QTimer::stop);
  connect(runner_, &PlaygroundRunner::failed, tick, &QTimer::stop);
  connect(runner_, &PlaygroundRunner::finished, this, &PlaygroundWorkspace::runFinished);
  connect(runner_, &PlaygroundRunner::failed, this, &PlaygroundWorkspace::runFailed);
  fillFamilies();
  selectFamily("sgemm");
  if (!gpu_) {
    banner_->setText(
        tr("No usable GPU here: Run needs one. Open the recording (an H200's run) or any playground "
           "session; every kernel's source is shown."));
    banner_->setToolTip(no_gpu_reason_);
    banner_->show();
  }
}

PlaygroundWorkspace::~PlaygroundWorkspace() = default;

void PlaygroundWorkspace::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (gpu_ || recording_opened_once_ || !shown_.isEmpty()) return;
  recording_opened_once_ = true;
  // After the show: opening decompresses and reads the recording (~0.1 s).
  QTimer::singleShot(0, this, [this] {
    if (shown_.isEmpty()) openRecording();
  });
}

QWidget* PlaygroundWorkspace::buildControls() {
  auto* box = new QWidget;
  box->setObjectName("playground.controls");
  box->setMinimumWidth(240);
  box->setMaximumWidth(420);
  auto* col = new QVBoxLayout(box);
  banner_ = note_label("playground.banner");
  // Colours by palette, not a style sheet, so that the note keeps the application font (classroom mode).
  set_background(banner_, QColor(0xff, 0xf4, 0xd6));
  banner_->setFrameShape(QFrame::Box);
  banner_->setMargin(4);
  banner_->hide();
  col->addWidget(banner_);
  families_ = new QTreeWidget;
  families_->setObjectName("playground.families");
  families_->setHeaderHidden(true);
  families_->setRootIsDecorated(false);
  families_->setMinimumHeight(120);
  col->addWidget(families_, 1);
  col->addWidget(buildKnobs());
  auto* row = new QHBoxLayout;
  run_button_ = new QPushButton(tr("Run"));
  run_button_->setObjectName("playground.run");
  run_button_->setToolTip(
      tr("Run this family on this machine's GPU (trainscope-run --playground) and open its session"));
  cancel_button_ = new QPushButton(tr("Cancel"));
  cancel_button_->setEnabled(false);
  row->addWidget(run_button_);
  row->addWidget(cancel_button_);
  col->addLayout(row);
  progress_ = new QProgressBar;
  progress_->setRange(0, 0);
  progress_->hide();
  col->addWidget(progress_);
  status_ = note_label("playground.status");
  col->addWidget(status_);
  auto* files = new QGridLayout;
  recording_button_ = new QPushButton(tr("Open recording"));
  recording_button_->setObjectName("playground.open_recording");
  recording_button_->setToolTip(tr("The playground as recorded on an NVIDIA H200 (no GPU needed)"));
  auto* open = new QPushButton(tr("Open…"));
  open->setToolTip(tr("Open a playground session (trainscope-run --playground … --session FILE)"));
  save_button_ = new QPushButton(tr("Save as…"));
  save_button_->setEnabled(false);
  compare_button_ = new QPushButton(tr("Compare…"));
  compare_button_->setToolTip(
      tr("Compare the shown session with another playground session (two cards, or two launches)"));
  compare_button_->setEnabled(false);
  files->addWidget(recording_button_, 0, 0);
  files->addWidget(open, 0, 1);
  files->addWidget(save_button_, 1, 0);
  files->addWidget(compare_button_, 1, 1);
  col->addLayout(files);
  session_label_ = note_label("playground.session");
  col->addWidget(session_label_);
  connect(run_button_, &QPushButton::clicked, this, &PlaygroundWorkspace::run);
  connect(cancel_button_, &QPushButton::clicked, runner_, &PlaygroundRunner::cancel);
  connect(recording_button_, &QPushButton::clicked, this, &PlaygroundWorkspace::openRecording);
  connect(open, &QPushButton::clicked, this, &PlaygroundWorkspace::chooseSession);
  connect(save_button_, &QPushButton::clicked, this, &PlaygroundWorkspace::chooseSave);
  connect(compare_button_, &QPushButton::clicked, this, &PlaygroundWorkspace::chooseCompare);
  return box;
}

QWidget* PlaygroundWorkspace::buildKnobs() {
  auto* box = new QWidget;
  auto* col = new QVBoxLayout(box);
  col->setContentsMargins(0, 0, 0, 0);
  auto* form = new QFormLayout;
  auto edit = [this](const char* name) {
    auto* e = new QLineEdit;
    e->setObjectName(name);
    connect(e, &QLineEdit::textEdited, this, &PlaygroundWorkspace::updateKnobs);
    return e;
  };
  family_title_ = note_label("playground.family_title");
  QFont bold = family_title_->font();
  bold.setBold(true);
  family_title_->setFont(bold);
  col->addWidget(family_title_);
  size_ = edit("playground.size");
  form->addRow(tr("Size"), size_);
  col->addLayout(form);
  size_rule_ = note_label("playground.size_rule");
  col->addWidget(size_rule_);
  launch_box_ = new QWidget;
  auto* launch = new QFormLayout(launch_box_);
  launch->setContentsMargins(0, 0, 0, 0);
  threads_ = edit("playground.threads");
  threads_->setText("256");
  blocks_ = edit("playground.blocks");
  blocks_->setText("0");
  blocks_->setToolTip(tr("0: one element per thread"));
  launch->addRow(tr("Threads per block"), threads_);
  blocks_label_ = new QLabel(tr("Blocks per grid"));
  launch->addRow(blocks_label_, blocks_);
  col->addWidget(launch_box_);
  occupancy_box_ = new QWidget;
  auto* occ = new QFormLayout(occupancy_box_);
  occ->setContentsMargins(0, 0, 0, 0);
  registers_ = edit("playground.registers");
  registers_->setText("32");
  smem_ = edit("playground.smem");
  smem_->setText("0");
  occ->addRow(tr("Registers / thread"), registers_);
  occ->addRow(tr("Shared memory (KiB)"), smem_);
  occupancy_ = note_label("playground.occupancy");
  occ->addRow(occupancy_);
  col->addWidget(occupancy_box_);
  knob_note_ = note_label("playground.knob_note");
  knob_note_->setForegroundRole(QPalette::PlaceholderText);
  col->addWidget(knob_note_);
  knob_error_ = note_label("playground.knob_error");
  set_text_colour(knob_error_, QColor(0xb0, 0x1e, 0x1e));
  col->addWidget(knob_error_);
  measure_ = new QCheckBox(tr("Measure with the GPU's counters"));
  measure_->setObjectName("playground.measure");
  measure_->setToolTip(tr("Each row runs once more under CUPTI's range profiler: achieved occupancy, SM and DRAM "
                          "throughput and DRAM GB/s beside the estimated figures (trainscope-run --measure)"));
  col->addWidget(measure_);
  return box;
}

void PlaygroundWorkspace::fillFamilies() {
  for (const Group& g : groups()) {
    auto* top = new QTreeWidgetItem(families_, {tr(g.title)});
    top->setFlags(Qt::ItemIsEnabled);
    QFont f = top->font(0);
    f.setBold(true);
    top->setFont(0, f);
    for (const char* name : g.families) {
      const auto& info = playground::family(name);
      auto* it = new QTreeWidgetItem(top, {QString(name)});
      it->setData(0, Qt::UserRole, QString(name));
      it->setToolTip(0, QString::fromUtf8(info.title));
    }
  }
  families_->expandAll();
  connect(families_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* it) {
    if (it && !it->data(0, Qt::UserRole).toString().isEmpty()) selectFamily(it->data(0, Qt::UserRole).toString());
  });
}

bool PlaygroundWorkspace::selectFamily(const QString& name) {
  const playground::FamilyInfo* info = nullptr;
  for (const auto& f : playground::families())
    if (name == f.name) info = &f;
  if (!info) return false;
  const bool changed = family_ != name;
  family_ = name;
  for (QTreeWidgetItemIterator it(families_); *it; ++it)
    if ((*it)->data(0, Qt::UserRole).toString() == name && families_->currentItem() != *it)
      families_->setCurrentItem(*it);
  if (changed) size_->setText(QString::number(info->default_size));
  family_title_->setText(QString("%1: %2").arg(name, QString::fromUtf8(info->title)));
  size_rule_->setText(tr("%1; a multiple of %2 in [%3, %4] (default %5)")
                          .arg(QString::fromUtf8(info->size_what))
                          .arg(info->multiple_of)
                          .arg(info->min_size)
                          .arg(info->max_size)
                          .arg(info->default_size));
  launch_box_->setVisible(name == "vector_add" || name == "occupancy");
  blocks_->setVisible(name == "vector_add");
  blocks_label_->setVisible(name == "vector_add");
  occupancy_box_->setVisible(name == "occupancy");
  knob_note_->setText(name == "vector_add" ? tr("Your launch is the ladder's last row, beside three fixed launches.")
                      : name == "occupancy"
                          ? tr("The ladder runs fixed configurations (block sizes, shared memory, __launch_bounds__); "
                               "these three knobs drive the occupancy calculator (cc 9.0 rules) beside it.")
                          : tr("Launches fixed by the kernels: each row's is in its tooltip and on the timeline."));
  updateKnobs();
  showLadderOf(name);
  return true;
}

QString PlaygroundWorkspace::knobError() const {
  try {
    bool ok = false;
    const qlonglong size = size_->text().trimmed().toLongLong(&ok);
    if (!ok) throw InputError("size '" + size_->text().toStdString() + "': a whole number");
    playground::check_size(playground::family(family_.toStdString()), size);  // 0: the default
    if (family_ == "vector_add") {
      const int t = threads_->text().trimmed().toInt(&ok);
      if (!ok) throw InputError("threads per block '" + threads_->text().toStdString() + "': a whole number");
      playground::check_threads_per_block(t);
      const qlonglong b = blocks_->text().trimmed().toLongLong(&ok);
      if (!ok) throw InputError("blocks per grid '" + blocks_->text().toStdString() + "': a whole number");
      playground::check_blocks_per_grid(b);
    }
    if (family_ == "occupancy") {
      playground::LaunchKnobs k;
      k.threads_per_block = threads_->text().trimmed().toInt(&ok);
      bool ok_r = false, ok_s = false;
      k.registers = registers_->text().trimmed().toInt(&ok_r);
      const double kib = smem_->text().trimmed().toDouble(&ok_s);
      if (!ok_r || !ok_s) throw InputError("registers and shared memory: numbers");
      k.smem_bytes = static_cast<std::int64_t>(kib * 1024);
      if (ok) playground::check_launch_knobs(playground::sm90_limits(), k);
    }
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what()).replace("--size", "size");
  }
  return {};
}

void PlaygroundWorkspace::updateKnobs() {
  const QString err = knobError();
  knob_error_->setText(err.isEmpty() ? QString() : tr("Refused: %1").arg(err));
  knob_error_->setVisible(!err.isEmpty());
  run_button_->setEnabled(!runner_->running());
  if (family_ == "occupancy") {
    if (!err.isEmpty()) {
      occupancy_->setText(QString());
    } else {
      playground::LaunchKnobs k{threads_->text().toInt(), registers_->text().toInt(),
                                static_cast<std::int64_t>(smem_->text().toDouble() * 1024)};
      occupancy_->setText(QString::fromStdString(playground::occupancy_text(playground::sm90_limits(), k)));
    }
  }
}

bool PlaygroundWorkspace::run() {
  if (runner_->running()) return false;
  const QString err = knobError();
  if (!err.isEmpty()) {
    setStatus(tr("Refused: %1").arg(err), true);
    return false;
  }
  if (!gpu_) {
    offerRecording(tr("No usable GPU here (%1): the playground's kernels need one.").arg(no_gpu_reason_));
    return false;
  }
  QStringList args{"--size", size_->text().trimmed()};
  if (family_ == "vector_add")
    args << "--threads-per-block" << threads_->text().trimmed() << "--blocks-per-grid" << blocks_->text().trimmed();
  if (measure_->isChecked()) args << "--measure";
  const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) + "/playground";
  QDir().mkpath(dir);
  const QString out =
      dir + QString("/%1-%2.tsession").arg(family_, QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss"));
  if (!runner_->start(family_, args, out)) return false;
  progress_->show();
  cancel_button_->setEnabled(true);
  run_button_->setEnabled(false);
  return true;
}

void PlaygroundWorkspace::runFinished(const QString& session, int code) {
  progress_->hide();
  cancel_button_->setEnabled(false);
  run_button_->setEnabled(true);
  if (openSession(session) && code == 1)
    setStatus(tr("Run finished: a check FAILED (its row is red, with no time). Session: %1").arg(session), true);
  else if (code == 0)
    setStatus(tr("Run finished, every check passed. Session: %1").arg(session), false);
}

void PlaygroundWorkspace::runFailed(const QString& message, bool no_gpu) {
  progress_->hide();
  cancel_button_->setEnabled(false);
  run_button_->setEnabled(true);
  if (no_gpu)
    offerRecording(tr("The runner found no GPU (%1).").arg(message));
  else
    setStatus(tr("Run failed: %1").arg(message), true);
}

void PlaygroundWorkspace::offerRecording(const QString& why) {
  recording_offered_ = true;
  QString tried;
  const QString rec = playground_recording(&tried);
  recording_button_->setEnabled(!rec.isEmpty());
  recording_button_->setDefault(!rec.isEmpty());
  recording_button_->setFocus();
  setStatus(rec.isEmpty() ? why + tr(" No recording was found either (looked in %1).").arg(tried)
                          : why + tr(" Open the recording to see the ladders as an H200 ran them."),
            true);
}

void PlaygroundWorkspace::setStatus(const QString& text, bool error) {
  status_->setText(text);
  set_text_colour(status_, error ? QColor(0xb0, 0x1e, 0x1e) : QColor());
}

QString PlaygroundWorkspace::statusText() const {
  return status_->text();
}

}  // namespace ts::gui
