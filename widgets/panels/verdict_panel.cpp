// VerdictPanel and VerdictBanner: verdict rows (severity colour, evidence, fix), scope, highlight.
#include "widgets/panels/verdict_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QPushButton>
#include <QSpinBox>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "widgets/common/elided_label.h"
#include "widgets/common/wrap_tree.h"
#include "widgets/panels/measured_text.h"

namespace ts::gui {

namespace {

int severity_rank(const std::string& s) { return s == "high" ? 0 : s == "moderate" ? 1 : s == "low" ? 2 : 3; }

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// What a verdict's highlight shows, for the label the timeline displays.
QString evidence_label(const std::string& id) {
  if (id == "input_bound") return QObject::tr("data-loader wait");
  if (id == "sync_bound") return QObject::tr("host syncs");
  if (id == "launch_bound") return QObject::tr("GPU idle while the CPU launches");
  if (id == "host_bound") return QObject::tr("GPU idle while the Python thread works");
  if (id == "low_utilization") return QObject::tr("GPU idle gaps");
  if (id == "memory_pressure") return QObject::tr("device memory peak");
  if (id == "pageable_memcpy") return QObject::tr("pageable copies");
  if (id == "amp_eligible") return QObject::tr("GEMM/conv kernels");
  return QObject::tr("no intervals");
}

prof::analysis::Options options_for(VerdictPanel::Scope scope, qint64 last_steps) {
  prof::analysis::Options o;
  o.last_steps = scope == VerdictPanel::Scope::last_steps ? last_steps : 0;
  o.per_step = false;
  o.verdicts = true;
  o.warmup_steps = prof::analysis::kDefaultWarmupSteps;  // as trainscope-run --analyze: cuDNN's search in step 1
  return o;
}

}  // namespace

QColor severity_color(const std::string& severity) {
  if (severity == "high") return QColor(0xc6, 0x28, 0x28);
  if (severity == "moderate") return QColor(0xef, 0x6c, 0x00);
  if (severity == "low") return QColor(0xf9, 0xa8, 0x25);
  return QColor(0x75, 0x75, 0x75);
}

QString format_evidence(const std::string& name, double value) {
  const EvidenceText t = evidence_text(name, value);
  return t.name + ' ' + t.value;
}

EvidenceText evidence_text(const std::string& name, double value) {
  struct Unit {
    const char* suffix;
    const char* unit;
    int decimals;
  };
  static const Unit units[] = {{"_ms_per_step", "ms/step", 3}, {"_pct", "%", 1}, {"_ms", "ms", 3}, {"_us", "µs", 2},
                               {"_gb", "GB", 2},               {"_mb", "MB", 1}};
  // One name per figure (docs/metrics.md): the verdicts' data-loader and sync waits are the raw
  // shares of the trainer's time, not the by-priority breakdown's categories of the same name.
  static const std::pair<const char*, const char*> names[] = {
      {"data_loader_wait", "data-loader wait (raw)"}, {"host_sync", "host sync (raw)"}, {"gpu_idle_sync", "GPU idle in host syncs"},
      {"gpu_utilization", "GPU busy"}};
  auto words = [](const std::string& stem) { return QString::fromStdString(stem).replace('_', ' '); };
  // Rates and shares of the measured metrics (memory_bound_kernels): GB/s, and shares 0..1 as %.
  if (ends_with(name, "_bytes_per_s"))
    return {words(name.substr(0, name.size() - 12)), QString("%1 GB/s").arg(value / 1e9, 0, 'f', 1)};
  if (ends_with(name, "_share"))
    return {words(name.substr(0, name.size() - 6)), QString("%1 %").arg(100 * value, 0, 'f', 1)};
  for (const auto& u : units)
    if (ends_with(name, u.suffix)) {
      const std::string stem = name.substr(0, name.size() - std::strlen(u.suffix));
      QString base = words(stem);
      for (const auto& [key, label] : names)
        if (stem == key) base = QString::fromUtf8(label);
      return {base, QString("%1 %2").arg(value, 0, 'f', u.decimals).arg(QString::fromUtf8(u.unit))};
    }
  const bool whole = value == static_cast<double>(static_cast<long long>(value));
  return {words(name), QString::number(value, 'f', whole ? 0 : 2)};
}

namespace {
/// The knobs a verdict's fix may set (FixSetting::knob, runconfig's knob names) and their names in
/// the Run settings form: what the fix text says and what apply_fix_settings reports.
struct FixKnob {
  const char* knob;
  const char* label;
};
constexpr FixKnob kFixKnobs[] = {
    {"num_workers", QT_TRANSLATE_NOOP("QObject", "num_workers")},
    {"pin_memory", QT_TRANSLATE_NOOP("QObject", "pin_memory")},
    {"amp", QT_TRANSLATE_NOOP("QObject", "AMP")},
    {"batch_size", QT_TRANSLATE_NOOP("QObject", "batch size")},
    {"accumulate", QT_TRANSLATE_NOOP("QObject", "gradient accumulation")},
    {"sync_every_step", QT_TRANSLATE_NOOP("QObject", "sync every step")},
    {"augment", QT_TRANSLATE_NOOP("QObject", "augmentation")},
};
const FixKnob* fix_knob(const std::string& knob) {
  for (const FixKnob& k : kFixKnobs)
    if (knob == k.knob) return &k;
  return nullptr;
}

/// A fix's value as the run configuration's knob text ("on" -> "true" for a flag), or nullopt
/// when the knob's type does not take it: a flag is on or off, a count a whole number >= 0, AMP
/// one of its modes.
std::optional<std::string> knob_text(const runconfig::KnobDef& k, const std::string& value) {
  switch (k.type) {
    case runconfig::KnobType::boolean:
      if (value != "on" && value != "off") return std::nullopt;
      return value == "on" ? "true" : "false";
    case runconfig::KnobType::integer: {
      bool ok = false;
      const long long n = QString::fromStdString(value).toLongLong(&ok);
      if (!ok || n < 0) return std::nullopt;
      return std::to_string(n);
    }
    case runconfig::KnobType::amp: {
      const auto modes = runconfig::knob_choices(k.type);
      if (std::find(modes.begin(), modes.end(), value) == modes.end()) return std::nullopt;
      return value;
    }
    default:
      return std::nullopt;
  }
}

/// A knob's value in the form's words: "on"/"off" for a flag, the text otherwise.
QString shown_value(const runconfig::KnobDef& k, const runconfig::RunConfig& c) {
  const std::string v = k.get(c);
  if (k.type == runconfig::KnobType::boolean) return v == "true" ? QStringLiteral("on") : QStringLiteral("off");
  return QString::fromStdString(v);
}
}  // namespace

QString verdict_short_name(const std::string& id) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"host_bound", "CPU-bound"},         {"input_bound", "input-bound"},
      {"sync_bound", "sync-bound"},        {"communication_bound", "communication-bound"},
      {"launch_bound", "launch-bound"},    {"low_utilization", "low GPU utilization"},
      {"pageable_memcpy", "pageable copies"}, {"memory_pressure", "GPU memory nearly full"},
      {"amp_eligible", "AMP-eligible"},    {"amp_overflow", "fp16 overflow"},
      {"throttled", "clocks held down"},   {"shared_gpu", "GPU shared with another process"},
      {"memory_bound_kernels", "memory-bound kernels"}};
  for (const auto& [key, name] : kNames)
    if (id == key) return QObject::tr(name);
  return QString::fromStdString(id).replace('_', ' ');
}

