// The mouse wheel over a form scrolls the form: spin boxes, combo boxes and sliders under a root
// widget change their value by the wheel only while they have the keyboard focus (clicked or tabbed
// to), never as the pointer passes over them (Adam became AdamW, batch 128 became 126).
// A wheel event over an unfocused field goes on to its parents (the form's scroll area).
#pragma once
#include <QObject>

class QWidget;

namespace ts::gui {

/// Guards every QAbstractSpinBox, QComboBox and QAbstractSlider under `root` (present now) and
/// gives them Qt::StrongFocus, so that the wheel alone does not focus them.
void install_wheel_guard(QWidget* root);

class WheelGuard : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;

 protected:
  bool eventFilter(QObject* watched, QEvent* e) override;
};

}  // namespace ts::gui
