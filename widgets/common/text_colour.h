// A label's text colour and a note's background by the widget's palette, never by a style sheet: a
// widget given a style sheet kept the font it had when the sheet was polished, so classroom mode's
// larger application font did not reach it (the AMP note and the session's settings note stayed at
// the desktop's size while the text around them grew), and leaving the mode had nothing to restore.
// A palette sets only the roles named; the font and every other role follow the parent as before.
#pragma once
#include <QColor>

class QWidget;

namespace ts::gui {

/// Draws `w`'s text in `c` (its WindowText and Text roles, in every colour group). An invalid colour
/// (QColor()) gives the inherited text colour back, as an empty style sheet did.
void set_text_colour(QWidget* w, const QColor& c);

/// Fills `w`'s background with `c` (its Window role, autoFillBackground on); an invalid colour turns
/// the fill off again.
void set_background(QWidget* w, const QColor& c);

}  // namespace ts::gui
