// TimelineView: hub wiring, layout, lanes, selection, search and hit-testing (painting:
// timeline_paint.cpp; keyboard, mouse and menus: timeline_input.cpp).
#include "widgets/timeline/timeline_view.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <QResizeEvent>
#include <algorithm>
#include <limits>
#include <optional>

#include "profiling/import/trace_analysis.h"
#include "profiling/schedule.h"
#include "widgets/timeline/categories.h"
#include "widgets/timeline/timeline_details.h"

namespace ts::gui {

using namespace timeline;

TimelineView::TimelineView(PanelHub* hub, QWidget* parent) : QWidget(parent), hub_(hub) {
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  setMinimumSize(400, 160);
  setAttribute(Qt::WA_OpaquePaintEvent);
  fitHeader();
  axis_.setWidth(std::max(1, width() - header_w_));
  if (!hub_) return;
  connect(hub_, &PanelHub::storeChanged, this, &TimelineView::onStoreChanged);
  connect(hub_, &PanelHub::grew, this, &TimelineView::onGrew);
  connect(hub_, &PanelHub::visibleRangeChanged, this, &TimelineView::onHubRange);
  connect(hub_, &PanelHub::highlightChanged, this, &TimelineView::onHighlight);
  // The run ended (or an opened session finished loading): show its steady-state steps
  // (initialRange), unless the user has moved the view meanwhile (which turned follow live off).
  connect(hub_, &PanelHub::liveChanged, this, [this](bool live) {
    if (live || !store_) return;
    onGrew();
    hideEmptyLanes();  // the events are in: lanes with nothing to look at go into the lane menu
    update();
    if (!hub_->followLive()) return;
    const TimeSpan r = initialRange();
    axis_.setRange(r.start, r.end);
    publishRange();
    update();
  });
  onStoreChanged();
  if (hub_->store()) onGrew();
}

void TimelineView::onStoreChanged() {
  if (store_) {
    kept_[1] = kept_[0];
    kept_[0] = {store_, scroll_y_, selected_.valid(), selected_source_, selected_row_, time_selection_, empty_lanes_hidden_};
  }
  store_ = hub_ ? hub_->store() : nullptr;
  restore_.reset();
  for (const Kept& k : kept_)
    if (store_ && k.store.lock() == store_) restore_ = k;
  data_.reset();
  loading_.reset();
  props_ = store_ ? prof::analysis::device_props(store_->meta()) : prof::analysis::DeviceProps{};
  have_range_ = false;
  selected_ = {};
  time_selection_.reset();
  name_match_.clear(), name_highlight_.clear(), short_names_.clear(), name_shade_.clear();
  empty_lanes_hidden_ = false;
  marks_version_ = ~0ull;
  scroll_y_ = 0;
  emit selectionChanged();
  emit timeSelectionChanged();
  update();
}

void TimelineView::pull() { onGrew(); }

bool TimelineView::showOverview() {
  // An opened session that is still loading and has an overview (read before its events): paint
  // the overview, every lane over the whole session, while the events arrive into loading_ a tick
  // at a time; the end of the load (liveChanged(false)) swaps them in.
  if (!hub_->isLive() || (!data_.isOverview() && data_.eventCount() > 0)) return false;
  const auto o = store_->overview();
  if (!o) return false;
  if (data_.isOverview()) return true;  // shown; the steps and threads were read before it
  data_.setOverview(*store_, *o);
  axis_.setBounds(data_.minTime(), data_.maxTime());
  syncOrder();
  if (!have_range_) axis_.fitAll(), have_range_ = true, publishRange();
  update();
  return true;
}

void TimelineView::onGrew() {
  if (!store_ || !hub_) return;
  // An opened session hands its store out before its meta is read: the device properties (for the
  // details pane's occupancy) are read again until they are known.
  if (!props_.known && !hub_->isLive()) props_ = prof::analysis::device_props(store_->meta());
  if (showOverview()) {
    loading_.ingest(*store_, hub_->counts());  // what this tick brought, as a live run's (bounded per tick)
    return;
  }
  const bool swapped = data_.isOverview();
  if (swapped) {  // the load ended: the events replace the overview
    data_ = std::move(loading_);
    loading_.reset();
    partner_for_ = {};
  }
  const std::uint64_t v = data_.version();
  data_.ingest(*store_, hub_->counts());
  const bool changed = swapped || data_.version() != v;
  if (!hub_->isLive() && changed) {
    data_.compact();
#ifdef __GLIBC__
    // The load's transient buffers (SQLite's page cache on the loader thread, the ingest's batches)
    // were freed; hand the pages back so the process keeps only what the session needs.
    malloc_trim(0);
#endif
  }
  if (!changed) return;
  if (restore_ && !hub_->isLive()) applyKept();
  if (!hub_->isLive()) hideEmptyLanes();
  if (selected_.valid()) selected_ = data_.find(*store_, selected_source_, selected_row_);
  axis_.setBounds(data_.minTime(), data_.maxTime());
  syncOrder();
  if (!have_range_) {
    const TimeSpan hub_range = hub_->visibleRange();
    if (hub_range.end > hub_range.start && !hub_->isLive()) {
      axis_.setRange(hub_range.start, hub_range.end);
    } else if (!hub_->isLive()) {
      const TimeSpan r = initialRange();
      axis_.setRange(r.start, r.end);
    } else {
      axis_.fitAll();
    }
    have_range_ = true;
    publishRange();
  } else if (hub_->isLive() && hub_->followLive()) {
    const std::int64_t span = followSpan();
    axis_.setRange(data_.maxTime() - span + span / 50, data_.maxTime() + span / 50);
    publishRange();
  }
  update();
}

void TimelineView::applyKept() {
  const Kept k = *restore_;
  restore_.reset();
  empty_lanes_hidden_ = k.empty_lanes_hidden;  // lanes the user showed again stay shown
  time_selection_ = k.time_selection;
  if (k.selected) selected_source_ = k.source, selected_row_ = k.row, selected_ = data_.find(*store_, k.source, k.row);
  scroll_y_ = k.scroll_y;  // clamped once the lanes are laid out (setScrollY, resizeEvent)
  emit selectionChanged();
  emit timeSelectionChanged();
}

int TimelineView::warmupSteps() const {
  return store_ ? static_cast<int>(prof::import::warmup_steps_for(*store_)) : 1;
}

TimeSpan TimelineView::initialRange() const {
  const auto& steps = data_.steps();
  std::size_t first = static_cast<std::size_t>(warmupSteps());
  if (steps.size() <= first) return {data_.minTime(), data_.maxTime()};
  std::size_t stop = steps.size();  // one past the last step the view may show
  // A session recorded on a profile schedule traced its windows alone: open on the first window the
  // analysis reads, not on untraced steps that would look like an idle GPU.
  if (const auto schedule = store_ ? prof::schedule_from_meta(store_->meta()) : std::nullopt) {
    std::size_t i = first;
    while (i < steps.size() && !prof::analysed_step(*schedule, steps[i].global_step)) ++i;
    if (i < steps.size()) {
      first = i;
      while (i < steps.size() && schedule->state(steps[i].global_step) == 2) ++i;
      stop = i;
    }
  }
  const std::size_t last = std::min(stop, first + kInitialSteps) - 1;
  const std::int64_t start = steps[first].start;
  // A little past the last step's host range (its GPU work runs on), never into the next step.
  std::int64_t end = steps[last].end + (steps[last].end - start) / 50;
  if (last + 1 < steps.size()) end = std::min(end, steps[last + 1].start);
  end = std::min(end, std::max(data_.maxTime(), steps[last].end));
  return {start, std::max(end, start + 1)};
}

std::int64_t TimelineView::followSpan() const {
  // The last kFollowSteps steps (one step of a CPU run is ~100 ms, of an H200 run ~1 ms: a fixed
  // time window would show either a sliver or a blur), kFollowDefaultNs before the first steps.
  // The span of those steps (host time); the GPU's records of the newest steps can lag behind
  // the host's by a CUPTI flush (~100 ms), so the span is not measured up to the newest event.
  std::int64_t span = kFollowDefaultNs;
  const std::size_t n = std::min<std::size_t>(store_->steps.size(), hub_->counts().steps);
  if (n > 0) {
    const std::size_t first = n > kFollowSteps ? n - kFollowSteps : 0;
    span = std::max<std::int64_t>(store_->steps[n - 1].end - store_->steps[first].start, kFollowMinNs);
  }
  return std::min(span, std::max<std::int64_t>(data_.maxTime() - data_.minTime(), kFollowMinNs));
}

void TimelineView::onHubRange(TimeSpan r) {
  if (r.end <= r.start || (r.start == axis_.start() && r.end == axis_.end())) return;
  axis_.setRange(r.start, r.end);
  have_range_ = true;
  emit rangeChanged(range());
  update();
}

void TimelineView::publishRange() {
  if (hub_) hub_->setVisibleRange(range());
  emit rangeChanged(range());
}

void TimelineView::userMoved() {
  if (hub_ && hub_->followLive()) hub_->setFollowLive(false);
  have_range_ = true;
  publishRange();
  update();
}

void TimelineView::setRange(TimeSpan r) {
  axis_.setRange(r.start, r.end);
  have_range_ = true;
  publishRange();
  update();
}

void TimelineView::fitAll() {
  axis_.fitAll();
  userMoved();
}

bool TimelineView::zoomToSelection() {
  if (!time_selection_ || time_selection_->end <= time_selection_->start) return false;
  axis_.setRange(time_selection_->start, time_selection_->end);
  userMoved();
  return true;
}

int TimelineView::maxScrollY() const { return std::max(0, contentHeight() - (height() - ruler_h_)); }

void TimelineView::setScrollY(int y) {
  y = std::clamp(y, 0, maxScrollY());
  if (y == scroll_y_) return;
  scroll_y_ = y;
  update();
}

void TimelineView::fitHeader() {
  // The widest kind a lane title has before " · " and the digits that tell threads apart
  // (timeline::fit_lane_title), after the wider of the collapse arrow and the blank a lane of one
  // row has in its place (headerArrow()), with the title's 10 px of padding.
  const QFontMetrics fm = fontMetrics();
  const int arrow = std::max(fm.horizontalAdvance(QStringLiteral("▾ ")), fm.horizontalAdvance(QStringLiteral("  ")));
  const int want = std::max(kHeaderWidth, arrow + fm.horizontalAdvance(QStringLiteral("CUDA API · …0000")) + 10);
  // The ruler's two lines and a row of events: a line of the font each, and 2 px (the event boxes'
  // inset), at the desktop's sizes at the least.
  const int ruler = std::max(kRulerHeight, 2 * fm.height()), row = std::max(kRowHeight, fm.height() + 2);
  if (ruler != ruler_h_ || row != row_h_) {
    ruler_h_ = ruler, row_h_ = row;
    scroll_y_ = std::clamp(scroll_y_, 0, maxScrollY());
    update();
  }
  if (want == header_w_) return;
  header_w_ = want;
  axis_.setWidth(std::max(1, width() - header_w_));
  axis_.clamp();
  update();
  emit headerWidthChanged(header_w_);
}

void TimelineView::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() == QEvent::FontChange) fitHeader();
}