QString fix_setting_text(const prof::analysis::FixSetting& f) {
  const FixKnob* k = fix_knob(f.knob);
  if (!k) return QString::fromStdString(f.knob + " " + f.value);
  return QStringLiteral("%1 %2").arg(QObject::tr(k->label), QString::fromStdString(f.value));
}

QString window_fix_text(const prof::analysis::Verdict& v, bool trainscope, bool cuda_gpu_here) {
  if (!trainscope) return QString::fromStdString(v.fix);
  // Only what this machine can run is proposed; a knob it cannot (AMP without a CUDA GPU) is said
  // once, and only where nothing else is left to do (the Run settings' AMP note says the rest).
  QStringList knobs, elsewhere;
  for (const auto& f : v.settings) {
    const QString text = fix_setting_text(f);
    if (fix_setting_unavailable_here(f, cuda_gpu_here).isEmpty()) knobs << text;
    else if (!elsewhere.contains(text)) elsewhere << text;
  }
  QString advice = QString::fromStdString(v.advice);
  if (!advice.isEmpty()) advice[0] = advice[0].toUpper();
  QStringList parts;
  if (!knobs.isEmpty()) parts << QObject::tr("In Run settings: %1 for the next run").arg(knobs.join(", "));
  if (!advice.isEmpty()) parts << advice;
  if (parts.isEmpty() && !elsewhere.isEmpty())
    // The fix exists, only not here: said as the fix, with why it is not offered to apply.
    return QObject::tr("%1 on a machine with a CUDA GPU (this one has none)").arg(elsewhere.join(", "));
  if (v.settings.empty() && advice.isEmpty()) return QString::fromStdString(v.fix);
  return parts.join(". ");
}

