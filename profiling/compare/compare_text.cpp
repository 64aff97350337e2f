// Compare's figures as text (compare_text.h).
#include "profiling/compare/compare_text.h"

#include "base/format_number.h"

namespace ts::prof::compare {

std::string training_rate_text(const Throughput& t) {
  if (!t.training.img_per_s) return {};
  std::string s = format_grouped(*t.training.img_per_s);
  if (first_steps_heavy(t)) s += std::string(" ") + kHeavyFirstStepsMark;
  return s;
}

std::string ms_text(double ns) { return format_grouped(ns / 1e6, 3); }

std::string percent_text(double share, int decimals) { return format_grouped(100 * share, decimals) + " %"; }

std::string first_steps_note(const std::string& letter, const Throughput& t) {
  const std::string why = describe_first_steps(t);
  return why.empty() ? std::string() : letter + " " + kHeavyFirstStepsMark + " " + why;
}

}  // namespace ts::prof::compare
