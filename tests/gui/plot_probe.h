// What GUI tests check of a QCustomPlot: value-axis tick labels that meet or are cut and the ticks
// shown, as it was last drawn (no replot of their own, so what the user sees after the layout
// settled); legends that are not whole; rows of a track that are cut or show fewer than two labels.
#pragma once
#include <QFontMetrics>
#include <QList>
#include <QStringList>
#include <QString>
#include <qcustomplot.h>

namespace ts::gui::test {

/// Why two tick labels of `plot`'s value axes meet or one is cut at the plot's edge ("" when
/// neither). QCustomPlot centres a vertical axis's label on its tick, one line of the tick-label font
/// high, and leaves out a label that the widget's edge would cut; the rows' left axes share one x
/// (a margin group), so labels of neighbouring rows meet where their boxes overlap.
inline QString tick_label_clash(QCustomPlot* plot) {
  struct Box {
    QString what;
    double top, bottom;
  };
  QList<Box> boxes;
  for (QCPAxisRect* r : plot->axisRects()) {
    QCPAxis* a = r->axis(QCPAxis::atLeft);
    if (!r->visible() || !r->layout() || !a->visible() || !a->tickLabels()) continue;
    const int h = QFontMetrics(a->tickLabelFont()).height();
    const QString row =
        a->property("ts_full_label").toString().isEmpty() ? a->label() : a->property("ts_full_label").toString();
    const QVector<double> ticks = a->tickVector();
    const QVector<QString> labels = a->tickVectorLabels();
    for (int i = 0; i < ticks.size() && i < labels.size(); ++i) {
      const double y = a->coordToPixel(ticks[i]);
      boxes << Box{QString("%1 row's \"%2\" (%3..%4 px)").arg(row, labels[i]).arg(y - h / 2.0).arg(y + h / 2.0),
                   y - h / 2.0, y + h / 2.0};
    }
  }
  for (int i = 0; i < boxes.size(); ++i) {
    if (boxes[i].top < 0 || boxes[i].bottom > plot->height())
      return QString("%1 cut at the edge of a %2 px plot").arg(boxes[i].what).arg(plot->height());
    for (int j = i + 1; j < boxes.size(); ++j)
      if (boxes[i].top < boxes[j].bottom && boxes[j].top < boxes[i].bottom)
        return boxes[i].what + " meets " + boxes[j].what;
  }
  return {};
}

/// The labelled ticks of value axis `a` inside its range, as last drawn.
inline int shown_ticks(QCPAxis* a) {
  int n = 0;
  for (double t : a->tickVector()) n += a->range().contains(t) ? 1 : 0;
  return n;
}

/// Why a plot's legends are not whole ("" when they are): each shown legend's
/// rectangle at least its minimum height and inside the plot.
inline QString cut_legends(QCustomPlot* plot) {
  for (QCPLayoutElement* e : plot->plotLayout()->elements(true)) {
    auto* l = qobject_cast<QCPLegend*>(e);
    if (!l || !l->visible() || l->itemCount() == 0) continue;
    const int need = l->minimumOuterSizeHint().height();
    if (l->outerRect().height() < need || !plot->rect().contains(l->outerRect()))
      return QString("a legend of %1 items is %2 px high (needs %3)").arg(l->itemCount()).arg(l->outerRect().height()).arg(need);
  }
  return {};
}

/// The shown text items of `plot` whose boxes overlap, as "A / B" ("" when none meet): each box from
/// its item's corner anchors as last laid out (a replot first).
inline QString overlapping_texts(QCustomPlot* plot) {
  plot->replot();
  QList<QCPItemText*> texts;
  for (int i = 0; i < plot->itemCount(); ++i)
    if (auto* t = qobject_cast<QCPItemText*>(plot->item(i)); t && t->visible() && !t->text().trimmed().isEmpty()) texts << t;
  auto box = [](QCPItemText* t) { return QRectF(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition()).normalized(); };
  for (int i = 0; i < texts.size(); ++i)
    for (int j = i + 1; j < texts.size(); ++j)
      if (box(texts[i]).intersects(box(texts[j]))) return texts[i]->text().simplified() + " / " + texts[j]->text().simplified();
  return {};
}

/// The shown text items of `plot` that stand out of what the plot shows, as "TEXT (y A-B, the plot
/// shows y C-D)" ("" when each is whole in view): each box from its corner anchors as last laid out.
inline QString cut_texts(QCustomPlot* plot) {
  const QRect seen = plot->visibleRegion().boundingRect();
  for (int i = 0; i < plot->itemCount(); ++i) {
    auto* t = qobject_cast<QCPItemText*>(plot->item(i));
    if (!t || !t->visible() || t->text().trimmed().isEmpty()) continue;
    const QRectF box = QRectF(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition()).normalized();
    if (box.top() < seen.top() - 1 || box.bottom() > seen.bottom() + 2)
      return QString("%1 (y %2-%3, the plot shows y %4-%5)").arg(t->text().simplified()).arg(box.top()).arg(box.bottom())
          .arg(seen.top()).arg(seen.bottom());
  }
  return {};
}

/// Why a track's shown rows are not whole ("" when they are): each visible axis rect inside the
/// plot with at least two labelled ticks on its left axis.
inline QString clipped_rows(QCustomPlot* plot) {
  plot->replot();
  const QRect seen = plot->visibleRegion().boundingRect();  // a splitter may show only part of it
  for (QCPAxisRect* r : plot->axisRects()) {
    if (!r->visible()) continue;
    const QRect outer = r->outerRect();
    if (!seen.adjusted(0, -1, 0, 1).contains(outer))  // a pixel of QCustomPlot's layout rounding
      return QString("a row at y %1-%2, the plot shows y %3-%4").arg(outer.top()).arg(outer.bottom()).arg(seen.top()).arg(seen.bottom());
    // Labels QCustomPlot draws: in the axis range and whole inside the widget (it leaves out one
    // that the widget's edge would cut).
    QCPAxis* y = r->axis(QCPAxis::atLeft);
    const int half = QFontMetrics(y->tickLabelFont()).height() / 2;
    int ticks = 0;
    for (double t : y->tickVector()) {
      const double py = y->coordToPixel(t);
      ticks += y->range().contains(t) && py - half >= seen.top() && py + half <= seen.bottom() + 1 ? 1 : 0;
    }
    if (ticks < 2) {
      QStringList at;
      for (double t : y->tickVector()) at << QString("%1 at y %2").arg(t).arg(y->coordToPixel(t));
      return QString("a row at y %1-%2 with %3 whole tick label(s) (%4; labels %5 px, the plot shows y %6-%7; range %8..%9)")
          .arg(r->top()).arg(r->bottom()).arg(ticks).arg(at.join(", ")).arg(2 * half).arg(seen.top()).arg(seen.bottom()).arg(y->range().lower).arg(y->range().upper);
    }
  }
  return {};
}

}  // namespace ts::gui::test
