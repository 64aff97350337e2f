// UtilizationPanel's measured rows: the session's CUPTI PM sampling series (metric_series /
// metric_samples, docs/metrics.md "Measured metrics") under the GPU row, on the same linked time
// axis. Every legend says "measured" so that a user tells them from the estimates ("est. SM
// efficiency") at a glance; where the session has none, the status line says why (meta pm_sampling),
// and where it has them, how many samples were lost.
#include <QLabel>
#include <QLocale>
#include <cmath>
#include <qcustomplot.h>

#include "profiling/analysis/series_buckets.h"
#include "widgets/panels/panel_plot.h"
#include "widgets/panels/utilization_panel.h"

namespace ts::gui {

namespace {

using prof::analysis::SeriesPoint;

/// The measured series drawn: graph key (the series' name, or pm.dram for read + write), legend
/// label after the metric, row (0 %, 1 bytes/s), colour index, pen.
struct MeasuredSeries {
  const char* key;
  const char* label;
  int row;
  int color;
  Qt::PenStyle style;
};
const MeasuredSeries kMeasured[] = {
    {"pm.sm_active", "SM active", 0, 8, Qt::SolidLine},
    {"pm.tensor_active", "tensor active", 0, 3, Qt::SolidLine},
    {"pm.warp_occupancy", "warp occupancy", 0, 2, Qt::SolidLine},
    {"pm.dram_peak", "DRAM % of peak", 0, 5, Qt::DashLine},
    {"pm.dram", "DRAM read + write /s", 1, 5, Qt::SolidLine},
    {"pm.pcie_rx", "PCIe rx: host to GPU /s", 1, 3, Qt::DashLine},
    {"pm.pcie_tx", "PCIe tx: GPU to host /s", 1, 8, Qt::DotLine},
    {"pm.copy_ceiling", "copy ceiling", 1, 7, Qt::DashDotLine},
};

void set_points(QCPGraph* g, const std::vector<SeriesPoint>& pts) {
  QVector<double> k, v;
  k.reserve(static_cast<int>(pts.size())), v.reserve(static_cast<int>(pts.size()));
  for (const auto& p : pts) k.push_back(ns_to_s(p.t)), v.push_back(p.v);
  g->setData(k, v, true);
}

/// Bucket means as a step line, as the GPU row draws its buckets: a point at each bucket start and
/// one closing the last bucket. A bucket without samples (zoomed in below the sampling interval)
/// gets no point: the step line holds the value before it, as the samples themselves would.
void set_bucket_means(QCPGraph* g, const UtilizationPanel::MeasuredBuckets& b) {
  QVector<double> k, v;
  const auto n = static_cast<std::int64_t>(b.buckets.size());
  std::int64_t last = -1;
  for (std::int64_t i = 0; i < n; ++i)
    if (const auto& x = b.buckets[static_cast<std::size_t>(i)]; x.count > 0)
      k.push_back(ns_to_s(b.from + i * b.bucket_ns)), v.push_back(x.mean), last = i;
  if (last >= 0) k.push_back(ns_to_s(b.from + (last + 1) * b.bucket_ns)), v.push_back(v.back());
  g->setData(k, v, true);
}

std::int64_t meta_int(const std::map<std::string, std::string>& meta, const std::string& key, std::int64_t otherwise) {
  auto it = meta.find(key);
  return it == meta.end() || it->second.empty() ? otherwise : std::strtoll(it->second.c_str(), nullptr, 10);
}

/// "1 kHz", "500 Hz" from a sampling interval in ns.
QString rate_text(std::int64_t interval_ns) {
  const double hz = interval_ns > 0 ? 1e9 / static_cast<double>(interval_ns) : 0;
  return hz >= 1000 ? QObject::tr("%1 kHz").arg(hz / 1000, 0, 'g', 3) : QObject::tr("%1 Hz").arg(hz, 0, 'g', 3);
}

/// Why a session has no measured metrics, from its meta (docs/session-format.md, pm_sampling).
QString absent_reason(const std::map<std::string, std::string>& meta, bool live) {
  auto it = meta.find("pm_sampling");
  if (it == meta.end())
    return live ? QObject::tr("none yet") : QObject::tr("not recorded in this session (recorded before TrainScope sampled them, or imported)");
  QString why = QString::fromStdString(it->second);
  const QString prefix = QStringLiteral("no measured metrics: ");
  if (why.startsWith(prefix)) why = why.mid(prefix.size());
  return QObject::tr("none: %1").arg(why);
}

}  // namespace

void UtilizationPanel::add_measured_graphs() {
  for (const auto& m : kMeasured) {
    QCPAxisRect* r = m.row == 0 ? meas_ : meas_bw_;
    QCPLegend* l = m.row == 0 ? meas_legend_ : meas_bw_legend_;
    addGraph(r, l, m.key, QString(), palette_color(m.color), m.style);
  }
}

bool UtilizationPanel::measuredRowsShown() const { return meas_->visible() && meas_bw_->visible(); }
int UtilizationPanel::measuredRowsShownCount() const { return (meas_->visible() ? 1 : 0) + (meas_bw_->visible() ? 1 : 0); }

void UtilizationPanel::fill_measured() {
  const auto store = hub_->store();
  if (store) metrics_.update(*store, hub_->counts().metric_series, hub_->counts().metric_samples);
  // Only what arrived since the last refresh is taken in (prefix sums, block maxima, the DRAM sum).
  for (const auto& m : kMeasured)
    if (const auto* s = metrics_.find(m.key)) measured_index_[m.key].extend(s->points);
  const auto *rd = metrics_.find("pm.dram_read"), *wr = metrics_.find("pm.dram_write");
  if (rd || wr) {
    dram_sum_.extend({rd ? &rd->points : nullptr, wr ? &wr->points : nullptr});
    measured_index_["pm.dram"].extend(dram_sum_.points());
  }
  drawMeasured();
  const auto meta = store ? store->meta() : std::map<std::string, std::string>{};
  // Metrics the sampler left out (pm_sampling.absent.<metric>): named in the status line's tooltip.
  QStringList absent;
  for (const auto& [k, v] : meta)
    if (k.rfind("pm_sampling.absent.", 0) == 0)
      absent << tr("%1 absent: %2").arg(QString::fromStdString(k.substr(19)), QString::fromStdString(v));
  if (!measured_message_.isEmpty()) absent.prepend(measured_message_);
  status_tip_ = absent.join('\n');
}

/// The measured series' points behind graph `key` (nullptr: absent).
const std::vector<SeriesPoint>* UtilizationPanel::measured_points(const std::string& key) const {
  if (key == "pm.dram") return metrics_.find("pm.dram_read") || metrics_.find("pm.dram_write") ? &dram_sum_.points() : nullptr;
  const auto* s = metrics_.find(key);
  return s ? &s->points : nullptr;
}

void UtilizationPanel::drawMeasured() {
  const auto store = hub_->store();
  const auto meta = store ? store->meta() : std::map<std::string, std::string>{};
  std::int64_t interval = meta_int(meta, "pm_sampling.interval_ns", 0);
  std::int64_t first = INT64_MAX, last = INT64_MIN;
  for (const auto* s : metrics_.with_prefix("pm."))
    if (!s->points.empty()) {
      first = std::min(first, s->points.front().t), last = std::max(last, s->points.back().t);
      if (interval <= 0 && s->points.size() > 1) interval = s->points[1].t - s->points[0].t;
    }
  if (interval <= 0) interval = 1'000'000;
  const bool any = first <= last;
  // The buckets: the GPU row's length on round times over the shown range (the samples' span when
  // none is set), so both rows change at the same x.
  std::int64_t from = first, to = last + interval, bucket = 0;
  const TimeSpan vis = hub_->visibleRange();
  // One sampling interval beyond each edge: the samples just outside hold the line up to the edges.
  if (vis.end > vis.start)
    from = std::max<std::int64_t>(from, vis.start - interval), to = std::min<std::int64_t>(to, vis.end + interval);
  if (any && to > from) {
    bucket = buckets_.bucket_ns > 0 ? buckets_.bucket_ns : prof::analysis::nice_bucket_ns(to - from, target_buckets_);
    if ((to - from) / bucket > 4 * target_buckets_) bucket = prof::analysis::nice_bucket_ns(to - from, target_buckets_);
    from = from / bucket * bucket;
  }
  const std::size_t n = bucket > 0 ? static_cast<std::size_t>((to - from + bucket - 1) / bucket) : 0;
  // Samples lost, said in the first measured legend: beside the tracks they thin out.
  const std::int64_t n_lost = meta_int(meta, "pm_sampling.samples_lost", -1);
  const QString lost = n_lost >= 0 ? tr("samples lost %1").arg(n_lost) : tr("samples lost unknown");
  double bw_max = 0;
  measured_buckets_.clear();
  for (const auto& m : kMeasured) {
    const std::string key = m.key;
    QCPGraph* g = graphs_[m.key];
    if (key == "pm.copy_ceiling") {  // the measured ceiling the finding memory_bound_kernels uses
      const double c = static_cast<double>(meta_int(meta, "pm_sampling.copy_ceiling_bytes_per_s", 0));
      std::vector<SeriesPoint> pts;
      if (any && c > 0 && metrics_.find("pm.dram_read")) pts = {{first, c}, {last + interval, c}}, bw_max = std::max(bw_max, c);
      set_points(g, pts);
    } else {
      MeasuredBuckets b{from, bucket, {}};
      const auto* pts = measured_points(key);
      auto idx = measured_index_.find(key);
      if (pts && idx != measured_index_.end() && n > 0) b.buckets = idx->second.buckets(*pts, from, bucket, n);
      if (m.row == 1)
        for (const auto& x : b.buckets)
          if (x.count > 0) bw_max = std::max(bw_max, x.max);
      set_bucket_means(g, b);
      if (pts) measured_buckets_[QString::fromLatin1(m.key)] = std::move(b);
    }
    g->setName(key == "pm.sm_active" ? tr("%1 (measured, PM sampling %2; %3)").arg(tr(m.label), rate_text(interval), lost)
                                     : tr("%1 (measured)").arg(tr(m.label)));
  }
  meas_bw_->axis(QCPAxis::atLeft)->setRange(0, nice_upper(std::max(bw_max, 1e6)));
  measured_message_ = !store || any ? QString() : tr("Measured GPU metrics: %1").arg(absent_reason(meta, hub_->isLive()));
}

const UtilizationPanel::MeasuredBuckets* UtilizationPanel::measuredBuckets(const QString& key) const {
  auto it = measured_buckets_.find(key);
  return it == measured_buckets_.end() ? nullptr : &it->second;
}

QString UtilizationPanel::measured_status() const {
  if (!hub_->store()) return {};
  // The status line stays one line: the reason's first clause ("counters refused"); the tooltip,
  // the Verdicts tab and Session details have it whole.
  if (!measured_message_.isEmpty()) {
    const auto meta = hub_->store()->meta();
    auto it = meta.find("pm_sampling");
    if (it == meta.end()) return tr("measured: not recorded (hover)");
    QString why = QString::fromStdString(it->second);
    const QString prefix = QStringLiteral("no measured metrics: ");
    if (why.startsWith(prefix)) why = why.mid(prefix.size());
    return tr("measured: none, %1 (hover)").arg(why.section(QLatin1Char(':'), 0, 0).section(QStringLiteral(" ("), 0, 0));
  }
  int absent = 0;
  for (const auto& [k, v] : hub_->store()->meta()) absent += k.rfind("pm_sampling.absent.", 0) == 0 ? 1 : 0;
  QStringList s;
  const int folded = (meas_->visible() ? 0 : 1) + (meas_bw_->visible() ? 0 : 1);
  if (folded > 0) s << (folded == 1 ? tr("1 measured row folded: drag taller") : tr("2 measured rows folded: drag taller"));
  if (absent > 0) s << tr("measured metrics absent %1 (hover)").arg(absent);
  return s.join(QStringLiteral(" · "));
}

}  // namespace ts::gui