void TimelineView::resizeEvent(QResizeEvent* e) {
  axis_.setWidth(std::max(1, e->size().width() - header_w_));
  axis_.clamp();
  scroll_y_ = std::clamp(scroll_y_, 0, std::max(0, contentHeight() - (height() - ruler_h_)));
  QWidget::resizeEvent(e);
}

void TimelineView::onHighlight() {
  marks_version_ = ~0ull;  // recompute outlines
  const Highlight& h = hub_->highlight();
  if (!h.intervals.isEmpty()) {
    const TimeSpan first = h.intervals.front();
    const std::int64_t len = first.end - first.start;
    if (len * 2 > axis_.span()) axis_.setRange(first.start - len / 4, first.end + len / 4);
    else axis_.setRange(first.start + len / 2 - axis_.span() / 2, first.start + len / 2 + axis_.span() / 2);
    userMoved();
  } else if (!h.kernel_name.isEmpty()) {
    refreshMarks();
    EventRef first;
    std::int64_t best = INT64_MAX;
    for (std::size_t l = 0; l < outlined_.size(); ++l)
      for (std::size_t r = 0; r < outlined_[l].size(); ++r)
        if (!outlined_[l][r].empty()) {
          const EventRef e{static_cast<int>(l), static_cast<int>(r), outlined_[l][r].front()};
          if (data_.event(e).start < best) best = data_.event(e).start, first = e;
        }
    if (first.valid()) centerOn(first);
  }
  update();
}

