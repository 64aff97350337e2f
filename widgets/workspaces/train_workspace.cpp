// TrainWorkspace: model builder and run settings beside the training charts.
#include "widgets/workspaces/train_workspace.h"

#include <QDataStream>
#include <QHBoxLayout>
#include <QScrollArea>
#include <QSplitter>

#include "widgets/common/wheel_guard.h"
#include "widgets/workspaces/layout_state.h"

namespace ts::gui {

TrainWorkspace::TrainWorkspace(QWidget* model, QWidget* settings, QWidget* charts, QWidget* parent) : QWidget(parent) {
  setObjectName("workspace.train");
  scroll_ = new QScrollArea;
  scroll_->setObjectName("train.settings_scroll");
  scroll_->setWidget(settings);
  install_wheel_guard(settings);  // the wheel scrolls the form, never an unfocused field
  scroll_->setWidgetResizable(true);
  scroll_->setFrameShape(QFrame::NoFrame);
  // The form scrolls instead of setting the window's minimum height.
  scroll_->setMinimumHeight(120);
  left_ = new QSplitter(Qt::Vertical);
  left_->setObjectName("train.left");
  left_->addWidget(model);
  left_->addWidget(scroll_);
  left_->setChildrenCollapsible(false);
  split_ = new QSplitter(Qt::Horizontal);
  split_->setObjectName("train.main");
  split_->addWidget(left_);
  split_->addWidget(charts);
  split_->setChildrenCollapsible(false);
  split_->setStretchFactor(0, 0);
  split_->setStretchFactor(1, 1);
  auto* lay = new QHBoxLayout(this);
  lay->setContentsMargins(0, 0, 0, 0);
  lay->addWidget(split_);
}

void TrainWorkspace::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (!sized_) resetLayout();  // the first show knows the real size
}

void TrainWorkspace::resetLayout() {
  sized_ = true;
  const int w = std::max(width(), 800), h = std::max(height(), 400);
  // Left column: 45 % of the width (the model table's six columns), at most 700 px.
  const int left = std::min(700, w * 45 / 100);
  split_->setSizes({left, w - left});
  // Model table over the settings form: 42 % / 58 %.
  left_->setSizes({h * 42 / 100, h - h * 42 / 100});
}

void TrainWorkspace::setChartsOnly(bool charts_only) {
  if (charts_only == charts_only_) return;
  if (charts_only) shown_layout_ = save_splitters({split_, left_});
  charts_only_ = charts_only;
  left_->setVisible(!charts_only);
  if (!charts_only && !shown_layout_.isEmpty()) restore_splitters(shown_layout_, {split_, left_});
  // Before the first show no layout request runs: the layouts above would keep the minimum
  // width cached with the column (the window opened 1619 px wide on a 1280 px screen).
  split_->updateGeometry();
  updateGeometry();
}

QByteArray TrainWorkspace::saveLayout() const { return charts_only_ ? shown_layout_ : save_splitters({split_, left_}); }

bool TrainWorkspace::restoreLayout(const QByteArray& state) {
  if (!restore_splitters(state, {split_, left_})) return false;
  // QSplitter's state holds which children were hidden: the column follows the mode, not the state.
  left_->setVisible(!charts_only_);
  if (charts_only_) shown_layout_ = state;
  sized_ = true;
  return true;
}

}  // namespace ts::gui
