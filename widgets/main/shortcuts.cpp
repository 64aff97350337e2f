// The window's one table of keyboard shortcuts (see shortcuts.h).
#include "widgets/main/shortcuts.h"

#include <QAction>

namespace ts::gui {

const std::vector<ShortcutDef>& shortcut_table() {
  using K = QKeySequence;
  // Copy setup line keeps Ctrl+Shift+C beside Paste setup line's Ctrl+Shift+V (the pair a user
  // guesses); Classroom mode sits beside Lessons… (Ctrl+L) as Ctrl+Shift+L.
  static const std::vector<ShortcutDef> table = {
      {ShortcutId::new_run, "File ▸ New run", K(K::New)},
      {ShortcutId::open_session, "File ▸ Open session…", K(K::Open)},
      // Explicit keys where Qt's standard one is empty on some desktops (SaveAs, Preferences and Quit have
      // none under a plain X session: Ctrl+Shift+S did nothing).
      {ShortcutId::save_session_as, "File ▸ Save session as…", K(Qt::CTRL | Qt::SHIFT | Qt::Key_S)},
      {ShortcutId::profile_program, "File ▸ Profile a program…", K(Qt::CTRL | Qt::SHIFT | Qt::Key_R)},
      {ShortcutId::paste_setup, "File ▸ Paste setup line", K(Qt::CTRL | Qt::SHIFT | Qt::Key_V)},
      {ShortcutId::copy_setup, "File ▸ Copy setup line", K(Qt::CTRL | Qt::SHIFT | Qt::Key_C)},
      {ShortcutId::preferences, "File ▸ Preferences…", K(Qt::CTRL | Qt::Key_Comma)},
      {ShortcutId::quit, "File ▸ Quit", K(Qt::CTRL | Qt::Key_Q)},
      {ShortcutId::start_run, "Run ▸ Start", K(Qt::CTRL | Qt::Key_R)},
      {ShortcutId::workspace_train, "View ▸ Train", K(Qt::CTRL | Qt::Key_1)},
      {ShortcutId::workspace_profile, "View ▸ Profile", K(Qt::CTRL | Qt::Key_2)},
      {ShortcutId::workspace_both, "View ▸ Side by side", K(Qt::CTRL | Qt::Key_3)},
      {ShortcutId::workspace_playground, "View ▸ Playground", K(Qt::CTRL | Qt::Key_4)},
      {ShortcutId::classroom_mode, "View ▸ Classroom mode", K(Qt::CTRL | Qt::SHIFT | Qt::Key_L)},
      {ShortcutId::lessons, "Lessons ▸ Lessons…", K(Qt::CTRL | Qt::Key_L)},
  };
  return table;
}

QKeySequence shortcut_key(ShortcutId id) {
  for (const ShortcutDef& d : shortcut_table())
    if (d.id == id) return d.key;
  return {};
}

void set_shortcut(QAction* a, ShortcutId id) {
  a->setShortcut(shortcut_key(id));
  // Classroom mode and the lessons are a teacher's keys while a lesson's own window has the focus
  // (Ctrl+Shift+L did nothing there): the whole application's.
  if (id == ShortcutId::classroom_mode || id == ShortcutId::lessons) a->setShortcutContext(Qt::ApplicationShortcut);
  a->setProperty(kShortcutProperty, static_cast<int>(id));
}

}  // namespace ts::gui