// --- Lanes ------------------------------------------------------------------------------------

void TimelineView::syncOrder() {
  if (custom_order_.empty()) return;
  for (int l : data_.defaultOrder()) {
    const std::string& key = data_.lanes()[static_cast<std::size_t>(l)].key;
    if (std::find(custom_order_.begin(), custom_order_.end(), key) == custom_order_.end()) custom_order_.push_back(key);
  }
}

std::vector<int> TimelineView::laneOrder() const {
  std::vector<int> order;
  if (custom_order_.empty()) {
    order = data_.defaultOrder();
  } else {
    for (const std::string& key : custom_order_) {
      const int l = data_.laneIndex(key);
      if (l >= 0 && !data_.lanes()[static_cast<std::size_t>(l)].rows.empty()) order.push_back(l);
    }
  }
  std::erase_if(order, [&](int l) { return hidden_.count(data_.lanes()[static_cast<std::size_t>(l)].key) > 0; });
  return order;
}

void TimelineView::setLaneCollapsed(int lane, bool collapsed) {
  if (lane < 0 || lane >= static_cast<int>(data_.lanes().size())) return;
  const std::string& key = data_.lanes()[static_cast<std::size_t>(lane)].key;
  if (collapsed) collapsed_.insert(key);
  else collapsed_.erase(key);
  update();
}

