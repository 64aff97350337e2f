// CompareView (see compare_view.h): inputs, background loading, the comparison job, the tabs.
#include "widgets/compare/compare_view.h"

#include <algorithm>

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QTabWidget>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "profiling/compare/compare_text.h"
#include "profiling/import/trace_analysis.h"
#include "widgets/common/text_colour.h"
#include "widgets/compare/aligned_timelines.h"
#include "widgets/compare/compare_charts.h"
#include "widgets/compare/compare_tables.h"
#include "widgets/compare/kernel_diff_model.h"
#include "widgets/panels/panel_plot.h"
#include "widgets/panels/verdict_panel.h"
#include "widgets/sessions/session_loader.h"

namespace ts::gui {

namespace pc = prof::compare;

QString session_letter(int index) {
  QString s;
  for (int i = index; i >= 0; i = i / 26 - 1) s.prepend(QChar('A' + i % 26));
  return s;
}

QString short_session_label(const QString& label_or_path) {
  QString name = QFileInfo(label_or_path).fileName();
  if (name.isEmpty()) name = label_or_path;
  if (name.endsWith(".tsession", Qt::CaseInsensitive)) name.chop(9);
  return name;
}

struct CompareView::Pending {
  CompareInput input;
  std::unique_ptr<SessionLoader> loader;
  std::shared_ptr<const prof::EventStore> store;  // set when loaded (or given)
  QString error;                                   // one line when it failed
  bool done = false, cancelled = false;
  double fraction = 0;
};

namespace {

/// The comparison of one session alone: what compare() gives per session, with no diffs.
pc::Comparison single_session(const prof::EventStore& s, const std::string& label, const pc::Options& options) {
  pc::Comparison c;
  c.options = options;
  pc::SessionSummary x;
  x.label = label;
  x.meta = s.meta();
  x.throughput = pc::throughput(s, options.warmup_steps);
  x.accuracy = pc::accuracy(s);
  prof::analysis::Options ao;
  ao.per_step = false;
  ao.warmup_steps = options.warmup_steps;
  x.report = prof::import::analyze_session(s, ao);  // a session from a trace: as --analyze reads it
  x.recorded_steps = static_cast<std::int64_t>(s.steps.size());
  if (x.throughput.steps > 0) {
    c.aligned_step = s.steps[static_cast<std::size_t>(x.throughput.warmup_steps_skipped)].global_step;
    c.alignment_offsets_ns = {0};
  }
  c.sessions.push_back(std::move(x));
  return c;
}

struct CompareResult {
  std::shared_ptr<pc::Comparison> comparison;
  QString error;
};

/// `top` above `bottom` in one page; the stretch factors share the height left after fixed-height
/// widgets (the fitted tables).
/// `page` in a scroll area that fills the tab: a short window scrolls the page instead of taking the
/// page's minimum (a chart above its table, 616 px) as its own (a lesson's window is top-level: its
/// minimum became 718 px, taller than a 1280x720 screen less a title bar).
QWidget* scrolled(QWidget* page) {
  auto* area = new QScrollArea;
  area->setWidget(page);
  area->setWidgetResizable(true);
  area->setFrameShape(QFrame::NoFrame);
  return area;
}

QWidget* vertical_split(QWidget* top, QWidget* bottom, int top_stretch, int bottom_stretch) {
  auto* w = new QWidget;
  auto* l = new QVBoxLayout(w);
  l->addWidget(top, top_stretch);
  l->addWidget(bottom, bottom_stretch);
  return scrolled(w);
}

/// The configuration tab: the note, the diff, then the sessions' facts; empty space stays at the end.
QWidget* config_page(QLabel* note, QTableWidget* diff, QTableWidget* sessions) {
  auto* w = new QWidget;
  auto* l = new QVBoxLayout(w);
  note->setWordWrap(true);
  l->addWidget(note);
  l->addWidget(diff);
  auto* title = new QLabel(QObject::tr("The sessions"));
  QFont f = title->font();
  f.setBold(true);
  title->setFont(f);
  l->addSpacing(8);
  l->addWidget(title);
  l->addWidget(sessions);
  l->addStretch(1);
  return scrolled(w);
}

}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  header_ = new QLabel;
  header_->setObjectName("compare.header");
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(header_);
  error_label_ = new QLabel;
  set_text_colour(error_label_, QColor(0xb7, 0x1c, 0x1c));  // by palette: keeps the application font
  error_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  error_label_->setVisible(false);
  layout->addWidget(error_label_);
  auto* row = new QHBoxLayout;
  status_ = new QLabel;
  progress_ = new QProgressBar;
  progress_->setRange(0, 100);
  progress_->setVisible(false);
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->setVisible(false);
  row->addWidget(status_, 1);
  row->addWidget(progress_, 1);
  row->addWidget(cancel_);
  layout->addLayout(row);
  connect(cancel_, &QPushButton::clicked, this, &CompareView::cancel);

