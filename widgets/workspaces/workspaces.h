// Workspaces: the window's central area, Train and Profile in the manner of Qt Creator's modes.
// One is shown at a time, or both side by side (Train's charts beside Profile, during a live run). Each keeps its own
// layout (its splitters; switching only shows and hides); the mode and every layout are saved in
// QSettings under "workspaces/..." and restored at start; resetLayout() resets what is shown.
// The mode actions (Train Ctrl+1, Profile Ctrl+2, Side by side Ctrl+3, and Playground Ctrl+4 once
// setPlayground() gave one: widgets/playground) are one exclusive group for the View menu and the toolbar.
#pragma once
#include <QList>
#include <QWidget>

class QAction;
class QActionGroup;
class QSplitter;

namespace ts::gui {

class TrainWorkspace;
class ProfileWorkspace;

class Workspaces : public QWidget {
  Q_OBJECT
 public:
  enum class Mode { train, profile, both, playground };
  Workspaces(TrainWorkspace* train, ProfileWorkspace* profile, QWidget* parent = nullptr);
  TrainWorkspace* train() const { return train_; }
  ProfileWorkspace* profile() const { return profile_; }
  QSplitter* splitter() const { return split_; }
  /// Adds the Playground workspace (shown alone, in mode playground) and its action.
  void setPlayground(QWidget* playground);
  QWidget* playground() const { return playground_; }
  Mode mode() const { return mode_; }
  void setMode(Mode m);
  /// Train, Profile, Side by side (checkable, exclusive).
  QList<QAction*> modeActions() const;
  /// Resets the layout of the workspace(s) shown.
  void resetLayout();
  /// Saves mode and layouts to QSettings / restores them (false when nothing valid was saved).
  void saveSettings() const;
  bool restoreSettings();

 signals:
  void modeChanged(ts::gui::Workspaces::Mode mode);

 private:
  TrainWorkspace* train_;
  ProfileWorkspace* profile_;
  QSplitter* split_;
  QActionGroup* group_;
  QAction *train_action_, *profile_action_, *both_action_, *playground_action_ = nullptr;
  QWidget* playground_ = nullptr;
  Mode mode_ = Mode::train;
  bool both_sized_ = false;
};

/// "train" / "profile" / "both" / "playground" and back (unknown: nullopt-like false).
QString mode_name(Workspaces::Mode m);
bool mode_from_name(const QString& name, Workspaces::Mode& out);

}  // namespace ts::gui
