// Setups in the window (docs/setups.md): File ▸ Open setup… / Save setup as… / Copy setup
// line / Paste setup line, a dropped .tsetup file or setup line, and `trainscope SETUP`. A run's
// setup fills the model and Run settings (what this machine cannot take is said in the message bar);
// a lesson's setup is listed in the Lessons window (saved among the user's lessons unless it is a
// built-in one) and selected. A damaged, foreign or newer setup is refused in the message bar with
// the field named, and nothing in the window changes. A setup whose model names a file on this
// computer (a shared line may name any file) is opened only when the user says yes to reading it.
#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QToolBar>

#include "app/gui/main_window.h"
#include "base/errors.h"
#include "setups/setup.h"
#include "widgets/layer_table_model.h"
#include "widgets/lessons/lessons_panel.h"
#include "widgets/model_builder.h"
#include "widgets/run_settings.h"
#include "widgets/setups/setup_knobs.h"
#include "widgets/workspaces/workspaces.h"

namespace ts::gui {

namespace {
QString q(const std::string& s) { return QString::fromStdString(s); }

/// Asks whether the files a setup names may be read (QMessageBox "setup.confirm_files", No by
/// default); true when there are none or the user says Yes.
bool confirm_named_files(QWidget* parent, const std::vector<setups::NamedFile>& files) {
  if (files.empty()) return true;
  QStringList lines;
  for (const auto& f : files) lines << QString("%1: %2").arg(q(f.field), q(f.path));
  QMessageBox box(QMessageBox::Question, QObject::tr("Setup names a file"),
                  QObject::tr("This setup takes its model from a file on this computer:\n%1\n\nA shared setup may "
                              "name any file; read it only if you expected this one.")
                      .arg(lines.join("\n")),
                  QMessageBox::Yes | QMessageBox::No, parent);
  box.setObjectName("setup.confirm_files");
  box.setDefaultButton(QMessageBox::No);
  box.button(QMessageBox::Yes)->setText(QObject::tr("Read the file"));
  return box.exec() == QMessageBox::Yes;
}
}  // namespace

void MainWindow::buildSetupActions(QMenu* file) {
  auto* open = file->addAction(tr("Open &setup…"), this, [this] { chooseSetupToOpen(); });
  open->setObjectName("file.open_setup");
  open->setToolTip(tr("Open a run's or a lesson's setup (*.tsetup, or a text file holding a trainscope: line)"));
  auto* paste = file->addAction(tr("&Paste setup line"), this, [this] { pasteSetupLine(); });
  paste->setObjectName("file.paste_setup");
  paste->setShortcut(QKeySequence(tr("Ctrl+Shift+V")));
  paste->setToolTip(tr("Take the trainscope: line on the clipboard into the window"));
  auto* copy = file->addAction(tr("&Copy setup line"), this, [this] {
    const QString line = setupLine();
    if (line.isEmpty()) return;  // the message bar says why
    QApplication::clipboard()->setText(line);
    statusBar()->showMessage(tr("The setup line of this model and these Run settings (%1 characters) is on the clipboard")
                                 .arg(line.size()), 6000);
  });
  copy->setObjectName("file.copy_setup");
  copy->setShortcut(QKeySequence(tr("Ctrl+Shift+C")));
  copy->setToolTip(tr("Copy this model and these Run settings as one line of text to share (trainscope:…)"));
  auto* save = file->addAction(tr("Sa&ve setup as…"), this, [this] { chooseSetupToSave(); });
  save->setObjectName("file.save_setup");
  save->setToolTip(tr("Save this model and these Run settings as a small setup file (*.tsetup)"));
}

setups::Setup MainWindow::currentSetup() const {
  setups::Setup s;
  // What the Train workspace shows: the user's model and settings, or a shown session's (sharing
  // the setup of a recorded run).
  const RunSettings r = settings_->settings();
  const ModelSpec& model = model_->spec();
  s.knobs = knobs_from_settings(r, model);
  const QString preset = preset_of(model);
  s.title = tr("%1, batch size %2, %3 epoch(s)%4")
                .arg(preset.isEmpty() ? q(model.name) : preset)
                .arg(r.batch_size)
                .arg(r.epochs)
                .arg(r.amp == AmpMode::off ? QString() : tr(", AMP %1").arg(amp_mode_name(r.amp)))
                .toStdString();
  return s;
}

std::optional<setups::Setup> MainWindow::checkedSetup() {
  try {
    setups::Setup s = currentSetup();
    (void)setups::parse_setup(setups::to_json(s), "of this window");  // what a student's window will check
    return s;
  } catch (const Error& e) {
    showMessage(tr("This setup cannot be shared: %1").arg(QString::fromUtf8(e.what())), true);
    return std::nullopt;
  }
}

QString MainWindow::setupLine() {
  const auto s = checkedSetup();
  return s ? q(setups::to_line(*s)) : QString();
}

bool MainWindow::saveSetupAs(const QString& path) {
  const auto s = checkedSetup();
  if (!s) return false;
  try {
    setups::write_setup_file(path.toStdString(), *s);
  } catch (const Error& e) {
    showMessage(QString::fromUtf8(e.what()), true);
    return false;
  }
  statusBar()->showMessage(tr("Setup saved to %1").arg(path), 6000);
  return true;
}

void MainWindow::chooseSetupToSave() {
  QString path = QFileDialog::getSaveFileName(this, tr("Save setup"), QDir::homePath() + "/run.tsetup",
                                              tr("Setups (*.tsetup);;All files (*)"));
  if (path.isEmpty()) return;
  if (!path.contains('.')) path += ".tsetup";
  saveSetupAs(path);
}

void MainWindow::chooseSetupToOpen() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open setup"), QDir::homePath(),
                                                    tr("Setups (*.tsetup *.txt *.json);;All files (*)"));
  if (!path.isEmpty()) openSetup(path);
}