bool TimelineView::isLaneCollapsed(int lane) const {
  return lane >= 0 && lane < static_cast<int>(data_.lanes().size()) &&
         collapsed_.count(data_.lanes()[static_cast<std::size_t>(lane)].key) > 0;
}

void TimelineView::setLaneHidden(int lane, bool hidden) {
  if (lane < 0 || lane >= static_cast<int>(data_.lanes().size())) return;
  const std::string& key = data_.lanes()[static_cast<std::size_t>(lane)].key;
  if (hidden) hidden_.insert(key);
  else hidden_.erase(key);
  update();
}

bool TimelineView::isLaneHidden(int lane) const {
  return lane >= 0 && lane < static_cast<int>(data_.lanes().size()) &&
         hidden_.count(data_.lanes()[static_cast<std::size_t>(lane)].key) > 0;
}

void TimelineView::moveLane(int lane, int delta) {
  if (custom_order_.empty())
    for (int l : data_.defaultOrder()) custom_order_.push_back(data_.lanes()[static_cast<std::size_t>(l)].key);
  if (lane < 0 || lane >= static_cast<int>(data_.lanes().size())) return;
  const std::string key = data_.lanes()[static_cast<std::size_t>(lane)].key;
  auto it = std::find(custom_order_.begin(), custom_order_.end(), key);
  if (it == custom_order_.end()) return;
  // Step over hidden lanes: move past the next shown one.
  auto shown = [&](const std::string& k) { return !hidden_.count(k) && data_.laneIndex(k) >= 0; };
  std::ptrdiff_t pos = it - custom_order_.begin();
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(custom_order_.size());
  for (int step = 0; step < std::abs(delta); ++step) {
    std::ptrdiff_t q = pos + (delta < 0 ? -1 : 1);
    while (q >= 0 && q < n && !shown(custom_order_[static_cast<std::size_t>(q)])) q += delta < 0 ? -1 : 1;
    if (q < 0 || q >= n) break;
    std::swap(custom_order_[static_cast<std::size_t>(pos)], custom_order_[static_cast<std::size_t>(q)]);
    pos = q;
  }
  update();
}

void TimelineView::showAllLanes() {
  hidden_.clear();
  update();
}

