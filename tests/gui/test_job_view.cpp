// A distributed job in the window (widgets/job, widgets/main/job_controller): the two recorded 2-rank
// jobs of tests/data/jobs (j2_balanced, j2_straggler) and the 4-rank j4_sleeper job when
// /work/jobs-data is present (its rank files copied into a temporary folder; skipped otherwise).
// Checks: a lane group per rank, aligned (step k's band starts within the job's stated residual skew
// across ranks), the straggler named in its header and in the Ranks table and drawn first, the
// balanced job without one, problems of bad input one line each in the message bar with the rest
// opened, several dropped rank files opening the job, and the window at 1280x720 showing every rank's
// header without growing. With TS_SCREENSHOTS=DIR, the window with the 4-rank job is saved there at
// 1280x720 and 1920x1080.
#include <QDir>
#include <QDropEvent>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QMimeData>
#include <QRegularExpression>
#include <QScrollArea>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeWidget>
#include <QtTest>

#include <algorithm>
#include <map>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "gui/window_probe.h"
#include "widgets/job/job_ranks.h"
#include "widgets/job/job_timelines.h"
#include "widgets/main/job_controller.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/panels/verdict_panel.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/workspaces/profile_workspace.h"
#include "widgets/workspaces/workspaces.h"

using namespace ts;
using namespace ts::gui;
using ts::gui::test::job_dir;
using ts::gui::test::set_rank_meta;

namespace {

constexpr const char* kJ4 = "/work/jobs-data/jobs/j4_sleeper";

/// The 4-rank job's rank files copied into `dir` (false when the recordings are not on this machine).
bool copy_j4(const QString& dir) {
  for (int r = 0; r < 4; ++r) {
    const QString name = QStringLiteral("ddp-rank%1.tsession").arg(r);
    if (!QFile::copy(QStringLiteral("%1/%2").arg(kJ4, name), dir + "/" + name)) return false;
  }
  return true;
}

/// An 8-rank job from the 4-rank one: ranks 4..7 are copies of 0..3 with their meta's rank changed,
/// every file's world size 8 (false when the recordings are not on this machine).
bool make_j8(const QString& dir) {
  if (!copy_j4(dir)) return false;
  for (int r = 0; r < 8; ++r) {
    const QString path = dir + QStringLiteral("/ddp-rank%1.tsession").arg(r);
    if (r >= 4 && !QFile::copy(dir + QStringLiteral("/ddp-rank%1.tsession").arg(r - 4), path)) return false;
    if (!set_rank_meta(path, r, 8)) return false;
  }
  return true;
}

QStringList verdict_ids(QTreeWidget* t) {
  QStringList ids;
  for (int i = 0; i < t->topLevelItemCount(); ++i) ids << t->topLevelItem(i)->data(0, Qt::UserRole).toString();
  return ids;
}

/// The rank table's row of `rank` ("" when absent): its first cell.
QString rank_cell(QTableWidget* t, int rank) {
  for (int r = 0; r < t->rowCount(); ++r) {
    const QString c = t->item(r, 0)->text();
    if (c == QString::number(rank) || c.startsWith(QString::number(rank) + " ")) return c;
  }
  return {};
}

/// The largest spread (ns) over the steps every rank drew of step k's band start on the aligned axis;
/// the number of such steps in `steps`. Leaves out the first step (the warm-up) and the last (no next
/// step to end its period), as the analysis does (prof::job::Options::warmup_steps).
std::int64_t band_spread(const JobTimelines& t, int* steps) {
  std::map<std::int64_t, std::vector<std::int64_t>> starts;
  for (int i = 0; i < t.count(); ++i)
    for (const auto& b : t.view(i)->data().steps())
      starts[b.global_step].push_back(b.start + t.shiftNs(i));
  if (starts.size() > 2) starts.erase(starts.begin()), starts.erase(std::prev(starts.end()));
  std::int64_t spread = 0;
  *steps = 0;
  for (const auto& [k, v] : starts) {
    if (static_cast<int>(v.size()) != t.count()) continue;
    ++*steps;
    spread = std::max(spread, *std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end()));
  }
  return spread;
}

}  // namespace

