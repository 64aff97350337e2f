// TimelineView painting: step bands, the hub's highlight, lanes (headers, rows through lod_walk,
// search dimming and matches, highlighted kernels outlined), the selection with its launch -> GPU
// flow arrow, the range selection and the time ruler. Every loop over events goes through a
// per-pixel skip (lod_walk or the mark walk below), so a repaint costs O(pixels · log n).
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

#include "widgets/timeline/categories.h"
#include "widgets/timeline/timeline_details.h"
#include "widgets/timeline/timeline_view.h"

namespace ts::gui {

using namespace timeline;

namespace {

/// A nice tick step (1, 2, 5 × 10^k ns) at least `min_ns` long.
std::int64_t nice_step(double min_ns) {
  double p = 1;
  while (p * 10 <= min_ns) p *= 10;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (p * m >= min_ns) return static_cast<std::int64_t>(p * m);
  return static_cast<std::int64_t>(p * 10);
}

/// Clamps a pixel span to the plot (QPainter coordinates stay small at deep zoom); the plot starts
/// `left` px from the widget's left edge (the header's width).
QRectF span_rect(int left, double x0, double x1, double y, double h, double width) {
  x0 = std::max(x0, -4.0), x1 = std::min(x1, width + 4.0);
  return QRectF(left + x0, y, std::max(x1 - x0, 1.0), h);
}

/// Integer pixel span (fills on whole pixels are the raster engine's fast path).
QRect pixel_rect(int left, double x0, double x1, int y, int h, double width) {
  x0 = std::max(x0, -4.0), x1 = std::min(x1, width + 4.0);
  const int a = static_cast<int>(std::floor(x0)), b = std::max(a + 1, static_cast<int>(std::ceil(x1)));
  return QRect(left + a, y, b - a, h);
}

/// Opaque colours per category and density level (the category's colour over white at alpha
/// 90..255 in 16 steps): merged blocks are filled without blending.
struct Palette {
  static constexpr int kLevels = 16;
  QColor solid[timeline::kCategoryCount];
  QColor density[timeline::kCategoryCount][kLevels];
  QColor dim[timeline::kCategoryCount];  // search active: what does not match (25 % over white)
  Palette() {
    for (int c = 0; c < timeline::kCategoryCount; ++c) {
      const QColor k = timeline::category_color(static_cast<timeline::Category>(c));
      solid[c] = k;
      dim[c] = QColor::fromRgbF(static_cast<float>(0.75 + 0.25 * k.redF()), static_cast<float>(0.75 + 0.25 * k.greenF()),
                                static_cast<float>(0.75 + 0.25 * k.blueF()));
      for (int l = 0; l < kLevels; ++l) {
        const double a = (90 + 165.0 * l / (kLevels - 1)) / 255.0;
        density[c][l] = QColor::fromRgbF(static_cast<float>(1 - a + a * k.redF()), static_cast<float>(1 - a + a * k.greenF()),
                                         static_cast<float>(1 - a + a * k.blueF()));
      }
    }
  }
};
const Palette& colours() {
  static const Palette p;
  return p;
}

/// Shades of a category for host ops by name: hue and lightness offsets (degrees, HSL lightness
/// 0..255) small enough that each stays recognisably its category, large enough to tell adjacent
/// ops apart (as Perfetto and Chrome's tracing colour slices by a hash of their name).
constexpr int kShades = 8;
constexpr int kShadeHue[kShades] = {0, -16, 16, -32, 32, 0, -8, 24};
constexpr int kShadeLight[kShades] = {0, 28, -24, -8, 18, 48, -40, -30};

QColor shade(const QColor& base, int k) {
  const QColor hsl = base.toHsl();
  return QColor::fromHsl((hsl.hslHue() + kShadeHue[k] + 360) % 360, hsl.hslSaturation(),
                         std::clamp(hsl.lightness() + kShadeLight[k], 30, 225));
}

/// Black or white text on `c` (WCAG relative luminance > 0.45 -> black, as category_text_color).
QColor text_on(const QColor& c) {
  auto lin = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF()) > 0.45 ? QColor(Qt::black)
                                                                                                : QColor(Qt::white);
}

/// A label that fits `width` px: the text, else its short form (a step's number), else the text
/// elided when at least 3 characters stay readable, else nothing (no "st…").
QString fit_label(const QFontMetrics& fm, const QString& text, const QString& short_form, int width) {
  if (fm.horizontalAdvance(text) <= width) return text;
  if (!short_form.isEmpty() && fm.horizontalAdvance(short_form) <= width) return short_form;
  const QString e = fm.elidedText(text, Qt::ElideRight, width);
  return e.size() >= 4 ? e : QString();
}

}  // namespace