bool TimelineView::isEmptyLane(int lane) const {
  if (lane < 0 || lane >= static_cast<int>(data_.lanes().size()) || data_.isOverview()) return false;
  const Lane& l = data_.lanes()[static_cast<std::size_t>(lane)];
  bool any_time = false;
  for (const Row& r : l.rows)
    for (const Event& e : r.events)
      if (e.dur() > 0) any_time = true;
  if (!any_time) return true;
  // A process marker: one row, a few events, together covering most of the session.
  if (l.kind != LaneKind::host_thread || l.has_steps || l.rows.size() != 1 || l.rows[0].events.size() > 3) return false;
  std::int64_t busy = 0;
  for (const Event& e : l.rows[0].events) busy += e.dur();
  const std::int64_t span = data_.maxTime() - data_.minTime();
  return span > 0 && busy * 10 >= span * 9;
}

void TimelineView::hideEmptyLanes() {
  // Once per store, when its events are in (an opened session, a finished run): the user's "Show"
  // in the lane menu is not undone by a later ingest.
  if (empty_lanes_hidden_ || data_.isOverview() || !data_.eventCount()) return;
  empty_lanes_hidden_ = true;
  for (int l : data_.defaultOrder())
    if (isEmptyLane(l)) hidden_.insert(data_.lanes()[static_cast<std::size_t>(l)].key);
}

TimelineView::OffView TimelineView::offView(int lane) const {
  OffView out;
  if (lane < 0 || lane >= static_cast<int>(data_.lanes().size()) || data_.isOverview()) return out;
  const Lane& l = data_.lanes()[static_cast<std::size_t>(lane)];
  const std::int64_t t0 = axis_.start(), t1 = axis_.end();
  std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = std::numeric_limits<std::int64_t>::min();
  for (const Row& r : l.rows) {
    if (r.events.empty()) continue;
    // Events in a row neither overlap nor nest, so their ends are sorted as their starts are.
    const std::size_t i = r.firstEndingAfter(t0);
    if (i < r.events.size() && r.events[i].start < t1) return {};  // something in view
    out.before += i, out.after += r.events.size() - i;
    first = std::min(first, r.events.front().start), last = std::max(last, r.events.back().end());
  }
  if (out.before + out.after == 0) return {};
  out.span = {first, last};
  return out;
}

QString TimelineView::offViewNote(int lane) const {
  const OffView o = offView(lane);
  const std::size_t n = o.before + o.after;
  if (n == 0) return {};
  QString what;
  switch (data_.lanes()[static_cast<std::size_t>(lane)].kind) {
    case LaneKind::stream: what = n == 1 ? tr("kernel") : tr("kernels"); break;
    case LaneKind::runtime: what = n == 1 ? tr("runtime call") : tr("runtime calls"); break;
    case LaneKind::host_thread: what = n == 1 ? tr("range") : tr("ranges"); break;
    case LaneKind::memset: what = n == 1 ? tr("memset") : tr("memsets"); break;
    case LaneKind::sync: what = n == 1 ? tr("sync record") : tr("sync records"); break;
    default: what = n == 1 ? tr("copy") : tr("copies"); break;
  }
  // On the ruler's clock (a job's rank: the job's), as the ruler's "at" label reads.
  const QString when = QStringLiteral("%1 – %2").arg(format_ns(o.span.start + ruler_origin_), format_ns(o.span.end + ruler_origin_));
  const QString where = o.after == 0   ? tr("◂ %1 %2 earlier, %3").arg(n).arg(what, when)
                        : o.before == 0 ? tr("%1 %2 later, %3 ▸").arg(n).arg(what, when)
                                        : tr("◂ %1 %2 around this view, %3 ▸").arg(n).arg(what, when);
  return where + tr(" · double-click: show them");
}

