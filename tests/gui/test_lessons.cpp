// The Lessons menu and window: a small CPU lesson run from the Lessons window trains
// with trainscope-run and ends in a LessonView — its story, the promised change marked with the
// numbers, the Compare view of its runs aligned at the lesson's step; a built-in GPU lesson opened
// on this machine (no GPU) shows its recording, marked as such, with every promise met; an invalid
// lesson file is refused with its field named and the list stays as it was; every built-in lesson's
// promises and verdicts are in the class's words, no internal id.
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QTableWidget>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/main_window.h"
#include "engine/network.h"
#include "lessons/lesson.h"
#include "profiling/analysis/analysis.h"
#include "gui/gui_test_util.h"
#include "widgets/compare/aligned_timelines.h"
#include "widgets/compare/compare_tables.h"
#include "widgets/compare/compare_view.h"
#include "widgets/lessons/lesson_runner.h"
#include "widgets/lessons/lesson_view.h"
#include "widgets/lessons/lessons_panel.h"
#include "widgets/main/lessons_controller.h"

using namespace ts;
using namespace ts::gui;

namespace {

// Batch 2 against batch 64 on the CPU backend. The promise is on the activations the runs keep (the
// allocator's planned buffers grow with the batch: 32x here), not on their speed: CPU timings under
// ctest -j2 swing both ways (images/s of batch 64 over batch 2 measured 0.59x once beside another test).
const char* kTinyCpuLesson = R"({
  "trainscope_lesson": 1, "name": "tiny_cpu_batch", "title": "Tiny CPU lesson: batch size",
  "story": ["Two short CPU runs of tiny_cnn: batch 2, then batch 64.", "Activations grow with the batch."],
  "base": {"model": "tiny_cnn", "device": "cpu", "num_workers": 1, "epochs": 1},
  "runs": [{"id": "small", "label": "batch 2", "knobs": {"batch_size": 2, "images": 64}},
           {"id": "large", "label": "batch 64", "knobs": {"batch_size": 64, "images": 1280}}],
  "expect": [{"figure": "activation_bytes", "from": "small", "to": "large", "at_least": 8}],
  "show": {"align_step": 1, "panel": "timeline"}
})";

QString write_file(const QString& path, const QByteArray& text) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(text);
  return path;
}

/// The lesson view shows lesson `name` and its Compare view has compared.
bool shown(const MainWindow& w, const std::string& name) {
  return w.lessons()->lessonView() && w.lessons()->lessonView()->result() && w.lessons()->lessonView()->result()->record.lesson.name == name &&
         w.lessons()->lessonView()->compareView()->state() == CompareView::State::ready;
}

}  // namespace