  tabs_ = new QTabWidget;
  // Every tab in view, never behind scroll arrows: where the bar is too narrow for the names (a
  // lesson's Compare column at 1280 px in classroom mode) each is cut with "…", its tooltip whole.
  tabs_->setUsesScrollButtons(false);
  tabs_->setElideMode(Qt::ElideRight);
  config_ = make_compare_table();
  config_note_ = new QLabel;
  sessions_ = make_compare_table();
  sessions_->setTextElideMode(Qt::ElideMiddle);
  tabs_->addTab(config_page(config_note_, config_, sessions_), tr("Configuration"));
  throughput_ = make_compare_table();
  throughput_->horizontalHeader()->setMinimumSectionSize(180);
  throughput_chart_ = new CompareThroughputChart;
  tabs_->addTab(vertical_split(throughput_, throughput_chart_, 1, 1), tr("Throughput && accuracy"));
  breakdown_ = new CompareBreakdownChart;
  breakdown_table_ = make_compare_table();
  tabs_->addTab(vertical_split(breakdown_, breakdown_table_, 3, 2), tr("Step time"));
  breakdown_table_->setToolTip(tr("Step time by priority (each instant counted once), the analysed steps of the whole run "
                                  "(after the warm-up); the verdicts' data-loader wait (raw) is the trainer's wait share"));
  verdict_matrix_ = make_compare_table();
  verdict_tree_ = new QTreeWidget;
  verdict_tree_->setWordWrap(true);
  verdict_tree_->setUniformRowHeights(false);
  verdict_tree_->setSelectionMode(QAbstractItemView::NoSelection);
  verdict_tree_->setHeaderHidden(true);
  tabs_->addTab(vertical_split(verdict_matrix_, verdict_tree_, 1, 3), tr("Verdicts"));
  kernels_ = new KernelDiffPanel;
  tabs_->addTab(kernels_, tr("Kernels"));
  timelines_ = new AlignedTimelines;
  tabs_->addTab(timelines_, tr("Timelines"));
  for (int i = 0; i < tabs_->count(); ++i) tabs_->setTabToolTip(i, tabs_->tabText(i).replace("&&", "&"));
  tabs_->setEnabled(false);
  layout->addWidget(tabs_, 1);
  setState(State::empty, tr("Choose two or more sessions to compare."));
}

CompareView::~CompareView() { pending_.clear(); }  // cancels and joins the loads

void CompareView::openSessions(const QStringList& paths) {
  std::vector<CompareInput> inputs;
  for (const QString& p : paths) inputs.push_back({QString(), p, nullptr});
  setInputs(inputs);
}

void CompareView::setInputs(const std::vector<CompareInput>& inputs) {
  ++generation_;
  pending_.clear();
  comparison_.reset();
  stores_.clear();
  error_.clear();
  updateErrorLine();
  for (const CompareInput& in : inputs) {
    auto p = std::make_unique<Pending>();
    p->input = in;
    if (p->input.label.isEmpty()) p->input.label = in.path;
    if (in.store) p->store = in.store, p->done = true, p->fraction = 1;
    pending_.push_back(std::move(p));
  }
  QStringList names;
  for (int i = 0; i < static_cast<int>(pending_.size()); ++i) names << short_session_label(pending_[static_cast<std::size_t>(i)]->input.label);
  header_->setText(tr("Comparing %1").arg(names.join(", ")));
  startLoads();
}

void CompareView::startLoads() {
  int loading = 0;
  for (auto& pp : pending_) {
    Pending* p = pp.get();
    if (p->done) continue;
    p->loader = std::make_unique<SessionLoader>();
    connect(p->loader.get(), &SessionLoader::progress, this, [this, p](qint64 done, qint64 total) {
      p->fraction = total > 0 ? std::clamp(static_cast<double>(done) / total, 0.0, 1.0) : 0.0;
      onLoadProgress();
    });
    connect(p->loader.get(), &SessionLoader::loaded, this, [this, p](const SessionReplay& r) {
      p->store = r.store, p->done = true, p->fraction = 1;
      onOneFinished();
    });
    connect(p->loader.get(), &SessionLoader::failed, this, [this, p](const QString& message, bool cancelled) {
      p->error = QString(message).replace('\n', ' ');
      p->cancelled = cancelled;
      p->done = true, p->fraction = 1;
      onOneFinished();
    });
    p->loader->start(p->input.path);
    ++loading;
  }
  if (loading == 0) {
    onOneFinished();
    return;
  }
  setState(State::loading, loading == 1 ? tr("Loading 1 session…") : tr("Loading %1 sessions…").arg(loading));
  onLoadProgress();
}

void CompareView::cancel() {
  for (auto& p : pending_)
    if (p->loader && p->loader->isLoading()) p->loader->cancel();
}

