// RooflineChart (roofline_chart.h): roofs as line graphs, points as scatter graphs per family, labels
// placed right of their points and nudged apart so they never overlap.
#include "widgets/playground/roofline_chart.h"

#include <qcustomplot.h>

#include <QFontMetrics>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>

namespace ts::gui {

namespace {
/// The x range: 0.01 to 10^4 flop/byte covers vector add (1/12) to a 8192^3 GEMM (~2700).
constexpr double kXMin = 0.01, kXMax = 1e4;

QColor family_colour(const std::string& f) {
  static const std::map<std::string, QColor> c = {
      {"vector_add", QColor(0, 150, 136)},  {"reduction", QColor(230, 120, 0)}, {"occupancy", QColor(120, 90, 60)},
      {"divergence", QColor(150, 60, 170)}, {"sgemm", QColor(40, 100, 200)},    {"tensor", QColor(200, 40, 80)}};
  auto it = c.find(f);
  return it == c.end() ? QColor(90, 90, 90) : it->second;
}

/// A point's short label: the step number, or the library row's precision ("7", "TF32"; the hollow
/// marker and the legend say cuBLAS), so that labels stay clear of the points beside them.
QString short_label(const playground::RooflinePoint& p) {
  QString n = QString::fromStdString(p.variant);
  if (p.own && !n.isEmpty() && n[0].isDigit()) return n.section(' ', 0, 0);
  if (n.startsWith("cuBLAS ")) n = n.mid(7);
  return n;
}
}  // namespace

RooflineChart::RooflineChart(QWidget* parent) : QWidget(parent) {
  setObjectName("playground.roofline");
  plot_ = new QCustomPlot;
  plot_->setObjectName("playground.roofline.plot");
  plot_->setMinimumSize(420, 300);
  note_ = new QLabel;
  note_->setObjectName("playground.roofline.note");
  note_->setWordWrap(true);
  note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(0, 0, 0, 0);
  lay->addWidget(plot_, 1);
  lay->addWidget(note_);
  for (QCPAxis* a : {plot_->xAxis, plot_->yAxis}) {
    a->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerLog> t(new QCPAxisTickerLog);
    a->setTicker(t);
    a->setNumberFormat("gb");
    a->setNumberPrecision(3);
  }
  plot_->xAxis->setLabel(tr("arithmetic intensity (flop per byte moved at least once)"));
  plot_->yAxis->setLabel(tr("achieved TFLOP/s"));
  plot_->legend->setVisible(true);
  // The last intensity tick's label ("10⁴") is centred on the plot's right edge: room for its half.
  plot_->axisRect()->setMinimumMargins(QMargins(0, 0, QFontMetrics(plot_->font()).horizontalAdvance("10000") / 2 + 6, 0));
  // Top left: above the bandwidth slope, where no point can be (nothing beats the roof there).
  plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
  connect(plot_, &QCustomPlot::afterLayout, this, [this] { placeLabels(); });
  clear();
}

void RooflineChart::clear() {
  roofline_ = {};
  roof_labels_.clear();
  rebuild();
  note_->setText(tr("Open a playground session to see its roofline."));
}

void RooflineChart::setRun(const std::vector<playground::Ladder>& ladders, const QString& device) {
  roofline_ = playground::roofline(ladders, device.toStdString());
  rebuild();
  QStringList moving, left;  // data movement (no flops) named once, then the failed or unrun rows
  for (const auto& s : roofline_.left_out) {
    const QString t = QString::fromStdString(s);
    if (t.contains("no arithmetic"))
      moving << t.section(':', 0, 0);
    else
      left << t;
  }
  if (!moving.isEmpty())
    left.prepend(
        tr("%1 (data movement only: no flops, and intensity 0 has no place on a log axis)").arg(moving.join(", ")));
  note_->setText(tr("Intensity: the flops of a launch over the bytes it must move at least (each input read once, "
                    "each output written once). Roofs: bandwidth %1; compute peaks from the datasheet.%2")
                     .arg(roofline_.bandwidth.measured ? tr("measured") : tr("from the datasheet"),
                          left.isEmpty() ? QString() : tr("\nNot on the chart: ") + left.join("; ")));
}

void RooflineChart::setFocusFamily(const QString& family) {
  if (family == focus_) return;
  focus_ = family;
  rebuild();
}

void RooflineChart::addRoofs(double ymax) {
  const auto& r = roofline_;
  const double bw = r.bandwidth.value;
  const double top = r.peaks.empty() ? ymax : r.peaks.back().value;
  if (bw > 0) {  // the slope, up to the highest peak's ridge
    QCPGraph* g = plot_->addGraph();
    const double ridge = top * 1e3 / bw;
    g->setData(QVector<double>{kXMin, std::min(ridge, kXMax)},
               QVector<double>{kXMin * bw / 1e3, std::min(ridge, kXMax) * bw / 1e3});
    g->setPen(QPen(QColor(40, 40, 40), 2, r.bandwidth.measured ? Qt::SolidLine : Qt::DashLine));
    const QString label = QString("%1 %2 GB/s (%3)")
                              .arg(QString::fromStdString(r.bandwidth.what))
                              .arg(bw, 0, 'f', 0)
                              .arg(r.bandwidth.measured ? "measured" : "datasheet");
    g->setName(label);
    g->removeFromLegend();  // labelled along the line
    roof_labels_ << label;
    auto* t = new QCPItemText(plot_);
    t->setObjectName("roof.bandwidth");
    // From the left edge: memory kernels sit near the slope from 1/12 flop/byte on (a reduction
    // that only reads can sit above it), so the label ends before them.
    t->position->setCoords(kXMin * 1.1, kXMin * 1.1 * bw / 1e3);
    t->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    t->setText(label);  // rotated to the slope's angle in placeLabels()
  }
  const Qt::PenStyle styles[] = {Qt::DashLine, Qt::DashDotLine, Qt::DotLine};
  for (std::size_t i = 0; i < r.peaks.size(); ++i) {
    const auto& pk = r.peaks[i];
    const double from = bw > 0 ? std::max(kXMin, pk.value * 1e3 / bw) : kXMin;
    QCPGraph* g = plot_->addGraph();
    g->setData(QVector<double>{from, kXMax}, QVector<double>{pk.value, pk.value});
    g->setPen(QPen(QColor(110, 110, 110), 1.5, styles[i % 3]));
    const QString label = QString("%1 %2 TFLOP/s (%3)")
                              .arg(QString::fromStdString(pk.what))
                              .arg(pk.value, 0, 'f', pk.value < 100 ? 1 : 0)
                              .arg(pk.measured ? "measured" : "datasheet");
    g->setName(label);
    roof_labels_ << label;
    // The label ends at the ridge, above the roof's height: left of the ridge and above the slope
    // nothing can be plotted, while right of it the GEMM points sit just under their roofs.
    g->removeFromLegend();
    auto* t = new QCPItemText(plot_);
    t->position->setCoords(from, pk.value);
    t->setPositionAlignment((bw > 0 ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignBottom);
    t->setText(label);
    t->setColor(QColor(60, 60, 60));
  }
}

void RooflineChart::rebuild() {
  plot_->clearGraphs();
  plot_->clearItems();
  roof_labels_.clear();
  const auto& r = roofline_;
  double ymax = 1;
  for (const auto& pk : r.peaks) ymax = std::max(ymax, pk.value);
  for (const auto& pt : r.points) ymax = std::max(ymax, pt.tflops);
  for (const auto& pt : r.measured_points) ymax = std::max(ymax, pt.tflops);
  const double ymin = 0.01;
  addRoofs(ymax);
  // Only the focused family's points are labelled (another family's labels fall on its points: the
  // tensor ladder's cuBLAS rows sit a decade right of SGEMM's); a family with no point here (copy,
  // transpose: no flops) labels none — every family's labels at once ran over each other. With no
  // family focused, all are labelled.
  const bool label_all = focus_.isEmpty();
  std::map<std::string, std::pair<QCPGraph*, QCPGraph*>> by_family;  // own, library
  for (const auto& pt : r.points) {
    auto& slot = by_family[pt.family];
    QCPGraph*& g = pt.own ? slot.first : slot.second;
    if (!g) {
      g = plot_->addGraph();
      g->setLineStyle(QCPGraph::lsNone);
      const QColor c = family_colour(pt.family);
      const bool dim = !focus_.isEmpty() && focus_.toStdString() != pt.family;
      QColor fill = dim ? c.lighter(170) : c;
      g->setScatterStyle(QCPScatterStyle(pt.own ? QCPScatterStyle::ssDisc : QCPScatterStyle::ssCircle, fill,
                                         pt.own ? fill : Qt::white, 9));
      g->setPen(QPen(fill, 2));
      g->setName(QString::fromStdString(pt.family) + (pt.own ? tr(" (own kernels)") : tr(" (cuBLAS)")));
    }
    g->addData(pt.intensity, pt.tflops);
    if (!label_all && focus_.toStdString() != pt.family) continue;
    auto* t = new QCPItemText(plot_);
    t->setObjectName("point");
    t->setProperty("k", pt.intensity);  // placeLabels() positions it from these, in pixels
    t->setProperty("v", pt.tflops);
    t->position->setCoords(pt.intensity, pt.tflops);
    t->setProperty("own", pt.own);  // own kernels' labels right of the point, the library's left of it
    t->setPositionAlignment((pt.own ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    t->setPadding(pt.own ? QMargins(8, 0, 0, 0) : QMargins(0, 0, 8, 0));
    t->setText(short_label(pt));
    t->setProperty("label", short_label(pt));
    t->setColor(family_colour(pt.family).darker(130));
  }
  addMeasuredPoints();
  plot_->xAxis->setRange(kXMin, kXMax);
  plot_->yAxis->setRange(ymin, ymax * 3);
  plot_->replot();
}

void RooflineChart::addMeasuredPoints() {
  if (roofline_.measured_points.empty()) return;
  // One graph of dark crosses, so the legend has one entry for them beside the families' estimated dots.
  QCPGraph* g = plot_->addGraph();
  g->setObjectName("measured");
  g->setLineStyle(QCPGraph::lsNone);
  g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, QColor(30, 30, 30), 9));
  g->setPen(QPen(QColor(30, 30, 30), 2));
  g->setName(tr("measured (GPU counters)"));
  for (const auto& pt : roofline_.measured_points) g->addData(pt.intensity, pt.tflops);
}

void RooflineChart::placeLabels() {
  // The bandwidth label along its slope (the angle in pixels of a decade of intensity).
  if (auto* t = plot_->findChild<QCPItemText*>("roof.bandwidth"); t && roofline_.bandwidth.value > 0) {
    const double bw = roofline_.bandwidth.value;
    const double dx = plot_->xAxis->coordToPixel(1) - plot_->xAxis->coordToPixel(0.1);
    const double dy = plot_->yAxis->coordToPixel(bw / 1e3) - plot_->yAxis->coordToPixel(0.1 * bw / 1e3);
    t->setRotation(std::atan2(dy, dx) * 180 / M_PI);
  }
  // Points of one GEMM ladder share their intensity, so their labels would stack. Per column (x
  // pixel, 20 px wide) and side (own right, library left): labels closer than a line are merged
  // into one ("6, 7, 8"), and a merged label below another is pushed down a line.
  // A library label goes right of its point instead where, on the left, it would cover another
  // family's point (SGEMM's "cuBLAS FP32" over the divergence ladder's at 48 TFLOP/s).
  const QFontMetrics fm(plot_->font());
  const int line = fm.height();
  std::vector<QPointF> dots;
  for (const auto& pt : roofline_.points)
    dots.emplace_back(plot_->xAxis->coordToPixel(pt.intensity), plot_->yAxis->coordToPixel(pt.tflops));
  auto covers = [&](const QRectF& r) {
    for (const QPointF& d : dots)
      if (r.adjusted(-5, -5, 5, 5).contains(d)) return true;
    return false;
  };
  std::map<std::pair<int, bool>, std::vector<QCPItemText*>> columns;
  for (int i = 0; i < plot_->itemCount(); ++i)
    if (auto* t = qobject_cast<QCPItemText*>(plot_->item(i)); t && t->objectName() == "point") {
      t->setVisible(true);
      const QPointF at(plot_->xAxis->coordToPixel(t->property("k").toDouble()),
                       plot_->yAxis->coordToPixel(t->property("v").toDouble()));
      const double w = fm.horizontalAdvance(t->property("label").toString());
      bool right = t->property("own").toBool() || covers(QRectF(at.x() - 8 - w, at.y() - line / 2.0, w, line));
      t->setPositionAlignment((right ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
      t->setPadding(right ? QMargins(8, 0, 0, 0) : QMargins(0, 0, 8, 0));
      columns[{static_cast<int>(at.x() / 20), right}].push_back(t);
    }
  for (auto& [key, col] : columns) {
    std::sort(col.begin(), col.end(),
              [](QCPItemText* a, QCPItemText* b) { return a->property("v").toDouble() > b->property("v").toDouble(); });
    QCPItemText* head = nullptr;
    double head_px = -1e9, last_px = -1e9;
    QStringList names;
    auto flush = [&] {
      if (!head) return;
      // A merged label stays one short line ("6, 7, 8"); a long run (the occupancy ladder's launch
      // configurations) ends in "…"; the Ladder tab names each one.
      // A label right of its point ends at the plot's right edge ("WMMA fp16, WM" was cut there by the
      // widget): elided to the room left (flipping it left put it over the cuBLAS labels there).
      int room = std::max(120, plot_->axisRect()->width() / 4);
      if (head->positionAlignment() & Qt::AlignLeft) {
        const double x = plot_->xAxis->coordToPixel(head->property("k").toDouble());
        room = std::min(room, std::max(24, static_cast<int>(plot_->axisRect()->rect().right() - x) - 10));
      }
      head->setText(fm.elidedText(names.join(", "), Qt::ElideRight, room));
      const double px = std::max(head_px, last_px + line);
      head->position->setType(QCPItemPosition::ptAbsolute);
      head->position->setCoords(plot_->xAxis->coordToPixel(head->property("k").toDouble()), px);
      last_px = px;
    };
    for (auto* t : col) {
      const double px = plot_->yAxis->coordToPixel(t->property("v").toDouble());
      const QString name = t->property("label").toString();
      if (head && px - head_px < line) {
        names.prepend(name);  // lowest first: "6, 7, 8"
        t->setVisible(false);
        continue;
      }
      flush();
      head = t, head_px = px, names = {name};
    }
    flush();
  }
  keepLabelsApart();
}

void RooflineChart::keepLabelsApart() {
  // Labels of neighbouring columns can still meet (the tensor ladder's own and cuBLAS rows around
  // 1e3 flop/byte): from the top down, a label over one placed before moves down a line at a time
  // (three at most), else it is hidden — the Ladder tab names every row.
  const QFontMetrics fm(plot_->font());
  const int line = fm.height();
  std::vector<QCPItemText*> shown;
  for (int i = 0; i < plot_->itemCount(); ++i)
    if (auto* t = qobject_cast<QCPItemText*>(plot_->item(i)); t && t->objectName() == "point" && t->visible())
      shown.push_back(t);
  auto rect_of = [&](QCPItemText* t, double y) {
    const double x = t->position->pixelPosition().x(), w = fm.horizontalAdvance(t->text()) + 8;
    return (t->positionAlignment() & Qt::AlignLeft) ? QRectF(x, y - line / 2.0, w, line) : QRectF(x - w, y - line / 2.0, w, line);
  };
  std::sort(shown.begin(), shown.end(), [](QCPItemText* a, QCPItemText* b) {
    return a->position->pixelPosition().y() < b->position->pixelPosition().y();
  });
  std::vector<QRectF> placed;
  for (QCPItemText* t : shown) {
    const QPointF at = t->position->pixelPosition();
    bool ok = false;
    for (int down = 0; down <= 3 && !ok; ++down) {
      const QRectF r = rect_of(t, at.y() + down * line);
      ok = std::none_of(placed.begin(), placed.end(), [&](const QRectF& p) { return p.adjusted(1, 1, -1, -1).intersects(r); });
      if (ok) {
        if (down > 0) {
          t->position->setType(QCPItemPosition::ptAbsolute);
          t->position->setCoords(at.x(), at.y() + down * line);
        }
        placed.push_back(r);
      }
    }
    if (!ok) t->setVisible(false);
  }
}

}  // namespace ts::gui
