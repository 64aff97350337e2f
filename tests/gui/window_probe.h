// What several window tests ask of a MainWindow: open a session or a job and wait for it, and count
// the timeline lanes wholly in view.
#pragma once
#include <QSignalSpy>
#include <QString>

#include "app/gui/main_window.h"
#include "widgets/main/job_controller.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/timeline/timeline_view.h"

namespace ts::gui::test {

/// Opens `path` in `w` and waits (20 s at most) until the window says it is open.
inline bool open_session(MainWindow& w, const QString& path) {
  QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
  return w.sessions()->openSession(path) && opened.wait(20000);
}

/// Opens the job in `paths` in `w` and waits (60 s at most) until the window shows it.
inline bool open_job(MainWindow& w, const QStringList& paths) {
  QSignalSpy opened(w.jobs(), &JobController::jobOpened);
  return w.jobs()->openJob(paths) && (opened.count() > 0 || opened.wait(60000));
}

/// Lanes of `view` shown whole, below the ruler and above the bottom edge.
inline int whole_lanes(TimelineView* view) {
  int whole = 0;
  for (int lane : view->laneOrder()) {
    const QRect r = view->laneRect(lane);
    if (!r.isEmpty() && r.top() >= TimelineView::kRulerHeight && r.bottom() < view->height()) ++whole;
  }
  return whole;
}

}  // namespace ts::gui::test
