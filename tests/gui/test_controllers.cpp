// The main window as a frame around its feature controllers (widgets/main): the menus are assembled
// from the controllers' actions, in the order the window always had; a controller works against any
// MainFrame, here a small one with no main window around it (CheckpointsController: its actions
// follow the running state, a checkpoint is refused while no run goes, Resume starts a run with the
// checkpoint through the frame, a checkpoint written or refused is said in the message bar); the drop
// helpers pick the sessions, traces and setups out of a drop.
#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QUrl>
#include <QtTest>
#include <optional>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "widgets/main/checkpoints_controller.h"
#include "widgets/main/main_frame.h"
#include "widgets/main/program_controller.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/main/setups_controller.h"
#include "widgets/training/run_settings.h"
#include "widgets/training/training_session.h"

using namespace ts;
using namespace ts::gui;

namespace {

/// The entries of `menu`: action texts, "-" for a separator, "NAME>" for a submenu.
QStringList entries(const QMenu* menu) {
  QStringList out;
  for (const QAction* a : menu->actions())
    out << (a->isSeparator() ? QStringLiteral("-") : a->menu() ? a->text() + ">" : a->text());
  return out;
}

QMenu* top_menu(const MainWindow& w, const QString& title) {
  for (QAction* a : w.menuBar()->actions())
    if (a->text() == title) return a->menu();
  return nullptr;
}

/// A frame with no main window: a bare widget, a training session and a Run settings form.
class FakeFrame : public MainFrame {
 public:
  FakeFrame() : settings_(new RunSettingsPanel({}, "no CUDA device (test)", &window_)), session_(new TrainingSession) {}
  ~FakeFrame() override { delete session_; }

  QWidget* frameWindow() override { return &window_; }
  void showMessage(const QString& text, bool error) override { message_ = text, error_ = error; }
  void hideMessage() override { message_.clear(); }
  QString message() const override { return message_; }
  void showStatus(const QString& text, int) override { status_ = text; }
  bool running() const override { return running_; }
  void updateActions() override {}
  void updateIdleStatus() override {}
  void startWith(const RunSettings& s) override { started_ = s; }
  void addStatusWidget(QWidget*) override {}
  void fitToolWindow(QWidget*, QSize) const override {}
  void showOverFrame(QWidget* w) const override { w->show(); }
  ModelBuilder* modelBuilder() const override { return nullptr; }
  RunSettingsPanel* runSettings() const override { return settings_; }
  TrainingCharts* charts() const override { return nullptr; }
  TrainingSession* session() const override { return session_; }
  PanelHub* panelHub() const override { return nullptr; }
  VerdictPanel* verdictPanel() const override { return nullptr; }
  Workspaces* workspaces() const override { return nullptr; }
  PlaygroundWorkspace* playground() const override { return nullptr; }
  StatusLabels statusLabels() const override { return {}; }
  const std::vector<DeviceInfo>& gpus() const override { return gpus_; }
  QString noGpuReason() const override { return "no CUDA device (test)"; }

  QWidget window_;
  RunSettingsPanel* settings_;
  TrainingSession* session_;
  std::vector<DeviceInfo> gpus_;
  QString message_, status_;
  bool error_ = false;
  bool running_ = false;
  std::optional<RunSettings> started_;
};

}  // namespace

