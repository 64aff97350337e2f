// The texts that QApplication::setFont() does not reach, scaled with it (classroom mode's larger
// font): QCustomPlot copies the application font into each axis, legend, legend item, title and
// text item when it is made and never follows it again.
//
// Each such text keeps the font it had at scale 1 (a dynamic property on its owner, taken the first
// time it is scaled), and every scaling sets it from that font: a scale is applied once whatever
// the steps that led to it (x1.5 then x2 is x2, never x3), and scale 1 gives back the very font it
// had (QFont ==), so leaving classroom mode restores every text exactly.
#pragma once

namespace ts::gui {

/// Scales the texts of every QCustomPlot in the application to `to` times their size at scale 1. `from`: the scale the application's texts are at
/// now (1 outside classroom mode); a text not scaled before is taken to be at `from` (a plot or
/// legend item made while the larger font was on). Scales <= 0 are ignored. Replots the plots.
void scale_texts(double from, double to);

}  // namespace ts::gui
