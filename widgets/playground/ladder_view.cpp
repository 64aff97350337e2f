// LadderView (ladder_view.h): painting, geometry, hit-testing.
#include "widgets/playground/ladder_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

namespace ts::gui {

namespace {
/// The numbers' columns, measured on their widest texts in the widget's font (classroom mode scales
/// it): time, throughput, % of best, % of limit, check.
const char* const kColumnSamples[] = {"9999.999 ms", "9999.9 TFLOP/s", "100 %", "100 %", "FAILED"};
/// The five number columns' width together (px): each column's widest sample and a 12 px gap.
int numbers_width(const QFontMetrics& fm) {
  int w = 0;
  for (const char* c : kColumnSamples) w += fm.horizontalAdvance(c) + 12;
  return w;
}
const QColor kFail(190, 30, 30), kOwnBar(70, 130, 200), kLibBar(150, 150, 150), kLimitTick(30, 30, 30);

QString unit_text(playground::Unit u) {
  return u == playground::Unit::gbps ? "GB/s" : "TFLOP/s";
}

QString limit_line(const playground::Limit& l, playground::Unit u) {
  return QString("%1 = %2 %3 (%4; %5)")
      .arg(QString::fromStdString(l.what))
      .arg(l.value, 0, 'f', 1)
      .arg(unit_text(u), l.measured ? "measured" : "datasheet", QString::fromStdString(l.source));
}
}  // namespace

QString ladder_time(double ns) {
  if (ns <= 0) return "-";
  if (ns >= 1e6) return QString("%1 ms").arg(ns / 1e6, 0, 'f', 3);
  return QString("%1 µs").arg(ns / 1e3, 0, 'f', 1);
}

LadderView::LadderView(QWidget* parent) : QWidget(parent) {
  setObjectName("playground.ladder");
  setMouseTracking(true);
  setBackgroundRole(QPalette::Base);
  setAutoFillBackground(true);
  QSizePolicy sp(QSizePolicy::Expanding, QSizePolicy::Preferred);
  sp.setHeightForWidth(true);
  setSizePolicy(sp);
}

void LadderView::setLadder(const playground::Ladder& ladder) {
  ladder_ = ladder;
  selected_ = -1;
  updateGeometry();
  update();
}

void LadderView::clear() {
  ladder_.reset();
  selected_ = -1;
  updateGeometry();
  update();
}

void LadderView::selectRow(int row) {
  if (!ladder_ || row < 0 || row >= static_cast<int>(ladder_->variants.size())) return;
  selected_ = row;
  update();
  emit variantSelected(row);
}

bool LadderView::rowFailed(int i) const {
  if (!ladder_ || i < 0 || i >= static_cast<int>(ladder_->variants.size())) return false;
  const auto& v = ladder_->variants[static_cast<std::size_t>(i)];
  return v.checked && !v.check_passed;
}

QStringList LadderView::rowCells(int i) const {
  if (!ladder_ || i < 0 || i >= static_cast<int>(ladder_->variants.size())) return {};
  const auto& v = ladder_->variants[static_cast<std::size_t>(i)];
  const bool ok = v.check_passed;
  const QString check = !v.checked ? "not run" : ok ? "ok" : "FAILED";
  return {QString::fromStdString(v.name),
          ok ? ladder_time(v.median_ns) : "-",
          ok ? QString("%1 %2").arg(v.throughput, 0, 'f', 1).arg(unit_text(ladder_->unit)) : "-",
          ok ? QString("%1 %").arg(100 * v.share_of_best, 0, 'f', 0) : "-",
          ok && v.share_of_limit > 0 ? QString("%1 %").arg(100 * v.share_of_limit, 0, 'f', 0) : "-",
          check,
          !v.checked || ok ? QString::fromStdString(v.what_changed)
                           : QString("check failed: error %1 > tolerance %2 (%3). %4")
                                 .arg(v.max_error, 0, 'g', 3)
                                 .arg(v.tolerance, 0, 'g', 3)
                                 .arg(QString::fromStdString(v.check_what), QString::fromStdString(v.what_changed))};
}

bool LadderView::hasMeasured() const {
  if (!ladder_) return false;
  for (const auto& v : ladder_->variants)
    if (v.measured) return true;
  return false;
}

QString LadderView::measuredText(int i) const {
  if (!hasMeasured() || i < 0 || i >= static_cast<int>(ladder_->variants.size())) return {};
  const auto& m = ladder_->variants[static_cast<std::size_t>(i)].measured;
  if (!m) return tr("measured: n/a (not measured)");
  if (!m->ok()) return tr("measured: n/a (%1)").arg(QString::fromStdString(m->why));
  const std::vector<std::string> c = playground::measured_cells(*m);
  QString text = tr("measured: occupancy %1 % · SM %2 % · DRAM %3 % · %4 GB/s")
                     .arg(QString::fromStdString(c[0]), QString::fromStdString(c[1]), QString::fromStdString(c[2]),
                          QString::fromStdString(c[3]));
  if (!m->absent.empty()) text += tr(" (without %1)").arg(QString::fromStdString(m->absent));
  return text;
}

QStringList LadderView::headerLines() const {
  if (!ladder_) return {tr("No ladder: open a playground session or run this family.")};
  QStringList out{QString("%1 — %2 = %3")
                      .arg(QString::fromStdString(ladder_->title), QString::fromStdString(ladder_->size_what))
                      .arg(ladder_->size)};
  if (ladder_->limit.value > 0)
    out << tr("limit: ") + limit_line(ladder_->limit, ladder_->unit);
  else
    out << tr("limit: none known for this card (shares of the limit not shown)");
  for (const auto& l : ladder_->other_limits)
    if (l.value > 0) out << tr("beside: ") + limit_line(l, ladder_->unit);
  if (!ladder_->warning.empty()) out << tr("warning: ") + QString::fromStdString(ladder_->warning);
  return out;
}

LadderView::Geometry LadderView::geometry(int width) const {
  const QFontMetrics fm(font());
  QFont bold = font();
  bold.setBold(true);
  const QFontMetrics bfm(bold);  // the names are drawn bold
  Geometry g;
  g.header_h = (headerLines().size() + 1) * fm.lineSpacing() + 6;  // + the column titles
  g.row_h = (hasMeasured() ? 3 : 2) * fm.lineSpacing() + 8;
  int name_w = bfm.horizontalAdvance("8 double buffering");
  if (ladder_)
    for (const auto& v : ladder_->variants)
      name_w = std::max(name_w, bfm.horizontalAdvance(QString::fromStdString(v.name)));
  g.name_w = std::min(name_w + 12, width / 4);
  const int nums = numbers_width(fm);
  g.bar_x = 6 + g.name_w;
  g.bar_w = std::max(width - g.bar_x - nums - 12, 60);
  g.num_x = g.bar_x + g.bar_w + 8;
  return g;
}

int LadderView::fullWidth() const {
  const Geometry g = geometry(1 << 20);  // the name column uncapped
  return std::max({minimumSizeHint().width(), 4 * g.name_w, g.bar_x + 120 + 8 + numbers_width(QFontMetrics(font())) + 12});
}

int LadderView::heightForWidth(int w) const {
  const Geometry g = geometry(w);
  return g.header_h + (ladder_ ? static_cast<int>(ladder_->variants.size()) : 0) * g.row_h + 8;
}

QSize LadderView::sizeHint() const {
  return {760, heightForWidth(760)};
}
QSize LadderView::minimumSizeHint() const {
  return {480, heightForWidth(480)};
}

void LadderView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QFontMetrics fm(font());
  const Geometry g = geometry(width());
  const int ls = fm.lineSpacing();
  int y = 4;
  QFont bold = font();
  bold.setBold(true);
  const QStringList head = headerLines();
  for (int i = 0; i < head.size(); ++i) {
    p.setFont(i == 0 ? bold : font());
    p.setPen(head[i].startsWith(tr("warning: ")) ? kFail : palette().color(QPalette::Text));
    // Elided in the font it is drawn in: the bold title measured in the regular font was cut mid-word
    // with no ellipsis.
    p.drawText(QRect(6, y, width() - 12, ls), Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(p.font()).elidedText(head[i], Qt::ElideRight, width() - 12));
    y += ls;
  }
  if (!ladder_) return;
  int cols[5];
  for (int c = 0; c < 5; ++c) cols[c] = fm.horizontalAdvance(kColumnSamples[c]) + 12;
  const QString titles[] = {tr("time"), unit_text(ladder_->unit), tr("best"), tr("limit"), tr("check")};
  p.setFont(bold);
  p.setPen(palette().color(QPalette::PlaceholderText));
  p.drawText(QRect(6, y, g.name_w, ls), Qt::AlignLeft | Qt::AlignVCenter, tr("variant"));
  p.drawText(QRect(g.bar_x, y, g.bar_w, ls), Qt::AlignLeft | Qt::AlignVCenter,
             fm.elidedText(tr("of best (| of limit)"), Qt::ElideRight, g.bar_w));
  for (int c = 0, x = g.num_x; c < 5; x += cols[c], ++c)
    p.drawText(QRect(x, y, cols[c] - 4, ls), Qt::AlignRight | Qt::AlignVCenter, titles[c]);
  y = g.header_h;
  for (int i = 0; i < static_cast<int>(ladder_->variants.size()); ++i, y += g.row_h) {
    const auto& v = ladder_->variants[static_cast<std::size_t>(i)];
    const QStringList cells = rowCells(i);
    const bool failed = v.checked && !v.check_passed;
    if (i == selected_)
      p.fillRect(QRect(0, y, width(), g.row_h), palette().color(QPalette::AlternateBase).darker(105));
    else if (i % 2)
      p.fillRect(QRect(0, y, width(), g.row_h), palette().color(QPalette::AlternateBase));
    const QColor text = failed ? kFail : palette().color(QPalette::Text);
    p.setFont(bold);
    p.setPen(text);
    p.drawText(QRect(6, y + 3, g.name_w - 6, ls), Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(bold).elidedText(cells[0], Qt::ElideRight, g.name_w - 6));
    p.setFont(font());
    const QRect bar(g.bar_x, y + 4, g.bar_w, ls - 2);
    if (v.check_passed) {
      p.fillRect(QRect(bar.x(), bar.y(), std::max(1, static_cast<int>(bar.width() * std::min(v.share_of_best, 1.0))),
                       bar.height()),
                 v.own ? kOwnBar : kLibBar);
      if (v.share_of_limit > 0 && v.share_of_limit <= 1.5) {
        const int tx = bar.x() + static_cast<int>(bar.width() * std::min(v.share_of_limit, 1.0));
        p.setPen(QPen(kLimitTick, 2));
        p.drawLine(tx, bar.top() - 2, tx, bar.bottom());
      }
    } else {
      p.setPen(text);
      p.drawText(bar, Qt::AlignLeft | Qt::AlignVCenter, failed ? tr("no time") : tr("not run"));
    }
    p.setPen(text);
    for (int c = 0, x = g.num_x; c < 5; x += cols[c], ++c)
      p.drawText(QRect(x, y + 3, cols[c] - 4, ls), Qt::AlignRight | Qt::AlignVCenter, cells[c + 1]);
    p.setPen(failed ? kFail : palette().color(QPalette::PlaceholderText));
    const int wx = 6 + 12;
    p.drawText(QRect(wx, y + 3 + ls, width() - wx - 6, ls), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(cells[6], Qt::ElideRight, width() - wx - 6));
    if (const QString m = measuredText(i); !m.isEmpty())
      p.drawText(QRect(wx, y + 3 + 2 * ls, width() - wx - 6, ls), Qt::AlignLeft | Qt::AlignVCenter,
                 fm.elidedText(m, Qt::ElideRight, width() - wx - 6));
  }
}

