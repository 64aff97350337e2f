// WrapDelegate and wrap_tree_items (wrap_tree.h).
#include "widgets/common/wrap_tree.h"

#include <QHeaderView>
#include <QTimer>
#include <QTreeWidget>
#include <algorithm>

namespace ts::gui {

WrapDelegate::WrapDelegate(QTreeWidget* tree) : QStyledItemDelegate(tree), tree_(tree) {}

QSize WrapDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const {
  QStyleOptionViewItem opt(option);
  initStyleOption(&opt, index);
  int depth = 0;
  for (QModelIndex p = index.parent(); p.isValid(); p = p.parent()) ++depth;
  // The text's width: the column, less the indentation of this depth (the root's too: the branch
  // decoration) and the item's own margins.
  const int column = tree_->header()->sectionSize(index.column());
  const int indent = index.column() == 0 ? tree_->indentation() * (depth + (tree_->rootIsDecorated() ? 1 : 0)) : 0;
  const int width = std::max(40, column - indent - 12);
  const QRect text = opt.fontMetrics.boundingRect(QRect(0, 0, width, 100000), Qt::TextWordWrap, opt.text);
  const QSize base = QStyledItemDelegate::sizeHint(option, index);
  return {base.width(), std::max(base.height(), text.height() + 4)};
}

void wrap_tree_items(QTreeWidget* tree) {
  tree->setWordWrap(true);
  tree->setTextElideMode(Qt::ElideNone);
  tree->setUniformRowHeights(false);
  tree->header()->setStretchLastSection(true);
  tree->setItemDelegate(new WrapDelegate(tree));
  // A new width wraps the lines anew: the rows are measured again once the resizes settle.
  auto* pending = new QTimer(tree);
  pending->setSingleShot(true);
  pending->setInterval(0);
  QObject::connect(pending, &QTimer::timeout, tree, [tree] { tree->doItemsLayout(); });
  QObject::connect(tree->header(), &QHeaderView::sectionResized, pending, qOverload<>(&QTimer::start));
}

}  // namespace ts::gui
