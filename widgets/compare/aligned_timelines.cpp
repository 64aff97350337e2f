// AlignedTimelines (see aligned_timelines.h).
#include "widgets/compare/aligned_timelines.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <set>

#include "profiling/compare/compare.h"
#include "widgets/compare/compare_view.h"
#include "widgets/timeline/timeline_view.h"

namespace ts::gui {

namespace {

const prof::StepRecord* find_step(const prof::EventStore& s, qint64 global_step) {
  const std::size_t n = s.steps.size();
  for (std::size_t i = 0; i < n; ++i)
    if (s.steps[i].global_step == global_step) return &s.steps[i];
  return nullptr;
}

/// Global steps every store recorded.
std::set<qint64> common_steps(const std::vector<std::shared_ptr<const prof::EventStore>>& stores) {
  std::set<qint64> common;
  for (std::size_t i = 0; i < stores.size(); ++i) {
    std::set<qint64> mine;
    const std::size_t n = stores[i]->steps.size();
    for (std::size_t r = 0; r < n; ++r) mine.insert(stores[i]->steps[r].global_step);
    if (i == 0) common = std::move(mine);
    else {
      std::set<qint64> both;
      std::set_intersection(common.begin(), common.end(), mine.begin(), mine.end(), std::inserter(both, both.end()));
      common = std::move(both);
    }
  }
  return common;
}

QString format_ms(qint64 ns) {
  return QStringLiteral("%1%2 ms").arg(ns >= 0 ? "+" : "−").arg(std::abs(static_cast<double>(ns)) / 1e6, 0, 'f', 3);
}

}  // namespace

AlignedTimelines::AlignedTimelines(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Align at step")));
  step_box_ = new QSpinBox;
  step_box_->setToolTip(tr("Global step k: step k of every session starts at the same x"));
  step_box_->setKeyboardTracking(false);
  bar->addWidget(step_box_);
  info_ = new QLabel;
  info_->setWordWrap(true);
  info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  bar->addWidget(info_, 1);
  layout->addLayout(bar);
  splitter_ = new QSplitter(Qt::Vertical);
  splitter_->setChildrenCollapsible(false);
  layout->addWidget(splitter_, 1);
  connect(step_box_, qOverload<int>(&QSpinBox::valueChanged), this, [this](int k) { alignAt(k); });
}

AlignedTimelines::~AlignedTimelines() { clear(); }

void AlignedTimelines::clear() {
  for (QWidget* f : frames_) delete f;  // the views first: they hold their hub
  for (PanelHub* h : hubs_) delete h;
  frames_.clear(), views_.clear(), hubs_.clear(), stores_.clear(), offsets_.clear();
  labels_.clear();
  step_ = -1;
}

void AlignedTimelines::setSessions(const std::vector<std::shared_ptr<const prof::EventStore>>& stores,
                                   const QStringList& labels, qint64 step) {
  clear();
  stores_ = stores;
  labels_ = labels;
  offsets_.assign(stores.size(), 0);
  for (std::size_t i = 0; i < stores.size(); ++i) {
    auto* hub = new PanelHub(this);
    auto* frame = new QWidget;
    auto* v = new QVBoxLayout(frame);
    v->setContentsMargins(0, 2, 0, 0);
    v->setSpacing(1);
    auto* title = new QLabel(QStringLiteral("<b>%1</b>").arg(i < static_cast<std::size_t>(labels.size()) ? labels[static_cast<int>(i)].toHtmlEscaped() : QString()));
    v->addWidget(title);
    auto* view = new TimelineView(hub, frame);
    // The ruler and about three lanes at the least: three sessions stacked (a lesson's fp32, bf16 and
    // fp16) at a timeline's own 160 px made a lesson window taller than 1280x720 less a title bar.
    view->setMinimumHeight(110);
    v->addWidget(view, 1);
    splitter_->addWidget(frame);
    hub->setStore(stores[i], false);  // the view builds its data and fits all
    hubs_.push_back(hub);
    views_.push_back(view);
    frames_.push_back(frame);
  }
  for (int i = 0; i < static_cast<int>(hubs_.size()); ++i)
    connect(hubs_[static_cast<std::size_t>(i)], &PanelHub::visibleRangeChanged, this,
            [this, i](TimeSpan r) { onRange(i, r); });
  const std::set<qint64> common = common_steps(stores_);
  const QSignalBlocker block(step_box_);
  step_box_->setEnabled(!common.empty());
  if (common.empty()) {
    step_box_->setRange(0, 0);
    updateInfo();
    return;
  }
  step_box_->setRange(static_cast<int>(*common.begin()), static_cast<int>(*common.rbegin()));
  if (!common.count(step)) step = *common.begin();
  step_box_->setValue(static_cast<int>(step));
  alignAt(step);
}

bool AlignedTimelines::alignAt(qint64 step) {
  if (stores_.empty()) return false;
  std::vector<qint64> offsets(stores_.size(), 0);
  std::vector<const prof::StepRecord*> rows;
  for (std::size_t i = 0; i < stores_.size(); ++i) {
    const auto off = prof::compare::step_alignment_offset(*stores_[0], *stores_[i], step);
    const prof::StepRecord* s = find_step(*stores_[i], step);
    if (!off || !s) {
      info_->setText(tr("Step %1 is missing in %2: the timelines stay where they are.").arg(step).arg(labels_.value(static_cast<int>(i))));
      return false;
    }
    offsets[i] = *off;
    rows.push_back(s);
  }
  // Span: the slowest session's steps k and k+1 (the host step rows), plus 5 %.
  qint64 span = 0;
  for (std::size_t i = 0; i < stores_.size(); ++i) {
    const prof::StepRecord* next = find_step(*stores_[i], step + 1);
    span = std::max<qint64>(span, (next ? next->end : rows[i]->end) - rows[i]->start);
  }
  span = std::max<qint64>(span + span / 20, 10'000);
  offsets_ = std::move(offsets);
  step_ = step;
  if (step_box_->value() != step) {
    const QSignalBlocker block(step_box_);
    step_box_->setValue(static_cast<int>(step));
  }
  syncing_ = true;
  for (std::size_t i = 0; i < stores_.size(); ++i) views_[i]->setRange({rows[i]->start, rows[i]->start + span});
  syncing_ = false;
  updateInfo();
  emit aligned(step);
  return true;
}

void AlignedTimelines::onRange(int index, TimeSpan r) {
  if (syncing_ || r.end <= r.start || offsets_.size() != hubs_.size()) return;
  syncing_ = true;
  const qint64 aligned_start = r.start + offsets_[static_cast<std::size_t>(index)];
  for (std::size_t i = 0; i < hubs_.size(); ++i) {
    if (static_cast<int>(i) == index) continue;
    const qint64 start = aligned_start - offsets_[i];
    hubs_[i]->setFollowLive(false);
    hubs_[i]->setVisibleRange({start, start + (r.end - r.start)});
  }
  syncing_ = false;
}

QString AlignedTimelines::infoText() const { return info_->text(); }

void AlignedTimelines::updateInfo() {
  if (stores_.empty()) {
    info_->clear();
    return;
  }
  if (step_ < 0) {
    info_->setText(tr("No step is recorded in every session: the timelines are not aligned."));
    return;
  }
  QStringList parts;
  for (std::size_t i = 1; i < offsets_.size(); ++i)
    parts << QStringLiteral("%1 %2").arg(session_letter(static_cast<int>(i)), format_ms(offsets_[i]));
  info_->setText(tr("Step %1 starts at the same x in every timeline (shift against A: %2). Drag, W/S/A/D or "
                    "Ctrl+wheel in any timeline moves them all.")
                     .arg(step_)
                     .arg(parts.join(", ")));
}

}  // namespace ts::gui
