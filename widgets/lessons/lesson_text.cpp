// A lesson's promises and verdicts in the window's words (lesson_text.h).
#include "widgets/lessons/lesson_text.h"

#include <QObject>
#include <algorithm>

#include "profiling/analysis/analysis.h"
#include "widgets/compare/compare_tables.h"
#include "widgets/panels/verdict_panel.h"

namespace ts::gui {

namespace {

namespace an = prof::analysis;

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

const lessons::RunResult* find_run(const lessons::LessonResult& r, const std::string& id) {
  for (const auto& run : r.runs)
    if (run.run.id == id) return &run;
  return nullptr;
}

bool fired(const lessons::RunResult& run, const std::string& id) {
  return std::find(run.verdicts.begin(), run.verdicts.end(), id) != run.verdicts.end();
}

/// One run's side of a verdict check: "before: data-loader wait (raw) 31.0 % (6.2× the threshold
/// 5.0 %), fired" (lesson_eval.cpp's check_verdict, in evidence words).
QString verdict_side(const lessons::RunResult& run, const std::string& id) {
  QString s = q(run.run.id) + ": ";
  const auto rule = an::verdict_rule(id);
  const auto it = run.measures.find(id);
  if (!rule || it == run.measures.end()) {
    s += QObject::tr("no measure");
  } else {
    const EvidenceText m = evidence_text(rule->measure, it->second);
    s += m.name + ' ' + m.value;
    if (const auto k = an::verdict_margin(*rule, it->second))
      s += QObject::tr(" (%1× the threshold %2)")
               .arg(QString::number(*k, 'g', 2), evidence_text(rule->measure, rule->threshold).value);
  }
  return s + (fired(run, id) ? QObject::tr(", fired") : QObject::tr(", did not fire"));
}

}  // namespace

QString lesson_figure_label(const std::string& f) {
  // The three figures Compare shows as well: its labels (compare_tables.h), one name per quantity.
  if (f == "images_per_s") return training_rate_label();
  if (f == "step_ms") return host_step_label();
  if (f == "data_wait_ms") return data_wait_label();
  if (f == "slowest_step_ms") return QObject::tr("slowest step");
  if (f == "activation_bytes") return QObject::tr("activations");
  if (f == "peak_memory_bytes") return QObject::tr("peak allocated");
  if (f == "h2d_copy_ms") return QObject::tr("H2D copy/step");
  if (f == "gpu_utilization_pct") return QObject::tr("GPU busy");
  return q(f);
}

QString lesson_verdict_name(const std::string& id, const lessons::LessonResult& r) {
  for (const auto& run : r.runs)
    if (const auto it = run.verdict_titles.find(id); it != run.verdict_titles.end()) return q(it->second);
  if (const auto rule = an::verdict_rule(id))
    return QObject::tr("the verdict on %1").arg(evidence_text(rule->measure, rule->threshold).name);
  return q(id);
}

LessonCheckText lesson_check_text(const lessons::LessonResult& r, std::size_t i) {
  const lessons::Check& c = r.checks.at(i);
  LessonCheckText t{q(c.what), q(c.change), q(c.detail)};
  if (i >= r.record.lesson.expect.size()) return t;
  const lessons::Expectation& e = r.record.lesson.expect[i];
  if (e.kind == "verdict") {
    t.what = QObject::tr("“%1” fires on %2 and not on %3")
                 .arg(lesson_verdict_name(e.verdict, r), q(e.fires_on), q(e.gone_on));
    if (e.min_margin > 1) t.what += QObject::tr(", at least %1× its threshold").arg(e.min_margin);
    const lessons::RunResult *a = find_run(r, e.fires_on), *b = find_run(r, e.gone_on);
    // Judged (the check says what changed): each run's measure; else lesson_eval's reason, which
    // names a run and why it gives no numbers ("after: not run yet").
    if (!c.change.empty() && a && b) t.numbers = verdict_side(*a, e.verdict) + "; " + verdict_side(*b, e.verdict);
  } else if (e.kind == "figure") {
    const double bound = e.at_least ? *e.at_least : e.at_most.value_or(0);
    t.what =
        QObject::tr("%1 of %2 / %3 %4 %5")
            .arg(lesson_figure_label(e.figure), q(e.to), q(e.from), e.at_least ? "≥" : "≤", QString::number(bound));
    t.numbers.replace(q(e.figure), lesson_figure_label(e.figure));  // "the sessions do not give data wait/step"
  }
  return t;
}

}  // namespace ts::gui
