// What GUI tests check of a QCustomPlot as it was last drawn (no replot of their own, so what the
// user sees after the layout settled): value-axis tick labels that meet or are cut, legends that
// are not whole.
#pragma once
#include <QFontMetrics>
#include <QList>
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

}  // namespace ts::gui::test