void CompareView::onLoadProgress() {
  if (pending_.empty()) return;
  double sum = 0;
  for (const auto& p : pending_) sum += p->fraction;
  const int percent = static_cast<int>(sum / pending_.size() * 100);
  progress_->setValue(percent);
  emit loadProgress(percent);
}

void CompareView::onOneFinished() {
  onLoadProgress();
  for (const auto& p : pending_)
    if (!p->done) return;
  startCompare();
}

void CompareView::startCompare() {
  QStringList errors;
  bool cancelled = false;
  std::vector<std::shared_ptr<const prof::EventStore>> stores;
  std::vector<std::string> labels;
  for (const auto& p : pending_) {
    cancelled = cancelled || p->cancelled;
    if (!p->error.isEmpty() && !p->cancelled) errors << p->error;
    if (p->store) stores.push_back(p->store), labels.push_back(p->input.label.toStdString());
  }
  if (!errors.isEmpty())
    error_ = tr("Could not open %1 of %2 sessions: %3").arg(errors.size()).arg(pending_.size()).arg(errors.join("; "));
  updateErrorLine();
  if (cancelled) {
    setState(State::failed, tr("Loading cancelled."));
    emit failed(status_text_);
    return;
  }
  if (stores.empty()) {
    setState(State::failed, pending_.empty() ? tr("No sessions to compare.") : tr("No session could be opened."));
    emit failed(error_.isEmpty() ? status_text_ : error_);
    return;
  }
  setState(State::comparing, stores.size() == 1 ? tr("Reading 1 session…") : tr("Comparing %1 sessions…").arg(stores.size()));
  const int generation = generation_;
  post_job<CompareResult>(
      this,
      [stores, labels]() {
        CompareResult r;
        try {
          std::vector<const prof::EventStore*> raw;
          for (const auto& s : stores) raw.push_back(s.get());
          r.comparison = std::make_shared<pc::Comparison>(
              raw.size() >= 2 ? pc::compare(raw, labels) : single_session(*raw[0], labels[0], pc::Options{}));
        } catch (const std::exception& e) {
          r.error = QString::fromStdString(e.what());
        }
        return r;
      },
      [this, generation, stores](CompareResult r) {
        if (generation != generation_) return;  // a newer request replaced this one
        if (!r.comparison) {
          setState(State::failed, tr("Comparing failed: %1").arg(r.error));
          emit failed(status_text_);
          return;
        }
        showComparison(std::move(r.comparison), stores);
      });
}

void CompareView::showComparison(std::shared_ptr<pc::Comparison> c,
                                 std::vector<std::shared_ptr<const prof::EventStore>> stores) {
  comparison_ = std::move(*c);
  stores_ = std::move(stores);
  const pc::Comparison& cmp = *comparison_;
  const int n = static_cast<int>(cmp.sessions.size());
  QStringList names, headers;
  for (int i = 0; i < n; ++i) {
    headers << session_header(cmp, i);
    names << QStringLiteral("<b>%1</b> %2%3")
                 .arg(session_letter(i), short_session_label(QString::fromStdString(cmp.sessions[static_cast<std::size_t>(i)].label)).toHtmlEscaped(),
                      i == 0 && n > 1 ? tr(" (baseline)") : QString());
  }
  QString head = names.join(QStringLiteral(" &nbsp;·&nbsp; "));
  if (cmp.slowest_rank_session >= 0) {  // ranks of one job: the one every other waits for
    const auto& r = cmp.sessions[static_cast<std::size_t>(cmp.slowest_rank_session)].report;
    head += tr(" &nbsp;—&nbsp; <b>slowest rank: %1 (rank %2)</b>, own work %3 ms/step, %4× the other ranks'")
                .arg(session_letter(cmp.slowest_rank_session))
                .arg(r.rank)
                .arg(QString::fromStdString(pc::ms_text(static_cast<double>(cmp.slowest_own_work_ns))))
                .arg(cmp.slowest_over_fastest, 0, 'f', 2);
  }
  const QString headline = compare_headline(cmp);
  // Leading between the lines: at the font's own line height the names' underscores touched the
  // bold headline under them.
  header_->setText(QStringLiteral("<div style='line-height:125%'>%1</div>")
                       .arg(headline.isEmpty() ? head : head + QStringLiteral("<br>") + headline));
  QStringList paths;
  for (const auto& s : cmp.sessions) paths << QString::fromStdString(s.label);
  for (int i = 0; i < n; ++i)  // what the headline's ⚠ says, in the runner's words
    if (const std::string note = pc::first_steps_note(session_letter(i).toStdString(), cmp.sessions[static_cast<std::size_t>(i)].throughput);
        !note.empty())
      paths << QString::fromStdString(note);
  header_->setToolTip(paths.join('\n'));

  fill_config_table(config_, cmp);
  fill_sessions_table(sessions_, cmp);
  config_->setVisible(config_->rowCount() > 0);
  config_note_->setText(n < 2 ? tr("One session: nothing to compare the configuration with.")
                        : cmp.config.empty()
                            ? tr("The configuration, model, device, versions and host are the same in every session.")
                            : tr("Only what differs or is not recorded (unknown) (%1) of run.config, the model spec and the device, versions and host; "
                                 "values that differ from A in bold.")
                                  .arg(cmp.config.size() == 1 ? tr("1 field") : tr("%1 fields").arg(cmp.config.size())));
  fill_throughput_table(throughput_, cmp);
  throughput_chart_->setComparison(cmp);
  breakdown_->setComparison(cmp);
  fill_breakdown_table(breakdown_table_, cmp);
  fill_verdict_matrix(verdict_matrix_, cmp);
  fill_verdict_tree(verdict_tree_, cmp, cuda_gpu_here_);
  for (QTableWidget* t : {config_, sessions_, throughput_, breakdown_table_, verdict_matrix_}) fit_table_height(t);
  kernels_->setComparison(cmp);
  timelines_->setSessions(stores_, headers, cmp.aligned_step);
  // A first comparison opens on what changed (throughput and accuracy), not on the configuration.
  if (!tabs_->isEnabled() && n > 1) tabs_->setCurrentIndex(1);
  tabs_->setEnabled(true);
  setState(State::ready, n > 1 ? tr("%1 sessions compared (A is the baseline; %2 warm-up step(s) left out of each).")
                                     .arg(n)
                                     .arg(cmp.options.warmup_steps)
                               : tr("One session shown (no other session to compare with)."));
  emit ready();
}

