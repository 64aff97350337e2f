// JobTimelines (see job_timelines.h).
#include "widgets/job/job_timelines.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "widgets/timeline/timeline_view.h"

namespace ts::gui {

std::int32_t straggler_rank(const prof::job::JobReport& r) {
  for (const auto& v : r.verdicts)
    if (v.id == "straggler") return v.rank;
  return -1;
}

QString job_ms(std::int64_t ns) { return QStringLiteral("%1 ms").arg(static_cast<double>(ns) / 1e6, 0, 'f', 2); }

QString signed_ms(std::int64_t ns, int decimals) {
  return QStringLiteral("%1%2 ms").arg(ns < 0 ? "−" : "+").arg(std::abs(static_cast<double>(ns)) / 1e6, 0, 'f', decimals);
}

QString step_start_offset_text(std::int64_t ns) {
  return QStringLiteral("%1%2 µs").arg(ns < 0 ? "−" : "+").arg(std::abs(static_cast<double>(ns)) / 1e3, 0, 'f', 1);
}

QString period_parts_tooltip(const prof::job::JobReport& r) {
  return QObject::tr("Period: the median step period (one step start to the next) over the %1 matched steps. Own "
                     "work: the median over those steps of the period less the wait for the other ranks (the "
                     "figure the straggler verdict compares). Waiting: period − own work, so the two add up to "
                     "the period (the medians of the two parts, taken apart, would not).")
      .arg(r.matched_steps);
}

QString axis_shift_tooltip(const prof::job::RankFigures& f, const prof::job::JobReport& r) {
  const std::int32_t ref = r.ranks.empty() ? 0 : r.ranks.front().rank;
  if (f.rank == ref)
    return QObject::tr("The job's time axis is rank %1's session clock: its times are drawn as recorded.").arg(ref);
  const QString start = r.clock == "session clocks"
                            ? QObject::tr("no common clock was recorded, so its session is taken to start with rank %1's")
                                  .arg(ref)
                            : QObject::tr("its session began %1 ms %2 rank %3's (%4)")
                                  .arg(std::abs(static_cast<double>(f.session_start_ns)) / 1e6, 0, 'f', 3)
                                  .arg(f.session_start_ns < 0 ? QObject::tr("before") : QObject::tr("after"))
                                  .arg(ref)
                                  .arg(QString::fromStdString(r.clock));
  return QObject::tr("Drawn %1 on rank %2's clock: this rank's session times plus %1 put it on the job's time axis: "
                     "%3, plus its step-start offset of %4.\n%5")
      .arg(signed_ms(f.axis_shift_ns(), 3))
      .arg(ref)
      .arg(start, step_start_offset_text(f.step_start_offset_ns), step_start_offset_tooltip(r));
}

QString step_start_offset_tooltip(const prof::job::JobReport& r) {
  const std::int32_t ref = r.ranks.empty() ? 0 : r.ranks.front().rank;
  QString t = QObject::tr("Step-start offset: the median over the %1 matched steps of rank %2's step start less this "
                          "rank's, both on %3; added to this rank's times, it lines its step starts up with rank %2's.")
                  .arg(r.matched_steps)
                  .arg(ref)
                  .arg(QString::fromStdString(r.clock));
  if (r.clock == "one host's monotonic clock")
    t += QObject::tr(" On one host's clock it is not clock skew but when this rank begins its steps.");
  return t;
}

namespace {

/// Drawing order: the straggler, else the longest step period, first; then by rank.
std::vector<std::size_t> drawing_order(const prof::job::JobReport& r) {
  std::vector<std::size_t> order(r.ranks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::int32_t first = straggler_rank(r);
  if (first < 0 && !r.ranks.empty())
    first = std::max_element(r.ranks.begin(), r.ranks.end(), [](const auto& a, const auto& b) {
              return a.step_period_ns < b.step_period_ns;
            })->rank;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const bool fa = r.ranks[a].rank == first, fb = r.ranks[b].rank == first;
    if (fa != fb) return fa;
    return r.ranks[a].rank < r.ranks[b].rank;
  });
  return order;
}

QString header_text(const prof::job::RankFigures& f, bool straggler, std::int32_t ref_rank) {
  QString t = QStringLiteral("rank %1").arg(f.rank);
  if (straggler) t += QStringLiteral(" · straggler");
  const prof::job::PeriodParts p = prof::job::period_parts(f);
  t += QStringLiteral("   period %1 ms/step = own work %2 + waiting %3")
           .arg(p.period_ms, 0, 'f', 2)
           .arg(p.own_work_ms, 0, 'f', 2)
           .arg(p.wait_ms, 0, 'f', 2);
  if (f.rank == ref_rank) return t + QStringLiteral(" · the axis is this rank's clock");
  return t + QStringLiteral(" · drawn %1 on rank %2's clock").arg(signed_ms(f.axis_shift_ns(), 3)).arg(ref_rank);
}

/// A rank's lanes made compact, so several ranks share the height: every lane one row (a click on
/// its header expands it), and the GPU streams right under the stepping thread, where the eye
/// compares the ranks' compute (otherwise under the loader and runtime threads, out of view at 720
/// lines).
void compact_lanes(TimelineView* v) {
  for (int l : v->laneOrder()) v->setLaneCollapsed(l, true);
  const int trainer = v->data().trainerLane();
  int moved = 0;
  for (int l : v->laneOrder()) {
    if (v->data().lanes()[static_cast<std::size_t>(l)].kind != prof::timeline::LaneKind::stream) continue;
    const std::vector<int> order = v->laneOrder();
    const auto at = [&](int lane) { return static_cast<int>(std::find(order.begin(), order.end(), lane) - order.begin()); };
    const int want = (trainer >= 0 && at(trainer) < static_cast<int>(order.size()) ? at(trainer) + 1 : 0) + moved;
    v->moveLane(l, want - at(l));
    ++moved;
  }
}

}  // namespace

