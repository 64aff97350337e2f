// The window's keyboard shortcuts (widgets/main/shortcuts.h) on the real main window, built as a
// user starts it: no key is shared by two actions or QShortcuts in overlapping contexts (Qt runs
// neither then, "Ambiguous shortcut overload"), every action with a key took it from the one table,
// and pressing Copy setup line's and Classroom mode's keys (once the same key) runs each its own action.
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QMenu>
#include <QMenuBar>
#include <QShortcut>
#include <QtTest>
#include <map>
#include <set>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "widgets/main/lessons_controller.h"
#include "widgets/main/shortcuts.h"

using namespace ts;
using namespace ts::gui;

namespace {

/// One key binding of the window: an action's or a QShortcut's.
struct Binding {
  QString name;
  QKeySequence key;
  Qt::ShortcutContext context;
  std::set<QWidget*> windows;  // the windows where it can fire
  QWidget* widget = nullptr;   // for the widget contexts: the widget it belongs to
};

/// The windows where a widget an action was added to lets it fire: a menu's are those of the menu
/// bars and menus it hangs from (a popup is a window of its own, not where the key is pressed).
void host_windows(QWidget* w, std::set<QWidget*>& out, int depth = 0) {
  if (depth > 8) return;
  if (auto* menu = qobject_cast<QMenu*>(w)) {
    for (QObject* o : menu->menuAction()->associatedObjects())
      if (auto* parent = qobject_cast<QWidget*>(o)) host_windows(parent, out, depth + 1);
    return;
  }
  out.insert(w->window());
}

QString action_name(const QAction* a) {
  QString t = a->text();
  t.remove('&');
  return a->objectName().isEmpty() ? t : t + " (" + a->objectName() + ")";
}

std::vector<Binding> bindings(QWidget& root) {
  std::vector<Binding> out;
  for (QAction* a : root.findChildren<QAction*>()) {
    for (const QKeySequence& k : a->shortcuts()) {
      if (k.isEmpty()) continue;
      Binding b{action_name(a), k, a->shortcutContext(), {}, nullptr};
      for (QObject* o : a->associatedObjects())
        if (auto* w = qobject_cast<QWidget*>(o)) {
          host_windows(w, b.windows);
          if (!qobject_cast<QMenu*>(w)) b.widget = w;
        }
      if (!b.windows.empty()) out.push_back(b);  // an action on no widget has no live key
    }
  }
  for (QShortcut* s : root.findChildren<QShortcut*>()) {
    auto* w = qobject_cast<QWidget*>(s->parent());
    if (!w) continue;
    for (const QKeySequence& k : s->keys())
      if (!k.isEmpty()) out.push_back({"QShortcut " + s->objectName(), k, s->context(), {w->window()}, w});
  }
  return out;
}

bool related(QWidget* a, QWidget* b) {
  return a && b && (a == b || a->isAncestorOf(b) || b->isAncestorOf(a));
}

/// Whether both can be live at one key press (Qt's shortcut map then has two matches).
bool overlap(const Binding& a, const Binding& b) {
  if (a.context == Qt::ApplicationShortcut || b.context == Qt::ApplicationShortcut) return true;
  bool same_window = false;
  for (QWidget* w : a.windows) same_window |= b.windows.count(w) > 0;
  if (!same_window) return false;
  const bool a_widget = a.context == Qt::WidgetShortcut || a.context == Qt::WidgetWithChildrenShortcut;
  const bool b_widget = b.context == Qt::WidgetShortcut || b.context == Qt::WidgetWithChildrenShortcut;
  if (a_widget && b_widget) return related(a.widget, b.widget);
  return true;  // a window-wide key and any key of a widget inside that window
}

bool same_key(const QKeySequence& a, const QKeySequence& b) {
  return a.matches(b) != QKeySequence::NoMatch || b.matches(a) != QKeySequence::NoMatch;  // equal or a prefix
}

/// "Ctrl+Shift+C: File ▸ Copy setup line and Classroom mode", one line per clash.
QStringList clashes(QWidget& root) {
  const auto all = bindings(root);
  QStringList out;
  for (std::size_t i = 0; i < all.size(); ++i)
    for (std::size_t j = i + 1; j < all.size(); ++j)
      if (same_key(all[i].key, all[j].key) && overlap(all[i], all[j]))
        out << QString("%1: %2 and %3").arg(all[i].key.toString(), all[i].name, all[j].name);
  return out;
}

}  // namespace