QString fix_setting_unavailable_here(const prof::analysis::FixSetting& f, bool cuda_gpu_here) {
  if (f.knob != "amp" || f.value == "off" || cuda_gpu_here) return {};
  if (f.value != "fp16" && f.value != "bf16") return {};  // a bad value: apply_fix_settings skips it
  return amp_unavailable_reason(Device::cpu, parse_amp_mode(f.value)).isEmpty() ? QString()
                                                                                : QObject::tr("no CUDA GPU on this machine");
}

QString fix_setting_refusal(const prof::analysis::FixSetting& f, const RunSettings& s, bool cuda_gpu_here) {
  if (const QString why = fix_setting_unavailable_here(f, cuda_gpu_here); !why.isEmpty()) return why;
  if (f.knob != "amp" || (f.value != "fp16" && f.value != "bf16") || s.device == Device::cuda) return {};
  if (amp_unavailable_reason(Device::cpu, parse_amp_mode(f.value)).isEmpty()) return {};
  return QObject::tr("Device is the CPU, which has no %1 AMP: choose a CUDA GPU").arg(QString::fromStdString(f.value));
}

QString FixOutcome::text() const {
  QString line = changed.join(", ");
  if (!refused.isEmpty()) line += (line.isEmpty() ? QString() : QStringLiteral("; ")) + refused.join("; ");
  return line;
}

FixOutcome apply_fix_here(const std::vector<prof::analysis::FixSetting>& fix, RunSettings& s, bool cuda_gpu_here) {
  FixOutcome o;
  std::vector<prof::analysis::FixSetting> here;
  for (const auto& f : fix) {
    if (const QString why = fix_setting_refusal(f, s, cuda_gpu_here); !why.isEmpty())
      o.refused << QObject::tr("%1 not applied: %2").arg(fix_setting_text(f), why);
    else
      here.push_back(f);
  }
  o.changed = apply_fix_settings(here, s);
  return o;
}

QStringList apply_fix_settings(const std::vector<prof::analysis::FixSetting>& fix, RunSettings& s) {
  // Through the run configuration: the knob table sets the field and reads it back for the report.
  runconfig::RunConfig c = to_run_config(s);
  QStringList changed;
  for (const auto& f : fix) {
    const FixKnob* label = fix_knob(f.knob);
    const runconfig::KnobDef* k = label ? runconfig::find_knob(f.knob) : nullptr;
    const std::optional<std::string> text = k ? knob_text(*k, f.value) : std::nullopt;
    if (!text) continue;  // not a knob a fix may set, or a value of the wrong kind: skipped
    const QString before = shown_value(*k, c);
    runconfig::apply_knob(c, f.knob, *text);
    const QString after = shown_value(*k, c);
    if (before != after) changed << QString("%1 %2 → %3").arg(QObject::tr(label->label), before, after);
  }
  s = with_run_config(s, c);
  return changed;
}

