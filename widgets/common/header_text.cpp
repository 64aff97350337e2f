// HeaderText (see header_text.h).
#include "widgets/common/header_text.h"

#include <QBoxLayout>
#include <QWidget>
#include <algorithm>

namespace ts::gui {

HeaderText::HeaderText(QBoxLayout* column, QBoxLayout* row, QWidget* text) : column_(column), row_(row), text_(text) {}

int HeaderText::roomBeside(int width, int margins) const {
  int used = 0, items = 0;
  for (int i = 0; i < row_->count(); ++i) {
    QWidget* w = row_->itemAt(i)->widget();
    if (!w || w == text_ || w->isHidden()) continue;
    used += std::max(w->sizeHint().width(), w->minimumWidth());
    ++items;
  }
  const QMargins m = row_->contentsMargins();
  return width - margins - m.left() - m.right() - used - items * std::max(0, row_->spacing());
}

bool HeaderText::place(bool below) {
  if (below == below_) return false;
  below_ = below;
  if (below) {
    index_ = row_->indexOf(text_);
    row_->removeWidget(text_);
    row_->insertStretch(index_, 1);  // the controls keep their places
    column_->addWidget(text_);
    text_->setContentsMargins(6, 0, 0, 0);  // as the track's title
  } else {
    delete row_->takeAt(index_);
    column_->removeWidget(text_);
    row_->insertWidget(index_, text_, 1);
    text_->setContentsMargins(0, 0, 0, 0);
  }
  return true;
}

}  // namespace ts::gui
