// SourceView: a kernel's source, read only, in the fixed-width font. Long lines wrap at the pane's
// width with a hanging indent (a continuation starts 4 columns right of its line's own indent, as
// editors' "wrap with indent"), so the whole kernel reads without scrolling sideways where the pane is
// narrow (1280 px beside the ladder). fit_source_beside() gives the pane the width its longest line
// wants when there is room for it and for the ladder.
#pragma once
#include <QTextEdit>

class QSplitter;

namespace ts::gui {

class LadderView;

class SourceView : public QTextEdit {
  Q_OBJECT
 public:
  explicit SourceView(QWidget* parent = nullptr);
  /// Shows `text` (a whole source file), each line wrapped with its hanging indent.
  void setSource(const QString& text);
  /// The pane width (px) that shows the longest line unwrapped: its advance, capped at 120 columns
  /// (the kernels' own line limit), plus the frame, the document margin and the scroll bar.
  int naturalWidth() const;
  /// Lines drawn beyond one per source line (0: nothing wrapped). Tests, and the status of a fit.
  int wrappedLines() const;
  /// Puts source line `block` (0-based) at the top and the cursor on it; kept there while the pane's
  /// width changes (the wrap moves it) until the user scrolls.
  void showLineAtTop(int block);
  /// The source line drawn at the top of the pane (0-based).
  int topLine() const;

 protected:
  void changeEvent(QEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;

 private:
  void indentBlocks();  // each block's hanging indent, from its leading spaces and the font
  void scrollToTarget();
  void scrollLater();  // scrollToTarget once the event loop turns (after the layout settles)

  int target_line_ = -1;  // showLineAtTop's line while it is kept at the top
};

/// Keeps `split`'s two panes, the ladder (its scroll area) first and `source` second, at the widths
/// they want: the ladder its full width (LadderView::fullWidth), the source its natural width, the
/// rest to the ladder; where both do not fit, the ladder gets its full width and the source what is
/// left (no less than a third). Refits on resizes, new text and font changes until the user drags the
/// handle (then the user's widths stay).
void fit_source_beside(QSplitter* split, LadderView* ladder, SourceView* source);

}  // namespace ts::gui