void VerdictPanel::setSection(QWidget* w) {
  if (section_ == w) return;
  auto* layout = static_cast<QVBoxLayout*>(this->layout());
  if (section_) layout->removeWidget(section_), section_->hide();
  section_ = w;
  if (w) layout->insertWidget(0, w, 1), w->show();
  // With a section the two share the height by their stretch (1:1), not by their rows: both ignore
  // their size hints (a tree's hint is all its rows), each keeping a few rows at least.
  tree_->setSizePolicy(QSizePolicy::Expanding, w ? QSizePolicy::Ignored : QSizePolicy::Expanding);
  tree_->setMinimumHeight(w ? 60 : 0);
}

VerdictPanel::VerdictPanel(PanelHub* hub, QWidget* parent) : QWidget(parent), hub_(hub) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  auto* row = new QHBoxLayout;
  scope_box_ = new QComboBox;
  scope_box_->addItems({tr("Last N steps"), tr("Whole run")});
  scope_box_->setToolTip(tr("Last N steps: the rolling window while training. Whole run: every step but the first "
                            "(warm-up), as trainscope-run --analyze and Compare judge it. Until you choose, the "
                            "last steps while a run trains, the whole run once it ends or for an opened session."));
  steps_box_ = new QSpinBox;
  steps_box_->setRange(10, 100000);
  steps_box_->setValue(50);
  steps_box_->setSuffix(tr(" steps"));
  row->addWidget(scope_box_);
  row->addWidget(steps_box_);
  row->addStretch(1);
  layout->addLayout(row);
  status_ = new QLabel;
  status_->setWordWrap(true);
  layout->addWidget(status_);
  tree_ = new QTreeWidget;
  tree_->setColumnCount(2);
  tree_->setHeaderLabels({tr("Severity"), tr("Verdict · evidence · fix")});
  tree_->setObjectName("verdicts.tree");
  tree_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  tree_->setRootIsDecorated(true);
  wrap_tree_items(tree_);  // evidence and fix lines wrap at the column's width (QTreeView alone cut them with "…")
  layout->addWidget(tree_, 1);
  // The window follows the run until the user picks one: connected before the runner is made, so
  // a run's end re-analyses once, over the whole run, rather than over its last steps first.
  connect(hub_, &PanelHub::liveChanged, this, &VerdictPanel::followRun);
  connect(hub_, &PanelHub::storeChanged, this, &VerdictPanel::followRun);
  scope_ = hub_->store() && !hub_->isLive() ? Scope::whole_run : Scope::last_steps;
  scope_box_->setCurrentIndex(scope_ == Scope::last_steps ? 0 : 1);
  steps_box_->setEnabled(scope_ == Scope::last_steps);
  runner_ = new AnalysisRunner(hub_, options_for(scope_, 50), true, this);
  // Verdicts that came while the tab was hidden during a live run (or a load) fill the tree when
  // the run or the load ends, so that it is ready without being shown first.
  connect(hub_, &PanelHub::liveChanged, this, [this](bool live) {
    if (!live && tree_dirty_) {
      tree_dirty_ = false;
      fillTree();
    }
  });
  connect(hub_, &PanelHub::storeChanged, this, [this] {
    source_note_.clear();  // a note (and a lead) belongs to the events it was given for
    lead_.reset();
    status_->setText(statusText());
    emit verdictsChanged();
  });
  connect(runner_, &AnalysisRunner::resultReady, this, &VerdictPanel::showResult);
  connect(scope_box_, qOverload<int>(&QComboBox::currentIndexChanged), this, &VerdictPanel::onScopeUi);
  connect(steps_box_, qOverload<int>(&QSpinBox::valueChanged), this, &VerdictPanel::onScopeUi);
  connect(tree_, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item, int) {
    while (item->parent()) item = item->parent();
    activate(tree_->indexOfTopLevelItem(item));
  });
  showResult();
}

