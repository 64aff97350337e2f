// The Profile workspace's panels: the timeline with the memory graph and
// utilization as tracks under its lanes (one linked time axis through the PanelHub, plot areas
// aligned), the analysis tabs (Verdicts, Step breakdown, Kernels, Layers, Python, Session details)
// below it, the verdict banner as a toolbar row, and the View menu (workspaces, what the Profile
// workspace shows, Reset layout). Every panel reads the PanelHub: the live run's events, or the opened session's.
// A verdict's Apply (VerdictPanel::applyRequested) sets its knobs in the Run settings for the next
// run; the message bar says in one line what changed and what this machine could not take, and why
// ("Run settings: num_workers 0 → 4, pin_memory off → on; AMP bf16 not applied: no CUDA GPU on this
// machine"). Without a CUDA GPU the verdicts do not propose the knobs that need one.
#include <QLayout>
#include <QMenuBar>
#include <QToolBar>
#include <QToolButton>

#include "app/gui/main_window.h"
#include "widgets/main/lessons_controller.h"
#include "widgets/main/program_controller.h"
#include "widgets/main/job_controller.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/panels/breakdown_chart.h"
#include "widgets/panels/kernel_table.h"
#include "widgets/panels/layer_time_table.h"
#include "widgets/panels/memory_graph.h"
#include "widgets/panels/python_lines.h"
#include "widgets/panels/utilization_panel.h"
#include "widgets/panels/verdict_panel.h"
#include "widgets/program/program_pane.h"
#include "widgets/training/run_settings.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/workspaces/profile_workspace.h"
#include "widgets/workspaces/workspaces.h"

namespace ts::gui {

ProfileWorkspace* MainWindow::buildProfileWorkspace() {
  timeline_ = new TimelinePanel(hub_);
  verdicts_ = new VerdictPanel(hub_);
  verdicts_->setCudaGpuHere(!gpus_.empty());
  // The tracks' plot areas start where the lanes' do, also when the header widens with the font.
  TimelineView* lanes = timeline_->view();
  auto* memory = new MemoryGraph(hub_);
  memory->setTrackMode(lanes->headerWidth());
  connect(lanes, &TimelineView::headerWidthChanged, memory, &MemoryGraph::setTrackLeft);
  auto* utilization = new UtilizationPanel(hub_);
  utilization->setTrackMode(lanes->headerWidth());
  connect(lanes, &TimelineView::headerWidthChanged, utilization, &UtilizationPanel::setTrackLeft);
  auto* profile = new ProfileWorkspace(timeline_, memory, utilization);
  profile->addTab(verdicts_, tr("Verdicts"), true);
  profile->addTab(new BreakdownChart(hub_), tr("Step breakdown"), true);
  profile->addTab(new KernelTable(hub_), tr("Kernels"));
  profile->addTab(new LayerTimeTable(hub_), tr("Layers"));
  profile->addTab(new PythonLinesTable(hub_, timeline_->view()), tr("Python"));
  profile->addTab(sessions_->buildDetails(), tr("Session details"));
  profile->addTab(jobs_->buildPage(timeline_), tr("Ranks"));
  profile->addTab(program_->buildPane(), tr("Program"));

  auto* bar = new QToolBar(tr("Verdict"), this);
  bar->setObjectName("toolbar.verdict");
  bar->setMovable(false);
  banner_ = new VerdictBanner(verdicts_);
  bar->addWidget(banner_);
  // The banner's two lines fill the row: the bar's margins (4 px above and below) would take from the
  // lanes more than the second line needs.
  bar->layout()->setContentsMargins(0, 0, 0, 0);
  addToolBarBreak();
  addToolBar(bar);
  // The row shows only while the banner has something to say: empty, it was a blank strip under
  // the message bar at first start. It is no user choice, so it stays off the toolbars' menu.
  bar->toggleViewAction()->setVisible(false);
  bar->setVisible(banner_->hasContent());
  connect(banner_, &VerdictBanner::contentChanged, this, &MainWindow::showVerdictRow);
  connect(banner_, &VerdictBanner::detailsRequested, this, [this, profile] {
    if (workspaces_->mode() == Workspaces::Mode::train) workspaces_->setMode(Workspaces::Mode::profile);
    profile->showTab(verdicts_);
  });
  return profile;
}

void MainWindow::buildViewMenu() {
  auto* view = menuBar()->addMenu(tr("&View"));
  for (QAction* a : workspaces_->modeActions()) view->addAction(a);
  view->addSeparator();
  ProfileWorkspace* profile = workspaces_->profile();
  auto toggle = [this, view](const QString& text, bool on, auto apply) {
    auto* a = view->addAction(text);
    a->setCheckable(true);
    a->setChecked(on);
    connect(a, &QAction::toggled, this, apply);
    return a;
  };
  QAction* details = toggle(tr("Details pane"), true, [this](bool on) { timeline_->setDetailsVisible(on); });
  connect(timeline_->detailsButton(), &QToolButton::toggled, details, &QAction::setChecked);
  QAction* tabs = toggle(tr("Analysis tabs"), true, [profile](bool on) { profile->setTabsCollapsed(!on); });
  connect(profile, &ProfileWorkspace::tabsCollapsedChanged, tabs, [tabs](bool c) { tabs->setChecked(!c); });
  toggle(tr("Memory track"), true, [profile](bool on) { profile->memoryTrack()->setVisible(on); });
  toggle(tr("Utilization track"), true, [profile](bool on) { profile->utilizationTrack()->setVisible(on); });
  // Keep the checks true to what is shown after a restored layout.
  connect(workspaces_, &Workspaces::modeChanged, this, [this, details, tabs, profile] {
    details->setChecked(timeline_->detailsVisible());
    tabs->setChecked(!profile->tabsCollapsed());
  });
  view->addSeparator();
  lessons_->buildClassroomActions(view);
  view->addSeparator();
  view->addAction(reset_layout_);
}

void MainWindow::connectFixes() {
  connect(verdicts_, &VerdictPanel::applyRequested, this,
          [this](const std::vector<prof::analysis::FixSetting>& fix, const QString& verdict) {
            // An opened session's settings are shown read only: the fix goes onto them, loaded for a
            // new run as Run again does; what this machine could not keep of them comes last.
            QStringList kept;
            if (settings_->showingSession()) sessions_->loadSessionSettings(&kept);
            RunSettings s = settings_->settings();
            const FixOutcome o = apply_fix_here(fix, s, !gpus_.empty());
            const QString session = kept.isEmpty() ? QString() : tr(" · from the session's settings, except: %1").arg(kept.join("; "));
            if (o.changed.isEmpty() && o.refused.isEmpty()) {
              showMessage(tr("Run settings already have this fix (%1)").arg(verdict) + session, false);
              return;
            }
            settings_->setSettings(s);
            const QString head = o.changed.isEmpty() ? tr("Run settings unchanged; %1").arg(o.text())
                                                     : tr("Run settings for the next run: %1").arg(o.text());
            showMessage(head + session + tr(" (fix for: %1)").arg(verdict), false);
          });
}

}  // namespace ts::gui
