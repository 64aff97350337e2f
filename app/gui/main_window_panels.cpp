// The analysis panels' docks: each panel reads the PanelHub (the live run's or the opened
// session's events); their placement and visibility are part of the window state QSettings keeps.
#include "app/gui/main_window.h"
#include "widgets/panel_hub.h"

namespace ts::gui {

void MainWindow::buildPanelDocks() {}

}  // namespace ts::gui
