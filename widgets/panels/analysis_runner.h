// AnalysisRunner: prof::analysis::analyze() of the hub's store, off the GUI thread, for the verdict
// panel and the step-breakdown chart. Re-runs when the store grew, at most once per min interval
// (default 500 ms: <= 2 Hz) and never two at a time; a result of a replaced store is dropped. With
// evidence on, each verdict's intervals (verdict_evidence) come with the report, so a click on a
// verdict highlights at once.
//
// Why a thread: analyze() is linear in the events (about 0.5 s per 1M events on a busy 2-core
// machine, docs/metrics.md); on the tests/data sessions (~10k events) it takes a few ms, a long
// live run would stall the GUI. lastAnalysisMs() keeps the measured time.
#pragma once
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "profiling/analysis/analysis.h"
#include "profiling/analysis/evidence.h"
#include "widgets/panels/panel_hub.h"

namespace ts::gui {

/// One analysis of the store (a value: built on the worker, read on the GUI thread).
struct AnalysisResult {
  prof::analysis::Report report;
  std::map<std::string, std::vector<prof::analysis::EvidenceSpan>> evidence;  // verdict id -> intervals
  prof::analysis::Options options;
  double analysis_ms = 0;  // analyze() + evidence on the worker, wall ms
};

class AnalysisRunner : public QObject {
  Q_OBJECT
 public:
  AnalysisRunner(PanelHub* hub, const prof::analysis::Options& options, bool with_evidence, QObject* parent = nullptr);
  /// New options (e.g. last N steps / whole run): re-runs now; the old result stays until the new one.
  void setOptions(const prof::analysis::Options& options);
  const prof::analysis::Options& options() const { return options_; }
  /// The latest result for the current store and options; nullptr before the first.
  std::shared_ptr<const AnalysisResult> result() const { return result_; }
  void setMinIntervalMs(int ms) { min_interval_ms_ = ms; }
  double lastAnalysisMs() const { return result_ ? result_->analysis_ms : 0; }
  int completedRuns() const { return runs_; }
  bool running() const { return running_; }
  /// Asks for a run (throttled); panels rarely need it: the hub's signals call it.
  void request();

 signals:
  /// A new result (or none: the store was replaced/cleared; result() is then nullptr).
  void resultReady();

 private:
  void start();
  void finished(quint64 generation, std::shared_ptr<const AnalysisResult> r);

  PanelHub* hub_;
  prof::analysis::Options options_;
  bool with_evidence_;
  std::shared_ptr<const AnalysisResult> result_;
  QTimer throttle_;
  QElapsedTimer since_start_;
  int min_interval_ms_ = 500;
  quint64 generation_ = 0;
  bool running_ = false, pending_ = false, dirty_ = true;
  prof::StoreCounts last_counts_{};
  int runs_ = 0;
};

}  // namespace ts::gui