QColor TimelineView::eventColor(const Event& e) const {
  const auto cat = static_cast<Category>(std::min<int>(e.category, kCategoryCount - 1));
  if (e.source != Source::host_range || data_.isOverview() || !store_) return category_color(cat);
  const auto& h = store_->host_ranges[e.row];
  if (cat == Category::step)  // adjacent steps told apart: alternate two greys
    return h.step % 2 ? QColor(0xA9, 0xAE, 0xB8) : category_color(cat);
  if (cat != Category::host_other) return category_color(cat);
  if (h.name >= name_shade_.size()) name_shade_.resize(std::max<std::size_t>(h.name + 1, store_->strings.size()), -1);
  if (name_shade_[h.name] < 0)
    name_shade_[h.name] = static_cast<std::int8_t>(qHash(QByteArray::fromStdString(store_->strings.get(h.name))) % kShades);
  return shade(category_color(cat), name_shade_[h.name]);
}

QString TimelineView::eventLabel(const Event& e) const {
  if (data_.isOverview()) return {};  // an overview bin, not an event
  const prof::EventStore& s = *store_;
  switch (e.source) {
    case Source::kernel: {
      const prof::StringId id = s.kernels[e.row].name;
      if (id >= short_names_.size()) short_names_.resize(std::max<std::size_t>(id + 1, s.strings.size()));
      if (short_names_[id].isEmpty()) short_names_[id] = short_kernel_name(s.strings.get(id));
      return short_names_[id];
    }
    case Source::memcpy: return QString("%1 B").arg(s.memcpys[e.row].bytes);
    case Source::memset: return "memset";
    case Source::runtime: return QString::fromStdString(s.strings.get(s.runtime[e.row].name));
    case Source::sync: return "sync";
    case Source::graph_replay: return "CUDA graph replay";
    case Source::host_range: {
      const auto& h = s.host_ranges[e.row];
      if (static_cast<Category>(e.category) == Category::step) return QString("step %1").arg(h.step);
      const QString name = QString::fromStdString(s.strings.get(h.name));
      return h.layer ? name + " · " + QString::fromStdString(s.strings.get(h.layer)) : name;
    }
  }
  return {};
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  newest_shown_ = 0;
  refreshMarks();
  const int top = ruler_h_, bottom = height();
  p.setClipRect(header_w_, top, width() - header_w_, bottom - top);
  paintSteps(p, top, bottom);
  paintHighlightBands(p, top, bottom);
  p.setClipping(false);
  for (const LaneGeom& g : layout())
    if (g.y + g.height > top && g.y < bottom) paintLane(p, g);
  p.setClipRect(header_w_, top, width() - header_w_, bottom - top);
  paintSelection(p);
  p.setClipping(false);
  paintRuler(p);
  p.setPen(QColor(200, 200, 200));
  p.drawLine(header_w_ - 1, 0, header_w_ - 1, height());
  if (!data_.eventCount()) {
    p.setPen(QColor(90, 90, 90));
    p.drawText(rect().adjusted(header_w_, ruler_h_, 0, 0), Qt::AlignCenter | Qt::TextWordWrap, emptyText());
  }
  emit painted(newest_shown_);
}

QString TimelineView::emptyText() const {
  if (!store_) return tr("No session: open a session file or start a run with profiling.");
  if (hub_->isLive()) return tr("No events recorded yet (GPU activity appears once the profiler flushes).");
  // A finished session without events: why, when it says (a profiled program that never used CUDA).
  const auto meta = store_->meta();
  const auto it = meta.find("gpu_activity");
  QString text = tr("No events in this session");
  if (it != meta.end() && it->second.rfind("none", 0) == 0) text += QString(" (%1)").arg(QString::fromStdString(it->second));
  return text + '.';
}

void TimelineView::paintSteps(QPainter& p, int top, int bottom) {
  const auto& steps = data_.steps();
  const std::int64_t t0 = axis_.start(), t1 = axis_.end();
  auto first = std::partition_point(steps.begin(), steps.end(), [&](const StepBand& s) { return s.end <= t0; });
  auto last = std::partition_point(first, steps.end(), [&](const StepBand& s) { return s.start < t1; });
  if (last - first > axis_.width() / 3) return;  // narrower than 3 px on average: bands would be noise
  for (auto it = first; it != last; ++it) {
    if (it->global_step % 2) continue;
    p.fillRect(span_rect(header_w_, axis_.x(it->start), axis_.x(it->end), top, bottom - top, axis_.width()),
               QColor(240, 242, 247));
  }
}

