// ElidedLabel and elide_at_word (see elided_label.h).
#include "widgets/common/elided_label.h"

#include <QFontMetrics>
#include <QPainter>
#include <QStyle>
#include <QTextLayout>
#include <QResizeEvent>
#include <algorithm>

namespace ts::gui {

QString elide_at_word(const QString& text, const QFontMetrics& fm, int width) {
  if (fm.horizontalAdvance(text) <= width) return text;
  const QString ellipsis = QStringLiteral("…");
  // A cut before a space, without the marks that would dangle before the ellipsis.
  auto cut = [&](int at) {
    QString prefix = text.left(at).trimmed();
    while (!prefix.isEmpty() && QStringLiteral(",;:·—-(→").contains(prefix.back())) prefix = prefix.chopped(1).trimmed();
    return prefix + ellipsis;
  };
  // Prefixes grow with the cut, so the search stops at the first that does not fit.
  QString best;
  for (int i = text.indexOf(' '); i > 0; i = text.indexOf(' ', i + 1)) {
    const QString candidate = cut(i);
    if (fm.horizontalAdvance(candidate) > width) break;
    if (candidate.size() > ellipsis.size()) best = candidate;
  }
  return best.isEmpty() ? fm.elidedText(text, Qt::ElideRight, width) : best;  // else one word wider than the room
}

QStringList wrap_at_word(const QString& text, const QFont& font, int width, int max_lines) {
  const QFontMetrics fm(font);
  if (max_lines <= 1 || fm.horizontalAdvance(text) <= width) return {elide_at_word(text, fm, width)};
  // Qt's line breaking (UAX #14: after a space, after '/' in a path), anywhere in a word too wide.
  QTextLayout layout(text, font);
  QTextOption option;
  option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
  layout.setTextOption(option);
  QStringList lines;
  layout.beginLayout();
  for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
    line.setLineWidth(width);
    if (lines.size() == max_lines - 1) {  // the last line allowed: the rest, cut at a word if it is longer
      lines << elide_at_word(text.mid(line.textStart()).trimmed(), fm, width);
      break;
    }
    lines << text.mid(line.textStart(), line.textLength()).trimmed();
  }
  layout.endLayout();
  return lines;
}

ElidedLabel::ElidedLabel(QWidget* parent) : QLabel(parent) {
  setTextFormat(Qt::PlainText);
  setWordWrap(false);
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
}

void ElidedLabel::setFullText(const QString& text) {
  full_ = text;
  setToolTip(text);
  elide();
}

void ElidedLabel::resizeEvent(QResizeEvent* e) {
  QLabel::resizeEvent(e);
  elide();
}

void ElidedLabel::changeEvent(QEvent* e) {
  QLabel::changeEvent(e);
  if (e->type() == QEvent::FontChange || e->type() == QEvent::StyleChange) elide();
}

void ElidedLabel::setMaxLines(int n) {
  max_lines_ = std::max(1, n);
  elide();
}

void ElidedLabel::setFixedLines(int n) {
  fixed_lines_ = true;
  setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  setMaxLines(n);
}

void ElidedLabel::elide() {
  // A style sheet's padding may not be in contentsRect: a few pixels spare so the last glyph is whole.
  const int room = std::max(40, contentsRect().width() - 2 * margin() - 8);
  const QStringList lines = wrap_at_word(full_, font(), room, max_lines_);
  setText(lines.join('\n'));
  if (max_lines_ > 1) {  // as tall as its lines (or all it may show): the bar it sits in follows
    const QMargins m = contentsMargins();
    const int shown = fixed_lines_ ? max_lines_ : static_cast<int>(lines.size());
    setFixedHeight(shown * fontMetrics().lineSpacing() + m.top() + m.bottom() + 2 * margin() + 2);
  }
}

SqueezeLabel::SqueezeLabel(const QString& text, int min_width, QWidget* parent)
    : QLabel(text, parent), min_width_(min_width) {
  setTextFormat(Qt::PlainText);
  setWordWrap(false);
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

QSize SqueezeLabel::minimumSizeHint() const {
  return {min_width_, QLabel::minimumSizeHint().height()};
}

void SqueezeLabel::paintEvent(QPaintEvent* e) {
  const QRect r = contentsRect().adjusted(margin(), margin(), -margin(), -margin());
  if (wordWrap() || fontMetrics().horizontalAdvance(text()) <= r.width()) return QLabel::paintEvent(e);
  QPainter p(this);
  style()->drawItemText(&p, r, int(alignment()) | Qt::TextSingleLine, palette(), isEnabled(),
                        elide_at_word(text(), fontMetrics(), r.width()), foregroundRole());
}

}  // namespace ts::gui
