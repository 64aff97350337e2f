// Event details, tooltips, range breakdown rows, the details pane and the legend.
#include "widgets/timeline/timeline_details.h"

#include <QPainter>
#include <cmath>

#include "engine/host_trace.h"
#include "profiling/analysis/range.h"
#include "profiling/block_threads.h"
#include "profiling/cupti/graph_nodes.h"
#include "widgets/timeline/categories.h"
#include "widgets/timeline/timeline_view.h"

namespace ts::gui {

using namespace timeline;

QString format_ns(std::int64_t ns) {
  const double a = std::abs(static_cast<double>(ns));
  if (a >= 1e9) return QString::number(ns / 1e9, 'f', a >= 1e10 ? 2 : 3) + " s";
  if (a >= 1e6) return QString::number(ns / 1e6, 'f', a >= 1e8 ? 1 : a >= 1e7 ? 2 : 3) + " ms";
  if (a >= 1e3) return QString::number(ns / 1e3, 'f', a >= 1e5 ? 1 : a >= 1e4 ? 2 : 3) + " µs";
  return QString::number(ns) + " ns";
}

QString format_time(std::int64_t ns) {
  const double a = std::abs(static_cast<double>(ns));
  if (a >= 1e9) {
    // To the µs, without the zeros a round time would carry ("12.000000 s" on the ruler's "at"
    // line): down to ms, as the ms positions below print.
    QString s = QString::number(ns / 1e9, 'f', 6);
    while (s.endsWith('0') && s.size() - s.indexOf('.') > 4) s.chop(1);
    return s + " s";
  }
  if (a >= 1e6) return QString::number(ns / 1e6, 'f', 3) + " ms";
  if (a >= 1e3) return QString::number(ns / 1e3, 'f', 3) + " µs";
  return QString::number(ns) + " ns";
}

namespace {

using Rows = std::vector<std::pair<QString, QString>>;

QString str(const prof::EventStore& s, prof::StringId id) { return QString::fromStdString(s.strings.get(id)); }

QString copy_kind_name(std::uint8_t k) {
  switch (k) {
    case 1: return "H2D";
    case 2: return "D2H";
    case 8: return "D2D";
    default: return QString("kind %1").arg(k);
  }
}

QString memory_kind_name(std::uint8_t k) {
  switch (k) {
    case 1: return "pageable";
    case 2: return "pinned";
    case 3: return "device";
    case 4: return "array";
    case 5: return "managed";
    default: return QString("kind %1").arg(k);
  }
}

/// Layer (innermost host range with a layer, else the innermost range) of a host time on the thread
/// of runtime thread `tid` (the trainer for older sessions).
void add_layer(const prof::EventStore& s, const TimelineData& d, std::uint32_t tid, std::int64_t t, Rows& rows) {
  const int lane = d.hostLaneForRuntimeThread(tid);
  QString layer, range;
  for (const EventRef& r : d.eventsAt(lane, t)) {
    const Event& e = d.event(r);
    if (e.source != Source::host_range) continue;
    const auto& h = s.host_ranges[e.row];
    if (range.isEmpty()) range = str(s, h.name);
    if (layer.isEmpty() && h.layer != prof::kNoString) layer = str(s, h.layer) + " · " + str(s, h.name);
  }
  rows.emplace_back("Layer", layer.isEmpty() ? (range.isEmpty() ? QString("—") : range) : layer);
}

/// The step holding host time `t`.
void add_step(const TimelineData& d, std::int64_t t, Rows& rows) {
  const int step = d.stepAt(t);
  if (step >= 0) {
    const StepBand& b = d.steps()[static_cast<std::size_t>(step)];
    rows.emplace_back("Step", QString("%1 (epoch %2, step %3)").arg(b.global_step).arg(b.epoch).arg(b.step));
  } else {
    rows.emplace_back("Step", "— (outside the training steps)");
  }
}

/// Layer and step of a host time on the thread of runtime thread `tid`.
void add_context(const prof::EventStore& s, const TimelineData& d, std::uint32_t tid, std::int64_t t, Rows& rows) {
  add_layer(s, d, tid, t, rows);
  add_step(d, t, rows);
}

/// The launching runtime call of a GPU op and its layer/step. A GPU op replayed from a CUDA graph
/// (`graph_node` != 0) was launched by a cudaGraphLaunch; when the session maps its node to the launch
/// that was captured (graph_nodes), that launch is shown too, and the layer is the one it was captured
/// in (the step stays the replay's).
void add_launch(const prof::EventStore& s, const TimelineData& d, std::uint32_t corr, std::uint64_t graph_node,
                Rows& rows) {
  rows.emplace_back("Correlation id", QString::number(corr));
  const auto rt = d.runtimeOf(s, corr);
  if (!rt) {
    rows.emplace_back("Launched by", "— (no runtime call with this correlation id)");
    return;
  }
  const auto& r = s.runtime[*rt];
  rows.emplace_back("Launched by", QString("%1 at %2 (%3)").arg(str(s, r.name), format_time(r.start), format_ns(r.end - r.start)));
  const std::uint32_t captured = prof::graph_node_correlation(s, graph_node);
  const auto capture = captured ? d.runtimeOf(s, captured) : std::nullopt;
  if (captured) {
    rows.emplace_back("Captured by", capture ? QString("%1 at %2 (correlation id %3)")
                                                   .arg(str(s, s.runtime[*capture].name), format_time(s.runtime[*capture].start))
                                                   .arg(captured)
                                             : QString("correlation id %1 (a driver-API launch: no runtime call)").arg(captured));
  }
  if (capture) add_layer(s, d, s.runtime[*capture].thread, s.runtime[*capture].start, rows);
  else add_layer(s, d, r.thread, r.start, rows);
  add_step(d, r.start, rows);
}

void kernel_rows(const prof::EventStore& s, const TimelineData& d, const prof::analysis::DeviceProps& props,
                 const prof::KernelRecord& k, Rows& rows) {
  const prof::KernelConfig& kc = s.config(k);
  const std::string demangled = demangle(s.strings.get(k.name));
  const QString full = QString::fromStdString(demangled), name = timeline::short_kernel_name(demangled);
  rows.emplace_back("Name", name);
  rows.emplace_back("Category", category_label(kernel_category(demangled)));
  rows.emplace_back("Duration", format_ns(k.end - k.start));
  rows.emplace_back("Start", format_time(k.start));
  rows.emplace_back("Grid", QString("(%1, %2, %3)").arg(kc.grid[0]).arg(kc.grid[1]).arg(kc.grid[2]));
  rows.emplace_back("Block", QString("(%1, %2, %3)").arg(kc.block[0]).arg(kc.block[1]).arg(kc.block[2]));
  rows.emplace_back("Registers / thread", QString::number(kc.registers));
  rows.emplace_back("Shared memory", QString("%1 B static + %2 B dynamic").arg(kc.static_smem).arg(kc.dynamic_smem));
  const int threads = prof::block_threads(kc);
  int blocks = 0;
  const auto occ = prof::analysis::theoretical_occupancy(props, threads, kc.registers, kc.static_smem, kc.dynamic_smem, &blocks);
  rows.emplace_back("Theoretical occupancy",
                    occ ? QString("%1 % (%2 blocks/SM, %3)").arg(*occ * 100, 0, 'f', 1).arg(blocks).arg(QString::fromStdString(props.source))
                        : QString("unknown (no device properties)"));
  rows.emplace_back("Stream", QString("%1 (device %2)").arg(k.stream).arg(k.device));
  if (k.graph_id) rows.emplace_back("CUDA graph", QString("%1, node %2").arg(k.graph_id).arg(k.graph_node));
  add_launch(s, d, k.correlation, k.graph_node, rows);
  if (name != full) rows.emplace_back("Full name", full);  // last: a template name can fill the pane
}

}  // namespace

Rows event_details(const prof::EventStore& s, const TimelineData& d, const prof::analysis::DeviceProps& props,
                   const EventRef& ref) {
  Rows rows;
  if (!ref.valid()) return rows;
  const Event& e = d.event(ref);
  switch (e.source) {
    case Source::kernel: kernel_rows(s, d, props, s.kernels[e.row], rows); break;
    case Source::memcpy: {
      const auto& m = s.memcpys[e.row];
      const double dur = static_cast<double>(std::max<std::int64_t>(m.end - m.start, 1));
      rows.emplace_back("Name", "Copy " + copy_kind_name(m.copy_kind));
      rows.emplace_back("Duration", format_ns(m.end - m.start));
      rows.emplace_back("Start", format_time(m.start));
      rows.emplace_back("Bytes", QString("%1 (%2 GB/s)").arg(m.bytes).arg(static_cast<double>(m.bytes) / dur, 0, 'f', 2));
      rows.emplace_back("Memory", memory_kind_name(m.src_kind) + " → " + memory_kind_name(m.dst_kind));
      rows.emplace_back("Stream", QString("%1 (device %2)").arg(m.stream).arg(m.device));
      add_launch(s, d, m.correlation, m.graph_node, rows);
      break;
    }
    case Source::memset: {
      const auto& m = s.memsets[e.row];
      rows.emplace_back("Name", "Memset");
      rows.emplace_back("Duration", format_ns(m.end - m.start));
      rows.emplace_back("Start", format_time(m.start));
      rows.emplace_back("Bytes", QString("%1 (value %2)").arg(m.bytes).arg(m.value));
      rows.emplace_back("Stream", QString("%1 (device %2)").arg(m.stream).arg(m.device));
      add_launch(s, d, m.correlation, m.graph_node, rows);
      break;
    }
    case Source::runtime: {
      const auto& r = s.runtime[e.row];
      rows.emplace_back("Name", str(s, r.name));
      rows.emplace_back("Duration", format_ns(r.end - r.start));
      rows.emplace_back("Start", format_time(r.start));
      rows.emplace_back("Thread", QString::number(r.thread));
      rows.emplace_back("Correlation id", QString::number(r.correlation));
      rows.emplace_back("Result", r.result == 0 ? QString("cudaSuccess") : QString("error %1").arg(r.result));
      if (const auto op = d.gpuOpOf(s, r.correlation); op && op->first == Source::kernel)
        rows.emplace_back("Launched", QString::fromStdString(demangle(s.strings.get(s.kernels[op->second].name))));
      add_context(s, d, r.thread, r.start, rows);
      break;
    }
    case Source::host_range: {
      const auto& h = s.host_ranges[e.row];
      rows.emplace_back("Range", str(s, h.name));
      rows.emplace_back("Kind", trace::range_kind_name(static_cast<trace::RangeKind>(
                                    std::min<std::uint8_t>(h.kind, static_cast<std::uint8_t>(trace::RangeKind::other)))));
      if (h.layer != prof::kNoString) rows.emplace_back("Layer", str(s, h.layer));
      rows.emplace_back("Duration", format_ns(h.end - h.start));
      rows.emplace_back("Start", format_time(h.start));
      rows.emplace_back("Thread", QString("%1 (tid %2)").arg(d.laneTitle(ref.lane)).arg(h.thread));
      if (h.step >= 0) rows.emplace_back("Step", QString::number(h.step));
      break;
    }
    case Source::graph_replay: {
      const auto& g = s.graph_replays[e.row];
      rows.emplace_back("Name", "CUDA graph replay");
      rows.emplace_back("Duration", format_ns(g.end - g.start));
      rows.emplace_back("Start", format_time(g.start));
      rows.emplace_back("Kernels", "traced only in the profile schedule's windows: this step's GPU work was "
                                   "recorded as one replay of its CUDA graph");
      rows.emplace_back("CUDA graph", QString::number(g.graph_id));
      rows.emplace_back("Stream", QString("%1 (device %2)").arg(g.stream).arg(g.device));
      rows.emplace_back("Correlation id", QString::number(g.correlation));
      break;
    }
    case Source::sync: {
      const auto& y = s.syncs[e.row];
      static const char* const types[] = {"unknown", "event synchronize", "stream wait event", "stream synchronize",
                                          "context synchronize"};
      rows.emplace_back("Name", QString("Synchronization: %1").arg(types[y.type < 5 ? y.type : 0]));
      rows.emplace_back("Duration", format_ns(y.end - y.start));
      rows.emplace_back("Start", format_time(y.start));
      rows.emplace_back("Stream", QString("%1 (device %2)").arg(y.stream).arg(y.device));
      rows.emplace_back("Correlation id", QString::number(y.correlation));
      break;
    }
  }
  return rows;
}

QString event_tooltip(const prof::EventStore& s, const TimelineData& d, const prof::analysis::DeviceProps& props,
                      const EventRef& ref) {
  static const QStringList keep = {"Name", "Range", "Kind", "Layer", "Duration", "Grid", "Block", "Theoretical occupancy",
                                   "Bytes", "Step", "Launched by", "Kernels"};
  QString out;
  for (const auto& [k, v] : event_details(s, d, props, ref)) {
    if (!keep.contains(k)) continue;
    QString value = v.size() > 160 ? v.left(157) + "…" : v;
    out += (out.isEmpty() ? "" : "\n") + (k == "Name" || k == "Range" ? value : k + ": " + value);
  }
  return out;
}

Rows range_details(const prof::analysis::Breakdown& b, TimeSpan range) {
  Rows rows;
  const std::int64_t len = range.end - range.start;
  rows.emplace_back("Range", QString("%1 – %2 (%3)").arg(format_time(range.start), format_time(range.end), format_ns(len)));
  for (int c = 0; c < prof::analysis::kCategoryCount; ++c) {
    const auto cat = static_cast<prof::analysis::Category>(c);
    const double pct = len > 0 ? 100.0 * static_cast<double>(b[cat]) / static_cast<double>(len) : 0;
    rows.emplace_back(prof::analysis::category_name(cat), QString("%1 (%2 %)").arg(format_ns(b[cat])).arg(pct, 0, 'f', 1));
  }
  rows.emplace_back("total", format_ns(b.total()));
  return rows;
}

DetailsPane::DetailsPane(TimelineView* view, QWidget* parent) : QTextBrowser(parent), view_(view) {
  setOpenLinks(false);
  setMinimumWidth(260);
  connect(view_, &TimelineView::selectionChanged, this, &DetailsPane::refresh);
  connect(view_, &TimelineView::timeSelectionChanged, this, &DetailsPane::refresh);
  refresh();
}

void DetailsPane::refresh() {
  rows_.clear();
  const auto store = view_->hub() ? view_->hub()->store() : nullptr;
  QString title;
  if (store && view_->selectedEvent().valid()) {
    rows_ = event_details(*store, view_->data(), view_->deviceProps(), view_->selectedEvent());
    title = tr("Selected event");
  } else if (store && view_->timeSelection()) {
    const TimeSpan r = *view_->timeSelection();
    rows_ = range_details(prof::analysis::range_breakdown(*store, view_->data().seen(), r.start, r.end), r);
    title = tr("Selected range: time by priority (each instant counted once, docs/metrics.md)");
  }
  if (rows_.empty()) {
    setHtml(tr("<p style='color:#555'>Click an event for its details, or drag on the time ruler (Shift+drag on the "
               "lanes) to select a range and see its breakdown.</p><p style='color:#555'>Keys: W/S zoom, A/D pan, "
               "Z zoom to selection, F fit all, Esc clear.</p>"));
    return;
  }
  QString html = "<b>" + title.toHtmlEscaped() + "</b><table cellspacing='0' cellpadding='2'>";
  for (const auto& [k, v] : rows_)
    html += "<tr><td valign='top' style='color:#444'>" + k.toHtmlEscaped() + "</td><td>" + v.toHtmlEscaped() + "</td></tr>";
  setHtml(html + "</table>");
}

namespace {
constexpr int kSwatch = 10, kSwatchGap = 4, kEntryGap = 12, kLineGap = 2;
}  // namespace

TimelineLegend::TimelineLegend(QWidget* parent) : QWidget(parent) {
  for (int c = 0; c < kCategoryCount; ++c) {
    const auto cat = static_cast<Category>(c);
    entries_.emplace_back(category_color(cat), category_label(cat));
  }
  QSizePolicy p(QSizePolicy::Preferred, QSizePolicy::Preferred);
  p.setHeightForWidth(true);
  setSizePolicy(p);
  setToolTip(tr("Colours: Paul Tol's muted scheme (kernels) and Okabe–Ito (copies, waits, host ranges); "
                "both colour-blind safe. Faded blocks: events narrower than a pixel, merged (shade = busy share)."));
}

std::vector<QRect> TimelineLegend::entryRects(int w) const {
  const QFontMetrics fm = fontMetrics();  // the widget's device: what the paint uses
  const int h = fm.height();
  std::vector<QRect> out;
  int x = 0, y = 0;
  for (const auto& [color, label] : entries_) {
    const int ew = kSwatch + kSwatchGap + fm.horizontalAdvance(label) + 2;
    if (x > 0 && x + ew > w) x = 0, y += h + kLineGap;  // wrap before an entry that does not fit
    out.emplace_back(x, y, std::min(ew, std::max(w, 1)), h);
    x += ew + kEntryGap;
  }
  return out;
}

int TimelineLegend::heightForWidth(int w) const {
  const auto r = entryRects(w);
  return r.empty() ? 0 : r.back().bottom() + 1 + 2;
}

QSize TimelineLegend::sizeHint() const { return {400, heightForWidth(400)}; }

QSize TimelineLegend::minimumSizeHint() const {
  const QFontMetrics fm = fontMetrics();
  int widest = 0;
  for (const auto& e : entries_) widest = std::max(widest, kSwatch + kSwatchGap + fm.horizontalAdvance(e.second));
  return {std::min(widest, 160), fm.height()};
}

void TimelineLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const auto rects = entryRects(width());
  const QFontMetrics fm = p.fontMetrics();
  for (std::size_t i = 0; i < rects.size(); ++i) {
    const QRect& r = rects[i];
    const int sy = r.top() + (r.height() - kSwatch) / 2;
    p.fillRect(QRect(r.left(), sy, kSwatch, kSwatch), entries_[i].first);
    p.setPen(palette().color(QPalette::WindowText));
    const QRect text(r.left() + kSwatch + kSwatchGap, r.top(), r.width() - kSwatch - kSwatchGap, r.height());
    p.drawText(text, Qt::AlignVCenter | Qt::AlignLeft, fm.elidedText(entries_[i].second, Qt::ElideRight, text.width()));
  }
}

}  // namespace ts::gui
