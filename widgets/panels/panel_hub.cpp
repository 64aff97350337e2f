#include "widgets/panels/panel_hub.h"

namespace ts::gui {

bool counts_grew(const prof::StoreCounts& a, const prof::StoreCounts& b) {
  return b.kernels != a.kernels || b.memcpys != a.memcpys || b.memsets != a.memsets || b.runtime != a.runtime ||
         b.syncs != a.syncs || b.memory != a.memory || b.overheads != a.overheads ||
         b.host_ranges != a.host_ranges || b.threads != a.threads || b.steps != a.steps ||
         b.losses != a.losses || b.series != a.series || b.samples != a.samples || b.clock != a.clock ||
         b.epochs != a.epochs || b.metric_series != a.metric_series || b.metric_samples != a.metric_samples ||
         b.graph_nodes != a.graph_nodes;
}

PanelHub::PanelHub(QObject* parent) : QObject(parent) {
  qRegisterMetaType<ts::gui::TimeSpan>();
  timer_.setInterval(33);
  connect(&timer_, &QTimer::timeout, this, &PanelHub::tick);
}

void PanelHub::assign(std::shared_ptr<const prof::EventStore> store, bool live, const HubView& view) {
  store_ = std::move(store);
  counts_ = {};
  live_ = live && store_;
  // Before storeChanged: the panels read the range they are to show when they rebuild.
  highlight_ = view.highlight;
  visible_ = view.visible;
  const bool follow_changed = follow_ != view.follow;
  follow_ = view.follow;
  if (follow_changed) emit followLiveChanged(follow_);
  emit storeChanged();
  emit highlightChanged();
  tick();
  if (live_) timer_.start();
  else timer_.stop();
  emit liveChanged(live_);
}

void PanelHub::clear() { setStore(nullptr, false); }

void PanelHub::restoreStore(std::shared_ptr<const prof::EventStore> store, const HubView& view) {
  assign(std::move(store), false, view);
  emit visibleRangeChanged(visible_);  // a panel that kept its range from the failed store moves back
}

void PanelHub::setLive(bool live) {
  live = live && store_;
  if (live == live_) return;
  live_ = live;
  tick();
  if (live_) timer_.start();
  else timer_.stop();
  emit liveChanged(live_);
}

void PanelHub::setRefreshIntervalMs(int ms) { timer_.setInterval(std::max(ms, 1)); }

void PanelHub::setVisibleRange(TimeSpan range) {
  if (range.end < range.start) std::swap(range.start, range.end);
  if (range == visible_) return;
  visible_ = range;
  emit visibleRangeChanged(visible_);
}

void PanelHub::setFollowLive(bool follow) {
  if (follow == follow_) return;
  follow_ = follow;
  emit followLiveChanged(follow_);
}

void PanelHub::setHighlight(const Highlight& h) {
  highlight_ = h;
  emit highlightChanged();
}

void PanelHub::tick() {
  if (!store_) return;
  const prof::StoreCounts now = store_->counts();
  if (!counts_grew(counts_, now)) return;
  counts_ = now;
  emit grew();
}

}  // namespace ts::gui