class TestJobView : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { test::isolate_settings(); }

  void stragglerJobNamedAlignedAndFirst() {
    MainWindow w;
    w.show();
    QVERIFY(test::open_job(w, {job_dir("j2_straggler")}));
    JobTimelines* t = w.jobs()->timelines();
    QCOMPARE(w.timelinePanel()->alternate(), static_cast<QWidget*>(t));
    QCOMPARE(t->count(), 2);
    QCOMPARE(t->rankAt(0), 1);  // the straggler drawn first
    QVERIFY2(t->header(0)->text().startsWith("rank 1 · straggler"), qPrintable(t->header(0)->text()));
    QVERIFY(!t->header(1)->text().contains("straggler"));
    // Red by its palette, and its size follows the window's font (classroom mode) as the others' do.
    QCOMPARE(t->header(0)->palette().color(QPalette::ButtonText), QColor(0xB0, 0x00, 0x20));
    QFont big = t->font();
    big.setPointSizeF(big.pointSizeF() * 2);
    t->setFont(big);
    QCOMPARE(t->header(0)->font().pointSizeF(), big.pointSizeF());
    QCOMPARE(t->header(1)->font().pointSizeF(), big.pointSizeF());
    QVERIFY(t->header(0)->font().bold());
    t->setFont(QFont());
    QVERIFY(t->infoText().contains("residual skew"));
    // The expanded ranks take the height there is (no empty band under them).
    QTRY_VERIFY(t->view(0)->height() > JobTimelines::kMinViewHeight + 40);
    QCOMPARE(rank_cell(w.jobs()->ranks()->table(), 1), QString("1 · straggler"));
    QCOMPARE(rank_cell(w.jobs()->ranks()->table(), 0), QString("0"));
    // The table's unit is said above it (its headers carry none).
    bool unit_said = false;
    for (QLabel* l : w.jobs()->ranks()->findChildren<QLabel*>()) unit_said = unit_said || l->text().contains("in ms per step");
    QVERIFY(unit_said);
    QVERIFY(verdict_ids(w.jobs()->ranks()->verdicts()).contains("straggler"));
    QVERIFY(verdict_ids(w.jobs()->verdictsSection()).contains("straggler"));
    QCOMPARE(w.verdictPanel()->section(), w.jobs()->verdictsSection()->parentWidget());
    // The status bar says what the rank in the analysis tabs ran on, not this machine's next run.
    QVERIFY2(w.statusLabels().device->text().contains("(rank 1 of the job)"), qPrintable(w.statusLabels().device->text()));
    QVERIFY2(w.statusLabels().device->text().contains("H100"), qPrintable(w.statusLabels().device->text()));
    // Evidence and fix lines longer than the tree is wide wrap (rows of several lines), never "…".
    w.resize(1280, 720);
    for (QTreeWidget* tree : {w.jobs()->verdictsSection(), w.jobs()->ranks()->verdicts()}) {
      tree->window()->show();
      QTest::qWait(100);
      const QFontMetrics fm(tree->font());
      int long_lines = 0;
      for (int i = 0; i < tree->topLevelItemCount(); ++i)
        for (int c = 0; c < tree->topLevelItem(i)->childCount(); ++c) {
          QTreeWidgetItem* it = tree->topLevelItem(i)->child(c);
          if (fm.horizontalAdvance(it->text(0)) <= tree->header()->sectionSize(0)) continue;
          ++long_lines;
          QTRY_VERIFY2(tree->visualItemRect(it).height() >= 2 * fm.lineSpacing(),
                       qPrintable(QString("%1 px for \"%2\" in a %3 px column").arg(tree->visualItemRect(it).height())
                                      .arg(it->text(0)).arg(tree->header()->sectionSize(0))));
        }
      QVERIFY(long_lines > 0);  // the straggler's evidence is longer than 1280 px can hold
    }
    for (int i = 0; i < t->count(); ++i) {
      QVERIFY(t->view(i)->data().lanes().size() >= 2);  // threads and streams
      QCOMPARE(t->view(i)->rulerOrigin(), t->shiftNs(i));  // one clock in every rank's ruler
    }
    int steps = 0;
    const std::int64_t spread = band_spread(*t, &steps);
    QVERIFY(steps >= 10);
    const auto& rep = w.jobs()->report();
    QVERIFY(rep.skew_max_ns.has_value());
    QVERIFY2(spread <= *rep.skew_max_ns + 1000,
             qPrintable(QString("step band starts spread %1 ns > skew %2 ns").arg(spread).arg(*rep.skew_max_ns)));
    // Linked axis: a pan of one rank moves the other by the same amount in aligned time.
    const TimeSpan before = t->view(1)->range();
    t->view(0)->setRange({t->view(0)->range().start + 5'000'000, t->view(0)->range().end + 5'000'000});
    QTRY_COMPARE(t->view(1)->range().start, before.start + 5'000'000);
    // The launcher (ddp.tsession) is no rank and no problem.
    QVERIFY(w.jobs()->job()->launcher.has_value());
    // A session opened afterwards leaves the job.
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QVERIFY(w.sessions()->openSession(job_dir("j2_balanced") + "/ddp-rank0.tsession") && opened.wait(30000));
    QVERIFY(!w.jobs()->jobShown());
    QCOMPARE(w.timelinePanel()->alternate(), nullptr);
    QCOMPARE(w.verdictPanel()->section(), nullptr);
  }

  // With a job open the verdict banner leads with the job's own finding, in the job analysis's words
  // (not the first rank's per-session verdict, "Input-bound" for the straggler); a session opened
  // afterwards gets its own verdicts back.
  void bannerLeadsWithTheJobsFinding() {
    MainWindow w;
    w.show();
    QVERIFY(test::open_job(w, {job_dir("j2_straggler")}));
    const prof::job::JobVerdict* straggler = nullptr;
    for (const auto& v : w.jobs()->report().verdicts)
      if (v.id == "straggler") straggler = &v;
    QVERIFY(straggler);
    VerdictBanner* banner = w.verdictBanner();
    QVERIFY(banner->hasContent());
    // The rank's own analysis runs on a worker: once its verdicts are in, the job's still leads.
    QTRY_VERIFY(!w.verdictPanel()->verdicts().empty());
    const QString text = banner->text();
    QVERIFY2(text.startsWith("Job: " + QString::fromStdString(straggler->title)), qPrintable(text));
    QVERIFY2(text.contains(QString::fromStdString(straggler->fix)), qPrintable(text));
    QVERIFY2(!text.contains("Input-bound"), qPrintable(text));
    QCOMPARE(banner->color(), severity_color("high"));
    // A session opened afterwards: its own verdicts lead again.
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QVERIFY(w.sessions()->openSession(job_dir("j2_balanced") + "/ddp-rank0.tsession") && opened.wait(30000));
    QTRY_VERIFY(!w.verdictPanel()->verdicts().empty());
    QTRY_VERIFY2(!banner->text().startsWith("Job: "), qPrintable(banner->text()));
    QVERIFY(!w.verdictPanel()->bannerLead().has_value());
  }

  // Period = own work + waiting, as shown, in each rank's header and in the Ranks table; the tooltips say
  // how the three are computed.
  void periodPartsAddUp() {
    MainWindow w;
    w.show();
    QVERIFY(test::open_job(w, {job_dir("j2_balanced")}));
    JobTimelines* t = w.jobs()->timelines();
    const QRegularExpression parts(QStringLiteral("period ([0-9.]+) ms/step = own work ([0-9.]+) \\+ waiting ([0-9.]+)"));
    for (int i = 0; i < t->count(); ++i) {
      const auto m = parts.match(t->header(i)->text());
      QVERIFY2(m.hasMatch(), qPrintable(t->header(i)->text()));
      QCOMPARE(qRound(m.captured(1).toDouble() * 100), qRound((m.captured(2).toDouble() + m.captured(3).toDouble()) * 100));
      QVERIFY(t->header(i)->toolTip().contains("period − own work"));
    }
    QTableWidget* table = w.jobs()->ranks()->table();
    QVERIFY(table->horizontalHeaderItem(3)->toolTip().contains("period − own work"));
    for (int row = 0; row < table->rowCount(); ++row)
      QCOMPARE(qRound(table->item(row, 1)->text().toDouble() * 100),
               qRound((table->item(row, 2)->text().toDouble() + table->item(row, 3)->text().toDouble()) * 100));
  }

  // A rank's header names the display shift for what it is ("drawn +107.288 ms on rank 0's clock": its
  // session start plus its step-start offset), the Ranks tab the step-start offset ("+63.1 µs"); each
  // tooltip says how it is computed.
  void shiftAndOffsetNamedApart() {
    MainWindow w;
    w.show();
    QVERIFY(test::open_job(w, {job_dir("j2_straggler")}));
    JobTimelines* t = w.jobs()->timelines();
    const auto& rep = w.jobs()->report();
    QCOMPARE(t->rankAt(0), 1);
    const prof::job::RankFigures& r1 = rep.ranks[1];
    QCOMPARE(t->shiftNs(0), r1.axis_shift_ns());
    QVERIFY(r1.session_start_ns > 100'000'000);  // rank 1's recording began ~107 ms after rank 0's
    const QString h1 = t->header(0)->text(), h0 = t->header(1)->text();
    QVERIFY2(!h1.contains("shifted") && !h1.contains("offset"), qPrintable(h1));
    QVERIFY2(h1.contains(QStringLiteral("drawn %1 on rank 0's clock").arg(signed_ms(r1.axis_shift_ns(), 3))), qPrintable(h1));
    QVERIFY2(h0.contains("the axis is this rank's clock"), qPrintable(h0));
    const QString tip = t->header(0)->toolTip();
    for (const QString& part : {QStringLiteral("session began %1 ms after rank 0's").arg(r1.session_start_ns / 1e6, 0, 'f', 3),
                                QStringLiteral("step-start offset"), step_start_offset_text(r1.step_start_offset_ns),
                                QStringLiteral("median over the")})
      QVERIFY2(tip.contains(part), qPrintable(part + " not in: " + tip));
    QTableWidget* table = w.jobs()->ranks()->table();
    const int last = table->columnCount() - 1;
    QCOMPARE(table->horizontalHeaderItem(last)->text(), QString("step-start\noffset"));  // two lines
    QVERIFY(table->horizontalHeaderItem(last)->toolTip().contains("median over the"));
    for (int row = 0; row < table->rowCount(); ++row)
      QCOMPARE(table->item(row, last)->text(),
               step_start_offset_text(rep.ranks[static_cast<std::size_t>(row)].step_start_offset_ns));
    QCOMPARE(table->item(1, last)->text(), QStringLiteral("+63.1 µs"));
  }

  // At 1280x720 with the Verdicts tab open, the job's verdicts and the first rank's both show
  // several rows in view (a fixed cap on the job's tree left the rank's list one row).
  void bothVerdictListsShowRowsAt1280x720() {
    MainWindow w;
    w.show();
    QVERIFY(test::open_job(w, {job_dir("j2_straggler")}));
    w.resize(1280, 720);
    w.workspaces()->setMode(Workspaces::Mode::profile);
    QTest::qWait(300);  // the layout's first fit (tabs collapsed on a short window) comes after the show
    ProfileWorkspace* profile = w.workspaces()->profile();
    for (int i = 0; i < profile->tabs()->count(); ++i)
      if (profile->tabs()->tabText(i) == "Verdicts") profile->showTab(profile->tabs()->widget(i));
    QTest::qWait(300);
    for (QTreeWidget* tree : {w.jobs()->verdictsSection(), w.verdictPanel()->findChild<QTreeWidget*>("verdicts.tree")}) {
      QVERIFY(tree);
      const QRect seen = tree->viewport()->visibleRegion().boundingRect();
      const int row = tree->fontMetrics().lineSpacing() + 4;
      QTRY_VERIFY2(tree->viewport()->visibleRegion().boundingRect().height() >= 3 * row,
                   qPrintable(QString("%1: %2 px in view, rows %3 px").arg(tree->objectName()).arg(seen.height()).arg(row)));
    }
  }

  void balancedJobHasNoStraggler() {
    MainWindow w;
    w.show();
    QVERIFY(test::open_job(w, {job_dir("j2_balanced")}));
    JobTimelines* t = w.jobs()->timelines();
    QCOMPARE(t->count(), 2);
    for (int i = 0; i < t->count(); ++i) QVERIFY2(!t->header(i)->text().contains("straggler"), qPrintable(t->header(i)->text()));
    for (int r = 0; r < 2; ++r) QCOMPARE(rank_cell(w.jobs()->ranks()->table(), r), QString::number(r));
    QVERIFY(!verdict_ids(w.jobs()->ranks()->verdicts()).contains("straggler"));
    QCOMPARE(w.jobs()->ranks()->table()->columnCount(), 11);  // rank, 9 figures, the step-start offset
    int steps = 0;
    QVERIFY(band_spread(*t, &steps) <= *w.jobs()->report().skew_max_ns + 1000);
    QVERIFY(steps >= 10);
  }

  void badInputOneLineEachRestOpens() {
    QTemporaryDir dir;
    if (!copy_j4(dir.path())) QSKIP("the 4-rank recordings (/work/jobs-data) are not on this machine");
    // rank 3 missing; a damaged rank 2; rank 1 again under another name; a rank of another job.
    QVERIFY(QFile::remove(dir.path() + "/ddp-rank3.tsession"));
    QVERIFY(QFile::remove(dir.path() + "/ddp-rank2.tsession"));
    QFile bad(dir.path() + "/ddp-rank2.tsession");
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write(QByteArray(4096, 'x'));
    bad.close();
    QVERIFY(QFile::copy(QString(kJ4) + "/ddp-rank1.tsession", dir.path() + "/zz-copy-rank1.tsession"));
    QVERIFY(QFile::copy(job_dir("j2_balanced") + "/ddp-rank0.tsession", dir.path() + "/other-rank0.tsession"));
    MainWindow w;
    w.show();
    QVERIFY(test::open_job(w, {dir.path()}));
    const auto& problems = w.jobs()->job()->problems;
    QVERIFY2(problems.size() >= 4, qPrintable(QString::number(problems.size())));
    const QStringList lines = w.message().split('\n');
    QCOMPARE(lines.size(), static_cast<int>(problems.size()));
    const QString all = w.message();
    QVERIFY(all.contains("ddp-rank2.tsession"));   // damaged
    QVERIFY(all.contains("zz-copy-rank1"));        // duplicate
    QVERIFY(all.contains("other-rank0"));          // another job's
    QVERIFY(all.contains("missing"));              // ranks 2 and 3
    QCOMPARE(w.jobs()->timelines()->count(), 2);  // ranks 0 and 1 open
    QVERIFY(w.jobs()->ranks()->notesText().contains("Not opened"));
    // A folder with nothing of a job: one line, nothing opens.
    QTemporaryDir empty;
    MainWindow w2;
    QSignalSpy failed(w2.jobs(), &JobController::jobFailed);
    QVERIFY(w2.jobs()->openJob({empty.path()}));
    QVERIFY(failed.wait(30000));
    QVERIFY(!w2.jobs()->jobShown());
    QVERIFY(w2.message().startsWith("Cannot open the job"));
    QVERIFY(!w2.message().contains('\n'));
  }

  void droppedRanksOpenTheJob() {
    MainWindow w;
    w.show();
    const QString d = job_dir("j2_straggler");
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(d + "/ddp-rank0.tsession"), QUrl::fromLocalFile(d + "/ddp-rank1.tsession")});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    enter.setAccepted(false);
    QApplication::sendEvent(&w, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QSignalSpy opened(w.jobs(), &JobController::jobOpened);
    QApplication::sendEvent(&w, &drop);
    QVERIFY(opened.wait(30000));  // read off the GUI thread
    QVERIFY(w.jobs()->jobShown());
    QCOMPARE(w.jobs()->timelines()->count(), 2);
    // Two sessions of no job go to Compare, as before, and the job stays shown.
    QSignalSpy not_job(w.jobs(), &JobController::notAJob);
    w.jobs()->openDropped({QStringLiteral(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession"),
                           QStringLiteral(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw0_augment.tsession")});
    QVERIFY(not_job.wait(30000));
    QTRY_VERIFY(w.sessions()->compareView() != nullptr);
    QVERIFY(w.jobs()->jobShown());
    QVERIFY(w.message().isEmpty());
  }

  void fourRanksFit1280x720() {
    QTemporaryDir dir;
    if (!copy_j4(dir.path())) QSKIP("the 4-rank recordings (/work/jobs-data) are not on this machine");
    MainWindow w;
    w.show();
    QVERIFY(test::open_job(w, {dir.path()}));
    QTest::qWait(300);
    w.resize(1280, 680);  // after the open (the offscreen screen is smaller): a 1280x720 screen less a title bar
    QTest::qWait(600);
    QCOMPARE(w.size(), QSize(1280, 680));
    const QSize min = w.minimumSizeHint().expandedTo(w.minimumSize());
    QVERIFY2(min.width() <= 1280 && min.height() <= 680, qPrintable(QString("%1x%2").arg(min.width()).arg(min.height())));
    JobTimelines* t = w.jobs()->timelines();
    QCOMPARE(t->count(), 4);
    QCOMPARE(t->rankAt(0), 2);  // the sleeper
    QVERIFY(t->header(0)->text().startsWith("rank 2 · straggler"));
    QCOMPARE(rank_cell(w.jobs()->ranks()->table(), 2), QString("2 · straggler"));
    // Every rank's header in view, and every expanded rank's lanes at their readable height.
    auto* area = t->findChild<QScrollArea*>();
    QVERIFY(area);
    for (int i = 0; i < t->count(); ++i) {
      const QRect h(t->header(i)->mapTo(area->viewport(), QPoint(0, 0)), t->header(i)->size());
      QVERIFY2(area->viewport()->rect().contains(h), qPrintable(QString("rank header %1 out of view").arg(i)));
      if (!t->isRankCollapsed(i)) QVERIFY(t->view(i)->height() >= JobTimelines::kMinViewHeight);
    }
    int steps = 0;
    QVERIFY(band_spread(*t, &steps) <= *w.jobs()->report().skew_max_ns + 1000);
    // Collapse and expand a rank: the others keep the aligned range.
    t->setRankCollapsed(1, true);
    QVERIFY(t->isRankCollapsed(1));
    t->setRankCollapsed(1, false);
    QCOMPARE(t->view(1)->range().start + t->shiftNs(1), t->view(0)->range().start + t->shiftNs(0));

    if (const QString shots = qEnvironmentVariable("TS_SCREENSHOTS"); !shots.isEmpty()) {
      w.workspaces()->profile()->setTabsCollapsed(true);
      QDir().mkpath(shots);
      for (QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
        w.resize(size);
        QTest::qWait(800);
        QVERIFY(w.grab().save(shots + QString("/job_4ranks_%1x%2.png").arg(size.width()).arg(size.height())));
      }
      w.resize(1280, 720);
      w.workspaces()->profile()->showTab(w.jobs()->ranks());
      QTest::qWait(800);
      QVERIFY(w.grab().save(shots + "/job_4ranks_ranks_tab_1280x720.png"));
      w.workspaces()->profile()->showTab(w.verdictPanel());
      QTest::qWait(800);
      QVERIFY(w.grab().save(shots + "/job_4ranks_verdicts_tab_1280x720.png"));
    }
  }

  // With TS_SCREENSHOTS=DIR: the 2-rank straggler job at 1280x720 and 1920x1080, the lanes and each
  // analysis tab that speaks of the job (Verdicts, Step breakdown, Python, Ranks), for looking at.
  void stragglerJobScreenshots() {
    const QString shots = qEnvironmentVariable("TS_SCREENSHOTS");
    if (shots.isEmpty()) QSKIP("TS_SCREENSHOTS is not set");
    MainWindow w;
    w.show();
    QVERIFY(test::open_job(w, {job_dir("j2_straggler")}));
    QDir().mkpath(shots);
    ProfileWorkspace* profile = w.workspaces()->profile();
    for (QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
      w.resize(size);
      profile->setTabsCollapsed(true);
      QTest::qWait(800);
      const QString suffix = QStringLiteral("%1x%2.png").arg(size.width()).arg(size.height());
      QVERIFY(w.grab().save(shots + "/j2_straggler_lanes_" + suffix));
      for (int i = 0; i < profile->tabs()->count(); ++i) {
        const QString tab = profile->tabs()->tabText(i);
        if (tab != "Verdicts" && tab != "Step breakdown" && tab != "Python" && tab != "Ranks") continue;
        profile->showTab(profile->tabs()->widget(i));
        QTest::qWait(800);
        QVERIFY(w.grab().save(shots + "/j2_straggler_" + tab.toLower().replace(' ', '_') + "_" + suffix));
      }
    }
  }

  void eightRanksFit1280x720() {
    QTemporaryDir dir;
    if (!make_j8(dir.path())) QSKIP("the 4-rank recordings (/work/jobs-data) are not on this machine");
    MainWindow w;
    w.show();
    QVERIFY(test::open_job(w, {dir.path()}));
    QTest::qWait(300);
    w.resize(1280, 680);
    QTest::qWait(600);
    QCOMPARE(w.size(), QSize(1280, 680));
    JobTimelines* t = w.jobs()->timelines();
    QCOMPARE(t->count(), 8);
    QVERIFY2(w.message().isEmpty(), qPrintable(w.message()));
    auto* area = t->findChild<QScrollArea*>();
    int expanded = 0;
    for (int i = 0; i < t->count(); ++i) {
      const QRect h(t->header(i)->mapTo(area->viewport(), QPoint(0, 0)), t->header(i)->size());
      QVERIFY2(area->viewport()->rect().contains(h), qPrintable(QString("rank header %1 out of view").arg(i)));
      if (t->isRankCollapsed(i)) continue;
      ++expanded;
      QVERIFY(t->view(i)->height() >= JobTimelines::kMinViewHeight);
    }
    QCOMPARE(expanded, JobTimelines::kExpandedWhenMany);
    QCOMPARE(w.jobs()->ranks()->table()->rowCount(), 8);
    if (const QString shots = qEnvironmentVariable("TS_SCREENSHOTS"); !shots.isEmpty())
      QVERIFY(w.grab().save(shots + "/job_8ranks_1280x680.png"));
  }
};

QTEST_MAIN(TestJobView)
#include "test_job_view.moc"