bool TimelineView::showLaneEvents(int lane) {
  const OffView o = offView(lane);
  if (o.before + o.after == 0) return false;
  // A margin of 5 % each side, and a few µs at the least (one short kernel still has room around it).
  const std::int64_t margin = std::max<std::int64_t>((o.span.end - o.span.start) / 20, 5'000);
  axis_.setRange(o.span.start - margin, o.span.end + margin);
  userMoved();
  return true;
}

std::vector<TimelineView::LaneGeom> TimelineView::layout() const {
  std::vector<LaneGeom> out;
  int y = ruler_h_ - scroll_y_;
  for (int l : laneOrder()) {
    const Lane& lane = data_.lanes()[static_cast<std::size_t>(l)];
    const int rows = isLaneCollapsed(l) ? 1 : std::max<int>(1, static_cast<int>(lane.rows.size()));
    const int h = rows * row_h_ + 2 * kLanePad;
    out.push_back({l, y, h, rows});
    y += h;
  }
  return out;
}

int TimelineView::contentHeight() const {
  int h = 0;
  for (const LaneGeom& g : layout()) h += g.height;
  return h;
}

int TimelineView::laneAt(int y) const {
  if (y < ruler_h_) return -1;
  for (const LaneGeom& g : layout())
    if (y >= g.y && y < g.y + g.height) return g.lane;
  return -1;
}

QRect TimelineView::laneRect(int lane) const {
  for (const LaneGeom& g : layout())
    if (g.lane == lane) return QRect(0, g.y, width(), g.height);
  return {};
}

int TimelineView::rowCenterY(int lane, int row) const {
  for (const LaneGeom& g : layout())
    if (g.lane == lane) {
      if (row >= g.rows) row = g.rows - 1;  // collapsed: the outermost row
      return g.y + kLanePad + row * row_h_ + row_h_ / 2;
    }
  return -1;
}

// --- Selection and hit-testing ------------------------------------------------------------------

void TimelineView::selectEvent(const EventRef& e) {
  selected_ = e.valid() ? e : EventRef{};
  if (selected_.valid()) {
    const Event& ev = data_.event(selected_);
    selected_row_ = ev.row, selected_source_ = ev.source;
  }
  emit selectionChanged();
  update();
}

void TimelineView::setTimeSelection(std::optional<TimeSpan> s) {
  if (s && s->end < s->start) std::swap(s->start, s->end);
  time_selection_ = s;
  emit timeSelectionChanged();
  update();
}

EventRef TimelineView::flowPartner() const {
  if (!selected_.valid() || !store_) return {};
  // Painting asks on every frame; the lookup scans the correlation blocks, so keep the answer.
  if (partner_for_ == selected_ && partner_version_ == data_.version()) return partner_;
  partner_for_ = selected_, partner_version_ = data_.version();
  partner_ = findFlowPartner();
  return partner_;
}

EventRef TimelineView::findFlowPartner() const {
  const Event& e = data_.event(selected_);
  std::uint32_t corr = 0;
  switch (e.source) {
    case Source::kernel: corr = store_->kernels[e.row].correlation; break;
    case Source::memcpy: corr = store_->memcpys[e.row].correlation; break;
    case Source::memset: corr = store_->memsets[e.row].correlation; break;
    case Source::runtime: {
      const auto op = data_.gpuOpOf(*store_, store_->runtime[e.row].correlation);
      return op ? data_.find(*store_, op->first, op->second) : EventRef{};
    }
    default: return {};
  }
  const auto rt = data_.runtimeOf(*store_, corr);
  return rt ? data_.find(*store_, Source::runtime, *rt) : EventRef{};
}

EventRef TimelineView::eventAt(QPoint p) const {
  if (p.x() < header_w_ || p.y() < ruler_h_ || data_.isOverview()) return {};
  for (const LaneGeom& g : layout()) {
    if (p.y() < g.y || p.y() >= g.y + g.height) continue;
    const int row = std::clamp((p.y() - g.y - kLanePad) / row_h_, 0, g.rows - 1);
    const Lane& lane = data_.lanes()[static_cast<std::size_t>(g.lane)];
    if (row >= static_cast<int>(lane.rows.size())) return {};
    const Row& r = lane.rows[static_cast<std::size_t>(row)];
    const double x = p.x() - header_w_;
    const std::int64_t t = axis_.t(x);
    const auto tol = static_cast<std::int64_t>(2 * axis_.nsPerPx());  // 2 px either side
    EventRef best;
    std::int64_t best_dist = INT64_MAX;
    for (std::size_t i = r.firstEndingAfter(t - tol); i < r.events.size() && r.events[i].start <= t + tol; ++i) {
      const Event& e = r.events[i];
      const std::int64_t d = t < e.start ? e.start - t : t >= e.end() ? t - e.end() : 0;
      if (d < best_dist) best_dist = d, best = {g.lane, row, i};
      if (d == 0) break;
    }
    return best;
  }
  return {};
}

void TimelineView::centerOn(const EventRef& e) {
  if (!e.valid()) return;
  const Event& ev = data_.event(e);
  const std::int64_t span = std::max<std::int64_t>(axis_.span(), 1);
  const std::int64_t mid = ev.start + ev.dur() / 2;
  axis_.setRange(mid - span / 2, mid - span / 2 + span);
  // Vertically: bring the lane into view.
  const QRect lr = laneRect(e.lane);
  if (lr.isEmpty() || lr.top() < ruler_h_ || lr.bottom() > height()) {
    int y = 0;
    for (int l : laneOrder()) {
      if (l == e.lane) break;
      y += (isLaneCollapsed(l) ? 1 : std::max<int>(1, static_cast<int>(data_.lanes()[static_cast<std::size_t>(l)].rows.size()))) *
               row_h_ + 2 * kLanePad;
    }
    scroll_y_ = std::clamp(y, 0, std::max(0, contentHeight() - (height() - ruler_h_)));
  }
  userMoved();
}

// --- Search -----------------------------------------------------------------------------------

void TimelineView::setSearch(const QString& text) {
  if (text == search_) return;
  search_ = text;
  name_match_.clear();
  marks_version_ = ~0ull;
  emit searchChanged();
  update();
}

namespace {
std::string to_lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}
/// The search name of a copy ("Memcpy HtoD"), by CUpti_ActivityMemcpyKind.
const char* copy_search_name(std::uint8_t kind) {
  switch (kind) {
    case 1: return "Memcpy HtoD";
    case 2: return "Memcpy DtoH";
    case 8: return "Memcpy DtoD";
    default: return "Memcpy";
  }
}
}  // namespace

