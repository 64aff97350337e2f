// A label for a long message, on one line or wrapped on a few (the window's message bar on up to four,
// the verdict banner on a row always two lines tall, the memory track's peaks on up to two): the text
// is cut at a word boundary with "…" where the room ends, never inside a word ("…(CUDA driver versi"
// said nothing), and the whole text is the tooltip. elide_at_word and wrap_at_word are the rules,
// tested on their own.
// SqueezeLabel: a one-line label (a status bar field, the run's img/s line) that asks for its whole
// text's width but accepts less, painting the text cut at a word with "…" (elide_at_word) when squeezed: a text that lengthens
// during a run never raises the window's minimum width.
#pragma once
#include <QLabel>
#include <QStringList>

class QFont;
class QFontMetrics;

namespace ts::gui {

/// `text` as it fits in `width` px with `fm`: whole when it fits, else the longest prefix that ends
/// at a space (less a dangling ",;:·—-(→") followed by "…"; a first word wider than `width` is cut
/// inside, as the only way to show anything.
QString elide_at_word(const QString& text, const QFontMetrics& fm, int width);

/// `text` broken into lines of at most `width` px in `font`: at spaces, else inside a word where one
/// word is wider than the line (a file path); at most `max_lines`, the last cut with elide_at_word
/// when the text needs more. Nothing is left out but the spaces at the breaks, unless the last line is cut.
QStringList wrap_at_word(const QString& text, const QFont& font, int width, int max_lines);

class ElidedLabel : public QLabel {
  Q_OBJECT
 public:
  explicit ElidedLabel(QWidget* parent = nullptr);
  /// The text to show; also the tooltip.
  void setFullText(const QString& text);
  QString fullText() const { return full_; }
  /// Up to `n` lines (wrap_at_word) before the text is cut (default 1: one line, elide_at_word). The
  /// label is as tall as the lines it shows.
  void setMaxLines(int n);
  int maxLines() const { return max_lines_; }
  /// Up to `n` lines as setMaxLines(), but the label is always `n` lines tall, whatever its text: a
  /// bar it sits in keeps its height when a shorter or longer text comes (the lines centred in it).
  void setFixedLines(int n);

 protected:
  void resizeEvent(QResizeEvent* e) override;
  void changeEvent(QEvent* e) override;  // a font or style change (bold for an error) elides again

 private:
  void elide();
  QString full_;
  int max_lines_ = 1;
  bool fixed_lines_ = false;
};

/// A plain QLabel for callers (setText(), text() are the full text); only its painting and its
/// minimum width differ: minimumSizeHint() is `min_width` px wide, sizeHint() the whole text's. With
/// word wrap turned on it wraps as a QLabel does instead.
class SqueezeLabel : public QLabel {
  Q_OBJECT
 public:
  explicit SqueezeLabel(const QString& text = {}, int min_width = 40, QWidget* parent = nullptr);
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* e) override;

 private:
  int min_width_;
};

}  // namespace ts::gui
