// Kernel diff (kernel_diff.h): subtraction, classification against the noise threshold, sorting.
#include "profiling/compare/kernel_diff.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "profiling/analysis/kernel_stats.h"

namespace ts::prof::compare {

const char* kernel_change_name(KernelChange c) {
  switch (c) {
    case KernelChange::added: return "added";
    case KernelChange::removed: return "removed";
    case KernelChange::faster: return "faster";
    case KernelChange::slower: return "slower";
    case KernelChange::same: return "same";
    case KernelChange::changed: return "changed";
  }
  return "same";
}

std::optional<double> KernelDiffRow::delta_mean_relative() const {
  if (calls_a == 0 || calls_b == 0 || mean_a_ns <= 0) return std::nullopt;
  return (mean_b_ns - mean_a_ns) / mean_a_ns;
}

namespace {

/// faster / slower when |b - a| reaches both thresholds (relative to a), same otherwise.
KernelChange classify(double a, double b, const KernelDiffOptions& o) {
  const double d = b - a;
  if (std::abs(d) < o.absolute_threshold_ns || std::abs(d) < o.relative_threshold * a) return KernelChange::same;
  return d < 0 ? KernelChange::faster : KernelChange::slower;
}

std::map<std::string, KernelTotals> by_name(const std::vector<KernelTotals>& v) {
  std::map<std::string, KernelTotals> m;
  for (const auto& k : v) {
    auto& t = m[k.name];
    t.name = k.name;
    t.calls += k.calls;
    t.total_ns += k.total_ns;
  }
  return m;
}

double per_step(std::int64_t total, std::int64_t steps) {
  return steps > 0 ? static_cast<double>(total) / steps : static_cast<double>(total);
}

}  // namespace

KernelDiff diff_kernels(const std::vector<KernelTotals>& a, std::int64_t steps_a, const std::vector<KernelTotals>& b,
                        std::int64_t steps_b, const KernelDiffOptions& options) {
  KernelDiff d;
  d.options = options;
  const auto ma = by_name(a), mb = by_name(b);
  auto row_of = [&](const std::string& name, const KernelTotals* x, const KernelTotals* y) {
    KernelDiffRow r;
    r.name = name;
    if (x) r.calls_a = x->calls, r.total_a_ns = x->total_ns, r.mean_a_ns = x->mean_ns();
    if (y) r.calls_b = y->calls, r.total_b_ns = y->total_ns, r.mean_b_ns = y->mean_ns();
    r.total_per_step_a_ns = per_step(r.total_a_ns, steps_a);
    r.total_per_step_b_ns = per_step(r.total_b_ns, steps_b);
    if (r.calls_a == 0) {
      r.change = r.total_change = KernelChange::added;
    } else if (r.calls_b == 0) {
      r.change = r.total_change = KernelChange::removed;
    } else {
      r.change = classify(r.mean_a_ns, r.mean_b_ns, options);
      r.total_change = classify(r.total_per_step_a_ns, r.total_per_step_b_ns, options);
      const double calls_ratio = per_step(r.calls_b, steps_b) / per_step(r.calls_a, steps_a);
      if (calls_ratio > kCallsChangedRatio || calls_ratio < 1.0 / kCallsChangedRatio) r.change = KernelChange::changed;
    }
    return r;
  };
  for (const auto& [name, x] : ma) {
    const auto it = mb.find(name);
    d.rows.push_back(row_of(name, &x, it == mb.end() ? nullptr : &it->second));
  }
  for (const auto& [name, y] : mb)
    if (!ma.count(name)) d.rows.push_back(row_of(name, nullptr, &y));
  for (const auto& r : d.rows) {
    switch (r.change) {
      case KernelChange::added: ++d.added; break;
      case KernelChange::removed: ++d.removed; break;
      case KernelChange::faster: ++d.faster; break;
      case KernelChange::slower: ++d.slower; break;
      case KernelChange::same: ++d.same; break;
      case KernelChange::changed: ++d.changed; break;
    }
  }
  sort_rows(d.rows, KernelSortKey::delta_total_per_step);
  return d;
}

std::vector<KernelTotals> kernel_totals(const EventStore& store, std::int64_t first_step) {
  analysis::KernelStatsOptions o;
  o.first_step = first_step;
  std::vector<KernelTotals> out;
  for (const auto& g : analysis::kernel_groups(store, o)) out.push_back({g.name, g.calls, g.total_ns});
  return out;
}

void sort_rows(std::vector<KernelDiffRow>& rows, KernelSortKey key) {
  auto value = [key](const KernelDiffRow& r) -> double {
    switch (key) {
      case KernelSortKey::delta_total_per_step: return std::abs(r.delta_total_per_step_ns());
      case KernelSortKey::delta_total: return std::abs(static_cast<double>(r.delta_total_ns()));
      case KernelSortKey::delta_mean: return std::abs(r.delta_mean_ns());
      case KernelSortKey::delta_mean_relative: {
        const auto rel = r.delta_mean_relative();
        return rel ? std::abs(*rel) : HUGE_VAL;  // added/removed: the largest change there is
      }
      case KernelSortKey::total_a: return static_cast<double>(r.total_a_ns);
      case KernelSortKey::total_b: return static_cast<double>(r.total_b_ns);
      case KernelSortKey::calls_b: return static_cast<double>(r.calls_b);
      case KernelSortKey::name: return 0;
    }
    return 0;
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const KernelDiffRow& x, const KernelDiffRow& y) {
    const double vx = value(x), vy = value(y);
    if (vx != vy) return vx > vy;
    return x.name < y.name;
  });
}

}  // namespace ts::prof::compare
