// set_text_colour() / set_background(): one palette role each, the rest inherited.
#include "widgets/common/text_colour.h"

#include <QPalette>
#include <QVariant>
#include <QWidget>

namespace ts::gui {

namespace {

/// Sets `roles` of `w` to `c` (an invalid `c`: inherited again), keeping the roles set by these
/// functions before. The roles set are kept in a property, not read back from the widget's palette,
/// whose resolve mask may also hold roles it inherited (classroom mode's presenter palette), which
/// would then stay after the mode is left.
void set_roles(QWidget* w, std::initializer_list<QPalette::ColorRole> roles, const QColor& c) {
  QVariantMap set = w->property("ts_palette_roles").toMap();
  for (auto role : roles) {
    if (c.isValid()) set.insert(QString::number(role), c);
    else set.remove(QString::number(role));
  }
  w->setProperty("ts_palette_roles", set);
  QPalette own;  // resolves nothing: the roles not set below follow the parent
  for (auto it = set.cbegin(); it != set.cend(); ++it)
    own.setColor(static_cast<QPalette::ColorRole>(it.key().toInt()), it.value().value<QColor>());
  w->setPalette(own);
}

}  // namespace

void set_text_colour(QWidget* w, const QColor& c) { set_roles(w, {QPalette::WindowText, QPalette::Text}, c); }

void set_background(QWidget* w, const QColor& c) {
  set_roles(w, {QPalette::Window}, c);
  w->setAutoFillBackground(c.isValid());
}

}  // namespace ts::gui