class TestControllers : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { test::isolate_settings(); }

  void menusAreAssembledFromTheControllers() {
    MainWindow w;
    QStringList bar;
    for (QAction* a : w.menuBar()->actions()) bar << a->text();
    QCOMPARE(bar, QStringList({"&File", "&Run", "&View", "&Lessons", "&Help"}));
    QMenu* file = top_menu(w, "&File");
    QVERIFY(file);
    QCOMPARE(entries(file), QStringList({"&New run", "-", "&Open session…", "Open &job…", "Recent sessions>", "Save session &as…",
                                         "&Run again with these settings", "&Compare sessions…", "Profile a &program…",
                                         "&Export>", "-", "Open &setup…", "&Paste setup line", "&Copy setup line",
                                         "Sa&ve setup as…", "-", "&Preferences…", "-", "&Quit"}));
    QVERIFY(file->actions().contains(w.sessions()->openAction()));
    QVERIFY(file->actions().contains(w.sessions()->recentMenu()->menuAction()));
    QVERIFY(file->actions().contains(w.program()->profileAction()));
    QMenu* run = top_menu(w, "&Run");
    QVERIFY(run);
    QCOMPARE(entries(run), QStringList({"&Start", "Pause", "S&top", "-", "Save &checkpoint…", "&Resume from checkpoint…"}));
    QCOMPARE(run->actions().at(4), w.checkpoints()->saveAction());
    QCOMPARE(run->actions().at(5), w.checkpoints()->resumeAction());
    QMenu* lessons = top_menu(w, "&Lessons");
    QVERIFY(lessons);
    QVERIFY(entries(lessons).size() > 4);
    QCOMPARE(entries(lessons).first(), QStringLiteral("&Lessons…"));
    QCOMPARE(entries(lessons).last(), QStringLiteral("Open a lesson's &recording…"));
    // The window's actions follow the controllers: no run, so no checkpoint to save.
    QVERIFY(!w.checkpoints()->saveAction()->isEnabled());
    QVERIFY(w.checkpoints()->resumeAction()->isEnabled() == w.startAction()->isEnabled());
  }

  void checkpointsControllerOnItsOwnFrame() {
    FakeFrame frame;
    CheckpointsController c(frame, nullptr);
    c.updateActions(false, true);
    QVERIFY(!c.saveAction()->isEnabled());
    QVERIFY(c.saveAction()->toolTip().contains("Available while training"));
    QVERIFY(c.resumeAction()->isEnabled());
    QVERIFY(!c.requestCheckpoint("/tmp/never.tsckpt"));  // no run: refused, nothing asked of the session
    QVERIFY(frame.status_.isEmpty());

    c.resumeFrom("/tmp/a.tsckpt");  // the form's settings with the checkpoint, started through the frame
    QVERIFY(frame.started_.has_value());
    QCOMPARE(frame.started_->resume_path, QStringLiteral("/tmp/a.tsckpt"));
    QCOMPARE(frame.started_->batch_size, frame.settings_->settings().batch_size);
    QVERIFY(frame.settings_->settings().resume_path.isEmpty());  // the next Start is a fresh run

    frame.started_.reset();
    frame.running_ = true;
    c.updateActions(true, true);
    QVERIFY(c.saveAction()->isEnabled());
    QVERIFY(!c.resumeAction()->isEnabled());
    c.resumeFrom("/tmp/b.tsckpt");  // a run is going: nothing starts
    QVERIFY(!frame.started_.has_value());
    QVERIFY(!c.requestCheckpoint("/tmp/c.tsckpt"));  // the session itself runs nothing: it refuses

    c.updateActions(false, false);  // the form could not start a run (a bad model, no data)
    QVERIFY(!c.resumeAction()->isEnabled());

    emit frame.session_->checkpointFailed("disk full");
    QCOMPARE(frame.message_, QStringLiteral("Checkpoint not written: disk full"));
    QVERIFY(frame.error_);
    emit frame.session_->checkpointSaved("/tmp/x.tsckpt", 2);
    QVERIFY2(frame.message_.startsWith("Checkpoint after epoch 2 written to /tmp/x.tsckpt"), qPrintable(frame.message_));
    QVERIFY(!frame.error_);
  }

  void dropHelpersPickSessionsAndSetups() {
    QMimeData files;
    files.setUrls({QUrl::fromLocalFile("/tmp/a.tsession"), QUrl::fromLocalFile("/tmp/b.json"),
                   QUrl::fromLocalFile("/tmp/c.txt"), QUrl("https://example.org/d.tsession")});
    QCOMPARE(SessionsController::droppedSessions(&files), QStringList({"/tmp/a.tsession", "/tmp/b.json"}));
    QVERIFY(SetupsController::droppedSetup(&files).isEmpty());
    QVERIFY(SessionsController::droppedSessions(nullptr).isEmpty());

    QMimeData setup_file;
    setup_file.setUrls({QUrl::fromLocalFile("/tmp/run.tsetup")});
    QCOMPARE(SetupsController::droppedSetup(&setup_file), QStringLiteral("/tmp/run.tsetup"));
    QVERIFY(SessionsController::droppedSessions(&setup_file).isEmpty());

    MainWindow w;
    const QString line = w.setups()->setupLine();
    QVERIFY(line.startsWith("trainscope:"));
    QMimeData text;
    text.setText(line);
    QCOMPARE(SetupsController::droppedSetup(&text), line);
    text.setText("not a setup");
    QVERIFY(SetupsController::droppedSetup(&text).isEmpty());
  }
};

QTEST_MAIN(TestControllers)
#include "test_controllers.moc"
