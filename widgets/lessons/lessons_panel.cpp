// LessonsPanel (lessons_panel.h).
#include "widgets/lessons/lessons_panel.h"

#include <QApplication>
#include <QClipboard>
#include <QDateTime>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QVBoxLayout>

#include "base/errors.h"
#include "doctor/host.h"
#include "lessons/lesson_where.h"
#include "setups/setup.h"
#include "widgets/lessons/lesson_runner.h"
#include "widgets/training/run_settings.h"
#include "widgets/setups/setup_knobs.h"

namespace ts::gui {

namespace {
QString q(const std::string& s) { return QString::fromStdString(s); }
constexpr const char* kFilesKey = "lessons/files";
}  // namespace

QString LessonsPanel::lessonFolder(const QString& name) {
  return default_session_dir() + "lessons/" + name + "-" + QDateTime::currentDateTime().toString("yyyyMMdd-hhmmss");
}

LessonsPanel::LessonsPanel(QWidget* parent) : QWidget(parent), runner_(new LessonRunner(this)) {
  setWindowTitle(tr("Lessons — TrainScope"));
  list_ = new QListWidget;
  list_->setObjectName("lessonList");
  list_->setWordWrap(true);
  list_->setTextElideMode(Qt::ElideNone);
  list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  title_ = new QLabel;
  title_->setWordWrap(true);
  title_->setTextFormat(Qt::RichText);
  details_ = new QLabel;
  details_->setWordWrap(true);
  details_->setTextFormat(Qt::RichText);
  details_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  status_ = new QLabel;
  status_->setWordWrap(true);
  run_ = new QPushButton(tr("Run lesson"));
  run_->setToolTip(tr("Train the lesson's runs here and compare them; without the device a run needs, open its recording"));
  recording_ = new QPushButton(tr("Open recording"));
  recording_->setToolTip(tr("Show the lesson as recorded on the H200, without training"));
  copy_ = new QPushButton(tr("Copy as a line"));
  copy_->setObjectName("lessons.copy_line");
  copy_->setToolTip(tr("Copy the lesson as one line of text (trainscope:…) that students paste into TrainScope "
                       "(File ▸ Paste setup line) to get the same lesson"));
  add_ = new QPushButton(tr("Add lesson file…"));
  remove_ = new QPushButton(tr("Remove"));
  remove_->setToolTip(tr("Take your own lesson off the list (the file stays)"));
  cancel_ = new QPushButton(tr("Cancel"));
  progress_ = new QProgressBar;
  progress_->setTextVisible(true);
  auto* right = new QWidget;
  auto* col = new QVBoxLayout(right);
  col->addWidget(title_);
  // The description scrolls in its place: at classroom mode's font in a 900x560 window its last
  // paragraph was cut under the buttons with no way to reach it.
  auto* details_area = new QScrollArea;
  details_area->setObjectName("lessons.details_scroll");
  details_area->setWidget(details_);
  details_area->setWidgetResizable(true);
  details_area->setFrameShape(QFrame::NoFrame);
  details_area->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  col->addWidget(details_area, 1);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(run_);
  buttons->addWidget(recording_);
  buttons->addWidget(copy_);
  buttons->addStretch();
  col->addLayout(buttons);
  auto* busy = new QHBoxLayout;
  busy->addWidget(progress_, 1);
  busy->addWidget(cancel_);
  col->addLayout(busy);
  col->addWidget(status_);
  auto* left = new QWidget;
  auto* lcol = new QVBoxLayout(left);
  lcol->setContentsMargins(0, 0, 0, 0);
  lcol->addWidget(list_, 1);
  auto* lbuttons = new QHBoxLayout;
  lbuttons->addWidget(add_);
  lbuttons->addWidget(remove_);
  lcol->addLayout(lbuttons);
  auto* split = new QSplitter;
  split->addWidget(left);
  split->addWidget(right);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  split->setSizes({360, 540});
  auto* outer = new QVBoxLayout(this);
  outer->addWidget(split);
  setBusy(false);
  rebuildList();
  connect(list_, &QListWidget::currentRowChanged, this, &LessonsPanel::showSelected);
  connect(run_, &QPushButton::clicked, this, [this] { emit runRequested(false); });
  connect(recording_, &QPushButton::clicked, this, [this] { emit runRequested(true); });
  connect(copy_, &QPushButton::clicked, this, [this] {
    const QString line = selectedLine();
    if (line.isEmpty()) return;
    QApplication::clipboard()->setText(line);
    status_->setText(tr("The lesson's line (%1 characters) is on the clipboard").arg(line.size()));
  });
  connect(add_, &QPushButton::clicked, this, &LessonsPanel::addFileDialog);
  connect(remove_, &QPushButton::clicked, this, &LessonsPanel::removeSelected);
  connect(cancel_, &QPushButton::clicked, this, &LessonsPanel::cancel);
  connect(runner_, &LessonRunner::progress, this, [this](int i, int n, const QString& text) {
    progress_->setRange(0, n);
    progress_->setValue(i);
    progress_->setFormat(text);
    status_->setText(text);
  });
  connect(runner_, &LessonRunner::finished, this, [this](const QString& dir, bool, const QString& note) {
    setBusy(false);
    status_->setText(note.isEmpty() ? tr("Trained into %1").arg(dir) : note);
    emit lessonReady(dir, note);
  });
  connect(runner_, &LessonRunner::failed, this, [this](const QString& msg, bool) {
    setBusy(false);
    status_->setText(msg);
  });
  if (list_->count() > 0) list_->setCurrentRow(0);
}

void LessonsPanel::rebuildList() {
  entries_.clear();
  for (const auto& l : lessons::builtin_lessons()) entries_.push_back({l, q(l.name), true});
  QStringList kept;
  for (const QString& path : QSettings().value(kFilesKey).toStringList()) {
    try {
      entries_.push_back({lessons::load_lesson_file(path.toStdString()), path, false});
      kept << path;
    } catch (const Error& e) {
      status_->setText(QString::fromUtf8(e.what()));  // moved or broken since: left off the list
    }
  }
  QSettings().setValue(kFilesKey, kept);
  list_->clear();
  for (std::size_t i = 0; i < entries_.size(); ++i)
    list_->addItem((entries_[i].builtin ? QString::number(i + 1) + ". " : tr("Yours: ")) + q(entries_[i].lesson.title));
}

int LessonsPanel::current() const { return list_->currentRow(); }

QString LessonsPanel::selectedLine() {
  const int i = current();
  if (i < 0) return {};
  setups::Setup s;
  s.lesson = entries_[static_cast<std::size_t>(i)].lesson;
  s.title = s.lesson->title;
  try {  // a model knob naming a spec file travels inline
    return QString::fromStdString(setups::to_line(setups::portable(s, [](const std::string& n) { return is_preset_name(n); })));
  } catch (const Error& e) {
    status_->setText(QString::fromUtf8(e.what()));
    return {};
  }
}

bool LessonsPanel::select(const QString& name) {
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (q(entries_[i].lesson.name) == name) {
      list_->setCurrentRow(static_cast<int>(i));
      return true;
    }
  return false;
}

void LessonsPanel::showSelected() {
  const int i = current();
  remove_->setEnabled(i >= 0 && !entries_[static_cast<std::size_t>(i)].builtin && !runner_->running());
  if (i < 0) return;
  const Entry& e = entries_[static_cast<std::size_t>(i)];
  title_->setText("<span style='font-size:large; font-weight:bold'>" + q(e.lesson.title).toHtmlEscaped() + "</span>");
  QStringList runs, devices;
  for (const auto& r : e.lesson.runs) runs << q(r.label).toHtmlEscaped();
  for (const auto& d : e.lesson.devices()) devices << (d == "cuda" ? tr("a GPU (CUDA)") : tr("the CPU backend"));
  std::string why;
  const bool runs_here = lessons::can_run_here(e.lesson, {}, &why);
  why = doctor::plain_gpu_reason(why);
  const bool recorded = !lessons::find_recording("", e.lesson).empty();
  recording_->setEnabled(recorded && !runner_->running());
  const QString here =
      runs_here ? tr("This machine has what it needs: Run lesson trains it here (seconds to a minute).")
      : recorded
          ? tr("Not here: %1. Run lesson opens its recording.").arg(QString::fromStdString(why).toHtmlEscaped())
          : tr("Not here: %1, and this machine has no recording of it: run it where its devices are "
               "(trainscope-run --lesson FILE).")
                .arg(QString::fromStdString(why).toHtmlEscaped());
  QString story = "<p>" + here + "</p>";
  for (const auto& p : e.lesson.story) story += "<p>" + q(p).toHtmlEscaped() + "</p>";
  details_->setText(tr("<p><b>Runs:</b> %1</p><p><b>Needs:</b> %2</p>%3<p><i>%4</i></p>")
                        .arg(runs.join(" → "), devices.join(tr(" and ")), story,
                             e.builtin ? tr("Built-in lesson") : tr("Your lesson: %1").arg(e.source.toHtmlEscaped())));
}

bool LessonsPanel::addLessonFile(const QString& path, QString* error) {
  try {
    const lessons::Lesson l = lessons::load_lesson_file(path.toStdString());
    QStringList files = QSettings().value(kFilesKey).toStringList();
    if (!files.contains(path)) files << path;
    QSettings().setValue(kFilesKey, files);
    rebuildList();
    // The added file, also when a built-in (or another file) has its name.
    for (std::size_t i = 0; i < entries_.size(); ++i)
      if (!entries_[i].builtin && entries_[i].source == path) list_->setCurrentRow(static_cast<int>(i));
    status_->setText(tr("Added %1").arg(path));
    return true;
  } catch (const Error& e) {
    const QString msg = QString::fromUtf8(e.what());
    status_->setText(msg);
    if (error) *error = msg;
    return false;
  }
}

void LessonsPanel::addFileDialog() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Add lesson file"), QString(), tr("Lessons (*.json);;All files (*)"));
  if (!path.isEmpty()) addLessonFile(path);
}

