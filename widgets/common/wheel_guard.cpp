// WheelGuard: unfocused fields pass the wheel on to their parents.
#include "widgets/common/wheel_guard.h"

#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QEvent>
#include <QWidget>

namespace ts::gui {

void install_wheel_guard(QWidget* root) {
  auto* guard = new WheelGuard(root);
  for (QWidget* w : root->findChildren<QWidget*>()) {
    if (!qobject_cast<QAbstractSpinBox*>(w) && !qobject_cast<QComboBox*>(w) && !qobject_cast<QAbstractSlider*>(w)) continue;
    w->setFocusPolicy(Qt::StrongFocus);
    w->installEventFilter(guard);
  }
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* e) {
  if (e->type() != QEvent::Wheel) return false;
  auto* w = qobject_cast<QWidget*>(watched);
  if (!w || w->hasFocus()) return false;
  // Not for this field: ignored and filtered, Qt offers the event to the parents (the scroll area).
  e->ignore();
  return true;
}

}  // namespace ts::gui
