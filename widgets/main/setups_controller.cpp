// SetupsController: setups in the window (docs/setups.md): File ▸ Open setup… / Save setup as… / Copy setup
// line / Paste setup line, a dropped .tsetup file or setup line, and `trainscope SETUP`. A run's
// setup fills the model and Run settings (what this machine cannot take is said in the message bar);
// a lesson's setup is listed in the Lessons window (saved among the user's lessons unless it is a
// built-in one) and selected. A damaged, foreign or newer setup is refused in the message bar with
// the field named, and nothing in the window changes. A setup whose model names a file on this
// computer (a shared line may name any file) is opened only when the user says yes to reading it.
#include "widgets/main/setups_controller.h"

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
#include <QMimeData>
#include <QUrl>

#include "base/errors.h"
#include "setups/setup.h"
#include "widgets/model/layer_table_model.h"
#include "widgets/lessons/lessons_panel.h"
#include "widgets/main/lessons_controller.h"
#include "widgets/main/main_frame.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/main/shortcuts.h"
#include "widgets/model/model_builder.h"
#include "widgets/training/run_settings.h"
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

SetupsController::SetupsController(MainFrame& frame, SessionsController& sessions, LessonsController& lessons,
                                   QObject* parent)
    : QObject(parent), frame_(frame), sessions_(sessions), lessons_(lessons) {}

void SetupsController::buildActions(QMenu* file) {
  auto* open = file->addAction(tr("Open &setup…"), this, [this] { chooseSetupToOpen(); });
  open->setObjectName("file.open_setup");
  open->setToolTip(tr("Open a run's or a lesson's setup (*.tsetup, or a text file holding a trainscope: line)"));
  auto* paste = file->addAction(tr("&Paste setup line"), this, [this] { pasteSetupLine(); });
  paste->setObjectName("file.paste_setup");
  set_shortcut(paste, ShortcutId::paste_setup);
  paste->setToolTip(tr("Take the trainscope: line on the clipboard into the window"));
  auto* copy = file->addAction(tr("&Copy setup line"), this, [this] {
    const QString line = setupLine();
    if (line.isEmpty()) return;  // the message bar says why
    QApplication::clipboard()->setText(line);
    frame_.showStatus(tr("The setup line of this model and these Run settings (%1 characters) is on the clipboard")
                                 .arg(line.size()), 6000);
  });
  copy->setObjectName("file.copy_setup");
  set_shortcut(copy, ShortcutId::copy_setup);
  copy->setToolTip(tr("Copy this model and these Run settings as one line of text to share (trainscope:…)"));
  auto* save = file->addAction(tr("Sa&ve setup as…"), this, [this] { chooseSetupToSave(); });
  save->setObjectName("file.save_setup");
  save->setToolTip(tr("Save this model and these Run settings as a small setup file (*.tsetup)"));
}