class TestShortcuts : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { test::isolate_settings(); }

  void tableGivesEachKeyOnce() {
    std::map<QString, QString> seen;
    for (const ShortcutDef& d : shortcut_table()) {
      if (d.key.isEmpty()) continue;
      const QString k = d.key.toString();
      QVERIFY2(!seen.count(k), qPrintable(k + " is " + seen[k] + " and " + d.action));
      seen[k] = QString::fromUtf8(d.action);
    }
    // Every action has a key on this desktop (Qt's SaveAs was empty here: Ctrl+Shift+S did nothing).
    for (const ShortcutDef& d : shortcut_table()) QVERIFY2(!d.key.isEmpty(), d.action);
    QCOMPARE(shortcut_key(ShortcutId::save_session_as), QKeySequence("Ctrl+Shift+S"));
    QCOMPARE(shortcut_key(ShortcutId::copy_setup), QKeySequence("Ctrl+Shift+C"));
    QCOMPARE(shortcut_key(ShortcutId::classroom_mode), QKeySequence("Ctrl+Shift+L"));
  }

  void realWindowHasNoSharedKey() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.lessons()->showLessonsPanel();  // a tool window: its keys count too
    const QStringList c = clashes(w);
    QVERIFY2(c.isEmpty(), qPrintable(c.join("\n")));
    // Every window action with a key took it from the table, and has the table's key.
    int keyed = 0;
    for (QAction* a : w.findChildren<QAction*>()) {
      if (a->shortcut().isEmpty()) continue;
      ++keyed;
      const QVariant id = a->property(kShortcutProperty);
      QVERIFY2(id.isValid(), qPrintable(action_name(a) + " has a key that is not in widgets/main/shortcuts.cpp's table"));
      QCOMPARE(a->shortcut(), shortcut_key(static_cast<ShortcutId>(id.toInt())));
    }
    QVERIFY(keyed >= 10);
  }

  /// Ctrl+Shift+L toggles classroom mode with the lessons' own window in front (it did nothing there).
  void classroomKeyWorksFromTheLessonsWindow() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.lessons()->showLessonsPanel();
    QWidget* lessons = nullptr;
    for (QWidget* top : QApplication::topLevelWidgets())
      if (top != &w && top->isVisible() && top->windowTitle().startsWith("Lessons")) lessons = top;
    QVERIFY(lessons);
    lessons->activateWindow();
    QTRY_COMPARE(QApplication::activeWindow(), lessons);
    const bool before = w.lessons()->classroomMode();
    QTest::keyClick(lessons, Qt::Key_L, Qt::ControlModifier | Qt::ShiftModifier);
    QTRY_COMPARE(w.lessons()->classroomMode(), !before);
    w.lessons()->setClassroomMode(false);
  }

  void checkerSeesAClash() {
    // The check above would see a second action with a taken key, and one in a popup menu too.
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(clashes(w).isEmpty());
    auto* menu = new QMenu("extra", &w);
    w.menuBar()->addMenu(menu);
    QAction* extra = menu->addAction("Extra");
    extra->setShortcut(shortcut_key(ShortcutId::copy_setup));
    const QStringList c = clashes(w);
    QCOMPARE(c.size(), 1);
    QVERIFY2(c[0].contains("Copy setup line") && c[0].contains("Extra"), qPrintable(c[0]));
    extra->setShortcutContext(Qt::WidgetShortcut);  // still live whenever its menu bar's window is
    QCOMPARE(clashes(w).size(), 1);
    menu->removeAction(extra);
    QVERIFY(clashes(w).isEmpty());
  }

  void copySetupLineAndClassroomModeEachRunOnTheirKey() {
    MainWindow w;
    w.show();
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QApplication::clipboard()->clear();
    QAction* classroom = w.lessons()->classroomAction();
    QVERIFY(!classroom->isChecked());
    QTest::keySequence(&w, shortcut_key(ShortcutId::copy_setup));
    QTRY_VERIFY(QApplication::clipboard()->text().startsWith("trainscope:"));
    QVERIFY(!classroom->isChecked());
    QTest::keySequence(&w, shortcut_key(ShortcutId::classroom_mode));
    QTRY_VERIFY(classroom->isChecked());
    QTest::keySequence(&w, shortcut_key(ShortcutId::classroom_mode));
    QTRY_VERIFY(!classroom->isChecked());
  }
};

QTEST_MAIN(TestShortcuts)
#include "test_shortcuts.moc"
