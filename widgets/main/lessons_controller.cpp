// LessonsController: the Lessons menu: each built-in lesson is one click — it trains where this machine has
// the lesson's devices, else opens its recording — and ends in a LessonView window, the story
// beside the Compare view of its runs. Lessons ▸ Lessons… lists them with the teacher's own files.
// Classroom mode (View ▸ Classroom mode), for a teacher at a projector: the application font grows
// by a chosen scale (×1.5 by default, View ▸ Classroom font size, kept in QSettings
// "classroom/scale"); a high-contrast presenter palette replaces the desktop's; the Run settings show
// only the knobs of the lesson last shown (as TensorFlow Playground hides what a lesson does not
// use); the Profile workspace shows the timeline at full width and the lesson window gives Compare
// most of its width. Leaving it puts the font, palette, knobs and workspace back.
#include "widgets/main/lessons_controller.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QSettings>
#include <QTimer>

#include "widgets/compare/compare_view.h"
#include "widgets/lessons/lesson_view.h"
#include "widgets/lessons/lessons_panel.h"
#include "widgets/main/main_frame.h"
#include "widgets/main/shortcuts.h"
#include "widgets/training/run_settings.h"
#include "widgets/common/text_scale.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/workspaces/profile_workspace.h"
#include "widgets/workspaces/workspaces.h"

namespace ts::gui {

LessonsController::LessonsController(MainFrame& frame, QObject* parent) : QObject(parent), frame_(frame) {}

void LessonsController::buildMenu(QMenu* menu) {
  menu_ = menu;
  auto* panel = menu->addAction(tr("&Lessons…"), this, [this] { showLessonsPanel(); });
  set_shortcut(panel, ShortcutId::lessons);
  panel->setToolTip(tr("The built-in lessons and your own lesson files: run one, or open its recording"));
  menu->addSeparator();
  const auto& all = lessons::builtin_lessons();
  for (std::size_t i = 0; i < all.size(); ++i) {
    const QString name = QString::fromStdString(all[i].name);
    QAction* a = menu->addAction(QStringLiteral("&%1. %2").arg(i + 1).arg(QString::fromStdString(all[i].title)),
                                 this, [this, name] { runLesson(name); });
    a->setObjectName("lesson." + name);
    a->setToolTip(QString::fromStdString(all[i].story.empty() ? all[i].title : all[i].story.front()));
  }
  menu->addSeparator();
  menu->addAction(tr("Open a lesson's &recording…"), this, [this] {
    showLessonsPanel();
    panel_->runSelected(QString(), true);
  });
}

LessonsPanel* LessonsController::showLessonsPanel() {
  if (!panel_) {
    panel_ = new LessonsPanel(frame_.frameWindow());
    panel_->setWindowFlag(Qt::Window);
    frame_.fitToolWindow(panel_, QSize(900, 560));
    connect(panel_, &LessonsPanel::runRequested, this, [this](bool recorded_only) {
      panel_->runSelected(frame_.runSettings()->settings().data_dir, recorded_only);
    });
    connect(panel_, &LessonsPanel::lessonReady, this, &LessonsController::showLesson);
  }
  panel_->show();
  panel_->raise();
  return panel_;
}

bool LessonsController::runLesson(const QString& name, bool recorded_only) {
  LessonsPanel* p = showLessonsPanel();
  if (!p->select(name)) return false;
  p->runSelected(frame_.runSettings()->settings().data_dir, recorded_only);
  return true;
}

void LessonsController::showLesson(const QString& dir, const QString& recorded_note) {
  if (!view_) {
    view_ = new LessonView(frame_.frameWindow());
    view_->compareView()->setCudaGpuHere(!frame_.gpus().empty());  // its fixes in the Verdicts tab's words
    view_->setWindowFlag(Qt::Window);
    connect(view_, &LessonView::ready, this, &LessonsController::applyLessonKnobs);
  }
  view_->setPresenting(classroom_on_);
  view_->showLesson(dir, recorded_note);
  // Opened (or opened again after a close) in the main window's place; one already open stays where
  // the user has it.
  if (!view_->isVisible()) frame_.showOverFrame(view_);
  view_->raise();
}

QPalette presenter_palette() {
  // Pure black on white, with a dark blue highlight: every text/background pair keeps a contrast
  // ratio of at least 7:1 (WCAG 2.1, criterion 1.4.6 "Contrast (Enhanced)"), which a washed-out
  // projector can lose half of and still stay readable (4.5:1, criterion 1.4.3).
  QPalette p;
  const QColor white(0xff, 0xff, 0xff), black(0x00, 0x00, 0x00), blue(0x00, 0x2b, 0x80);
  for (auto group : {QPalette::Active, QPalette::Inactive}) {
    p.setColor(group, QPalette::Window, white);
    p.setColor(group, QPalette::WindowText, black);
    p.setColor(group, QPalette::Base, white);
    p.setColor(group, QPalette::AlternateBase, QColor(0xf2, 0xf2, 0xf2));
    p.setColor(group, QPalette::Text, black);
    p.setColor(group, QPalette::Button, QColor(0xe6, 0xe6, 0xe6));
    p.setColor(group, QPalette::ButtonText, black);
    p.setColor(group, QPalette::Highlight, blue);
    p.setColor(group, QPalette::HighlightedText, white);
    p.setColor(group, QPalette::ToolTipBase, white);
    p.setColor(group, QPalette::ToolTipText, black);
    p.setColor(group, QPalette::Link, blue);
    p.setColor(group, QPalette::PlaceholderText, QColor(0x40, 0x40, 0x40));
  }
  // Disabled text stays legible (5.7:1 on white), not the usual pale grey.
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, role, QColor(0x6a, 0x6a, 0x6a));
  p.setColor(QPalette::Disabled, QPalette::Window, white);
  p.setColor(QPalette::Disabled, QPalette::Base, white);
  p.setColor(QPalette::Disabled, QPalette::Button, QColor(0xe6, 0xe6, 0xe6));
  return p;
}

