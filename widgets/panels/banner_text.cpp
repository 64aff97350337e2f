// banner_texts and its shortening rules (see banner_text.h).
#include "widgets/panels/banner_text.h"

#include <QObject>
#include <algorithm>

namespace ts::gui {

namespace {

const QString kDash = QStringLiteral(" — ");
const QString kEllipsis = QStringLiteral("…");

QString join(const BannerFinding& f, bool scope, const QString& title, const QString& fix) {
  QString s = f.note.isEmpty() ? QString() : f.note + kDash;
  s += title;
  if (!f.figure.isEmpty()) s += kDash + f.figure + (scope && !f.scope.isEmpty() ? QStringLiteral(", ") + f.scope : QString());
  if (!fix.isEmpty()) s += QObject::tr(" — fix: ") + fix;
  return s + f.more;
}

/// `fix` shortened to `part`: "…" says that it goes on (nothing added where nothing was left out).
QString shortened(const QString& fix, const QString& part) {
  if (part == fix || part.isEmpty()) return fix;
  QString s = part.trimmed();
  while (!s.isEmpty() && QStringLiteral(",;:.·—-(").contains(s.back())) s = s.chopped(1).trimmed();
  return s + kEllipsis;
}

}  // namespace

QString without_asides(const QString& text) {
  QString out;
  int depth = 0;
  for (int i = 0; i < text.size(); ++i) {
    const QChar c = text[i];
    if (depth == 0 && c == ' ' && i + 1 < text.size() && text[i + 1] == '(') {
      depth = 1, ++i;  // the space goes with the aside
      continue;
    }
    if (depth > 0) {
      if (c == '(') ++depth;
      else if (c == ')') --depth;
      continue;
    }
    out += c;
  }
  return depth > 0 ? text : out;  // an aside never closed: nothing is taken out
}

QStringList clause_prefixes(const QString& text) {
  QStringList prefixes;
  int depth = 0;  // inside a call's parentheses ("DataLoader(num_workers=..., …)") no clause ends
  for (int i = 0; i + 1 < text.size(); ++i) {
    const QChar c = text[i];
    if (c == '(') ++depth;
    else if (c == ')') depth = std::max(0, depth - 1);
    else if (depth == 0 && text[i + 1] == ' ' && QStringLiteral(";,.").contains(c) && i > 0) prefixes.prepend(text.left(i));
  }
  return prefixes;
}

QStringList banner_texts(const BannerFinding& f) {
  QStringList all = {join(f, true, f.title, f.fix), join(f, false, f.title, f.fix)};
  // The fix without its asides, then cut after ever fewer of its clauses: the longest that fits is
  // shown, so the fix keeps as many whole clauses as the room holds.
  const QString plain = without_asides(f.fix);
  all << join(f, false, f.title, shortened(f.fix, plain));
  const QStringList clauses = clause_prefixes(plain);
  for (const QString& c : clauses) all << join(f, false, f.title, shortened(f.fix, c));
  all << join(f, false, without_asides(f.title), shortened(f.fix, clauses.isEmpty() ? plain : clauses.back()));
  QStringList texts;
  for (const QString& t : all)
    if (texts.isEmpty() || (t != texts.back() && t.size() < texts.back().size())) texts << t;
  return texts;
}

}  // namespace ts::gui