void TimelineView::paintHighlightBands(QPainter& p, int top, int bottom) {
  if (!hub_) return;
  const auto& iv = hub_->highlight().intervals;
  const std::int64_t t0 = axis_.start(), t1 = axis_.end();
  auto it = std::partition_point(iv.begin(), iv.end(), [&](const TimeSpan& s) { return s.end <= t0; });
  while (it != iv.end() && it->start < t1) {
    const double x0 = axis_.x(it->start), x1 = std::max(axis_.x(it->end), x0 + 2);
    p.fillRect(span_rect(header_w_, x0, x1, top, bottom - top, axis_.width()), QColor(255, 176, 0, 60));
    const std::int64_t next = axis_.t(std::floor(x1) + 1);  // one band per pixel at most
    it = std::partition_point(it + 1, iv.end(), [&](const TimeSpan& s) { return s.start < next && s.end <= next; });
  }
}

QString TimelineView::headerArrow(int lane) const {
  if (data_.lanes()[static_cast<std::size_t>(lane)].rows.size() < 2) return QStringLiteral("  ");
  return isLaneCollapsed(lane) ? QStringLiteral("▸ ") : QStringLiteral("▾ ");
}

QString TimelineView::laneHeaderText(int lane) const {
  if (lane < 0 || lane >= static_cast<int>(data_.lanes().size())) return {};
  const QFontMetrics fm = fontMetrics();
  const QString arrow = headerArrow(lane);
  return arrow + timeline::fit_lane_title(data_.laneTitle(lane), fm, header_w_ - 10 - fm.horizontalAdvance(arrow));
}

void TimelineView::paintLane(QPainter& p, const LaneGeom& g) {
  const Lane& lane = data_.lanes()[static_cast<std::size_t>(g.lane)];
  const int top = std::max(g.y, ruler_h_);
  // Header.
  p.setClipRect(0, ruler_h_, header_w_, height() - ruler_h_);
  p.fillRect(QRect(0, g.y, header_w_ - 1, g.height), QColor(246, 246, 248));
  p.setPen(QColor(40, 40, 40));
  const bool collapsed = isLaneCollapsed(g.lane);
  p.drawText(QRect(6, g.y + kLanePad, header_w_ - 8, row_h_), Qt::AlignVCenter | Qt::AlignLeft,
             laneHeaderText(g.lane));
  if (!collapsed && lane.rows.size() > 1 && g.height >= 2 * row_h_) {
    p.setPen(QColor(120, 120, 120));
    p.drawText(QRect(18, g.y + kLanePad + row_h_, header_w_ - 20, row_h_), Qt::AlignVCenter | Qt::AlignLeft,
               tr("%1 rows").arg(lane.rows.size()));
  }
  // Rows.
  p.setClipRect(QRect(header_w_, top, width() - header_w_, g.y + g.height - top));
  const bool have_marks = g.lane < static_cast<int>(marks_.size()) && !marks_[g.lane].empty();
  for (int r = 0; r < g.rows && r < static_cast<int>(lane.rows.size()); ++r) {
    const int y = g.y + kLanePad + r * row_h_;
    if (y + row_h_ < ruler_h_ || y > height()) continue;
    paintRow(p, lane.rows[static_cast<std::size_t>(r)], y,
             have_marks && !search_.isEmpty() ? &marks_[g.lane][static_cast<std::size_t>(r)] : nullptr,
             have_marks ? &outlined_[g.lane][static_cast<std::size_t>(r)] : nullptr);
  }
  // Nothing of the lane in view: where its events are, in its first row, so it does not look empty
  // (earlier ones noted at the left edge, later ones at the right).
  if (const QString note = offViewNote(g.lane); !note.isEmpty()) {
    const QRect row(header_w_ + 6, g.y + kLanePad, width() - header_w_ - 12, row_h_);
    const bool later = offView(g.lane).before == 0;
    p.setPen(QColor(100, 100, 110));
    p.drawText(row, Qt::AlignVCenter | (later ? Qt::AlignRight : Qt::AlignLeft),
               fontMetrics().elidedText(note, Qt::ElideRight, row.width()));
  }
  p.setClipping(false);
  p.setPen(QColor(225, 225, 230));
  p.drawLine(0, g.y + g.height - 1, width(), g.y + g.height - 1);
}