void LessonsPanel::removeSelected() {
  const int i = current();
  if (i < 0 || entries_[static_cast<std::size_t>(i)].builtin) return;
  QStringList files = QSettings().value(kFilesKey).toStringList();
  files.removeAll(entries_[static_cast<std::size_t>(i)].source);
  QSettings().setValue(kFilesKey, files);
  rebuildList();
}

void LessonsPanel::runSelected(const QString& data_dir, bool recorded_only) {
  const int i = current();
  if (i < 0 || runner_->running()) return;
  const Entry& e = entries_[static_cast<std::size_t>(i)];
  setBusy(true);
  progress_->setRange(0, 0);
  if (!runner_->start(e.lesson, e.source, data_dir, lessonFolder(q(e.lesson.name)), recorded_only)) setBusy(false);
}

void LessonsPanel::cancel() {
  runner_->cancel();
  status_->setText(tr("Cancelling… (the run stops at its next step)"));
}

void LessonsPanel::setBusy(bool busy) {
  run_->setEnabled(!busy);
  recording_->setEnabled(!busy);
  add_->setEnabled(!busy);
  list_->setEnabled(!busy);
  cancel_->setVisible(busy);
  progress_->setVisible(busy);
  if (!busy) showSelected();
}

QString LessonsPanel::statusText() const { return status_->text(); }

}  // namespace ts::gui
