// ProgramDialog (see program_dialog.h).
#include "widgets/program/program_dialog.h"

#include <algorithm>

#include <QComboBox>
#include <QDir>
#include <QStandardPaths>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "widgets/common/text_colour.h"

namespace ts::gui {

ProgramDialog::ProgramDialog(const ProgramSpec& initial, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Profile a program"));
  setObjectName("programDialog");
  command_ = new QLineEdit(initial.command_line);
  command_->setPlaceholderText(tr("python3 train.py --epochs 1"));
  command_->setToolTip(tr("The program and its arguments, as on a terminal ('single' and \"double\" quotes group "
                          "words; no $VARIABLES or globs). TrainScope records its CUDA kernels, copies, syncs and "
                          "NVTX ranges (any CUDA program: PyTorch scripts included)."));
  dir_ = new QLineEdit(initial.working_dir);
  dir_->setPlaceholderText(tr("the current folder"));
  auto* browse = new QPushButton(tr("Browse…"));
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString d = QFileDialog::getExistingDirectory(this, tr("Working folder"), dir_->text());
    if (!d.isEmpty()) dir_->setText(d);
  });
  auto* dir_row = new QHBoxLayout;
  dir_row->addWidget(dir_, 1);
  dir_row->addWidget(browse);
  env_ = new QPlainTextEdit(initial.env.join('\n'));
  env_->setPlaceholderText(tr("CUDA_VISIBLE_DEVICES=0\n(one KEY=VALUE per line, added to this environment)"));
  env_->setMaximumHeight(80);
  steps_ = new QLineEdit(initial.step_range);
  steps_->setToolTip(tr("Steps: ProfilerStep#N when the program uses torch.profiler, else NVTX ranges whose name "
                        "matches this pattern (e.g. torch.cuda.nvtx.range_push('step')), else one-second windows"));
  mode_ = new QComboBox;
  mode_->addItem(tr("lean (default: kernels, copies, syncs, NVTX; memory from NVML)"), "lean");
  mode_->addItem(tr("full (also every runtime call and allocation: launch-bound verdicts; slower)"), "full");
  mode_->addItem(tr("nvtx (NVTX ranges only: leaves CUPTI to the program's own torch.profiler)"), "nvtx");
  mode_->setCurrentIndex(std::max(0, mode_->findData(initial.inject_mode)));
  python_ = new QComboBox;
  python_->setObjectName("programDialog.python");
  python_->addItem(tr("lean (default: steps at optimizer.step, data and phases, sync lines; stacks at 100 Hz)"), "lean");
  python_->addItem(tr("full (also every module's forward: time per layer; stacks at 250 Hz)"), "full");
  python_->addItem(tr("off (PYTHONPATH left as it is)"), "off");
  python_->setCurrentIndex(std::max(0, python_->findData(initial.python)));
  python_->setToolTip(tr("trainscope-run --python: a Python program is instrumented with no code changes (a "
                         "sitecustomize first on PYTHONPATH); its stack samples fill the Profile workspace's "
                         "Python tab (docs/profile-a-program.md, Python insight)"));
  session_ = new QLineEdit(initial.session);
  session_->setPlaceholderText(tr("a new file in %1")
                                   .arg(QDir::toNativeSeparators(
                                       QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/sessions")));
  auto* form = new QFormLayout;
  form->addRow(tr("Command line:"), command_);
  form->addRow(tr("Working folder:"), dir_row);
  form->addRow(tr("Environment:"), env_);
  form->addRow(tr("Step ranges:"), steps_);
  form->addRow(tr("Record:"), mode_);
  form->addRow(tr("Python insight:"), python_);
  form->addRow(tr("Session file:"), session_);
  problem_ = new QLabel;
  problem_->setObjectName("programDialog.problem");
  set_text_colour(problem_, QColor(0xc6, 0x28, 0x28));
  problem_->setWordWrap(true);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Run and follow"));
  connect(buttons, &QDialogButtonBox::accepted, this, &ProgramDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* lay = new QVBoxLayout(this);
  lay->addLayout(form);
  lay->addWidget(problem_);
  lay->addWidget(buttons);
  resize(640, sizeHint().height());
}

ProgramSpec ProgramDialog::spec() const {
  ProgramSpec s;
  s.command_line = command_->text().trimmed();
  s.working_dir = dir_->text().trimmed();
  for (const QString& line : env_->toPlainText().split('\n'))
    if (!line.trimmed().isEmpty()) s.env << line.trimmed();
  s.step_range = steps_->text().trimmed().isEmpty() ? QString("step") : steps_->text().trimmed();
  s.inject_mode = mode_->currentData().toString();
  s.python = python_->currentData().toString();
  s.session = session_->text().trimmed();
  return s;
}

QString ProgramDialog::problem() const { return problem_->text(); }

void ProgramDialog::accept() {
  const QString why = check_program_spec(spec());
  problem_->setText(why);
  if (why.isEmpty()) QDialog::accept();
}

}  // namespace ts::gui
