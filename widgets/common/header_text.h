// HeaderText: where a track's header text goes (the memory track's peaks, the utilization track's
// line): beside the header's controls where it fits there, else on a row of its own under them,
// across the track and indented as the track's title. In Side by side at 1280 px the controls left
// the text beside them no room at all (the memory peaks were not shown, utilization said "GPU…").
// The owner decides with roomBeside() whether its text fits and calls place(); the header's height
// follows (the tracks' heights are asked again through the layout).
#pragma once

class QBoxLayout;
class QLayoutItem;
class QWidget;

namespace ts::gui {

class HeaderText {
 public:
  /// `text` sits in `row` (a layout in `column`) beside the controls.
  HeaderText(QBoxLayout* column, QBoxLayout* row, QWidget* text);
  /// The width (px) `row` leaves `text` beside its other widgets (those not hidden, at their size
  /// hints) in a header `width` px wide with `margins` px of the owner's margins.
  int roomBeside(int width, int margins) const;
  /// Beside the controls (false) or under them (true); true when that moved the text.
  bool place(bool below);
  bool below() const { return below_; }

 private:
  QBoxLayout *column_, *row_;
  QWidget* text_;
  bool below_ = false;
  int index_ = -1;  // the text's place in the row while it is below (a stretch holds it)
};

}  // namespace ts::gui