QString TimelineView::searchName(const Event& e) const {
  if (!store_ || data_.isOverview()) return {};
  const prof::EventStore& s = *store_;
  switch (e.source) {
    case Source::kernel: return QString::fromStdString(demangle(s.strings.get(s.kernels[e.row].name)));
    case Source::runtime: return QString::fromStdString(s.strings.get(s.runtime[e.row].name));
    case Source::memcpy: return QString::fromLatin1(copy_search_name(s.memcpys[e.row].copy_kind));
    case Source::memset: return QStringLiteral("Memset");
    case Source::sync: return QStringLiteral("Synchronization");
    case Source::graph_replay: return QStringLiteral("CUDA graph replay");
    case Source::host_range: {
      const auto& h = s.host_ranges[e.row];
      const QString name = QString::fromStdString(s.strings.get(h.name));
      return h.layer ? name + " " + QString::fromStdString(s.strings.get(h.layer)) : name;
    }
  }
  return {};
}

bool TimelineView::searchHit(const Event& e, const std::string& needle) {
  const prof::EventStore& s = *store_;
  auto by_id = [&](prof::StringId id) {
    if (id >= name_match_.size()) name_match_.resize(std::max<std::size_t>(id + 1, s.strings.size()), -1);
    if (name_match_[id] < 0) name_match_[id] = to_lower(demangle(s.strings.get(id))).find(needle) != std::string::npos;
    return name_match_[id] == 1;
  };
  switch (e.source) {
    case Source::kernel: return by_id(s.kernels[e.row].name);
    case Source::runtime: return by_id(s.runtime[e.row].name);
    case Source::host_range: {
      const auto& h = s.host_ranges[e.row];
      return by_id(h.name) || (h.layer && by_id(h.layer));
    }
    case Source::memcpy: return to_lower(copy_search_name(s.memcpys[e.row].copy_kind)).find(needle) != std::string::npos;
    case Source::memset: return std::string("memset").find(needle) != std::string::npos;
    case Source::sync: return std::string("synchronization").find(needle) != std::string::npos;
    case Source::graph_replay: return std::string("cuda graph replay").find(needle) != std::string::npos;
  }
  return false;
}

