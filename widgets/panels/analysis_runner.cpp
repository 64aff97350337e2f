// AnalysisRunner: throttled analyze() on the thread pool; results back on the GUI thread.
#include "widgets/panels/analysis_runner.h"

#include "profiling/import/trace_analysis.h"

#include <chrono>

#include "widgets/panels/panel_plot.h"

namespace ts::gui {

AnalysisRunner::AnalysisRunner(PanelHub* hub, const prof::analysis::Options& options, bool with_evidence, QObject* parent)
    : QObject(parent), hub_(hub), options_(options), with_evidence_(with_evidence) {
  throttle_.setSingleShot(true);
  connect(&throttle_, &QTimer::timeout, this, &AnalysisRunner::request);
  connect(hub_, &PanelHub::storeChanged, this, [this] {
    ++generation_;
    result_.reset();
    last_counts_ = {};
    dirty_ = true;
    emit resultReady();
    request();
  });
  connect(hub_, &PanelHub::grew, this, [this] {
    if (counts_grew(last_counts_, hub_->counts())) dirty_ = true;
    request();
  });
  connect(hub_, &PanelHub::liveChanged, this, [this](bool) {
    // The run ended (its last GPU records are in now): analyse at once, not after the throttle.
    dirty_ = true;
    since_start_.invalidate();
    request();
  });
  if (hub_->store()) request();
}

void AnalysisRunner::setOptions(const prof::analysis::Options& options) {
  options_ = options;
  ++generation_;  // a running job's result is for the old options
  dirty_ = true;
  since_start_.invalidate();
  request();
}

void AnalysisRunner::request() {
  if (!hub_->store() || !dirty_) return;
  if (running_) {
    pending_ = true;
    return;
  }
  const qint64 since = since_start_.isValid() ? since_start_.elapsed() : min_interval_ms_;
  if (since < min_interval_ms_) {
    if (!throttle_.isActive()) throttle_.start(static_cast<int>(min_interval_ms_ - since));
    return;
  }
  start();
}

void AnalysisRunner::start() {
  running_ = true;
  pending_ = false;
  dirty_ = false;
  since_start_.start();
  last_counts_ = hub_->counts();
  const quint64 gen = generation_;
  std::shared_ptr<const prof::EventStore> store = hub_->store();
  prof::analysis::Options opts = options_;
  opts.live = hub_->isLive();  // leave out the newest steps whose GPU records are not in yet
  if (store->meta().count("import.format")) {  // a PyTorch trace: only its profiler's active steps
    opts.warmup_steps = 0;
    opts.min_steps_for_verdicts = prof::import::kMinImportedSteps;
  }
  const bool evidence = with_evidence_;
  using Ptr = std::shared_ptr<const AnalysisResult>;
  post_job<Ptr>(
      this,
      [store, opts, evidence]() -> Ptr {
        const auto t0 = std::chrono::steady_clock::now();
        auto r = std::make_shared<AnalysisResult>();
        r->options = opts;
        r->report = prof::analysis::analyze(*store, opts);
        if (evidence) {
          std::vector<std::string> ids;
          for (const auto& v : r->report.verdicts) ids.push_back(v.id);
          r->evidence = prof::analysis::verdict_evidence(*store, ids, opts);
        }
        r->analysis_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return r;
      },
      [this, gen](Ptr r) { finished(gen, std::move(r)); });
}

void AnalysisRunner::finished(quint64 generation, std::shared_ptr<const AnalysisResult> r) {
  running_ = false;
  if (generation == generation_) {
    result_ = std::move(r);
    ++runs_;
    emit resultReady();
  } else {
    dirty_ = true;  // the store or the options changed meanwhile
  }
  if (pending_ || dirty_) request();
}

}  // namespace ts::gui