void TimelineView::paintOverviewRow(QPainter& p, const Row& row, int y) {
  // One fill per pixel column (or per bin where a bin is wider): the busy share of the bins in it, in
  // the colour of its first bin — what the file's overview says, without the event walk's chaining
  // of contiguous sub-pixel items into one block.
  const Palette& pal = colours();
  const auto& ev = row.events;
  const std::int64_t bin = data_.overviewBinNs();
  std::size_t i = row.firstEndingAfter(axis_.start());
  const std::size_t end = row.firstStartingAt(axis_.end(), i);
  while (i < end) {
    const double x0 = axis_.x(ev[i].start);
    const double x1 = std::max(std::floor(x0) + 1, axis_.x(ev[i].start + bin));
    const std::int64_t t1 = axis_.t(x1);
    std::int64_t busy = 0;
    std::size_t j = i;
    for (; j < end && ev[j].start < t1; ++j) busy += ev[j].dur();
    const double span = std::max(1.0, static_cast<double>(t1 - ev[i].start));
    const double share = std::min(1.0, static_cast<double>(busy) / span);
    const int cat = std::min<int>(ev[i].category, kCategoryCount - 1);
    p.fillRect(pixel_rect(header_w_, x0, x1, y + 1, row_h_ - 2, axis_.width()),
               pal.density[cat][static_cast<int>(share * (Palette::kLevels - 1) + 0.5)]);
    i = std::max(j, i + 1);
  }
}

void TimelineView::paintRow(QPainter& p, const Row& row, int y, const std::vector<std::uint32_t>* marks,
                            const std::vector<std::uint32_t>* outlined) {
  if (data_.isOverview()) return paintOverviewRow(p, row, y);
  const double w = axis_.width();
  const QFontMetrics fm = fontMetrics();
  const Palette& pal = colours();
  std::int64_t newest = 0;
  const bool dimmed = marks != nullptr;
  lod_walk(row, axis_, axis_.start(), axis_.end(), 1.0, [&](const LodItem& it) {
    const Event& e = row.events[it.first];
    const int cat = std::min<int>(e.category, kCategoryCount - 1);
    const std::int64_t last_end = row.events[it.last - 1].end();
    newest = std::max(newest, last_end);
    const QRect rc = pixel_rect(header_w_, it.x0, it.x1, y + 1, row_h_ - 2, w);
    if (it.merged) {
      // Density block: shade by the share of the block's time that is busy.
      const double len = std::max(1.0, static_cast<double>(last_end - e.start));
      const double busy = std::min(1.0, static_cast<double>(it.busy_ns) / len);
      p.fillRect(rc, dimmed ? pal.dim[cat] : pal.density[cat][static_cast<int>(busy * (Palette::kLevels - 1) + 0.5)]);
      return;
    }
    const QColor fill = dimmed ? pal.dim[cat] : eventColor(e);
    p.fillRect(rc, fill);
    if (static_cast<Category>(cat) == Category::step && rc.width() > 2)  // a step's start: a white rule
      p.fillRect(QRect(rc.left(), rc.top(), 1, rc.height()), Qt::white);
    if (rc.width() > 14) {
      const bool step = static_cast<Category>(cat) == Category::step && e.source == Source::host_range;
      const QString label = fit_label(fm, eventLabel(e), step ? QString::number(store_->host_ranges[e.row].step) : QString(),
                                      rc.width() - 5);
      if (!label.isEmpty()) {
        p.setPen(dimmed ? QColor(150, 150, 150) : text_on(fill));
        p.drawText(rc.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft, label);
      }
    }
  });
  newest_shown_ = std::max<qint64>(newest_shown_, newest);
  if (marks) paintMarks(p, row, *marks, y, false);  // search: the row was dimmed; matches in full colour
  if (outlined && !outlined->empty()) paintMarks(p, row, *outlined, y, true);
}

