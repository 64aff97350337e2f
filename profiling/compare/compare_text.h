// How Compare writes its figures for people: one function per quantity, called by the runner's
// --compare text (compare_report.cpp) and by the window's Compare tables, chart and headline
// (widgets/compare), so that one session's images/s, step time and GPU busy read the same in a
// terminal and in the window ("472,658 ⚠", never "472658" beside it). Numbers go through
// base/format_number.h (thousands grouped with ","). Qt-free; the GUI wraps the strings in QString.
#pragma once
#include <string>

#include "profiling/compare/compare.h"

namespace ts::prof::compare {

/// What follows a session's images/s when first_steps_heavy(): its heavy first steps weigh the mean
/// down (describe_first_steps() says why, in a tooltip or a note under the text table).
inline constexpr const char* kHeavyFirstStepsMark = "⚠";

/// A session's images/s of training time (training_throughput): "116,230", and "116,230 ⚠" where
/// first_steps_heavy(t); "" without a rate. No unit: the row or axis names it.
std::string training_rate_text(const Throughput& t);

/// A time in ns written in ms with 3 decimals, whole part grouped: 613'000 -> "0.613";
/// 1'234'500'000 -> "1,234.500". The host step, data wait, step window and own work per step of
/// every Compare view. No unit: the caller writes " ms" or names it in the row.
std::string ms_text(double ns);

/// A share (0..1) as a percentage with `decimals` decimals: 0.8734 -> "87.3 %". GPU busy (1
/// decimal) and test accuracy (2) in every Compare view.
std::string percent_text(double share, int decimals = 1);

/// The note that says why session `letter`'s images/s carries the mark: "A ⚠ the first step took
/// 37.4 ms (...)"; "" when first_steps_heavy(t) is false. The runner prints it under its throughput
/// table, the window puts it in the headline's tooltip.
std::string first_steps_note(const std::string& letter, const Throughput& t);

}  // namespace ts::prof::compare
