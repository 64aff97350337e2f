// Word-wrapped items in a QTreeWidget: each item's text wraps at its column's width and its row is as
// tall as the wrapped lines. QTreeView measures rows without the column's width, so a long evidence or
// fix line stayed one line and was cut with "…" even with setWordWrap(true); this delegate measures
// with the width the text gets (the column, less the item's indentation and the branch decoration),
// and the rows are measured again when the column's width changes.
#pragma once
#include <QStyledItemDelegate>

class QTreeWidget;

namespace ts::gui {

/// Makes `tree`'s items wrap (its single or last column stretched to the viewport, no eliding).
void wrap_tree_items(QTreeWidget* tree);

class WrapDelegate : public QStyledItemDelegate {
 public:
  explicit WrapDelegate(QTreeWidget* tree);
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

 private:
  QTreeWidget* tree_;
};

}  // namespace ts::gui
