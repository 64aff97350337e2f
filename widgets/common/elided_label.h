// A one-line label for a long message (the window's message bar, the verdict banner): the text is
// cut at a word boundary with "…" where the width ends, never inside a word ("…(CUDA driver versi"
// said nothing), and the whole text is the tooltip. elide_at_word is the rule, tested on its own.
// SqueezeLabel: a one-line label (a status bar field, the run's img/s line) that asks for its whole
// text's width but accepts less, painting the text cut at a word with "…" (elide_at_word) when squeezed: a text that lengthens
// during a run never raises the window's minimum width.
#pragma once
#include <QLabel>

class QFontMetrics;

namespace ts::gui {

/// `text` as it fits in `width` px with `fm`: whole when it fits, else the longest prefix that ends
/// at a space (less a dangling ",;:·—-(→") followed by "…"; a first word wider than `width` is cut
/// inside, as the only way to show anything.
QString elide_at_word(const QString& text, const QFontMetrics& fm, int width);

class ElidedLabel : public QLabel {
  Q_OBJECT
 public:
  explicit ElidedLabel(QWidget* parent = nullptr);
  /// The text to show; also the tooltip.
  void setFullText(const QString& text);
  QString fullText() const { return full_; }

 protected:
  void resizeEvent(QResizeEvent* e) override;
  void changeEvent(QEvent* e) override;  // a font or style change (bold for an error) elides again

 private:
  void elide();
  QString full_;
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