void VerdictPanel::followRun() {
  if (scope_chosen_ || !runner_) return;
  const Scope want = hub_->isLive() ? Scope::last_steps : Scope::whole_run;
  if (want == scope_) return;
  const QSignalBlocker b(scope_box_);
  scope_box_->setCurrentIndex(want == Scope::last_steps ? 0 : 1);
  applyScope();
}

void VerdictPanel::onScopeUi() {
  scope_chosen_ = true;
  applyScope();
}

void VerdictPanel::applyScope() {
  const Scope s = scope_box_->currentIndex() == 0 ? Scope::last_steps : Scope::whole_run;
  steps_box_->setEnabled(s == Scope::last_steps);
  scope_ = s;
  runner_->setOptions(options_for(s, steps_box_->value()));
  status_->setText(tr("Analysing…"));
}

void VerdictPanel::setScope(Scope scope, qint64 last_steps) {
  const QSignalBlocker b1(scope_box_), b2(steps_box_);
  scope_box_->setCurrentIndex(scope == Scope::last_steps ? 0 : 1);
  steps_box_->setValue(static_cast<int>(std::clamp<qint64>(last_steps, 10, 100000)));
  onScopeUi();
}

void VerdictPanel::showResult() {
  const auto r = runner_->result();
  verdicts_.clear();
  if (r) {
    verdicts_ = r->report.verdicts;
    std::stable_sort(verdicts_.begin(), verdicts_.end(), [](const auto& a, const auto& b) {
      return severity_rank(a.severity) < severity_rank(b.severity);
    });
  }
  // The tree (a widget per Apply button) only while it shows: during a live run in the Train
  // workspace the tab is hidden and the banner reads verdicts_ alone.
  if (isVisible() || !hub_->isLive()) fillTree();
  else tree_dirty_ = true;
  status_->setText(statusText());
  emit verdictsChanged();
}

void VerdictPanel::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (tree_dirty_) {
    tree_dirty_ = false;
    fillTree();
  }
}

void VerdictPanel::fillTree() {
  tree_->clear();
  for (const auto& v : verdicts_) addVerdictItem(v);
  // After the verdicts: the findings from measured metrics (memory_bound_kernels) and the measured
  // figures beside the estimates, as trainscope-run --analyze reports them.
  const auto r = runner_->result();
  if (!r) return;
  for (const auto& f : r->report.findings) addVerdictItem(f)->setData(1, Qt::UserRole, QStringLiteral("finding"));
  const MeasuredText m = measured_text(r->report);
  if (m.title.isEmpty()) return;
  auto* top = new QTreeWidgetItem(tree_);
  top->setText(0, tr("measured"));
  top->setTextAlignment(0, Qt::AlignCenter);
  top->setText(1, m.title);
  top->setToolTip(1, m.title);
  top->setData(0, Qt::UserRole, QStringLiteral("measured"));
  for (const QString& line : m.lines) {
    auto* e = new QTreeWidgetItem(top);
    e->setText(1, line);
    e->setToolTip(1, line);
  }
  top->setExpanded(true);
}

