// A QCheckBox whose text wraps at word boundaries when its column is narrow (a long option such as
// "Sync every step (read the loss each step, as loss.item() does)" at classroom mode's font), so
// the form's minimum width is one word, not the whole sentence. Everything else is QCheckBox's:
// text(), toggling, the indicator drawn by the style; a click anywhere on the text toggles it.
#pragma once
#include <QCheckBox>

namespace ts::gui {

class WrapCheckBox : public QCheckBox {
  Q_OBJECT
 public:
  explicit WrapCheckBox(const QString& text, QWidget* parent = nullptr);

  QSize sizeHint() const override;         // the whole text on one line
  QSize minimumSizeHint() const override;  // the indicator and the longest word, one line high
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;

 protected:
  void paintEvent(QPaintEvent* e) override;
  /// A new width is a new height (sizeHint() follows width()): the layout asked again, or it kept
  /// the height of a narrower pass (a 86 px row under a one-line text after classroom mode).
  void resizeEvent(QResizeEvent* e) override;
  bool hitButton(const QPoint& pos) const override { return rect().contains(pos); }

 private:
  /// The indicator's width plus the gap before the text (px, from the style).
  int indent() const;
  QRect textRect(int width) const;
};

}  // namespace ts::gui