QString CompareView::headerText() const { return header_->text(); }

QString compare_headline(const pc::Comparison& c) {
  QStringList lines;
  const auto& a = c.sessions.front();
  for (std::size_t i = 1; i < c.sessions.size(); ++i) {
    const auto& b = c.sessions[i];
    const QString letter = session_letter(static_cast<int>(i));
    QString line;
    // The figures the Throughput table, the chart and the lessons show (compare.h), by their labels.
    const auto &ra = a.throughput.training.img_per_s, &rb = b.throughput.training.img_per_s;
    if (ra && rb && *ra > 0) {
      line = QObject::tr("<b>%1: %2× A's %3</b>: %4 vs %5")
                 .arg(letter)
                 .arg(*rb / *ra, 0, 'f', 2)
                 .arg(training_rate_label().toHtmlEscaped(), QString::fromStdString(pc::training_rate_text(b.throughput)),
                      QString::fromStdString(pc::training_rate_text(a.throughput)));
    } else {
      line = QObject::tr("<b>%1</b>: throughput not recorded in both").arg(letter);
    }
    if (a.throughput.mean_step_ns && b.throughput.mean_step_ns)  // as the Throughput table writes them
      line += QObject::tr(", %1 %2 vs %3 ms")
                  .arg(host_step_label(), QString::fromStdString(pc::ms_text(*b.throughput.mean_step_ns)),
                       QString::fromStdString(pc::ms_text(*a.throughput.mean_step_ns)));
    QStringList gained, lost;
    auto has = [](const prof::analysis::Report& r, const std::string& id) {
      return std::any_of(r.verdicts.begin(), r.verdicts.end(), [&](const auto& v) { return v.id == id; });
    };
    for (const auto& v : b.report.verdicts)
      if (!has(a.report, v.id)) gained << verdict_short_name(v.id);
    for (const auto& v : a.report.verdicts)
      if (!has(b.report, v.id)) lost << verdict_short_name(v.id);
    if (!gained.isEmpty()) line += QObject::tr("; new verdicts: %1").arg(gained.join(", "));
    if (!lost.isEmpty()) line += QObject::tr("; gone: %1").arg(lost.join(", "));
    lines << line;
  }
  return lines.join(QStringLiteral("<br>"));
}

void CompareView::setState(State s, const QString& status) {
  state_ = s;
  status_text_ = status;
  status_->setText(status);
  const bool loading = s == State::loading;
  progress_->setVisible(loading);
  cancel_->setVisible(loading);
  if (s != State::ready) tabs_->setEnabled(false);
}

QString CompareView::statusText() const { return status_text_; }

void CompareView::updateErrorLine() {
  error_label_->setText(error_);
  error_label_->setToolTip(error_);
  error_label_->setVisible(!error_.isEmpty());
}

void CompareView::setCudaGpuHere(bool present) {
  if (present == cuda_gpu_here_) return;
  cuda_gpu_here_ = present;
  if (comparison_) fill_verdict_tree(verdict_tree_, *comparison_, cuda_gpu_here_);
}

}  // namespace ts::gui