void TimelineView::refreshMarks() {
  const QString hl = hub_ ? hub_->highlight().kernel_name : QString();
  if (marks_version_ == data_.version() && marks_search_ == search_ && marks_highlight_ == hl) return;
  if (marks_highlight_ != hl) name_highlight_.clear();
  if (marks_search_ != search_) name_match_.clear();
  marks_version_ = data_.version(), marks_search_ = search_, marks_highlight_ = hl;
  const auto& lanes = data_.lanes();
  marks_.assign(lanes.size(), {});
  outlined_.assign(lanes.size(), {});
  if (!store_ || data_.isOverview() || (search_.isEmpty() && hl.isEmpty())) return;
  const std::string needle = search_.toLower().toStdString(), exact = hl.toStdString();
  auto outline = [&](prof::StringId id) {  // the hub's highlighted kernel, by its exact name
    if (id >= name_highlight_.size()) name_highlight_.resize(std::max<std::size_t>(id + 1, store_->strings.size()), -1);
    if (name_highlight_[id] < 0) {
      const std::string& raw = store_->strings.get(id);
      name_highlight_[id] = !exact.empty() && (demangle(raw) == exact || raw == exact);
    }
    return name_highlight_[id] == 1;
  };
  for (std::size_t l = 0; l < lanes.size(); ++l) {
    marks_[l].resize(lanes[l].rows.size());
    outlined_[l].resize(lanes[l].rows.size());
    for (std::size_t r = 0; r < lanes[l].rows.size(); ++r) {
      const auto& ev = lanes[l].rows[r].events;
      for (std::size_t i = 0; i < ev.size(); ++i) {
        if (!needle.empty() && searchHit(ev[i], needle)) marks_[l][r].push_back(static_cast<std::uint32_t>(i));
        if (!hl.isEmpty() && ev[i].source == Source::kernel && outline(store_->kernels[ev[i].row].name))
          outlined_[l][r].push_back(static_cast<std::uint32_t>(i));
      }
    }
  }
}

int TimelineView::matchCount() {
  refreshMarks();
  std::size_t n = 0;
  for (const auto& lane : marks_)
    for (const auto& row : lane) n += row.size();
  return static_cast<int>(n);
}

int TimelineView::outlinedCount() {
  refreshMarks();
  std::size_t n = 0;
  for (const auto& lane : outlined_)
    for (const auto& row : lane) n += row.size();
  return static_cast<int>(n);
}

bool TimelineView::isMatch(const EventRef& e) {
  refreshMarks();
  if (!e.valid() || e.lane >= static_cast<int>(marks_.size()) || e.row >= static_cast<int>(marks_[e.lane].size()))
    return false;
  const auto& m = marks_[e.lane][e.row];
  return std::binary_search(m.begin(), m.end(), static_cast<std::uint32_t>(e.index));
}

bool TimelineView::stepMatch(int direction) {
  refreshMarks();
  const std::int64_t ref = selected_.valid() ? data_.event(selected_).start
                                             : (direction > 0 ? axis_.start() - 1 : axis_.end());
  EventRef best;
  std::int64_t best_t = direction > 0 ? INT64_MAX : INT64_MIN;
  for (std::size_t l = 0; l < marks_.size(); ++l) {
    if (isLaneHidden(static_cast<int>(l))) continue;
    for (std::size_t r = 0; r < marks_[l].size(); ++r) {
      const auto& m = marks_[l][r];
      const auto& ev = data_.lanes()[l].rows[r].events;
      // First mark starting after ref (or last before it).
      auto it = std::partition_point(m.begin(), m.end(), [&](std::uint32_t i) { return ev[i].start <= ref; });
      if (direction > 0 && it != m.end() && ev[*it].start < best_t)
        best_t = ev[*it].start, best = {static_cast<int>(l), static_cast<int>(r), *it};
      if (direction < 0) {
        auto jt = std::partition_point(m.begin(), m.end(), [&](std::uint32_t i) { return ev[i].start < ref; });
        if (jt != m.begin() && ev[*std::prev(jt)].start > best_t)
          best_t = ev[*std::prev(jt)].start, best = {static_cast<int>(l), static_cast<int>(r), *std::prev(jt)};
      }
    }
  }
  if (!best.valid()) return false;
  selectEvent(best);
  centerOn(best);
  return true;
}

bool TimelineView::nextMatch() { return stepMatch(+1); }
bool TimelineView::prevMatch() { return stepMatch(-1); }

}  // namespace ts::gui
