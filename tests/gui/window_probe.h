// What several window tests ask of a MainWindow: open a session or a job and wait for it, count the
// timeline lanes wholly in view and a tab's table rows, and make larger jobs from the recorded rank files of tests/data/jobs.
#pragma once
#include <QAbstractItemView>
#include <QHeaderView>
#include <QStyle>
#include <QSignalSpy>
#include <QTableView>
#include <QString>
#include <sqlite3.h>

#include "app/gui/main_window.h"
#include "widgets/main/job_controller.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/main/lessons_controller.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/workspaces/profile_workspace.h"
#include "widgets/workspaces/workspaces.h"

namespace ts::gui::test {

/// Opens `path` in `w` and waits (20 s at most) until the window says it is open.
inline bool open_session(MainWindow& w, const QString& path) {
  QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
  return w.sessions()->openSession(path) && opened.wait(20000);
}

/// Shows `w` at `size` with `path` open in the Profile workspace, classroom mode as asked; false when the
/// session did not open.
inline bool open_in_profile(MainWindow& w, const QString& path, QSize size, bool classroom = false) {
  w.show();
  if (!open_session(w, path)) return false;
  w.resize(size);
  w.lessons()->setClassroomMode(classroom);
  w.workspaces()->setMode(Workspaces::Mode::profile);
  return true;
}

/// The page of the Profile workspace's tab titled `title` (its full title, shown or not); nullptr when there is none.
inline QWidget* profile_tab(MainWindow& w, const QString& title) {
  ProfileWorkspace* profile = w.workspaces()->profile();
  for (int i = 0; i < profile->tabs()->count(); ++i)
    if (profile->tabTitle(i) == title) return profile->tabs()->widget(i);
  return nullptr;
}

/// Opens the job in `paths` in `w` and waits (60 s at most) until the window shows it.
inline bool open_job(MainWindow& w, const QStringList& paths) {
  QSignalSpy opened(w.jobs(), &JobController::jobOpened);
  return w.jobs()->openJob(paths) && (opened.count() > 0 || opened.wait(60000));
}

/// tests/data/jobs/NAME in the source tree.
inline QString job_dir(const char* name) { return QStringLiteral(TRAINSCOPE_SOURCE_DIR "/tests/data/jobs/") + name; }

/// Sets rank file `path`'s meta distributed.rank to `rank` and distributed.world_size to `world`
/// (a copied rank file made another rank of a larger job); false when the file cannot be updated.
inline bool set_rank_meta(const QString& path, int rank, int world) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.toUtf8().constData(), &db) != SQLITE_OK) return sqlite3_close(db), false;
  const QByteArray sql = QStringLiteral("UPDATE meta SET value = '%1' WHERE key = 'distributed.rank'; UPDATE meta SET "
                                        "value = '%2' WHERE key = 'distributed.world_size';")
                             .arg(rank)
                             .arg(world)
                             .toUtf8();
  const bool ok = sqlite3_exec(db, sql.constData(), nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(db);
  return ok;
}

/// Lanes of `view` shown whole, below the ruler and above the bottom edge.
inline int whole_lanes(TimelineView* view) {
  int whole = 0;
  for (int lane : view->laneOrder()) {
    const QRect r = view->laneRect(lane);
    if (!r.isEmpty() && r.top() >= view->rulerHeight() && r.bottom() < view->height()) ++whole;
  }
  return whole;
}

/// Whole rows a table or tree shows in its viewport (0 when the page has neither).
inline int visible_rows(QWidget* page) {
  auto* view = qobject_cast<QAbstractItemView*>(page);
  if (!view) view = page->findChild<QAbstractItemView*>();
  if (!view || !view->isVisible()) return -1;
  int row_h = 0;
  if (auto* t = qobject_cast<QTableView*>(view)) row_h = t->verticalHeader()->defaultSectionSize();
  else row_h = view->sizeHintForRow(0) > 0 ? view->sizeHintForRow(0) : view->fontMetrics().height() + 4;
  // The part of the viewport on screen: a page in a scroll area shows only some of its table.
  return view->viewport()->visibleRegion().boundingRect().height() / std::max(1, row_h);
}

/// The shown columns of `view` whose header section is narrower than its text (each line of it) at the
/// header's font and the style's header margins, as "TEXT (W < NEED px)"; "" when every one is whole.
inline QString cut_headers(const QTableView* view) {
  const QHeaderView* h = view->horizontalHeader();
  const QFontMetrics fm = h->fontMetrics();
  const int margins = 2 * h->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, h);
  QStringList cut;
  for (int i = 0; i < h->count(); ++i) {
    if (h->isSectionHidden(i)) continue;
    const QString text = view->model()->headerData(i, Qt::Horizontal).toString();
    int need = 0;
    for (const QString& line : text.split('\n')) need = std::max(need, fm.horizontalAdvance(line));
    if (h->sectionSize(i) < need + margins) cut << QString("%1 (%2 < %3 px)").arg(text).arg(h->sectionSize(i)).arg(need + margins);
  }
  return cut.join(", ");
}

}  // namespace ts::gui::test
