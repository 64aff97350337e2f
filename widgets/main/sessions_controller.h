// The main window's sessions (sessions_controller.cpp): File ▸ Open session… /
// Recent sessions / Save session as… / Run again with these settings / Compare sessions…, the
// Session details tab, the background load with its progress bar and Cancel in the status bar, and
// what the window says while a session or a trace is shown (its model and Run settings read only,
// its device and knobs in the status bar). Sessions load on a worker thread (SessionLoader) through
// profiling's reader; the panels read the store while it fills.
#pragma once
#include <QObject>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "engine/model_spec.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/workspaces/workspaces.h"

class QAction;
class QLabel;
class QMenu;
class QMimeData;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QWidget;

namespace ts::prof {
class EventStore;
}
namespace ts::lessons {
class PlainSession;
}

namespace ts::gui {

class CompareView;
class MainFrame;
class SessionLoader;
struct RunOutcome;
struct SessionReplay;

class SessionsController : public QObject {
  Q_OBJECT
 public:
  /// Makes the actions and the loader; the frame's widgets are read when used.
  SessionsController(MainFrame& frame, QObject* parent);
  ~SessionsController() override;

  QAction* openAction() const { return open_; }
  QAction* saveAction() const { return save_; }
  QMenu* recentMenu() const { return recent_; }
  QAction* runAgainAction() const { return run_again_; }
  QAction* compareAction() const { return compare_action_; }
  /// The Session details tab of the Profile workspace (made once, by the frame while it builds it).
  QWidget* buildDetails();
  /// The shown session's details (config, hardware, versions; "" when none is shown).
  QString details() const;
  /// The Compare window (nullptr until sessions were compared).
  CompareView* compareView() const { return compare_; }
  /// The session load in progress, if any (tests cancel it).
  SessionLoader* loader() const { return loader_; }
  bool isLoading() const;
  /// The finished run's recorded session file ("" before a run finished recording).
  QString lastSessionPath() const { return last_session_; }

  /// Starts showing the session at `path`: a quick check (false with the reader's one-line error in
  /// the message bar), then a background load with a progress bar and Cancel in the status bar; the
  /// panels fill while it loads; sessionOpened(path) when the charts, details and title are shown.
  /// A playground session opens in the Playground workspace (a compressed one when the loader has
  /// decompressed it, off the GUI thread). False while a run goes or a load does.
  bool openSession(const QString& path);
  /// Loads the shown session's model and knobs into the Train workspace, saying in the message bar
  /// what this machine cannot keep; false while a run goes or when the session recorded none.
  bool runAgainWithSessionSettings();
  /// The same without a message: `notes` gets what this machine could not keep, each short
  /// ("device CUDA → CPU: no CUDA GPU on this machine"), for a caller that says it in its own line
  /// (a verdict's Apply onto a shown session's settings).
  bool loadSessionSettings(QStringList* notes);
  /// Opens the Compare window on two or more sessions or traces.
  void compareSessions(const QStringList& paths);
  /// Copies the last run's session file to `path`; false with the reason in the message bar.
  bool saveSessionAs(const QString& path);
  /// The user's own model and settings again, editable.
  void showOwnSettings();
  /// The window shows no session any more (a run starts, New run): title, details, own settings.
  void leaveShownSession();
  /// The status bar's labels for the shown session or trace, or for the rank of a distributed job
  /// the analysis tabs show (false when none is shown, and when the form no longer holds the shown
  /// session's recorded settings: after Apply, Use my settings or Run again the labels say what the
  /// form holds, as the next run's, so that one quantity never reads two numbers in the window).
  bool showShownStatus();
  /// A session or trace is shown (the status bar names the form's settings as the next run's).
  bool showsSession() const { return !shown_name_.isEmpty(); }
  /// A job is shown: the status bar says what its rank `rank` (the one in the analysis tabs, `meta`
  /// its session's metadata) ran on, until a session opens or the window leaves what it shows.
  void showJobRank(const std::map<std::string, std::string>& meta, int rank);
  /// A run ended: its recorded session becomes the one Save session as… copies, and its details show.
  void runFinished(const RunOutcome& outcome);
  /// The enabled state of the actions (`running`: a training run goes).
  void updateActions(bool running);
  /// The local session and trace files among dropped URLs.
  static QStringList droppedSessions(const QMimeData* mime);
  /// The file dialogs' filter of Open and Compare: every format a session can be read from.
  static QString sessionFileFilter();

 signals:
  /// A session finished loading and is shown.
  void sessionOpened(const QString& path);
  /// Opening a session failed while it loaded (`message`: the one line shown in the message bar) or
  /// was cancelled.
  void sessionFailed(const QString& message, bool cancelled);

 private:
  /// Both forms of the exceptions: short notes and Run again's sentences (either may be nullptr).
  bool loadSessionSettings(QStringList* notes, QStringList* sentences);
  void chooseSessionsToCompare();
  void chooseSessionToOpen();
  void chooseSessionToSave();
  void addRecentSession(const QString& path);
  void rebuildRecentSessions();
  void openRecentSession(const QString& path);
  void buildLoadProgress();
  void showLoadedSession(const SessionReplay& r);
  void showFollowing(bool on);
  void followedMetaGrew();
  void sessionLoadFailed(const QString& message, bool cancelled);
  /// The loader found a playground run in a compressed session: shown in the Playground workspace.
  void showPlaygroundSession(const QString& path, std::shared_ptr<lessons::PlainSession> plain);
  /// Puts back what the panels showed before an open that ends without a training session.
  void restoreBeforeOpen();
  /// The shown session's model and settings in the Train workspace, read only, and in the status
  /// bar; a trace: a note that it records none.
  void showSessionSettings(const QString& name);

  MainFrame& frame_;
  QAction* open_;
  QAction* save_;
  QMenu* recent_;
  QAction* run_again_;
  QAction* compare_action_;
  CompareView* compare_ = nullptr;
  SessionLoader* loader_;
  QWidget* load_box_ = nullptr;  // status bar: "Opening …" + progress bar + Cancel
  QProgressBar* load_bar_ = nullptr;
  QLabel* load_label_ = nullptr;
  QPushButton* load_cancel_ = nullptr;  // "Cancel", or "Stop following" for a session still being written
  QPlainTextEdit* details_ = nullptr;
  std::map<std::string, std::string> shown_meta_;  // the shown session's metadata
  std::uint64_t follow_meta_version_ = 0;          // the followed file's meta last shown (followedMetaGrew)
  QString shown_name_;                             // its file name ("" when none is shown)
  std::map<std::string, std::string> job_meta_;    // a shown job's rank (showJobRank)
  QString job_whose_;                              // "rank 1 of the job" ("" when no job is shown)
  ModelSpec own_model_;                            // the user's model while a session's is shown
  bool showing_model_ = false;
  /// What the panels showed when an open started: put back if the open fails.
  struct BeforeOpen {
    std::shared_ptr<const prof::EventStore> store;
    QString note;
    HubView view;                              // its range, follow live and highlight
    std::optional<Workspaces::Mode> mode;      // the workspace the open left (Train, Playground)
  } before_open_;
  QString last_session_;
};

}  // namespace ts::gui
