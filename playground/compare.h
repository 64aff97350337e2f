// Two playground runs side by side (two cards, or two launch configurations of one card): ladders
// matched by family, variants by family + name, the ratio of their throughputs and which run is
// faster. Qt-free, CUDA-free; the window's Compare and `trainscope-run --compare A B` both use it.
#pragma once
#include <string>
#include <vector>

#include "playground/ladder.h"
#include "playground/session.h"

namespace ts::playground {

/// Throughputs closer than this (|b/a - 1| < 3 %) count as the same: a repeated H200 run moved its
/// figures by about 1 % (docs/playground.md, "Measured on the H200"), so 3x that is noise, not a win.
inline constexpr double kSameWithin = 0.03;

/// One variant in both runs (or in one: the other's `in_x` is false).
struct VariantComparison {
  std::string name, what_changed;
  bool in_a = false, in_b = false;
  bool passed_a = false, passed_b = false;  // checked and passed: only then is a throughput shown
  double a = 0, b = 0;                      // throughput (the ladder's unit), 0 when not passed
  double ratio = 0;                         // b / a; 0 when either has no throughput
  char faster = 0;                          // 'A', 'B', '=' (within kSameWithin) or 0 (not comparable)
};

struct LadderComparison {
  std::string family, title_a, title_b;
  Unit unit = Unit::gbps;
  std::int64_t size_a = 0, size_b = 0;  // 0: the family is not in that run
  std::vector<VariantComparison> rows;  // A's order, then B's rows A lacks
  double geomean_ratio = 0;             // geometric mean of the rows' b/a (0: no row in both)
};

struct RunComparison {
  std::string device_a, device_b;
  std::vector<LadderComparison> ladders;  // A's order, then B's families A lacks
  std::vector<std::string> differences;   // "device: NVIDIA H200 vs NVIDIA A100", "sgemm size: 4096 vs 2048", ...
  std::string summary;                    // one line: which run is faster where
};

/// Compares run `b` against run `a`. Throws nothing; two runs without a family in common give
/// ladders with rows in one run only and a summary that says so.
RunComparison compare_runs(const StoredRun& a, const StoredRun& b);

/// The comparison as text tables (one per family: variant, A, B, B/A, faster), `label_a` and
/// `label_b` naming the runs (file names), the differences first and the summary last.
std::string format_compare_text(const RunComparison& c, const std::string& label_a, const std::string& label_b);
/// The comparison as one JSON object {"a", "b", "device_a", "device_b", "differences", "ladders": [...], "summary"}.
std::string format_compare_json(const RunComparison& c, const std::string& label_a, const std::string& label_b);

}  // namespace ts::playground
