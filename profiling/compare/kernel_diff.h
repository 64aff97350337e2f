// Kernel diff of two sessions: kernels added, removed, faster and slower, by name (demangled).
// Inputs are the per-name kernel groups of each session (profiling/analysis/kernel_stats.h); the
// diff itself only subtracts, classifies against a noise threshold and sorts. Qt-free.
//
// Noise threshold (docs/compare.md): a change counts only when it is at least 10 % of the baseline
// AND at least 0.5 µs (per call for the mean, per step for the total). Source: the two H200 sessions
// tests/data/gpu_b128_nw4 and gpu_b128_nw0_augment run the same model at the same batch size, so the
// 28 kernels launched equally often in both (steps 2..80) did the same work; their per-call means
// differ by at most 6.4 % and 0.42 µs (medians 0.55 % and 49 ns). 10 % is 1.6 times the largest such
// change; 0.5 µs keeps short kernels (a few µs, where 0.2 µs of jitter is several %) from flapping.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiling/event_store.h"

namespace ts::prof::compare {

/// What the diff needs of one kernel name in one session.
struct KernelTotals {
  std::string name;
  std::int64_t calls = 0;
  std::int64_t total_ns = 0;
  double mean_ns() const { return calls > 0 ? static_cast<double>(total_ns) / calls : 0; }
};

struct KernelDiffOptions {
  double relative_threshold = 0.10;    // of the baseline value
  double absolute_threshold_ns = 500;  // per call (mean), or per step (total per step)
};

/// changed: the calls per step changed more than kCallsChangedRatio times (79 calls vs 2: a cuDNN
/// algorithm switch, other work under one name), so the per-call means measure different work and
/// are not called faster or slower.
enum class KernelChange { added, removed, faster, slower, same, changed };
/// Calls per step (b against a) beyond this factor either way make a row `changed` (an algorithm
/// switch, not a slower kernel).
inline constexpr double kCallsChangedRatio = 2.0;
/// "added", "removed", "faster", "slower", "same", "changed".
const char* kernel_change_name(KernelChange c);

struct KernelDiffRow {
  std::string name;
  /// By per-call mean time: faster / slower / same (added / removed when only one side has it;
  /// changed when the calls per step changed more than kCallsChangedRatio times).
  KernelChange change = KernelChange::same;
  /// By total time per recorded step (a kernel called more often can be slower in total only).
  KernelChange total_change = KernelChange::same;
  std::int64_t calls_a = 0, calls_b = 0;
  std::int64_t total_a_ns = 0, total_b_ns = 0;
  double mean_a_ns = 0, mean_b_ns = 0;                  // total / calls; 0 on the absent side
  double total_per_step_a_ns = 0, total_per_step_b_ns = 0;  // total / recorded steps of that session
  std::int64_t delta_total_ns() const { return total_b_ns - total_a_ns; }
  double delta_total_per_step_ns() const { return total_per_step_b_ns - total_per_step_a_ns; }
  double delta_mean_ns() const { return mean_b_ns - mean_a_ns; }
  /// (mean_b - mean_a) / mean_a; nullopt for added/removed kernels.
  std::optional<double> delta_mean_relative() const;
};

struct KernelDiff {
  std::size_t session_a = 0, session_b = 1;  // indices into the comparison (a = baseline)
  std::vector<KernelDiffRow> rows;           // sorted by |delta total per step| (largest first), then name
  std::int64_t added = 0, removed = 0, faster = 0, slower = 0, same = 0, changed = 0;  // by `change`
  KernelDiffOptions options;
};

/// Diffs per-name totals. `steps_a`/`steps_b`: recorded steps of each session (for the totals per
/// step; 0 leaves totals per step at the plain totals). Names are matched exactly; a name that
/// appears twice in one input is summed.
KernelDiff diff_kernels(const std::vector<KernelTotals>& a, std::int64_t steps_a,
                        const std::vector<KernelTotals>& b, std::int64_t steps_b,
                        const KernelDiffOptions& options = {});

/// The per-name totals of a store's kernels (analysis::kernel_groups). first_step >= 1: only kernels
/// launched during global steps >= first_step (kernel_groups' step filter: evaluation and set-up
/// kernels are left out); -1: every kernel.
std::vector<KernelTotals> kernel_totals(const EventStore& store, std::int64_t first_step = -1);

/// Sort keys for the GUI's table and the runner: by |Δ total per step|, |Δ total|, |Δ per-call mean|,
/// |relative Δ mean| (added/removed first), baseline or other total, calls (other session), or name. Deltas and totals sort largest first;
/// name sorts A..Z. Ties break by name, so the order is total.
enum class KernelSortKey { delta_total_per_step, delta_total, delta_mean, delta_mean_relative, total_a, total_b, calls_b, name };
void sort_rows(std::vector<KernelDiffRow>& rows, KernelSortKey key);

}  // namespace ts::prof::compare
