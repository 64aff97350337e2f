// The main window's lessons and classroom mode (lessons_controller.cpp). The Lessons
// menu: each built-in lesson is one click — it trains where this machine has the lesson's devices,
// else opens its recording — and ends in a LessonView window, the story beside the Compare view of
// its runs; Lessons ▸ Lessons… lists them with the teacher's own files. View ▸ Classroom mode: for a
// teacher at a projector (a larger font, presenter_palette(), only the lesson's knobs in Run
// settings, the Profile workspace); leaving it puts the font, palette, knobs and workspace back.
#pragma once
#include <QFont>
#include <QObject>
#include <QPalette>
#include <QString>

class QAction;
class QMenu;

namespace ts::gui {

class LessonsPanel;
class LessonView;
class MainFrame;

/// Classroom mode's presenter palette: black on white, dark blue highlight, every text/background
/// pair at a contrast ratio >= 7:1 (WCAG 2.1, 1.4.6), disabled text >= 4.5:1.
QPalette presenter_palette();

class LessonsController : public QObject {
  Q_OBJECT
 public:
  LessonsController(MainFrame& frame, QObject* parent);

  /// Fills the Lessons menu: Lessons…, one entry per built-in lesson, Open a lesson's recording….
  void buildMenu(QMenu* menu);
  /// Adds Classroom mode and Classroom font size to the View menu (the scale from QSettings
  /// "classroom/scale", 1.5 where missing or outside 1 .. 3).
  void buildClassroomActions(QMenu* view);
  QMenu* menu() const { return menu_; }
  /// The Lessons window, created on first use, shown and raised.
  LessonsPanel* showLessonsPanel();
  /// The Lessons window (nullptr until first shown).
  LessonsPanel* lessonsPanel() const { return panel_; }
  /// The window that shows a finished lesson (nullptr until one was shown).
  LessonView* lessonView() const { return view_; }
  /// Runs built-in lesson `name` (or opens its recording, where a device is missing or
  /// `recorded_only`); false for an unknown name. The result opens in lessonView().
  bool runLesson(const QString& name, bool recorded_only = false);
  /// Shows the lesson folder `dir` in lessonView() (`recorded_note`: "" for a live lesson).
  void showLesson(const QString& dir, const QString& recorded_note);

  QAction* classroomAction() const { return classroom_; }
  /// Enters or leaves classroom mode: the font ×classroomScale(), presenter_palette(), only the shown
  /// lesson's knobs in Run settings, the Profile workspace, the lesson window's Compare wider.
  void setClassroomMode(bool on);
  /// The classroom font scale (1.25 .. 2; kept in QSettings); applied at once while in classroom mode.
  void setClassroomScale(double scale);
  bool classroomMode() const { return classroom_on_; }
  double classroomScale() const { return classroom_scale_; }

 private:
  /// Run settings show the shown lesson's knobs in classroom mode, every knob otherwise.
  void applyLessonKnobs();
  /// The application font and, by scale_texts(), the plots' texts at `scale` (1: the saved font).
  void setTextScale(const QFont& app_font, double scale);

  MainFrame& frame_;
  QMenu* menu_ = nullptr;
  LessonsPanel* panel_ = nullptr;
  LessonView* view_ = nullptr;
  QAction* classroom_ = nullptr;
  bool classroom_on_ = false;
  double classroom_scale_ = 1.5;
  QFont saved_font_;
  QPalette saved_palette_;
  int saved_mode_ = 0;
  bool saved_details_ = true;
  double applied_scale_ = 1.0;  // the scale the plots' texts are at now
};

}  // namespace ts::gui