void TimelineView::paintMarks(QPainter& p, const Row& row, const std::vector<std::uint32_t>& marks, int y, bool outline) {
  const auto& ev = row.events;
  const std::int64_t t0 = axis_.start(), t1 = axis_.end();
  auto it = std::partition_point(marks.begin(), marks.end(), [&](std::uint32_t i) { return ev[i].end() <= t0; });
  p.setBrush(Qt::NoBrush);
  while (it != marks.end() && ev[*it].start < t1) {
    const Event& e = ev[*it];
    const double x0 = axis_.x(e.start), x1 = std::max(axis_.x(e.end()), x0 + 1);
    const QRectF rc = span_rect(header_w_, x0, x1, y + 1, row_h_ - 2, axis_.width());
    if (outline) {
      p.setPen(QPen(QColor(0, 0, 0), 2));
      p.drawRect(rc.adjusted(-1, -1, 1, 1));
    } else {
      const QColor fill = eventColor(e);
      p.fillRect(rc, fill);
      p.setPen(QPen(QColor(20, 20, 20), 1));
      p.drawRect(rc);
      const QString label = rc.width() > 14 ? fit_label(fontMetrics(), eventLabel(e), QString(), static_cast<int>(rc.width()) - 5) : QString();
      if (!label.isEmpty()) {
        p.setPen(text_on(fill));
        p.drawText(rc.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft, label);
      }
    }
    const std::int64_t next = axis_.t(std::floor(x1) + 1);  // the next pixel column
    it = std::partition_point(it + 1, marks.end(), [&](std::uint32_t i) { return ev[i].start < next; });
  }
}

void TimelineView::paintSelection(QPainter& p) {
  const double w = axis_.width();
  if (time_selection_) {
    const double x0 = axis_.x(time_selection_->start), x1 = axis_.x(time_selection_->end);
    p.fillRect(span_rect(header_w_, x0, x1, ruler_h_, height() - ruler_h_, w), QColor(40, 110, 220, 38));
    p.setPen(QPen(QColor(40, 110, 220), 1));
    for (double x : {x0, x1})
      if (x >= -1 && x <= w + 1) p.drawLine(QPointF(header_w_ + x, ruler_h_), QPointF(header_w_ + x, height()));
  }
  if (!selected_.valid()) return;
  auto box = [&](const EventRef& r) {
    const Event& e = data_.event(r);
    const int yc = rowCenterY(r.lane, r.row);
    return yc < 0 ? QRectF()
                  : span_rect(header_w_, axis_.x(e.start), std::max(axis_.x(e.end()), axis_.x(e.start) + 1),
                              yc - row_h_ / 2 + 1, row_h_ - 2, w);
  };
  const QRectF sel = box(selected_);
  if (!sel.isNull()) {
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(Qt::black, 2));
    p.drawRect(sel.adjusted(-1, -1, 1, 1));
  }
  const EventRef partner = flowPartner();
  if (!partner.valid()) return;
  const QRectF other = box(partner);
  if (sel.isNull() || other.isNull()) return;
  // Launch -> GPU op: from the runtime call's start to the op's start.
  const bool sel_is_launch = data_.event(selected_).source == Source::runtime;
  const QRectF from = sel_is_launch ? sel : other, to = sel_is_launch ? other : sel;
  const QPointF a(from.left(), from.bottom()), b(to.left(), to.top());
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setPen(QPen(QColor(20, 20, 20), 1.5));
  QPainterPath path(a);
  path.cubicTo(a + QPointF(0, 30), b - QPointF(0, 30), b);
  p.drawPath(path);
  const QPointF tip = b, dir(0, 1);
  QPolygonF head;
  head << tip << tip - dir * 8 + QPointF(4, 0) << tip - dir * 8 - QPointF(4, 0);
  p.setBrush(QColor(20, 20, 20));
  p.drawPolygon(head);
  p.setRenderHint(QPainter::Antialiasing, false);
}

