// The lesson window's words for a lesson's promises and verdicts, in front of a class: a verdict by
// the title the analysis gives it (the line the verdict banner shows), a verdict's measure by its
// evidence name and unit (evidence_text, as the Verdicts tab and the banner write it), a figure by
// its row name in the key numbers — never an internal id ("input_bound", "data_wait_ms").
// lessons/lesson_eval.cpp words the same checks with the ids, for trainscope-run's text and JSON.
#pragma once
#include <QString>
#include <cstddef>
#include <string>

#include "lessons/lesson_eval.h"

namespace ts::gui {

/// A figure's name for people (lessons/lesson_eval.h says how each is measured): "images/s",
/// "step (mean)", "data wait/step", "GPU busy" ...; an unknown name as it is.
QString lesson_figure_label(const std::string& figure);

/// Verdict `id` by its title where a run of `r` gave it ("Input-bound: the trainer waits for the
/// next batch"); where none did, by the measure its rule holds it to ("the verdict on data-loader
/// wait (raw)"); an id the analysis does not know as it is.
QString lesson_verdict_name(const std::string& id, const lessons::LessonResult& r);

/// Check `i` of `r` (of expectation r.record.lesson.expect[i]) in those words.
struct LessonCheckText {
  QString what;     // the promise: "“Input-bound: …” fires on before and not on after"
  QString change;   // what changed: "fired → gone", "6.1 ms → 0.2 ms (×0.0328)"
  QString numbers;  // "before: data-loader wait (raw) 31.0 % (6.2× the threshold 5.0 %), fired; …"
};
LessonCheckText lesson_check_text(const lessons::LessonResult& r, std::size_t i);

}  // namespace ts::gui
