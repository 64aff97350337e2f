// The Lessons menu: each built-in lesson is one click — it trains where this machine has
// the lesson's devices, else opens its recording — and ends in a LessonView window, the story
// beside the Compare view of its runs. Lessons ▸ Lessons… lists them with the teacher's own files.
#include <QAction>
#include <QMenu>
#include <QMenuBar>

#include "app/gui/main_window.h"
#include "widgets/lessons/lesson_view.h"
#include "widgets/lessons/lessons_panel.h"
#include "widgets/run_settings.h"

namespace ts::gui {

void MainWindow::buildLessonsMenu(QMenu* menu) {
  lessons_menu_ = menu;
  auto* panel = menu->addAction(tr("&Lessons…"), this, [this] { showLessonsPanel(); });
  panel->setShortcut(QKeySequence(tr("Ctrl+L")));
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
    lessons_panel_->runSelected(QString(), true);
  });
}

LessonsPanel* MainWindow::showLessonsPanel() {
  if (!lessons_panel_) {
    lessons_panel_ = new LessonsPanel(this);
    lessons_panel_->setWindowFlag(Qt::Window);
    fitToolWindow(lessons_panel_, QSize(900, 560));
    connect(lessons_panel_, &LessonsPanel::runRequested, this, [this](bool recorded_only) {
      lessons_panel_->runSelected(settings_->settings().data_dir, recorded_only);
    });
    connect(lessons_panel_, &LessonsPanel::lessonReady, this, &MainWindow::showLesson);
  }
  lessons_panel_->show();
  lessons_panel_->raise();
  return lessons_panel_;
}

bool MainWindow::runLesson(const QString& name, bool recorded_only) {
  LessonsPanel* p = showLessonsPanel();
  if (!p->select(name)) return false;
  p->runSelected(settings_->settings().data_dir, recorded_only);
  return true;
}

void MainWindow::showLesson(const QString& dir, const QString& recorded_note) {
  if (!lesson_view_) {
    lesson_view_ = new LessonView(this);
    lesson_view_->setWindowFlag(Qt::Window);
    connect(lesson_view_, &LessonView::ready, this, &MainWindow::applyLessonKnobs);
    fitToolWindow(lesson_view_, QSize(1600, 1000));
  }
  lesson_view_->setPresenting(classroom_on_);
  lesson_view_->showLesson(dir, recorded_note);
  lesson_view_->show();
  lesson_view_->raise();
}

}  // namespace ts::gui