JobTimelines::JobTimelines(QWidget* parent) : QWidget(parent) {
  setObjectName("job.timelines");
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 2, 4, 0);
  lay->setSpacing(2);
  info_ = new QLabel;
  info_->setObjectName("job.info");
  info_->setWordWrap(true);
  info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  lay->addWidget(info_);
  auto* area = new QScrollArea;
  area->setWidgetResizable(true);
  area->setFrameShape(QFrame::NoFrame);
  area->setMinimumHeight(60);  // the groups' own minimum never becomes the window's
  auto* content = new QWidget;
  groups_layout_ = new QVBoxLayout(content);
  groups_layout_->setContentsMargins(0, 0, 0, 0);
  groups_layout_->setSpacing(1);
  groups_layout_->addStretch(1);  // holds collapsed headers at the top
  area->setWidget(content);
  lay->addWidget(area, 1);
}

JobTimelines::~JobTimelines() { clear(); }

void JobTimelines::clear() {
  for (Group& g : groups_) {
    delete g.frame;  // the view first: it holds its hub
    delete g.hub;
  }
  groups_.clear();
  job_.reset();
  info_->clear();
}

void JobTimelines::setJob(std::shared_ptr<const prof::job::Job> job, const prof::job::JobReport& report) {
  clear();
  job_ = std::move(job);
  if (!job_ || report.ranks.empty()) return;
  const std::int32_t slow = straggler_rank(report);
  const auto file_of = [&](std::int32_t rank) -> const prof::job::RankFile* {
    for (const auto& f : job_->ranks)
      if (f.rank == rank) return &f;
    return nullptr;
  };
  const std::int32_t ref_rank = report.ranks.front().rank;
  const std::vector<std::size_t> order = drawing_order(report);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const auto& fig = report.ranks[order[k]];
    const prof::job::RankFile* file = file_of(fig.rank);
    if (!file || !file->store) continue;
    Group g;
    g.rank = fig.rank;
    g.shift = fig.axis_shift_ns();
    g.frame = new QWidget;
    auto* v = new QVBoxLayout(g.frame);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(0);
    g.header = new QToolButton;
    g.header->setObjectName(QStringLiteral("job.rank.%1").arg(fig.rank));
    g.header->setText(header_text(fig, fig.rank == slow, ref_rank));
    g.header->setToolTip(tr("%1\n%2\n%3\nClick to collapse or expand this rank's lanes")
                             .arg(QString::fromStdString(file->path), period_parts_tooltip(report),
                                  axis_shift_tooltip(fig, report)));
    g.header->setCheckable(true);
    g.header->setChecked(true);
    g.header->setAutoRaise(true);
    g.header->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    g.header->setArrowType(Qt::DownArrow);
    g.header->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    if (fig.rank == slow) {
      QFont bold = g.header->font();
      bold.setBold(true);
      g.header->setFont(bold);
      // Red by the palette, not a style sheet: a style sheet fixes the font, and the header stayed
      // small in classroom mode while the other ranks' grew.
      QPalette red = g.header->palette();
      red.setColor(QPalette::ButtonText, QColor(0xB0, 0x00, 0x20));
      g.header->setPalette(red);
    }
    v->addWidget(g.header);
    g.hub = new PanelHub(this);
    g.view = new TimelineView(g.hub, g.frame);
    g.view->setMinimumHeight(kMinViewHeight);
    v->addWidget(g.view, 1);
    groups_layout_->insertWidget(groups_layout_->count() - 1, g.frame, 1);
    g.hub->setStore(file->store, false);
    compact_lanes(g.view);
    g.view->setRulerOrigin(g.shift);
    const int index = static_cast<int>(groups_.size());
    connect(g.header, &QToolButton::toggled, this, [this, index](bool on) { setRankCollapsed(index, !on); });
    connect(g.hub, &PanelHub::visibleRangeChanged, this, [this, index](TimeSpan r) { onRange(index, r); });
    groups_.push_back(g);
  }
  const int expanded = count() > kExpandedRanks ? kExpandedWhenMany : count();
  for (int i = expanded; i < count(); ++i) setRankCollapsed(i, true);
  updateStretch();
  QString skew = tr("no residual skew (one rank)");
  if (report.skew_median_ns && report.skew_max_ns)
    skew = tr("residual skew after alignment: median %1, max %2").arg(job_ms(*report.skew_median_ns), job_ms(*report.skew_max_ns));
  info_->setText(tr("<b>Job of %n rank(s)</b> · aligned by step starts on %1 · %2 · click a rank's header to "
                    "collapse or expand its lanes; drag, W/S/A/D or Ctrl+wheel in any rank moves them all",
                    nullptr, count())
                     .arg(QString::fromStdString(report.clock).toHtmlEscaped(), skew));
  fitAligned();
}

