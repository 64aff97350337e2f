// scale_texts(): every QCustomPlot text at a scale of its size at scale 1, kept per text.
#include "widgets/common/text_scale.h"

#include <QApplication>
#include <QFont>
#include <QMetaProperty>
#include <QSet>
#include <QVariant>
#include <QWidget>
#include <cmath>
#include <qcustomplot.h>

namespace ts::gui {

namespace {

QFont sized(const QFont& f, double k) {
  if (k == 1.0) return f;
  QFont out = f;
  if (f.pointSizeF() > 0) out.setPointSizeF(f.pointSizeF() * k);
  else if (f.pixelSize() > 0) out.setPixelSize(std::max(1, static_cast<int>(std::lround(f.pixelSize() * k))));
  return out;
}

/// The QFont properties of `o` (QCustomPlot declares them: font, selectedFont, tickLabelFont, ...).
QList<QMetaProperty> font_properties(const QObject* o) {
  QList<QMetaProperty> out;
  const QMetaObject* m = o->metaObject();
  for (int i = 0; i < m->propertyCount(); ++i) {
    const QMetaProperty p = m->property(i);
    if (p.metaType().id() == QMetaType::QFont && p.isWritable()) out << p;
  }
  return out;
}

QByteArray base_key(const QMetaProperty& p) { return QByteArray("ts_base_") + p.name(); }

/// Takes each font property's scale-1 font the first time `o` is seen (its font divided by `from`).
void keep_base(QObject* o, double from) {
  for (const QMetaProperty& p : font_properties(o)) {
    const QByteArray key = base_key(p);
    if (o->property(key.constData()).isValid()) continue;
    o->setProperty(key.constData(), sized(p.read(o).value<QFont>(), 1.0 / from));
  }
}

void set_scaled(QObject* o, double to) {
  for (const QMetaProperty& p : font_properties(o)) {
    const QVariant base = o->property(base_key(p).constData());
    if (base.isValid()) p.write(o, sized(base.value<QFont>(), to));
  }
}

/// Everything of `plot` that holds a text: axes, layout elements (titles, legends and their items,
/// axis rects' insets) and items, also those out of its layout for now (a track's rows and their
/// legends that it shows only where the session has them: missed, a session opened in classroom mode
/// drew its utilization legends at the desktop's size).
QList<QObject*> text_owners(QCustomPlot* plot) {
  QList<QObject*> legends, others;
  QSet<QObject*> seen;
  auto add = [&](QObject* o) {
    if (!o || seen.contains(o)) return;
    seen.insert(o);
    (qobject_cast<QCPLegend*>(o) ? legends : others) << o;
  };
  add(plot->legend);
  for (QCPLayoutElement* e : plot->plotLayout()->elements(true)) add(e);
  for (QCPAxisRect* r : plot->axisRects())
    for (QCPAxis* a : r->axes()) add(a);
  for (int i = 0; i < plot->itemCount(); ++i) add(plot->item(i));
  // Out of the layout: QCustomPlot gives an element it takes back to the plot as its QObject parent,
  // and an axis rect made for the plot, with its axes, is the plot's child from the start.
  for (QCPLayerable* o : plot->findChildren<QCPLayerable*>()) add(o);
  // A legend's setFont() sets its items' fonts too: legends first, then the items from their own.
  return legends + others;
}

}  // namespace

void scale_texts(double from, double to) {
  if (from <= 0 || to <= 0) return;
  for (QWidget* w : QApplication::allWidgets()) {
    auto* plot = qobject_cast<QCustomPlot*>(w);
    if (!plot) continue;
    const QList<QObject*> owners = text_owners(plot);
    for (QObject* o : owners) keep_base(o, from);  // all of them before any font changes
    for (QObject* o : owners) set_scaled(o, to);
    plot->replot(QCustomPlot::rpQueuedReplot);
  }
}

}  // namespace ts::gui
