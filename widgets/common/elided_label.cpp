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

void ElidedLabel::setFullText(const QString& text, const QStringList& shorter) {
  full_ = text;
  shorter_ = shorter;
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
  // The first form that takes no more than the lines (laid out on one more, it uses fewer), else the
  // shortest cut at a word.
  QStringList lines;
  shown_ = -1;
  for (int i = 0; i <= shorter_.size() && shown_ < 0; ++i) {
    const QString& form = i == 0 ? full_ : shorter_[i - 1];
    lines = wrap_at_word(form, font(), room, max_lines_ + 1);
    if (lines.size() <= max_lines_) shown_ = i;
  }
  if (shown_ < 0) lines = wrap_at_word(shorter_.isEmpty() ? full_ : shorter_.back(), font(), room, max_lines_);
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

void SqueezeLabel::setTexts(const QString& text, const QStringList& shorter) {
  shorter_of_ = text;
  shorter_ = shorter;
  setToolTip(text);
  setText(text);
  update();  // the same text with other forms paints anew
}

QRect SqueezeLabel::textRect() const { return contentsRect().adjusted(margin(), margin(), -margin(), -margin()); }

QString SqueezeLabel::shownText() const {
  const QFontMetrics fm = fontMetrics();
  const int room = textRect().width();
  if (wordWrap() || fm.horizontalAdvance(text()) <= room) return text();
  const bool forms = shorter_of_ == text() && !shorter_.isEmpty();  // setText() since: none of its own
  if (forms)
    for (const QString& form : shorter_)
      if (fm.horizontalAdvance(form) <= room) return form;
  return elide_at_word(forms ? shorter_.back() : text(), fm, room);
}

void SqueezeLabel::paintEvent(QPaintEvent* e) {
  const QString shown = shownText();
  if (shown == text()) return QLabel::paintEvent(e);
  QPainter p(this);
  style()->drawItemText(&p, textRect(), int(alignment()) | Qt::TextSingleLine, palette(), isEnabled(), shown, foregroundRole());
}

}  // namespace ts::gui
