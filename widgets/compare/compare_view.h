// CompareView: two or more recorded sessions side by side (the GUI's compare view). It
// loads each session in the background (SessionLoader: one worker thread per file, a progress bar,
// Cancel), runs prof::compare::compare() on a worker thread, and shows tabs:
//   Configuration  only the run.config fields, model spec and device/versions/host keys that differ,
//                  then what each session is (file, device, model, main knobs, steps)
//   Throughput     images/s of training time, host step and data wait (as compare.h defines them) and
//                  accuracy, per session, with the change against the baseline (session A)
//   Step time      ms/step per analysis category as stacked bars on one y scale, and the numbers
//   Verdicts       which verdict fired where, and each one's severity, evidence and fix
//   Kernels        the kernel diff of each session against A: sortable, filterable table
//   Timelines      one timeline per session, aligned at a chosen step, panned and zoomed together
// Session A (the first that loads) is the baseline. A file that cannot be opened is named in one
// error line above the tabs; the sessions that did open are still compared (one alone is shown
// without diffs). The lead wires it into the window (File ▸ Compare sessions…, a drop of 2+ files).
#pragma once
#include <QStringList>
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "profiling/compare/compare.h"
#include "profiling/event_store.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTableWidget;
class QTreeWidget;

namespace ts::gui {

class SessionLoader;
class CompareBreakdownChart;
class CompareThroughputChart;
class KernelDiffPanel;
class AlignedTimelines;

/// One input of the view: a file to load, or a store already loaded (the window's current session).
struct CompareInput {
  QString label;  // shown and passed to compare(); "" = the path
  QString path;   // loaded when `store` is null
  std::shared_ptr<const prof::EventStore> store;
};

/// "A", "B", ... "Z", "AA" ...: the letter of session `index`.
QString session_letter(int index);
/// The label users see for a path: the file name without the .tsession suffix.
QString short_session_label(const QString& label_or_path);
/// What changed against the baseline, one line per other session (HTML): its images/s of training time
/// as a multiple of A's (compare::training_throughput), the mean host step (ms) of both, and the verdicts it gained
/// and lost by id. "" for one session.
QString compare_headline(const prof::compare::Comparison& c);

class CompareView : public QWidget {
  Q_OBJECT
 public:
  enum class State { empty, loading, comparing, ready, failed };

  explicit CompareView(QWidget* parent = nullptr);
  ~CompareView() override;

  /// Loads and compares `paths` (in this order; the first that opens is the baseline).
  void openSessions(const QStringList& paths);
  /// Compares `inputs` (files are loaded first, stores are used as they are).
  void setInputs(const std::vector<CompareInput>& inputs);
  /// Stops the loads in progress (the view then shows "cancelled").
  void cancel();
  /// Whether this machine has a CUDA GPU (true unless told): without one, a fix's AMP is said to be
  /// not applicable here in the Verdicts tab, as the window's Verdicts tab says it (window_fix_text).
  void setCudaGpuHere(bool present);

  State state() const { return state_; }
  /// The comparison shown (nullptr before it is ready). With one session, sessions[0] only.
  const prof::compare::Comparison* comparison() const { return comparison_ ? &*comparison_ : nullptr; }
  /// The stores compared, in the order of comparison()->sessions.
  const std::vector<std::shared_ptr<const prof::EventStore>>& stores() const { return stores_; }
  /// One line naming each input that could not be opened ("" when all opened).
  QString errorText() const { return error_; }
  /// The status line ("Loading 2 sessions…", "3 sessions compared", the cancel/failure message).
  QString statusText() const;

  QTabWidget* tabs() const { return tabs_; }
  /// The names line and the headline above the tabs (HTML).
  QString headerText() const;
  QTableWidget* configTable() const { return config_; }
  QTableWidget* sessionsTable() const { return sessions_; }
  QTableWidget* throughputTable() const { return throughput_; }
  CompareThroughputChart* throughputChart() const { return throughput_chart_; }
  CompareBreakdownChart* breakdownChart() const { return breakdown_; }
  QTableWidget* breakdownTable() const { return breakdown_table_; }
  QTableWidget* verdictMatrix() const { return verdict_matrix_; }
  QTreeWidget* verdictTree() const { return verdict_tree_; }
  KernelDiffPanel* kernelPanel() const { return kernels_; }
  AlignedTimelines* timelines() const { return timelines_; }
  QProgressBar* progressBar() const { return progress_; }

 signals:
  /// 0..100 while loading (mean of the files' rows read / rows total).
  void loadProgress(int percent);
  /// The comparison is shown.
  void ready();
  /// Nothing could be shown (no input opened, or cancelled); one line.
  void failed(const QString& message);

 private:
  struct Pending;
  void startLoads();
  void onLoadProgress();
  void onOneFinished();
  void startCompare();
  void showComparison(std::shared_ptr<prof::compare::Comparison> c,
                      std::vector<std::shared_ptr<const prof::EventStore>> stores);
  void setState(State s, const QString& status);
  void updateErrorLine();

  QLabel* header_;
  QLabel* error_label_;
  QLabel* status_;
  QProgressBar* progress_;
  QPushButton* cancel_;
  QTabWidget* tabs_;
  QTableWidget* config_;
  QLabel* config_note_;
  QTableWidget* sessions_;
  QTableWidget* throughput_;
  CompareThroughputChart* throughput_chart_;
  CompareBreakdownChart* breakdown_;
  QTableWidget* breakdown_table_;
  QTableWidget* verdict_matrix_;
  QTreeWidget* verdict_tree_;
  KernelDiffPanel* kernels_;
  AlignedTimelines* timelines_;

  State state_ = State::empty;
  QString status_text_, error_;
  std::vector<std::unique_ptr<Pending>> pending_;  // one per input, in input order
  int generation_ = 0;                             // results of a replaced request are dropped
  std::optional<prof::compare::Comparison> comparison_;
  bool cuda_gpu_here_ = true;
  std::vector<std::shared_ptr<const prof::EventStore>> stores_;
};

}  // namespace ts::gui
