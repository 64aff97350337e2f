// The analysis panels' docks (issue #6): Timeline and Memory / Utilization along the bottom (one
// linked time axis through the PanelHub), Verdicts, Step breakdown, Kernels and Layers tabbed with
// the training charts, and the verdict banner as a toolbar row. Every panel reads the PanelHub: the
// live run's events, or the opened session's; the layout is part of the window state QSettings keeps.
#include <QDockWidget>
#include <QToolBar>

#include "app/gui/main_window.h"
#include "widgets/panel_hub.h"
#include "widgets/panels/breakdown_chart.h"
#include "widgets/panels/kernel_table.h"
#include "widgets/panels/layer_time_table.h"
#include "widgets/panels/memory_graph.h"
#include "widgets/panels/utilization_panel.h"
#include "widgets/panels/verdict_panel.h"
#include "widgets/timeline/timeline_panel.h"

namespace ts::gui {

std::vector<QDockWidget*> MainWindow::buildPanelDocks(QDockWidget* charts_dock) {
  auto dock = [this](const QString& title, const QString& name, QWidget* w, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(w);
    d->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable | QDockWidget::DockWidgetClosable);
    addDockWidget(area, d);
    return d;
  };
  timeline_ = new TimelinePanel(hub_);
  verdicts_ = new VerdictPanel(hub_);
  auto* timeline = dock(tr("Timeline"), "dock.timeline", timeline_, Qt::BottomDockWidgetArea);
  auto* memory = dock(tr("Memory"), "dock.memory", new MemoryGraph(hub_), Qt::BottomDockWidgetArea);
  auto* utilization = dock(tr("Utilization"), "dock.utilization", new UtilizationPanel(hub_), Qt::BottomDockWidgetArea);
  auto* verdicts = dock(tr("Verdicts"), "dock.verdicts", verdicts_, Qt::RightDockWidgetArea);
  auto* breakdown = dock(tr("Step breakdown"), "dock.step_breakdown", new BreakdownChart(hub_), Qt::RightDockWidgetArea);
  auto* kernels = dock(tr("Kernels"), "dock.kernels", new KernelTable(hub_), Qt::RightDockWidgetArea);
  auto* layers = dock(tr("Layers"), "dock.layers", new LayerTimeTable(hub_), Qt::RightDockWidgetArea);
  for (auto* d : {verdicts, breakdown, kernels, layers, session_dock_}) tabifyDockWidget(charts_dock, d);
  charts_dock->raise();
  splitDockWidget(timeline, memory, Qt::Horizontal);
  tabifyDockWidget(memory, utilization);
  memory->raise();
  resizeDocks({timeline, memory}, {900, 500}, Qt::Horizontal);
  resizeDocks({timeline}, {330}, Qt::Vertical);

  auto* bar = new QToolBar(tr("Verdict"), this);
  bar->setObjectName("toolbar.verdict");
  bar->setMovable(false);
  banner_ = new VerdictBanner(verdicts_);
  bar->addWidget(banner_);
  addToolBarBreak();
  addToolBar(bar);
  connect(banner_, &VerdictBanner::detailsRequested, this, [verdicts] {
    verdicts->show();
    verdicts->raise();
  });
  return {timeline, memory, utilization, verdicts, breakdown, kernels, layers};
}

}  // namespace ts::gui
