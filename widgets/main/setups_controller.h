// The main window's setups (docs/setups.md): File ▸ Open setup… / Save setup as… / Copy setup
// line / Paste setup line, a dropped .tsetup file or setup line, and `trainscope SETUP`. A run's
// setup fills the model and Run settings (what this machine cannot take is said in the message bar);
// a lesson's setup is listed in the Lessons window (saved among the user's lessons unless it is a
// built-in one) and selected. A damaged, foreign or newer setup is refused in the message bar with
// the field named, and nothing in the window changes.
#pragma once
#include <QObject>
#include <QString>
#include <optional>

#include "setups/setup.h"

class QMenu;
class QMimeData;

namespace ts::gui {

class LessonsController;
class MainFrame;
class SessionsController;

class SetupsController : public QObject {
  Q_OBJECT
 public:
  /// `sessions` puts the user's own settings back before a run's setup is taken; `lessons` lists a
  /// lesson's setup.
  SetupsController(MainFrame& frame, SessionsController& sessions, LessonsController& lessons, QObject* parent);

  /// Adds Open setup…, Paste setup line, Copy setup line and Save setup as… to the File menu.
  void buildActions(QMenu* file);
  /// Opens a setup file or line: a run's fills the model and Run settings, a lesson's is listed and
  /// selected in the Lessons window; false with the one-line refusal in the message bar (nothing
  /// changed) for a damaged, foreign or newer setup, or while a run goes.
  bool openSetup(const QString& line_or_path);
  /// The Train workspace's model and Run settings as a setup (unchecked).
  setups::Setup currentSetup() const;
  /// currentSetup() as its one line ("" with the reason in the message bar when the model does not
  /// check: a setup that every reader would refuse is never shared).
  QString setupLine();
  /// Writes the checked currentSetup() to `path`; false with the reason in the message bar.
  bool saveSetupAs(const QString& path);
  /// File ▸ Paste setup line: the clipboard's trainscope: line, opened.
  void pasteSetupLine();
  /// A dropped setup: a .tsetup file, or a setup line dropped as text ("" when neither).
  static QString droppedSetup(const QMimeData* mime);

 signals:
  /// A setup was opened and taken into the window.
  void setupOpened();

 private:
  void chooseSetupToOpen();
  void chooseSetupToSave();
  void takeRunSetup(const setups::Setup& s);
  std::optional<setups::Setup> checkedSetup();
  void takeLessonSetup(const lessons::Lesson& l);

  MainFrame& frame_;
  SessionsController& sessions_;
  LessonsController& lessons_;
};

}  // namespace ts::gui