int LadderView::rowAt(QPoint pt) const {
  if (!ladder_) return -1;
  const Geometry g = geometry(width());
  if (pt.y() < g.header_h) return -1;
  const int r = (pt.y() - g.header_h) / g.row_h;
  return r < static_cast<int>(ladder_->variants.size()) ? r : -1;
}

void LadderView::mousePressEvent(QMouseEvent* e) {
  const int r = rowAt(e->position().toPoint());
  if (r >= 0) selectRow(r);
}

bool LadderView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    const int r = rowAt(he->pos());
    if (r < 0) {
      // Over the header: its lines whole (they are elided to the width).
      if (ladder_ && he->pos().y() < geometry(width()).header_h)
        QToolTip::showText(he->globalPos(), headerLines().join('\n'), this);
      else
        QToolTip::hideText();
      return true;
    }
    const auto& v = ladder_->variants[static_cast<std::size_t>(r)];
    QString tip = "<b>" + QString::fromStdString(v.name).toHtmlEscaped() + "</b><br>" + rowCells(r)[6].toHtmlEscaped();
    if (!v.launch.empty()) tip += "<br>launch: " + QString::fromStdString(v.launch).toHtmlEscaped();
    if (v.limit > 0)
      tip += QString("<br>limit: %1 = %2")
                 .arg(QString::fromStdString(v.limit_what).toHtmlEscaped())
                 .arg(v.limit, 0, 'f', 1);
    if (!v.note.empty()) tip += "<br>" + QString::fromStdString(v.note).toHtmlEscaped();
    if (v.check_passed) tip += QString("<br>event time %1 (CUDA events, cross-check)").arg(ladder_time(v.event_ns));
    if (const QString m = measuredText(r); !m.isEmpty()) tip += "<br>" + m.toHtmlEscaped();
    QToolTip::showText(he->globalPos(), tip, this);
    return true;
  }
  return QWidget::event(e);
}

}  // namespace ts::gui
