// The main window's File ▸ Profile a program… (program_controller.cpp). The program runs under
// trainscope-run -- (its CUDA work recorded by profiling/inject into a session file); the Profile
// workspace follows that file live as it grows (the sessions controller's loader in follow mode),
// the Program tab shows the program's output and how it ended, and Stop interrupts it the way
// Ctrl-C would.
#pragma once
#include <QObject>
#include <QString>

class QAction;
class QMenu;

namespace ts::gui {

class MainFrame;
class ProgramPane;
class SessionsController;
struct ProgramSpec;

class ProgramController : public QObject {
  Q_OBJECT
 public:
  /// `sessions` opens and follows the program's session file.
  ProgramController(MainFrame& frame, SessionsController& sessions, QObject* parent);

  /// Adds Profile a program… (Ctrl+Shift+R) to the File menu.
  void buildActions(QMenu* file);
  QAction* profileAction() const { return profile_; }
  /// The Profile workspace's Program tab (made once, by the frame while it builds that workspace).
  ProgramPane* buildPane();
  ProgramPane* pane() const { return pane_; }
  /// Starts `spec` under trainscope-run and follows its session; false with the reason in the
  /// message bar (a training run is going, the program cannot start).
  bool profileProgram(const ProgramSpec& spec);

 private:
  void chooseProgramToProfile();
  /// Opens the program's `session` as soon as no other session is opening (up to 10 tries, 300 ms apart).
  void followProgramSession(const QString& session, int attempt);

  MainFrame& frame_;
  SessionsController& sessions_;
  QAction* profile_ = nullptr;
  ProgramPane* pane_ = nullptr;
};

}  // namespace ts::gui