void TimelineView::paintRuler(QPainter& p) {
  const double w = axis_.width();
  p.fillRect(QRect(0, 0, width(), ruler_h_), QColor(250, 250, 250));
  p.setPen(QColor(200, 200, 200));
  p.drawLine(0, ruler_h_ - 1, width(), ruler_h_ - 1);
  // Two lines, each half the ruler (rulerHeight(): a line of the font at the least): the ticks' times
  // above, the steps (and a selection's length) under them.
  const int line = ruler_h_ / 2;
  // Ticks a label's width apart at the widget's font (classroom mode's is larger: "+1.000 ms" was
  // cut at a fixed 88 px).
  const int label_w = fontMetrics().horizontalAdvance(QStringLiteral("+888.888 ms")) + 6;
  const std::int64_t step = nice_step(axis_.nsPerPx() * std::max(90, label_w + 4));
  // Ticks at round times of the ruler's clock: the session's, or shifted by rulerOrigin() (a job's rank
  // on the job's aligned axis, so every rank's ticks fall at the same x).
  const std::int64_t start = axis_.start() + ruler_origin_;
  const std::int64_t first = (start / step + (start > 0 ? 1 : 0)) * step;
  p.setPen(QColor(60, 60, 60));
  // Labels relative to the first tick (shown in the header), so deep zooms stay readable.
  ruler_at_ = tr("at %1").arg(format_time(first));
  p.drawText(QRect(6, 0, header_w_ - 8, line), Qt::AlignVCenter | Qt::AlignLeft, ruler_at_);
  p.drawText(QRect(6, line, header_w_ - 8, line), Qt::AlignVCenter | Qt::AlignLeft,
             tr("span %1").arg(format_ns(axis_.span())));
  p.setClipRect(header_w_, 0, width() - header_w_, height());
  tick_labels_.clear();
  for (std::int64_t t = first; t < axis_.end() + ruler_origin_; t += step) {
    const double x = header_w_ + axis_.x(t - ruler_origin_);
    p.setPen(QColor(215, 215, 215));
    p.drawLine(QPointF(x, 0), QPointF(x, ruler_h_));
    // A label the right edge would cut ("+16" of "+160.0 ms") is left out; its tick stays.
    const QString text = t == first ? QStringLiteral("0") : "+" + format_ns(t - first);
    const QRectF box(x + 3, 0, fontMetrics().horizontalAdvance(text), line);
    if (box.right() > width()) continue;
    p.setPen(QColor(60, 60, 60));
    p.drawText(QRectF(x + 3, 0, label_w, line), Qt::AlignVCenter | Qt::AlignLeft, text);
    tick_labels_.push_back(box);
  }
  // The range selection's length sits in the step row; step labels under it are left out.
  QRectF sel_label;
  QString sel_text;
  ruler_labels_.clear();
  if (time_selection_) {
    sel_text = format_ns(time_selection_->end - time_selection_->start);
    const double x0 = axis_.x(time_selection_->start), x1 = axis_.x(time_selection_->end);
    const QRectF band = span_rect(header_w_, x0, x1, line, line - 1, w);
    const double tw = fontMetrics().horizontalAdvance(sel_text) + 8;
    sel_label = QRectF(band.center().x() - std::max(tw, band.width()) / 2, line, std::max(tw, band.width()), line - 1);
  }
  // Step indices.
  const auto& steps = data_.steps();
  auto it = std::partition_point(steps.begin(), steps.end(), [&](const StepBand& s) { return s.end <= axis_.start(); });
  double last_right = -1e9;
  for (; it != steps.end() && it->start < axis_.end(); ++it) {
    const double x0 = std::max(0.0, axis_.x(it->start)), x1 = std::min(w, axis_.x(it->end));
    const QString label = x1 - x0 > 60 ? tr("step %1").arg(it->global_step) : QString::number(it->global_step);
    const double tw = fontMetrics().horizontalAdvance(label) + 4;
    const QRectF label_rect(header_w_ + x0, line, x1 - x0, line);
    if (x1 - x0 < tw || x0 < last_right || (!sel_label.isNull() && label_rect.intersects(sel_label))) {
      if (x1 - x0 < 1) {  // many steps per pixel: jump to the next pixel column
        const std::int64_t next = axis_.t(std::floor(axis_.x(it->end)) + 1);
        it = std::partition_point(it, steps.end(), [&](const StepBand& s) { return s.start < next; }) - 1;
      }
      continue;
    }
    p.setPen(QColor(90, 90, 140));
    p.drawText(label_rect, Qt::AlignCenter, label);
    ruler_labels_.push_back(label_rect.adjusted((label_rect.width() - tw) / 2, 0, -(label_rect.width() - tw) / 2, 0));
    last_right = x1;
  }
  if (time_selection_) {
    const double x0 = axis_.x(time_selection_->start), x1 = axis_.x(time_selection_->end);
    p.fillRect(span_rect(header_w_, x0, x1, line, line - 1, w), QColor(40, 110, 220, 170));
    p.fillRect(sel_label, QColor(40, 110, 220));
    p.setPen(Qt::white);
    p.drawText(sel_label, Qt::AlignCenter, sel_text);
    ruler_labels_.push_back(sel_label);
  }
  if (hub_) {
    for (const TimeSpan& s : hub_->highlight().intervals) {
      if (s.end <= axis_.start() || s.start >= axis_.end()) continue;
      p.fillRect(span_rect(header_w_, axis_.x(s.start), std::max(axis_.x(s.end), axis_.x(s.start) + 2),
                           ruler_h_ - 4, 3, w),
                 QColor(230, 140, 0));
    }
  }
  p.setClipping(false);
}

}  // namespace ts::gui
