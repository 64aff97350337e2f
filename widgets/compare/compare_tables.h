// The compare view's tables (compare_view.h): configuration diff, throughput and accuracy, the
// step-time numbers, the verdict matrix and the verdict details. Each fill_* function replaces the
// widget's content from a prof::compare::Comparison; columns are the sessions ("A · name"), the
// first being the baseline. Numbers: img/s, ms, % as compare.h and docs/compare.md define them.
#pragma once
#include <QString>

#include "profiling/compare/compare.h"

class QTableWidget;
class QTreeWidget;
class QWidget;

namespace ts::gui {

/// A read-only table with the compare view's look (alternating rows, no edit, selectable text).
QTableWidget* make_compare_table(QWidget* parent = nullptr);
/// "A · gpu_b128_nw4" for session `i` of `c`.
QString session_header(const prof::compare::Comparison& c, int i);

/// Fixes the table's height to its header and rows (no empty area below the last row), so a
/// splitter or layout gives the rest of the space to what follows.
void fit_table_height(QTableWidget* t);

/// Rows: what each session is (file, start time, device, model, the main knobs, steps recorded,
/// dropped CUPTI records), equal or not, for context under the diff.
void fill_sessions_table(QTableWidget* t, const prof::compare::Comparison& c);

/// Rows: the ConfigDifference keys (only what differs); columns: sessions. An absent value shows "–".
void fill_config_table(QTableWidget* t, const prof::compare::Comparison& c);

/// Rows: steps used, images/s of training time (compare::training_throughput), the mean host step time
/// and the raw data wait per step (compare::data_wait_ns_per_step), GPU time-utilisation, the measured
/// SM active (beside the estimate) and DRAM throughput (PM sampling; rows hidden where no session has
/// measured metrics), last epoch, test accuracy, test/train loss. Sessions after A show their change
/// against A in parentheses for images/s, step time and accuracy.
void fill_throughput_table(QTableWidget* t, const prof::compare::Comparison& c);
/// The rows of fill_throughput_table, in order (tests and the lead's exports look rows up by these).
enum class ThroughputRow { steps, img_s, mean_step_ms, data_wait_ms, gpu_util, measured_sm, measured_dram, last_epoch,
                           test_accuracy, test_loss, train_loss, count };

/// The names every view gives the figures that compare.h computes once (Compare's tables, chart and
/// headline; a lesson's key numbers and promises): one quantity, one label. Their values are written
/// by profiling/compare/compare_text.h (training_rate_text: "116,230 ⚠"; ms_text; percent_text), which
/// the runner's --compare text calls too: one quantity, one way of writing it.
QString training_rate_label();  // "images/s (training time)": compare::training_throughput
QString host_step_label();      // "host step (mean)": compare::Throughput::mean_step_ns
QString data_wait_label();      // "data wait/step (raw)": compare::data_wait_ns_per_step
/// "total (mean step window)": the Step time tab's total, analysis::Report::breakdown per step (a
/// step's window runs until the GPU work it launched ends: another figure than host_step_label's).
QString step_window_label();
QString step_window_tooltip();
/// The tooltip that says how the images/s are counted, wherever the label stands.
QString training_rate_tooltip();

/// Rows: the analysis categories (analysis order) and the total; cells "0.455 ms · 74.2 %"
/// (ms per analysed step and share of the step windows).
void fill_breakdown_table(QTableWidget* t, const prof::compare::Comparison& c);

/// Rows: every verdict id that fired in any session; cells: its severity there, or "–".
void fill_verdict_matrix(QTableWidget* t, const prof::compare::Comparison& c);
/// One top-level item per session ("A · name — 2 verdicts"), a child per verdict (severity, id,
/// title) with evidence and fix below it (window_fix_text: an AMP fix not applicable where
/// `cuda_gpu_here` is false); all expanded.
void fill_verdict_tree(QTreeWidget* t, const prof::compare::Comparison& c, bool cuda_gpu_here = true);

}  // namespace ts::gui