setups::Setup SetupsController::currentSetup() const {
  setups::Setup s;
  // What the Train workspace shows: the user's model and settings, or a shown session's (sharing
  // the setup of a recorded run).
  const RunSettings r = frame_.runSettings()->settings();
  const ModelSpec& model = frame_.modelBuilder()->spec();
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

std::optional<setups::Setup> SetupsController::checkedSetup() {
  try {
    setups::Setup s = currentSetup();
    (void)setups::parse_setup(setups::to_json(s), "of this window");  // what a student's window will check
    return s;
  } catch (const Error& e) {
    frame_.showMessage(tr("This setup cannot be shared: %1").arg(QString::fromUtf8(e.what())), true);
    return std::nullopt;
  }
}

QString SetupsController::setupLine() {
  const auto s = checkedSetup();
  return s ? q(setups::to_line(*s)) : QString();
}

bool SetupsController::saveSetupAs(const QString& path) {
  const auto s = checkedSetup();
  if (!s) return false;
  try {
    setups::write_setup_file(path.toStdString(), *s);
  } catch (const Error& e) {
    frame_.showMessage(QString::fromUtf8(e.what()), true);
    return false;
  }
  frame_.showStatus(tr("Setup saved to %1").arg(path), 6000);
  return true;
}

void SetupsController::chooseSetupToSave() {
  QString path = QFileDialog::getSaveFileName(frame_.frameWindow(), tr("Save setup"), QDir::homePath() + "/run.tsetup",
                                              tr("Setups (*.tsetup);;All files (*)"));
  if (path.isEmpty()) return;
  if (!path.contains('.')) path += ".tsetup";
  saveSetupAs(path);
}

void SetupsController::chooseSetupToOpen() {
  const QString path = QFileDialog::getOpenFileName(frame_.frameWindow(), tr("Open setup"), QDir::homePath(),
                                                    tr("Setups (*.tsetup *.txt *.json);;All files (*)"));
  if (!path.isEmpty()) openSetup(path);
}

void SetupsController::pasteSetupLine() {
  const QString text = QApplication::clipboard()->text();
  if (!setups::is_setup_line(text.toStdString())) {
    frame_.showMessage(tr("The clipboard holds no setup line (one starts with \"trainscope:\")"), true);
    return;
  }
  openSetup(text);
}

bool SetupsController::openSetup(const QString& line_or_path) {
  if (frame_.running()) {
    frame_.showMessage(tr("A run is going: stop it before opening a setup"), true);
    return false;
  }
  try {
    const setups::Setup s = setups::read_setup(line_or_path.trimmed().toStdString());
    if (!confirm_named_files(frame_.frameWindow(), setups::named_files(s, &is_preset_name))) {
      frame_.showMessage(tr("Setup not opened: it names a file on this computer, and reading it was declined"), true);
      return false;
    }
    if (s.is_lesson()) takeLessonSetup(*s.lesson);
    else takeRunSetup(s);
  } catch (const Error& e) {  // nothing changed: the form and the model are as they were
    frame_.showMessage(QString::fromUtf8(e.what()), true);
    return false;
  }
  emit setupOpened();
  return true;
}

void SetupsController::takeRunSetup(const setups::Setup& s) {
  if (frame_.runSettings()->showingSession()) sessions_.showOwnSettings();
  TakenSetup t = take_setup(s.knobs, frame_.runSettings()->settings(), !frame_.gpus().empty());  // throws before anything changes
  const std::string model = s.knob("model");
  if (t.model) {
    if (!is_preset_name(model) || !frame_.modelBuilder()->loadPreset(q(model))) frame_.modelBuilder()->model()->setSpec(*t.model);
  }
  frame_.runSettings()->setSettings(t.settings);
  frame_.workspaces()->setMode(frame_.workspaces()->mode() == Workspaces::Mode::profile || frame_.workspaces()->mode() == Workspaces::Mode::playground
                           ? Workspaces::Mode::train
                           : frame_.workspaces()->mode());
  if (t.notes.isEmpty()) {
    frame_.hideMessage();
    frame_.showStatus(s.title.empty() ? tr("Setup loaded: press Start to run it")
                                             : tr("Setup \"%1\" loaded: press Start to run it").arg(q(s.title)), 8000);
  } else {
    frame_.showMessage(tr("Setup loaded, with changes: %1").arg(t.notes.join(" · ")), false);  // fits 1280 px
  }
  frame_.updateActions();
}

void SetupsController::takeLessonSetup(const lessons::Lesson& l) {
  LessonsPanel* panel = lessons_.showLessonsPanel();
  for (const auto& b : lessons::builtin_lessons())
    if (b == l) {  // a built-in lesson, shared: nothing to keep
      panel->select(q(l.name));
      frame_.showStatus(tr("Lesson \"%1\" (built in) is selected in the Lessons window").arg(q(l.title)), 8000);
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
  frame_.hideMessage();
  frame_.showStatus(tr("Lesson \"%1\" is in the Lessons window, among yours").arg(q(l.title)), 8000);
}

QString SetupsController::droppedSetup(const QMimeData* mime) {
  if (!mime) return {};
  if (mime->hasUrls())
    for (const QUrl& url : mime->urls())
      if (url.isLocalFile() && url.toLocalFile().endsWith(".tsetup", Qt::CaseInsensitive)) return url.toLocalFile();
  if (mime->hasText() && setups::is_setup_line(mime->text().toStdString())) return mime->text();
  return {};
}

}  // namespace ts::gui
