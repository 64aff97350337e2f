// WrapCheckBox (wrap_check_box.h).
#include "widgets/common/wrap_check_box.h"

#include <QPainter>
#include <QResizeEvent>
#include <QStyleOptionButton>
#include <QStylePainter>
#include <algorithm>

namespace ts::gui {

WrapCheckBox::WrapCheckBox(const QString& text, QWidget* parent) : QCheckBox(text, parent) {
  // QCheckBox's own policy (Minimum, Fixed) holds it at its one-line size hint: it may shrink to one
  // word, and its height follows its width (heightForWidth).
  QSizePolicy p(QSizePolicy::Preferred, QSizePolicy::Preferred, QSizePolicy::CheckBox);
  p.setHeightForWidth(true);
  setSizePolicy(p);
}

int WrapCheckBox::indent() const {
  QStyleOptionButton o;
  o.initFrom(this);
  return style()->pixelMetric(QStyle::PM_IndicatorWidth, &o, this) +
         style()->pixelMetric(QStyle::PM_CheckBoxLabelSpacing, &o, this);
}

QRect WrapCheckBox::textRect(int width) const {
  const int w = std::max(1, width - indent());
  return fontMetrics().boundingRect(QRect(0, 0, w, 100000), Qt::TextWordWrap | Qt::AlignLeft, text());
}

QSize WrapCheckBox::sizeHint() const {
  const QSize one_line = QCheckBox::sizeHint();
  return {one_line.width(), width() > 0 ? heightForWidth(width()) : one_line.height()};
}

QSize WrapCheckBox::minimumSizeHint() const {
  int longest = 0;
  for (const QString& word : text().split(' ', Qt::SkipEmptyParts)) longest = std::max(longest, fontMetrics().horizontalAdvance(word));
  // One line high: the height at a width is heightForWidth's (a minimum of the one-word width's
  // height held every row at its tallest, a gap under a one-line text).
  return {indent() + longest + 2, QCheckBox::sizeHint().height()};
}

int WrapCheckBox::heightForWidth(int width) const {
  return std::max(QCheckBox::sizeHint().height(), textRect(width).height() + 2);
}

void WrapCheckBox::resizeEvent(QResizeEvent* e) {
  QCheckBox::resizeEvent(e);
  if (e->size().width() != e->oldSize().width() && heightForWidth(e->size().width()) != e->size().height()) updateGeometry();
}

void WrapCheckBox::paintEvent(QPaintEvent*) {
  QStylePainter p(this);
  QStyleOptionButton o;
  initStyleOption(&o);
  o.text.clear();  // the indicator (and focus) from the style; the text below, wrapped
  const int line = fontMetrics().height();
  o.rect = QRect(0, 0, indent(), std::min(height(), std::max(line + 2, QCheckBox::sizeHint().height())));
  p.drawControl(QStyle::CE_CheckBox, o);
  const QRect text(indent(), 1, width() - indent(), height() - 1);
  p.setPen(palette().color(isEnabled() ? QPalette::Active : QPalette::Disabled, QPalette::WindowText));
  p.drawText(text, Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, QCheckBox::text());
}

}  // namespace ts::gui