class TestLessons : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    test::isolate_settings();
    QCoreApplication::setApplicationName("TrainScopeTest-lessons");
    QVERIFY2(!lesson_runner_program().isEmpty(), "trainscope-run not found");
  }

  void cpuLessonEndsInCompareWithItsStoryAndChangeMarked() {
    std::string why;
    if (!cpu_backend_available(&why)) QSKIP(why.c_str());
    QTemporaryDir tmp;
    const QString file = write_file(tmp.filePath("tiny_cpu_batch.json"), kTinyCpuLesson);
    MainWindow w;
    w.show();
    LessonsPanel* panel = w.lessons()->showLessonsPanel();
    const int builtins = panel->lessonCount();
    QString error;
    QVERIFY2(panel->addLessonFile(file, &error), qPrintable(error));
    QCOMPARE(panel->lessonCount(), builtins + 1);
    QVERIFY(panel->select("tiny_cpu_batch"));
    QSignalSpy progress(panel->runner(), &LessonRunner::progress);
    QSignalSpy ready(panel, &LessonsPanel::lessonReady);
    QTest::mouseClick(panel->runButton(), Qt::LeftButton);
    QVERIFY(panel->runner()->running());
    QVERIFY(panel->cancelButton()->isVisibleTo(panel));
    QVERIFY2(ready.wait(180000), qPrintable(panel->statusText()));
    QVERIFY(progress.count() >= 2);  // "Run 1 of 2", "Run 2 of 2"
    QVERIFY2(panel->runner()->progressText().contains("Run 2 of 2"), qPrintable(panel->runner()->progressText()));
    QVERIFY(ready.first().at(1).toString().isEmpty());  // trained here, not a recording
    QTRY_VERIFY2_WITH_TIMEOUT(shown(w, "tiny_cpu_batch"), "the lesson view or its comparison did not show", 60000);
    LessonView* v = w.lessons()->lessonView();
    QVERIFY(!v->isRecording());
    QVERIFY(!v->recordingBanner()->isVisible());
    QVERIFY(v->titleLabel()->text().contains("Tiny CPU lesson"));
    QVERIFY(v->storyLabel()->text().contains("Activations grow with the batch."));
    QCOMPARE(v->checkRows().size(), std::size_t{1});
    const auto& check = v->checkRows().front();
    QVERIFY2(check.met, qPrintable(check.what + " | " + check.numbers));
    // Both ends in the one byte formatter's units ("549.5 kB → 17.6 MB (×32)").
    QVERIFY2(check.change.contains(QRegularExpression("[0-9.]+ [kMG]?B → [0-9.]+ [kMG]?B \\(×")), qPrintable(check.change));
    QVERIFY(v->checksLabel()->text().contains("✔"));
    QVERIFY(v->checksLabel()->text().contains(check.change.toHtmlEscaped()));
    QCOMPARE(v->figuresTable()->columnCount(), 2);
    QCOMPARE(v->figuresTable()->horizontalHeaderItem(0)->text(), QString("small"));  // the run id; its label and device:
    QVERIFY2(v->figuresTable()->horizontalHeaderItem(0)->toolTip().startsWith("batch 2, "),
             qPrintable(v->figuresTable()->horizontalHeaderItem(0)->toolTip()));
    QCOMPARE(v->compareView()->comparison()->sessions.size(), std::size_t{2});
    QCOMPARE(v->compareView()->tabs()->tabText(v->compareView()->tabs()->currentIndex()), QString("Timelines"));
    QCOMPARE(v->compareView()->timelines()->alignedStep(), qint64{1});
  }

  void cancelStopsTheLessonAndSaysSo() {
    std::string why;
    if (!cpu_backend_available(&why)) QSKIP(why.c_str());
    QTemporaryDir tmp;
    QByteArray long_lesson(kTinyCpuLesson);
    // ~35 s of batch-2 steps (the sample set has 5,000 images; one epoch takes ~0.7 s here)
    long_lesson.replace("\"batch_size\": 2, \"images\": 64", "\"batch_size\": 2, \"images\": 5000, \"epochs\": 50")
        .replace("tiny_cpu_batch", "tiny_cpu_long");
    QVERIFY(long_lesson.contains("\"epochs\": 50"));
    const QString file = write_file(tmp.filePath("tiny_cpu_long.json"), long_lesson);
    LessonsPanel panel;
    QVERIFY(panel.addLessonFile(file));
    QVERIFY(panel.select("tiny_cpu_long"));
    QSignalSpy progress(panel.runner(), &LessonRunner::progress);
    QSignalSpy failed(panel.runner(), &LessonRunner::failed);
    QSignalSpy ready(&panel, &LessonsPanel::lessonReady);
    panel.runSelected(QString());
    QTRY_VERIFY_WITH_TIMEOUT(panel.runner()->progressText().startsWith("Run 1 of 2"), 30000);
    QTest::qWait(1500);  // into the first run's steps
    QTest::mouseClick(panel.cancelButton(), Qt::LeftButton);
    QVERIFY(failed.wait(30000));
    QCOMPARE(failed.first().at(1).toBool(), true);
    QVERIFY2(failed.first().at(0).toString().contains("cancelled"), qPrintable(failed.first().at(0).toString()));
    QCOMPARE(ready.count(), 0);
    QVERIFY(!panel.runner()->running());
    QVERIFY(panel.runButton()->isEnabled());
  }

  void recordedLessonOpensWhereItsDeviceIsMissing() {
    MainWindow w;
    w.show();
    QAction* a = w.lessons()->menu()->findChild<QAction*>("lesson.batch_size");
    if (!a)
      for (QAction* x : w.lessons()->menu()->actions())
        if (x->objectName() == "lesson.batch_size") a = x;
    QVERIFY(a);
    if (cuda_available()) QVERIFY(w.lessons()->runLesson("batch_size", true));  // a GPU here would train it
    else a->trigger();
    QTRY_VERIFY2_WITH_TIMEOUT(shown(w, "batch_size"), "the recorded lesson did not show", 60000);
    LessonView* v = w.lessons()->lessonView();
    QVERIFY(v->isRecording());
    QVERIFY(v->recordingBanner()->isVisibleTo(v));
    const QString banner = v->recordingBanner()->text();
    // It names the card each run was recorded on (the manifest's device_name).
    QVERIFY2(banner.contains("Recorded lesson") && banner.contains(QRegularExpression("recorded on NVIDIA [^,;]+, 20")),
             qPrintable(banner));
    if (!cuda_available()) QVERIFY2(banner.contains("needs a GPU"), qPrintable(banner));
    QVERIFY(v->result()->showed());
    QCOMPARE(v->checkRows().size(), std::size_t{3});
    for (const auto& row : v->checkRows()) QVERIFY2(row.met, qPrintable(row.what));
    QCOMPARE(v->checkRows().front().change, QString("fired → gone"));  // launch_bound
    QVERIFY(v->checksLabel()->text().contains("fired → gone"));
  }

  /// Every built-in lesson's recording says its promises and the verdicts that fired in the class's
  /// words: a verdict by the analysis's title for it (the verdict banner's line), a figure by its
  /// key-number row name, a measure by its evidence name; no internal id ("input_bound",
  /// "data_wait_ms", "data_loader_wait_pct") in the promises, their numbers or the verdicts row.
  void promisesAndVerdictsAreInTheClassWords() {
    QStringList ids;
    for (const std::string& id : prof::analysis::verdict_ids()) {
      ids << QString::fromStdString(id) << QString::fromStdString(prof::analysis::verdict_rule(id)->measure);
    }
    for (const std::string& f : lessons::figure_names()) ids << QString::fromStdString(f);
    auto no_id = [&](const QString& text) {
      for (const QString& id : ids)
        if (text.contains(id)) return id;
      return QString();
    };
    MainWindow w;
    w.show();
    int verdict_promises = 0, figure_promises = 0;
    for (const lessons::Lesson& l : lessons::builtin_lessons()) {
      QVERIFY(w.lessons()->runLesson(QString::fromStdString(l.name), true));  // the recording
      QTRY_VERIFY2_WITH_TIMEOUT(shown(w, l.name), l.name.c_str(), 60000);
      LessonView* v = w.lessons()->lessonView();
      const lessons::LessonResult& r = *v->result();
      QCOMPARE(v->checkRows().size(), l.expect.size());
      for (std::size_t i = 0; i < l.expect.size(); ++i) {
        const auto& row = v->checkRows()[i];
        for (const QString& text : {row.what, row.change, row.numbers})
          QVERIFY2(no_id(text).isEmpty(),
                   qPrintable(QString("%1: \"%2\" in \"%3\"").arg(l.name.c_str(), no_id(text), text)));
        if (l.expect[i].kind == "verdict") {  // by the title the run that fired it was given
          const auto& titles = r.runs[static_cast<std::size_t>(l.run_index(l.expect[i].fires_on))].verdict_titles;
          QVERIFY(titles.count(l.expect[i].verdict));
          QVERIFY2(row.what.contains(QString::fromStdString(titles.at(l.expect[i].verdict))), qPrintable(row.what));
          ++verdict_promises;
        }
        figure_promises += l.expect[i].kind == "figure";
      }
      QTableWidget* t = v->figuresTable();
      for (int c = 0; c < t->columnCount(); ++c) {
        const QString cell = t->item(t->rowCount() - 1, c)->text();
        QVERIFY2(no_id(cell).isEmpty(), qPrintable(QString("%1, verdicts fired: %2").arg(l.name.c_str(), cell)));
        QCOMPARE(cell == tr("none") ? 0 : cell.split('\n').size(),
                 static_cast<int>(r.runs[static_cast<std::size_t>(c)].verdicts.size()));
      }
      for (int row = 0; row < t->rowCount(); ++row)
        QVERIFY2(no_id(t->verticalHeaderItem(row)->text()).isEmpty(), qPrintable(t->verticalHeaderItem(row)->text()));
    }
    QVERIFY(verdict_promises >= 4 && figure_promises >= 4);  // the lessons keep both kinds
  }

  /// One number per quantity: a lesson's key numbers (images/s, host step, data wait) are Compare's
  /// for the same runs, under the same labels, and a promise names the figure so too. out_of_memory's
  /// accumulate run (micro-batch 2048, accumulate 4) read 188,596 images/s from host steps in the key
  /// numbers while Compare's Throughput tab read 69,555 (the last epoch) for it.
  void keyNumbersAreComparesNumbersUnderOneLabel() {
    MainWindow w;
    w.show();
    for (const char* name : {"out_of_memory", "cpu_vs_gpu"}) {
      QVERIFY(w.lessons()->runLesson(name, true));  // the recording
      QTRY_VERIFY2_WITH_TIMEOUT(shown(w, name), name, 60000);
      LessonView* v = w.lessons()->lessonView();
      const lessons::LessonResult& r = *v->result();
      const prof::compare::Comparison* c = v->compareView()->comparison();
      QVERIFY(c);
      QTableWidget* figures = v->figuresTable();
      QTableWidget* tp = v->compareView()->throughputTable();
      auto row_of = [](QTableWidget* t, const QString& label) {
        for (int i = 0; i < t->rowCount(); ++i)
          // The lesson's table puts a label's qualifier on a second line: the same words.
          if (t->verticalHeaderItem(i) && t->verticalHeaderItem(i)->text().replace('\n', ' ') == label) return i;
        return -1;
      };
      for (const QString& label : {training_rate_label(), host_step_label(), data_wait_label()}) {
        QVERIFY2(row_of(figures, label) >= 0, qPrintable(QString("%1: no key-number row %2").arg(name, label)));
        QVERIFY2(row_of(tp, label) >= 0, qPrintable(QString("%1: no Compare row %2").arg(name, label)));
      }
      std::size_t session = 0;  // Compare holds the runs that recorded steps, in the lesson's order
      for (const auto& run : r.runs) {
        if (!run.analysed || run.steps == 0) continue;
        QVERIFY(session < c->sessions.size());
        const auto& s = c->sessions[session++];
        QCOMPARE(run.figures.at("images_per_s"), *s.throughput.training.img_per_s);
        QCOMPARE(run.figures.at("step_ms"), *s.throughput.mean_step_ns / 1e6);
        QCOMPARE(run.figures.at("data_wait_ms"), *prof::compare::data_wait_ns_per_step(s.report) / 1e6);
      }
      QCOMPARE(session, c->sessions.size());
      if (std::string(name) == "cpu_vs_gpu")
        QVERIFY2(v->checkRows().front().what.startsWith(training_rate_label()), qPrintable(v->checkRows().front().what));
    }
  }

  void invalidLessonFileIsRefusedWithTheFieldNamed() {
    QTemporaryDir tmp;
    QByteArray bad(kTinyCpuLesson);
    bad.replace("\"batch_size\": 2,", "\"batch_size\": \"two\",");
    const QString file = write_file(tmp.filePath("bad.json"), bad);
    LessonsPanel panel;
    const int before = panel.lessonCount();
    QString error;
    QVERIFY(!panel.addLessonFile(file, &error));
    QVERIFY2(error.contains("runs[0].knobs.batch_size") && error.contains("bad.json"), qPrintable(error));
    QCOMPARE(panel.lessonCount(), before);
    QCOMPARE(panel.statusText(), error);
    QVERIFY(!panel.addLessonFile(tmp.filePath("missing.json"), &error));
    QVERIFY2(error.contains("missing.json"), qPrintable(error));
    QCOMPARE(panel.lessonCount(), before);
  }

  void screenshotsWhenAsked() {
    const QString dir = qEnvironmentVariable("TS_SCREENSHOTS");
    if (dir.isEmpty()) QSKIP("TS_SCREENSHOTS not set");
    QDir().mkpath(dir);
    MainWindow w;
    w.resize(1280, 680);
    w.show();
    LessonsPanel* panel = w.lessons()->showLessonsPanel();
    panel->resize(1280, 680);
    panel->select("out_of_memory");
    QTest::qWait(500);
    QVERIFY(panel->grab().save(dir + "/lessons_panel_1280x680.png"));
    for (const char* name : {"batch_size", "out_of_memory", "cpu_vs_gpu"}) {
      QVERIFY(w.lessons()->runLesson(name, true));
      QTRY_VERIFY_WITH_TIMEOUT(shown(w, name), 60000);
      for (QSize size : {QSize(1280, 680), QSize(1920, 1040)}) {
        w.lessons()->lessonView()->resize(size);
        QTest::qWait(1200);
        QVERIFY(w.lessons()->lessonView()->grab().save(
            dir + QString("/lesson_%1_%2x%3.png").arg(name).arg(size.width()).arg(size.height())));
      }
      // Compare's Configuration and Throughput tabs beside the key numbers, at 1280x680.
      w.lessons()->lessonView()->resize(1280, 680);
      QTabWidget* tabs = w.lessons()->lessonView()->compareView()->tabs();
      for (int i = 0; i < 2 && i < tabs->count(); ++i) {
        tabs->setCurrentIndex(i);
        QTest::qWait(600);
        QVERIFY(w.lessons()->lessonView()->grab().save(dir + QString("/lesson_%1_compare_tab%2.png").arg(name).arg(i)));
      }
    }
  }
};

QTEST_MAIN(TestLessons)
#include "test_lessons.moc"