QTreeWidgetItem* VerdictPanel::addVerdictItem(const prof::analysis::Verdict& v) {
  const QColor fix_color(0x1b, 0x5e, 0x20);
  {
    auto* top = new QTreeWidgetItem(tree_);
    const QColor c = severity_color(v.severity);
    top->setText(0, QString::fromStdString(v.severity));
    top->setBackground(0, c);
    top->setForeground(0, v.severity == "low" ? QColor(Qt::black) : QColor(Qt::white));
    top->setTextAlignment(0, Qt::AlignCenter);
    QFont bold = tree_->font();
    bold.setBold(true);
    top->setFont(0, bold);
    top->setFont(1, bold);
    top->setText(1, QString::fromStdString(v.title));
    top->setToolTip(1, tr("Click: highlight the %1 on the timeline").arg(evidence_label(v.id)));
    top->setData(0, Qt::UserRole, QString::fromStdString(v.id));
    bool first = true;
    for (const auto& [name, value] : v.evidence) {  // one number per row: nothing elided
      auto* e = new QTreeWidgetItem(top);
      e->setText(0, first ? tr("evidence") : QString());
      e->setText(1, format_evidence(name, value));
      first = false;
    }
    first = true;
    for (const auto& fr : v.frames) {  // the Python lines of the cause (the Python insight)
      auto* e = new QTreeWidgetItem(top);
      e->setText(0, first ? tr("where") : QString());
      QString line = QStringLiteral("%1 %2 — %3 %")
                         .arg(QString::fromStdString(fr.where), QString::fromStdString(fr.function))
                         .arg(fr.pct, 0, 'f', 1);
      if (!fr.innermost.empty()) line += tr(" (in %1)").arg(QString::fromStdString(fr.innermost));
      e->setText(1, line);
      e->setToolTip(1, line);
      first = false;
    }
    auto* f = new QTreeWidgetItem(top);
    const QString fix = window_fix_text(v, fixesApply(), cuda_gpu_here_);
    f->setText(0, tr("fix"));
    f->setText(1, fix);
    f->setForeground(1, fix_color);
    f->setToolTip(1, fix);
    top->setExpanded(true);
    QStringList here;  // the knobs this machine can run: the Apply button's
    for (const auto& s : v.settings)
      if (fix_setting_unavailable_here(s, cuda_gpu_here_).isEmpty()) here << fix_setting_text(s);
    if (fixesApply() && !here.isEmpty()) {
      auto* a = new QTreeWidgetItem(top);
      auto* button = new QPushButton(tr("Apply to Run settings"));
      button->setObjectName("apply");
      button->setToolTip(tr("Set %1 in the Train workspace's Run settings for the next run").arg(here.join(", ")));
      auto* holder = new QWidget;  // the button at its size, left-aligned in the row
      auto* row = new QHBoxLayout(holder);
      row->setContentsMargins(0, 1, 0, 1);
      row->addWidget(button);
      row->addStretch(1);
      tree_->setItemWidget(a, 1, holder);
      const int index = tree_->indexOfTopLevelItem(top);
      connect(button, &QPushButton::clicked, this, [this, index] { apply(index); });
    }
    return top;
  }
}

void VerdictPanel::activate(int row) {
  const auto r = runner_->result();
  if (!r || row < 0 || row >= static_cast<int>(verdicts_.size())) return;
  const auto& v = verdicts_[static_cast<std::size_t>(row)];
  Highlight h;
  h.label = QString("%1: %2").arg(QString::fromStdString(v.id), evidence_label(v.id));
  if (auto it = r->evidence.find(v.id); it != r->evidence.end())
    for (const auto& s : it->second) h.intervals.push_back({s.start, s.end});
  hub_->setHighlight(h);
  if (auto* item = tree_->topLevelItem(row)) tree_->setCurrentItem(item);
}

bool VerdictPanel::judged() const {
  const auto r = runner_->result();
  return r && r->report.verdicts_judged;
}

QString VerdictPanel::windowText() const {
  const auto r = runner_->result();
  const qint64 n = r ? r->options.last_steps : 50;
  if (scope_ != Scope::last_steps) return tr("whole run");
  // A run shorter than the window is analysed whole: say so rather than "last 50 steps" over 5.
  if (r && r->report.steps < n) return tr("whole run: fewer than %1 steps").arg(n);
  return tr("last %1 steps").arg(n);
}

