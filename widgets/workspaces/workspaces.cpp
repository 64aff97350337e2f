// Workspaces: Train / Profile / side by side, layouts kept per workspace.
#include "widgets/workspaces/workspaces.h"

#include <QAction>
#include <QActionGroup>
#include <QHBoxLayout>
#include <QSettings>
#include <QSplitter>

#include "widgets/main/shortcuts.h"
#include "widgets/workspaces/profile_workspace.h"
#include "widgets/workspaces/train_workspace.h"

namespace ts::gui {

QString mode_name(Workspaces::Mode m) {
  switch (m) {
    case Workspaces::Mode::train: return "train";
    case Workspaces::Mode::profile: return "profile";
    case Workspaces::Mode::both: return "both";
    case Workspaces::Mode::playground: return "playground";
  }
  return "train";
}

bool mode_from_name(const QString& name, Workspaces::Mode& out) {
  using M = Workspaces::Mode;
  for (auto m : {M::train, M::profile, M::both, M::playground})
    if (name == mode_name(m)) return out = m, true;
  return false;
}

Workspaces::Workspaces(TrainWorkspace* train, ProfileWorkspace* profile, QWidget* parent)
    : QWidget(parent), train_(train), profile_(profile) {
  setObjectName("workspaces");
  split_ = new QSplitter(Qt::Horizontal);
  split_->setObjectName("workspaces.split");
  split_->addWidget(train_);
  split_->addWidget(profile_);
  split_->setChildrenCollapsible(false);
  auto* lay = new QHBoxLayout(this);
  lay->setContentsMargins(0, 0, 0, 0);
  lay->addWidget(split_);
  group_ = new QActionGroup(this);
  group_->setExclusive(true);
  auto make = [this](const QString& text, const QString& tip, ShortcutId key, Mode m) {
    auto* a = new QAction(text, this);
    a->setCheckable(true);
    set_shortcut(a, key);
    a->setToolTip(tip + " (" + a->shortcut().toString(QKeySequence::NativeText) + ")");
    group_->addAction(a);
    connect(a, &QAction::triggered, this, [this, m] { setMode(m); });
    return a;
  };
  train_action_ = make(tr("&Train"), tr("Set up a run and watch it train: model, run settings, training charts"),
                       ShortcutId::workspace_train, Mode::train);
  profile_action_ = make(tr("&Profile"), tr("Read a profile: timeline with memory and utilization tracks, verdicts, tables"),
                         ShortcutId::workspace_profile, Mode::profile);
  both_action_ = make(tr("&Side by side"), tr("The training charts beside the Profile workspace (the model and run settings are in Train)"),
                      ShortcutId::workspace_both, Mode::both);
  mode_ = Mode::profile;  // so that setMode applies the first mode
  setMode(Mode::train);
}

QList<QAction*> Workspaces::modeActions() const {
  QList<QAction*> all{train_action_, profile_action_, both_action_};
  if (playground_action_) all << playground_action_;
  return all;
}

void Workspaces::setPlayground(QWidget* playground) {
  if (playground_) return;
  playground_ = playground;
  split_->addWidget(playground_);
  playground_->setVisible(mode_ == Mode::playground);
  playground_action_ = new QAction(tr("Play&ground"), this);
  playground_action_->setCheckable(true);
  set_shortcut(playground_action_, ShortcutId::workspace_playground);
  playground_action_->setToolTip(tr("Teaching kernels from vector add to cuBLAS: ladders, roofline, their source") +
                                 " (" + playground_action_->shortcut().toString(QKeySequence::NativeText) + ")");
  group_->addAction(playground_action_);
  connect(playground_action_, &QAction::triggered, this, [this] { setMode(Mode::playground); });
}

void Workspaces::setMode(Mode m) {
  train_action_->setChecked(m == Mode::train);
  profile_action_->setChecked(m == Mode::profile);
  both_action_->setChecked(m == Mode::both);
  if (playground_action_) playground_action_->setChecked(m == Mode::playground);
  if (m == Mode::playground && !playground_) m = Mode::train;
  if (m == mode_) return;
  mode_ = m;
  train_->setChartsOnly(m == Mode::both);  // the charts beside the profile: both fit 1280 px
  train_->setVisible(m == Mode::train || m == Mode::both);
  profile_->setVisible(m == Mode::profile || m == Mode::both);
  if (playground_) playground_->setVisible(m == Mode::playground);
  split_->updateGeometry();  // the minimum size changed: the layouts above forget their cached one
  updateGeometry();
  if (m == Mode::both && !both_sized_) {  // the first time: the timeline gets the larger share
    both_sized_ = true;
    const int w = std::max(split_->width(), 1200);
    split_->setSizes({w * 45 / 100, w - w * 45 / 100});
  }
  emit modeChanged(m);
}

void Workspaces::resetLayout() {
  if (mode_ == Mode::both) split_->setSizes({split_->width() * 4 / 10, split_->width() * 6 / 10});
  if (mode_ == Mode::train || mode_ == Mode::both) train_->resetLayout();
  if (mode_ == Mode::profile || mode_ == Mode::both) profile_->resetLayout();
}

void Workspaces::saveSettings() const {
  QSettings s;
  s.setValue("workspaces/mode", mode_name(mode_));
  s.setValue("workspaces/train", train_->saveLayout());
  s.setValue("workspaces/profile", profile_->saveLayout());
  s.setValue("workspaces/split", split_->saveState());
}

bool Workspaces::restoreSettings() {
  QSettings s;
  bool any = train_->restoreLayout(s.value("workspaces/train").toByteArray());
  any = profile_->restoreLayout(s.value("workspaces/profile").toByteArray()) || any;
  if (split_->restoreState(s.value("workspaces/split").toByteArray())) both_sized_ = true;
  Mode m = mode_;
  if (mode_from_name(s.value("workspaces/mode").toString(), m)) any = true;
  if (m == Mode::playground && !playground_) m = Mode::train;
  mode_ = m == Mode::train ? Mode::profile : Mode::train;  // re-applies the visibility the splitter state may have changed
  setMode(m);
  return any;
}

}  // namespace ts::gui