void LessonsController::buildClassroomActions(QMenu* view) {
  classroom_scale_ = QSettings().value("classroom/scale", 1.5).toDouble();
  if (classroom_scale_ < 1.0 || classroom_scale_ > 3.0) classroom_scale_ = 1.5;
  classroom_ = view->addAction(tr("&Classroom mode"));
  classroom_->setCheckable(true);
  set_shortcut(classroom_, ShortcutId::classroom_mode);
  classroom_->setToolTip(tr("Larger fonts, a high-contrast palette, only the lesson's knobs, the timeline at full width"));
  connect(classroom_, &QAction::toggled, this, &LessonsController::setClassroomMode);
  QMenu* sizes = view->addMenu(tr("Classroom font size"));
  auto* group = new QActionGroup(sizes);
  for (double s : {1.25, 1.5, 1.75, 2.0}) {
    QAction* a = sizes->addAction(QStringLiteral("×%1").arg(s));
    a->setCheckable(true);
    a->setChecked(qFuzzyCompare(s, classroom_scale_));
    group->addAction(a);
    connect(a, &QAction::triggered, this, [this, s] { setClassroomScale(s); });
  }
}

void LessonsController::setClassroomScale(double scale) {
  classroom_scale_ = scale;
  QSettings().setValue("classroom/scale", scale);
  if (!classroom_on_) return;
  QFont f = saved_font_;
  f.setPointSizeF(saved_font_.pointSizeF() * scale);
  setTextScale(f, scale);
}

void LessonsController::setTextScale(const QFont& app_font, double scale) {
  QApplication::setFont(app_font);
  scale_texts(applied_scale_, scale);  // the plots' texts, which do not follow the application font
  applied_scale_ = scale;
}

void LessonsController::setClassroomMode(bool on) {
  if (on == classroom_on_) return;
  classroom_on_ = on;
  if (classroom_->isChecked() != on) classroom_->setChecked(on);
  if (on) {
    saved_font_ = QApplication::font();
    saved_palette_ = QApplication::palette();
    saved_mode_ = static_cast<int>(frame_.workspaces()->mode());
    QApplication::setPalette(presenter_palette());
    setClassroomScale(classroom_scale_);
    frame_.workspaces()->setMode(Workspaces::Mode::profile);
    // The timeline at the window's full width: the details pane (the selection's) comes back with
    // the toolbar's Details button, or when the mode ends.
    TimelinePanel* timeline = frame_.workspaces()->profile()->timeline();
    saved_details_ = timeline->detailsVisible();
    timeline->setDetailsVisible(false);
    // Again after the Profile workspace's first layout (queued when it first shows), which opens it.
    QTimer::singleShot(0, this, [this] {
      if (classroom_on_) frame_.workspaces()->profile()->timeline()->setDetailsVisible(false);
    });
  } else {
    frame_.workspaces()->profile()->timeline()->setDetailsVisible(saved_details_);
    setTextScale(saved_font_, 1.0);
    QApplication::setPalette(saved_palette_);
    // Back to the workspace the mode started from, unless the teacher chose another meanwhile (one
    // that went to Side by side during the class stayed there, not on Profile).
    if (frame_.workspaces()->mode() == Workspaces::Mode::profile)
      frame_.workspaces()->setMode(static_cast<Workspaces::Mode>(saved_mode_));
  }
  applyLessonKnobs();
  if (view_) view_->setPresenting(on);
}

void LessonsController::applyLessonKnobs() {
  QStringList knobs;
  if (classroom_on_ && view_ && view_->result()) {
    const auto& l = view_->result()->record.lesson;
    for (const auto& k : l.base) knobs << QString::fromStdString(k.name);
    for (const auto& r : l.runs)
      for (const auto& k : r.knobs) knobs << QString::fromStdString(k.name);
    knobs.removeDuplicates();
  }
  frame_.runSettings()->setShownKnobs(knobs);
}


}  // namespace ts::gui