void VerdictPanel::setSourceNote(const QString& note) {
  source_note_ = note;
  status_->setText(statusText());
  emit verdictsChanged();
}

void VerdictPanel::setBannerLead(std::optional<BannerLead> lead) {
  lead_ = std::move(lead);
  emit verdictsChanged();
}

bool VerdictPanel::fixesApply() const {
  const auto r = runner_->result();
  return r && r->report.config.known;
}

QString VerdictPanel::fixText(int row) const {
  if (row < 0 || row >= static_cast<int>(verdicts_.size())) return {};
  return window_fix_text(verdicts_[static_cast<std::size_t>(row)], fixesApply(), cuda_gpu_here_);
}

void VerdictPanel::setCudaGpuHere(bool present) {
  if (present == cuda_gpu_here_) return;
  cuda_gpu_here_ = present;
  fillTree();
  emit verdictsChanged();
}

bool VerdictPanel::apply(int row) {
  if (row < 0 || row >= static_cast<int>(verdicts_.size()) || !fixesApply()) return false;
  const auto& v = verdicts_[static_cast<std::size_t>(row)];
  const bool any_here = std::any_of(v.settings.begin(), v.settings.end(), [this](const auto& f) {
    return fix_setting_unavailable_here(f, cuda_gpu_here_).isEmpty();
  });
  if (!any_here) return false;
  emit applyRequested(v.settings, QString::fromStdString(v.title));
  return true;
}

QPushButton* VerdictPanel::applyButton(int row) const {
  QTreeWidgetItem* top = tree_->topLevelItem(row);
  if (!top) return nullptr;
  for (int i = 0; i < top->childCount(); ++i)
    if (QWidget* w = tree_->itemWidget(top->child(i), 1))
      if (auto* b = w->findChild<QPushButton*>("apply")) return b;
  return nullptr;
}

QString VerdictPanel::statusText() const {
  if (!hub_->store()) return tr("No session: open one or start a run");
  if (!source_note_.isEmpty()) return source_note_ + QStringLiteral(" · ") + statusTextOfRun();
  return statusTextOfRun();
}

QString VerdictPanel::statusTextOfRun() const {
  const auto r = runner_->result();
  if (!r) return tr("Analysing…");
  const auto& rep = r->report;
  const QString scope = windowText();
  if (!rep.verdicts_judged && !rep.whole_trace_step)
    return tr("Verdicts need at least %1 analysed steps (%2 so far, warm-up step left out)")
        .arg(rep.min_steps_for_verdicts)
        .arg(rep.steps);
  if (!rep.verdicts_judged)  // a trace without steps, too short for the whole-trace rule
    return tr("No verdicts: %1").arg(QString::fromStdString(rep.verdicts_withheld));
  QString s = tr("%1 steps analysed (%2); the analysis took %3 ms").arg(rep.steps).arg(scope).arg(r->analysis_ms, 0, 'f', 1);
  if (verdicts_.empty()) s += tr(" · no bottleneck found");
  if (!rep.gpu_present) {
    QString why = QString::fromStdString(rep.gpu_absent_reason);  // often "no GPU activity: <why>" already
    if (!why.startsWith("no GPU activity")) why = tr("no GPU activity: %1").arg(why);
    s += " · " + why;
  }
  return s;
}

