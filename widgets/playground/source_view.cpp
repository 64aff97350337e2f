// SourceView and fit_source_beside (source_view.h).
#include "widgets/playground/source_view.h"

#include <QAbstractTextDocumentLayout>
#include <QEvent>
#include <QKeyEvent>
#include <QResizeEvent>
#include <QFontDatabase>
#include <QScrollBar>
#include <QSplitter>
#include <QStyle>
#include <QTextBlock>
#include <QTextCursor>
#include <QTimer>
#include <algorithm>
#include <cmath>

#include "widgets/playground/ladder_view.h"

namespace ts::gui {

namespace {
constexpr int kMaxColumns = 120;   // the kernels' own line limit (.clang-format ColumnLimit)
constexpr int kHangColumns = 4;    // a continuation's indent beyond its line's own
}  // namespace

SourceView::SourceView(QWidget* parent) : QTextEdit(parent) {
  setReadOnly(true);
  setUndoRedoEnabled(false);
  setAcceptRichText(false);
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  setLineWrapMode(QTextEdit::WidgetWidth);
  setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // wrapped: nothing to scroll to sideways
  // The user's own scrolling (wheel, bar, keys) ends showLineAtTop's hold; the document growing or
  // shrinking with the wrap (and the bar's range clamping) does not.
  connect(verticalScrollBar(), &QScrollBar::actionTriggered, this, [this] { target_line_ = -1; });
  connect(document()->documentLayout(), &QAbstractTextDocumentLayout::documentSizeChanged, this,
          [this] { scrollLater(); });
}

void SourceView::keyPressEvent(QKeyEvent* e) {
  target_line_ = -1;
  QTextEdit::keyPressEvent(e);
}

void SourceView::setSource(const QString& text) {
  target_line_ = -1;
  setPlainText(text);
  indentBlocks();
}

void SourceView::indentBlocks() {
  const qreal column = QFontMetricsF(font()).horizontalAdvance(QLatin1Char(' '));
  QTextCursor c(document());
  c.beginEditBlock();
  for (QTextBlock b = document()->begin(); b.isValid(); b = b.next()) {
    const QString t = b.text();
    int lead = 0;
    while (lead < t.size() && t[lead] == QLatin1Char(' ')) ++lead;
    QTextBlockFormat f = b.blockFormat();
    const qreal hang = (lead + kHangColumns) * column;
    f.setLeftMargin(hang);
    f.setTextIndent(-hang);  // the first line starts at the left edge, with its own spaces
    c.setPosition(b.position());
    c.setBlockFormat(f);
  }
  c.endEditBlock();
}

int SourceView::naturalWidth() const {
  const QFontMetrics fm(font());
  int longest = 0;
  for (QTextBlock b = document()->begin(); b.isValid(); b = b.next())
    longest = std::max(longest, fm.horizontalAdvance(b.text().left(kMaxColumns)));
  return longest + 2 * frameWidth() + 2 * static_cast<int>(document()->documentMargin()) +
         style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 4;
}

int SourceView::wrappedLines() const {
  int extra = 0;
  for (QTextBlock b = document()->begin(); b.isValid(); b = b.next()) {
    document()->documentLayout()->blockBoundingRect(b);  // lays the block out if it is not yet
    if (b.layout()) extra += std::max(b.layout()->lineCount() - 1, 0);
  }
  return extra;
}

void SourceView::showLineAtTop(int block) {
  const QTextBlock b = document()->findBlockByNumber(block);
  if (!b.isValid()) return;
  QTextCursor c(b);
  setTextCursor(c);
  target_line_ = block;
  scrollToTarget();
}

int SourceView::topLine() const {
  return cursorForPosition(QPoint(0, 1)).block().blockNumber();  // y 0 is the line above's last pixel row
}

void SourceView::scrollToTarget() {
  const QTextBlock b = document()->findBlockByNumber(target_line_);
  if (target_line_ < 0 || !b.isValid()) return;
  // The block's top in the document, laid out at the current width (blockBoundingRect lays out up to it).
  const int top = static_cast<int>(std::ceil(document()->documentLayout()->blockBoundingRect(b).top()));
  verticalScrollBar()->setValue(top);
}

void SourceView::resizeEvent(QResizeEvent* e) {
  QTextEdit::resizeEvent(e);
  scrollLater();  // the wrap moves the line once the document is laid out at the new width
}

void SourceView::scrollLater() {
  if (target_line_ >= 0) QTimer::singleShot(0, this, [this] { scrollToTarget(); });
}

void SourceView::changeEvent(QEvent* e) {
  QTextEdit::changeEvent(e);
  if (e->type() == QEvent::FontChange) {
    indentBlocks();  // a column's width changed
    scrollLater();
  }
}

namespace {

/// The splitter's fitter: refits on resizes, new text and font changes until the user drags.
class SourceFit : public QObject {
 public:
  SourceFit(QSplitter* split, LadderView* ladder, SourceView* source)
      : QObject(split), split_(split), ladder_(ladder), source_(source) {
    split->installEventFilter(this);
    source->installEventFilter(this);
    connect(split, &QSplitter::splitterMoved, this, [this] { user_sized_ = true; });
    connect(source, &QTextEdit::textChanged, this, [this] { later(); });
  }

 protected:
  bool eventFilter(QObject* o, QEvent* e) override {
    if ((o == split_ && e->type() == QEvent::Resize) || (o == source_ && e->type() == QEvent::FontChange)) later();
    return false;
  }

 private:
  void later() {
    if (!pending_) {
      pending_ = true;
      QTimer::singleShot(0, this, [this] { fit(); });
    }
  }
  void fit() {
    pending_ = false;
    if (user_sized_ || split_->count() != 2) return;
    const int total = split_->width() - split_->handleWidth();
    if (total <= 0) return;
    // The ladder sits in a scroll area; the source in a box with a small left margin: count both.
    const int ladder_w = ladder_->fullWidth() + split_->style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 2;
    const int source_w = source_->naturalWidth() + (split_->widget(1)->width() - source_->width());
    int src = source_w;
    if (ladder_w + source_w > total) src = std::max(total - ladder_w, total / 3);
    split_->setSizes({total - src, src});
  }

  QSplitter* split_;
  LadderView* ladder_;
  SourceView* source_;
  bool user_sized_ = false, pending_ = false;
};

}  // namespace

void fit_source_beside(QSplitter* split, LadderView* ladder, SourceView* source) {
  new SourceFit(split, ladder, source);
}

}  // namespace ts::gui
