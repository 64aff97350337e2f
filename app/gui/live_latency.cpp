// LiveLatency (see live_latency.h).
#include "app/gui/live_latency.h"

#include <algorithm>
#include <string>

#include "app/gui/main_window.h"
#include "engine/host_trace.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"

namespace ts::gui {

LiveLatency::LiveLatency(MainWindow* window) : QObject(window), window_(window) {
  connect(window_->timelinePanel()->view(), &TimelineView::painted, this, [this](qint64 newest_end) {
    const auto store = window_->panelHub()->store();
    if (!store || !window_->panelHub()->isLive()) return;
    if (newest_end <= newest_seen_) return;  // nothing newer on screen
    newest_seen_ = newest_end;
    if (origin_of_.lock() != store) {  // the store's clock origin, read once it is there (not a meta copy per paint)
      const auto meta = store->meta();
      const auto it = meta.find("session.start_steady_ns");
      if (it == meta.end()) return;
      try {
        origin_ns_ = std::stoll(it->second);
      } catch (const std::exception&) {
        return;  // a meta value that is not a number: no samples (the session's own problem, said elsewhere)
      }
      origin_of_ = store;
    }
    samples_.push_back(static_cast<double>(trace::now_ns() - origin_ns_ - newest_end) * 1e-6);
  });
}

QString LiveLatency::summary() const {
  if (samples_.empty()) return "live latency: no samples (was the timeline visible while events arrived?)";
  std::vector<double> v = samples_;
  std::sort(v.begin(), v.end());
  auto pct = [&](double q) { return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))]; };
  return QString("live latency (event end -> first paint showing it): %1 samples, median %2 ms, p95 %3 ms, max %4 ms")
      .arg(v.size())
      .arg(pct(0.5), 0, 'f', 0)
      .arg(pct(0.95), 0, 'f', 0)
      .arg(v.back(), 0, 'f', 0);
}

}  // namespace ts::gui