VerdictBanner::VerdictBanner(VerdictPanel* panel, QWidget* parent) : QWidget(parent), panel_(panel) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(4, 0, 4, 0);  // the label's lines keep their spacing from the bars around
  chip_ = new QLabel;
  chip_->setAlignment(Qt::AlignCenter);
  chip_->setMinimumWidth(70);
  // Coloured by its palette and bold by its font, which sets only the weight, so that its size
  // follows the application's font (classroom mode's): a style sheet fixed the whole font at the
  // size it had when the sheet was applied.
  QFont bold;
  bold.setBold(true);
  chip_->setFont(bold);
  chip_->setAutoFillBackground(true);
  chip_->setBackgroundRole(QPalette::Window);  // its own roles: in a tool bar it took the bar's (Button)
  chip_->setForegroundRole(QPalette::WindowText);
  chip_->setContentsMargins(6, 1, 6, 1);
  // Wrapped on two lines, cut at a word only past them, in a row two lines tall whatever the text:
  // on one line a job's or a trace's finding lost its fix at 1280 px, and a row as tall as its lines
  // changed the height under the window's toolbars with each verdict (Profile's lanes lost it).
  label_ = new ElidedLabel;
  label_->setFixedLines(kLines);
  row->addWidget(chip_, 0, Qt::AlignVCenter);  // a badge one line tall, beside one line or two
  row->addWidget(label_, 1);
  setCursor(Qt::PointingHandCursor);
  connect(panel_, &VerdictPanel::verdictsChanged, this, &VerdictBanner::update_from_panel);
  update_from_panel();
}

void VerdictBanner::update_from_panel() {
  const auto& vs = panel_->verdicts();
  if (!panel_->hub()->store()) {  // nothing shown: no badge (an "OK" under an error said the opposite)
    chip_->hide();
    text_.clear();
    label_->setFullText(QString());
    label_->setToolTip(QString());
    setToolTip(QString());
    if (std::exchange(has_content_, false)) emit contentChanged(false);
    return;
  }
  if (!std::exchange(has_content_, true)) emit contentChanged(true);
  chip_->show();
  if (const auto& lead = panel_->bannerLead()) {  // a job's own finding leads, in its own words
    color_ = severity_color(lead->severity);
    chip_->setText(QString::fromStdString(lead->severity));
    text_ = lead->text;
  } else if (vs.empty()) {
    // "OK" only when the run was judged and nothing was found; too few steps is not a clean bill.
    const bool judged = panel_->judged();
    color_ = judged ? QColor(0x2e, 0x7d, 0x32) : QColor(0x75, 0x75, 0x75);
    chip_->setText(judged ? tr("OK") : tr("not judged"));
    text_ = panel_->statusText();
  } else {
    const auto& v = vs.front();
    color_ = severity_color(v.severity);
    chip_->setText(QString::fromStdString(v.severity));
    text_ = QString::fromStdString(v.title);
    if (!v.evidence.empty())
      text_ += QStringLiteral(" — ") + format_evidence(v.evidence[0].first, v.evidence[0].second) + QStringLiteral(", ") +
               panel_->windowText();
    text_ += tr(" — fix: ") + panel_->fixText(0);
    if (vs.size() > 1) text_ += tr("  (+%1 more)").arg(vs.size() - 1);
    if (!panel_->sourceNote().isEmpty()) text_ = panel_->sourceNote() + QStringLiteral(" — ") + text_;
  }
  const QColor fg = color_ == severity_color("low") ? QColor(Qt::black) : QColor(Qt::white);
  QPalette pal = chip_->palette();
  pal.setColor(QPalette::Window, color_);
  pal.setColor(QPalette::WindowText, fg);
  chip_->setPalette(pal);
  setToolTip(text_ + (panel_->bannerLead() ? tr("\nClick: show the Verdicts panel")
                                            : tr("\nClick: highlight the evidence and show the Verdicts panel")));
  elide();
}

void VerdictBanner::elide() {
  label_->setFullText(text_);
  label_->setToolTip(QString());  // the banner's own tooltip (the text and what a click does) shows over it
}

QLabel* VerdictBanner::line() const { return label_; }

void VerdictBanner::mousePressEvent(QMouseEvent* e) {
  if (e->button() == Qt::LeftButton) {
    if (!panel_->bannerLead()) panel_->activate(0);  // a lead's evidence is in the job's tree, not the session's
    emit detailsRequested();
  }
  QWidget::mousePressEvent(e);
}

}  // namespace ts::gui
