// The window's keyboard shortcuts in one table. Every action that has a key takes it from here by
// its id (set_shortcut), so each key is given in one place and two features cannot claim the same
// one from two files: when two enabled actions of a window share a key, Qt runs neither and only
// logs "Ambiguous shortcut overload". tests/gui/test_shortcuts.cpp builds the real window and fails
// when two actions or QShortcuts share a key in overlapping contexts, or when an action has a key
// that did not come from this table. README.md ("Keyboard shortcuts") lists the same keys.
#pragma once
#include <QKeySequence>
#include <vector>

class QAction;

namespace ts::gui {

enum class ShortcutId {
  new_run,
  open_session,
  save_session_as,
  profile_program,
  paste_setup,
  copy_setup,
  preferences,
  quit,
  start_run,
  workspace_train,
  workspace_profile,
  workspace_both,
  workspace_playground,
  classroom_mode,
  lessons,
};

struct ShortcutDef {
  ShortcutId id;
  const char* action;  // as the menus name it: "File ▸ Copy setup line"
  QKeySequence key;    // empty where the platform has no binding (QKeySequence::Preferences on some desktops)
};

/// Every shortcut of the window, in menu order (File, Run, View, Lessons). Built on first use, after
/// the QGuiApplication exists (the standard keys are the platform theme's).
const std::vector<ShortcutDef>& shortcut_table();
QKeySequence shortcut_key(ShortcutId id);
/// Gives `a` its key from the table and marks it as taken from there (the property kShortcutProperty,
/// the id), which the test checks on every action of the window that has a key.
void set_shortcut(QAction* a, ShortcutId id);
inline constexpr const char* kShortcutProperty = "ts.shortcut";

}  // namespace ts::gui
