// What the verdict banner says of a finding, whole and shorter: the banner is a row two lines tall
// whatever its text (a row as tall as its text moved the lanes under it), so a finding that needs
// more (an HTA trace's communication-bound fix, a job's straggler, classroom mode's larger font) is
// said in a shorter form that still reads whole: the finding, its figure and as many whole clauses
// of the fix as fit, with "…" where the fix goes on. The whole text stays in the banner's tooltip
// and in the Verdicts tab.
#pragma once
#include <QString>
#include <QStringList>

namespace ts::gui {

/// A finding's parts, as the banner joins them:
/// "[note — ]title[ — figure[, scope]] — fix: fix[more]". Empty parts are left out with their marks.
struct BannerFinding {
  QString note;    // where the finding is from ("rank 0 of 16"), before the title
  QString title;   // the verdict's one line ("Launch-bound: kernels finish faster than …")
  QString figure;  // its first evidence, formatted ("gpu idle host wait launching 22.1 %")
  QString scope;   // what the figure is of ("whole run", "last 50 steps")
  QString fix;     // the fix in the window's words
  QString more;    // how many more findings there are ("  (+2 more)"), kept in every form
};

/// The banner's texts, longest first, each shorter form only where it is shorter than the one before:
/// the whole finding; without the figure's scope (the Verdicts tab says it); the fix without its
/// asides in parentheses; that fix cut after ever fewer of its clauses (clause_prefixes), "…" where
/// it goes on; last, the title without its asides too. The title, the figure and `more` ("(+2 more)")
/// are in every form, the title's asides in all but the last.
QStringList banner_texts(const BannerFinding& f);

/// `text` without its asides: each " (…)" group (nested parentheses included) taken out. A "(" with
/// no space before it (a call: "no_sync()", "DataLoader(pin_memory=True)") is no aside and stays.
QString without_asides(const QString& text);

/// The prefixes of `text` that end a clause, before a "; ", ", " or ". " outside a call's parentheses,
/// longest first: "use a larger batch size; CUDA graphs, fusion" gives "use a larger batch size; CUDA
/// graphs" and "use a larger batch size". None where no clause ends before the text does.
QStringList clause_prefixes(const QString& text);

}  // namespace ts::gui