void JobTimelines::fitAligned() {
  if (groups_.empty()) return;
  const TimeSpan r = groups_.front().view->initialRange();
  setAlignedRange(r.start + groups_.front().shift, r.end + groups_.front().shift);
}

void JobTimelines::setAlignedRange(std::int64_t start, std::int64_t end) {
  syncing_ = true;
  for (Group& g : groups_) {
    g.hub->setFollowLive(false);
    g.view->setRange({start - g.shift, end - g.shift});
  }
  syncing_ = false;
}

void JobTimelines::onRange(int index, TimeSpan r) {
  if (syncing_ || r.end <= r.start) return;
  const std::int64_t aligned = r.start + groups_[static_cast<std::size_t>(index)].shift;
  syncing_ = true;
  for (std::size_t i = 0; i < groups_.size(); ++i) {
    if (static_cast<int>(i) == index) continue;
    groups_[i].hub->setFollowLive(false);
    groups_[i].hub->setVisibleRange({aligned - groups_[i].shift, aligned - groups_[i].shift + (r.end - r.start)});
  }
  syncing_ = false;
}

void JobTimelines::setRankCollapsed(int i, bool collapsed) {
  Group& g = groups_[static_cast<std::size_t>(i)];
  {
    const QSignalBlocker block(g.header);
    g.header->setChecked(!collapsed);
  }
  g.header->setArrowType(collapsed ? Qt::RightArrow : Qt::DownArrow);
  g.view->setVisible(!collapsed);
  groups_layout_->setStretchFactor(g.frame, collapsed ? 0 : 1);
  updateStretch();
  if (!collapsed) resync(i);
}

void JobTimelines::updateStretch() {
  bool any = false;
  for (const Group& o : groups_) any = any || !o.view->isHidden();
  groups_layout_->setStretch(groups_layout_->count() - 1, any ? 0 : 1);
}

bool JobTimelines::isRankCollapsed(int i) const { return groups_[static_cast<std::size_t>(i)].view->isHidden(); }

void JobTimelines::resync(int except) {
  for (std::size_t i = 0; i < groups_.size(); ++i) {
    const Group& g = groups_[i];
    if (g.view->isHidden() || static_cast<int>(i) == except) continue;
    const TimeSpan r = g.view->range();
    if (r.end > r.start) setAlignedRange(r.start + g.shift, r.end + g.shift);
    return;
  }
}

QString JobTimelines::infoText() const { return info_->text(); }

}  // namespace ts::gui