void MainWindow::pasteSetupLine() {
  const QString text = QApplication::clipboard()->text();
  if (!setups::is_setup_line(text.toStdString())) {
    showMessage(tr("The clipboard holds no setup line (one starts with \"trainscope:\")"), true);
    return;
  }
  openSetup(text);
}

bool MainWindow::openSetup(const QString& line_or_path) {
  if (running_) {
    showMessage(tr("A run is going: stop it before opening a setup"), true);
    return false;
  }
  try {
    const setups::Setup s = setups::read_setup(line_or_path.trimmed().toStdString());
    if (!confirm_named_files(this, setups::named_files(s, &is_preset_name))) {
      showMessage(tr("Setup not opened: it names a file on this computer, and reading it was declined"), true);
      return false;
    }
    if (s.is_lesson()) takeLessonSetup(*s.lesson);
    else takeRunSetup(s);
  } catch (const Error& e) {  // nothing changed: the form and the model are as they were
    showMessage(QString::fromUtf8(e.what()), true);
    return false;
  }
  emit setupOpened();
  return true;
}

void MainWindow::takeRunSetup(const setups::Setup& s) {
  if (settings_->showingSession()) showOwnSettings();
  TakenSetup t = take_setup(s.knobs, settings_->settings(), !gpus_.empty());  // throws before anything changes
  const std::string model = s.knob("model");
  if (t.model) {
    if (!is_preset_name(model) || !model_->loadPreset(q(model))) model_->model()->setSpec(*t.model);
  }
  settings_->setSettings(t.settings);
  workspaces_->setMode(workspaces_->mode() == Workspaces::Mode::profile || workspaces_->mode() == Workspaces::Mode::playground
                           ? Workspaces::Mode::train
                           : workspaces_->mode());
  if (t.notes.isEmpty()) {
    message_bar_->hide();
    statusBar()->showMessage(s.title.empty() ? tr("Setup loaded: press Start to run it")
                                             : tr("Setup \"%1\" loaded: press Start to run it").arg(q(s.title)), 8000);
  } else {
    showMessage(tr("Setup loaded, with changes: %1").arg(t.notes.join(" · ")), false);  // fits 1280 px
  }
  updateActions();
}

void MainWindow::takeLessonSetup(const lessons::Lesson& l) {
  LessonsPanel* panel = showLessonsPanel();
  for (const auto& b : lessons::builtin_lessons())
    if (b == l) {  // a built-in lesson, shared: nothing to keep
      panel->select(q(l.name));
      statusBar()->showMessage(tr("Lesson \"%1\" (built in) is selected in the Lessons window").arg(q(l.title)), 8000);
      return;
    }
  const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/lessons";
  QDir().mkpath(dir);
  const QString path = dir + "/" + q(l.name) + ".json";
  QFile f(path);
  const QByteArray json = QByteArray::fromStdString(lessons::to_json(l) + "\n");
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(json) != json.size())
    throw InputError("setup: the lesson could not be saved to " + path.toStdString());
  f.close();
  QString error;
  if (!panel->addLessonFile(path, &error)) throw InputError(error.toStdString());
  message_bar_->hide();
  statusBar()->showMessage(tr("Lesson \"%1\" is in the Lessons window, among yours").arg(q(l.title)), 8000);
}

}  // namespace ts::gui
