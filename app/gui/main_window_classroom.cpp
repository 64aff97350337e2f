// Classroom mode (View ▸ Classroom mode): for a teacher at a projector. The application
// font grows by a chosen scale (×1.5 by default, View ▸ Classroom font size, kept in QSettings
// "classroom/scale"); a high-contrast presenter palette replaces the desktop's; the Run settings show
// only the knobs of the lesson last shown (as TensorFlow Playground hides what a lesson does not
// use); the Profile workspace shows the timeline at full width and the lesson window gives Compare
// most of its width. Leaving it puts the font, palette, knobs and workspace back.
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QSettings>

#include "app/gui/main_window.h"
#include "widgets/lessons/lesson_view.h"
#include "widgets/run_settings.h"
#include "widgets/workspaces/workspaces.h"

namespace ts::gui {

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

void MainWindow::buildClassroomActions(QMenu* view) {
  classroom_scale_ = QSettings().value("classroom/scale", 1.5).toDouble();
  if (classroom_scale_ < 1.0 || classroom_scale_ > 3.0) classroom_scale_ = 1.5;
  classroom_ = view->addAction(tr("&Classroom mode"));
  classroom_->setCheckable(true);
  classroom_->setShortcut(QKeySequence(tr("Ctrl+Shift+C")));
  classroom_->setToolTip(tr("Larger fonts, a high-contrast palette, only the lesson's knobs, the timeline at full width"));
  connect(classroom_, &QAction::toggled, this, &MainWindow::setClassroomMode);
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

void MainWindow::setClassroomScale(double scale) {
  classroom_scale_ = scale;
  QSettings().setValue("classroom/scale", scale);
  if (!classroom_on_) return;
  QFont f = classroom_saved_font_;
  f.setPointSizeF(classroom_saved_font_.pointSizeF() * scale);
  QApplication::setFont(f);
}

void MainWindow::setClassroomMode(bool on) {
  if (on == classroom_on_) return;
  classroom_on_ = on;
  if (classroom_->isChecked() != on) classroom_->setChecked(on);
  if (on) {
    classroom_saved_font_ = QApplication::font();
    classroom_saved_palette_ = QApplication::palette();
    classroom_saved_mode_ = static_cast<int>(workspaces_->mode());
    QApplication::setPalette(presenter_palette());
    setClassroomScale(classroom_scale_);
    workspaces_->setMode(Workspaces::Mode::profile);
  } else {
    QApplication::setFont(classroom_saved_font_);
    QApplication::setPalette(classroom_saved_palette_);
    workspaces_->setMode(static_cast<Workspaces::Mode>(classroom_saved_mode_));
  }
  applyLessonKnobs();
  if (lesson_view_) lesson_view_->setPresenting(on);
}

void MainWindow::applyLessonKnobs() {
  QStringList knobs;
  if (classroom_on_ && lesson_view_ && lesson_view_->result()) {
    const auto& l = lesson_view_->result()->record.lesson;
    for (const auto& k : l.base) knobs << QString::fromStdString(k.name);
    for (const auto& r : l.runs)
      for (const auto& k : r.knobs) knobs << QString::fromStdString(k.name);
    knobs.removeDuplicates();
  }
  settings_->setShownKnobs(knobs);
}

}  // namespace ts::gui
