// Setups in the window (docs/setups.md): File ▸ Copy setup line and Paste setup line carry
// the model and every Run settings knob across unchanged; a saved .tsetup file and a dropped file or
// line open the same way; a model of one's own travels inline; damaged, foreign and newer setups are
// refused in the message bar with the field named and nothing in the window changes; a lesson's
// line lands in the Lessons window (a built-in one selects the built-in); the Lessons window copies a
// lesson as a line; a GPU setup on a machine without a GPU says that the CPU runs it.
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDropEvent>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QTimer>
#include <QtTest>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "lessons/lesson.h"
#include "setups/setup.h"
#include "widgets/model/layer_table_model.h"
#include "widgets/lessons/lessons_panel.h"
#include "widgets/main/lessons_controller.h"
#include "widgets/main/setups_controller.h"
#include "widgets/model/model_builder.h"
#include "widgets/training/run_settings.h"
#include "widgets/setups/setup_knobs.h"

using namespace ts;
using namespace ts::gui;

namespace {

/// Every knob a setup carries differs from RunSettings' defaults.
RunSettings unusual_settings() {
  RunSettings s;
  s.device = Device::cpu;
  s.epochs = 3;
  s.batch_size = 48;
  s.lr = 0.0025;
  s.optimizer = OptimizerType::sgd;
  s.momentum = 0.8;
  s.weight_decay = 0.0001;
  s.num_workers = 3;
  s.pin_memory = false;
  s.augment = true;
  s.sync_every_step = true;
  s.seed = 7;
  s.limit_train = 640;
  s.cpu_threads = 1;
  s.accumulate = 2;
  s.deterministic = true;
  return s;
}

/// The knobs of `s` as text, one per line: what a setup must carry across.
QString knob_text(const RunSettings& s, const ModelSpec& m) {
  QString out;
  for (const auto& k : knobs_from_settings(s, m)) out += QString::fromStdString(k.name + "=" + k.value + "\n");
  return out;
}

QAction* action(MainWindow& w, const char* name) {
  auto* a = w.findChild<QAction*>(name);
  if (!a) qFatal("no action %s", name);
  return a;
}

ModelSpec own_model() {
  ModelSpec m = simple_cnn_spec();
  m.name = "MyCNN";
  m.layers.erase(m.layers.begin() + 1);  // relu1: conv1 straight into pool1, still a valid stack
  return m;
}

/// A drag that enters the window (which must accept it), then drops.
void drop(MainWindow& w, QMimeData* mime) {
  QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
  enter.setAccepted(false);
  QApplication::sendEvent(&w, &enter);
  QVERIFY(enter.isAccepted());
  QDropEvent e(QPointF(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &e);
}

}  // namespace

class TestSetups : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    test::isolate_settings();
    QCoreApplication::setApplicationName("TrainScopeTest-setups");
  }
  void init() { QSettings().clear(); }

  void aLineRoundTripsIntoTheSameRunSettings() {
    MainWindow w;
    w.show();
    QVERIFY(w.modelBuilder()->loadPreset("vgg_small_bn"));
    w.runSettings()->setSettings(unusual_settings());
    const QString want = knob_text(w.runSettings()->settings(), w.modelBuilder()->spec());
    QVERIFY(want.contains("momentum=0.8") && want.contains("model=vgg_small_bn"));
    action(w, "file.copy_setup")->trigger();
    const QString line = QApplication::clipboard()->text();
    QVERIFY2(line.startsWith("trainscope:") && !line.contains('\n'), qPrintable(line));

    QVERIFY(w.modelBuilder()->loadPreset("simple_cnn"));  // somebody else's window
    w.runSettings()->setSettings(RunSettings{});
    QVERIFY(knob_text(w.runSettings()->settings(), w.modelBuilder()->spec()) != want);
    QSignalSpy opened(w.setups(), &SetupsController::setupOpened);
    action(w, "file.paste_setup")->trigger();
    QCOMPARE(opened.count(), 1);
    QCOMPARE(knob_text(w.runSettings()->settings(), w.modelBuilder()->spec()), want);
    QCOMPARE(w.message(), QString());
  }

  void anOwnModelTravelsInlineThroughAFileAndADrop() {
    MainWindow w;
    w.show();
    w.modelBuilder()->model()->setSpec(own_model());
    w.runSettings()->setSettings(unusual_settings());
    const QString want = knob_text(w.runSettings()->settings(), w.modelBuilder()->spec());
    QVERIFY(want.contains("model={"));  // not a preset: the spec itself
    const QString dir = QDir::tempPath() + "/ts_gui_setups." + QString::number(QCoreApplication::applicationPid());
    QDir().mkpath(dir);
    QVERIFY(w.setups()->saveSetupAs(dir + "/mine.tsetup"));

    const auto reset = [&] {
      QVERIFY(w.modelBuilder()->loadPreset("simple_cnn"));
      w.runSettings()->setSettings(RunSettings{});
    };
    reset();
    QVERIFY2(w.setups()->openSetup(dir + "/mine.tsetup"), qPrintable(w.message()));
    QCOMPARE(knob_text(w.runSettings()->settings(), w.modelBuilder()->spec()), want);
    QCOMPARE(QString::fromStdString(w.modelBuilder()->spec().name), QString("MyCNN"));

    reset();
    auto* file = new QMimeData;
    file->setUrls({QUrl::fromLocalFile(dir + "/mine.tsetup")});
    drop(w, file);
    QVERIFY2(w.message().isEmpty(), qPrintable(w.message()));
    QCOMPARE(knob_text(w.runSettings()->settings(), w.modelBuilder()->spec()), want);

    const QString line = w.setups()->setupLine();
    reset();
    auto* text = new QMimeData;
    text->setText(line);
    drop(w, text);
    QCOMPARE(knob_text(w.runSettings()->settings(), w.modelBuilder()->spec()), want);
    delete file;
    delete text;
    QDir(dir).removeRecursively();
  }

  void aModelThatDoesNotCheckIsNotShared() {
    MainWindow w;
    w.show();
    ModelSpec broken = simple_cnn_spec();
    broken.layers.erase(broken.layers.begin() + 2);  // pool1: fc1's in_features no longer fit
    w.modelBuilder()->model()->setSpec(broken);
    const QString path = QDir::tempPath() + "/ts_gui_broken." + QString::number(QCoreApplication::applicationPid()) + ".tsetup";
    QVERIFY(!w.setups()->saveSetupAs(path));
    QVERIFY2(w.message().contains("in_features is 4096"), qPrintable(w.message()));
    QVERIFY(!QFile::exists(path));
    QApplication::clipboard()->setText("unchanged");
    action(w, "file.copy_setup")->trigger();
    QCOMPARE(QApplication::clipboard()->text(), QString("unchanged"));
  }

  void badSetupsAreRefusedAndNothingChanges() {
    MainWindow w;
    w.show();
    w.runSettings()->setSettings(unusual_settings());
    const QString before = knob_text(w.runSettings()->settings(), w.modelBuilder()->spec());
    const QString good = w.setups()->setupLine();
    const QString dir = QDir::tempPath() + "/ts_gui_bad_setups." + QString::number(QCoreApplication::applicationPid());
    QDir().mkpath(dir);
    QFile foreign(dir + "/trace.tsetup");
    QVERIFY(foreign.open(QIODevice::WriteOnly));
    foreign.write(R"({"traceEvents": []})");
    foreign.close();
    QString damaged = good;
    damaged[40] = '*';
    const auto line = [](const std::string& json) { return QString::fromStdString("trainscope:" + setups::base64url_encode(json)); };
    const std::pair<QString, QString> cases[] = {
        {damaged, "character 41: '*' is not base64url"},
        {good.left(good.size() - 9), "setup line:"},
        {line(R"({"trainscope_setup": 3, "knobs": {}})"), "format 3 is from a newer TrainScope (this one reads 1): update TrainScope"},
        {line(R"({"trainscope_setup": 1, "knobs": {"batch_size": 0}})"), "knobs.batch_size: must be an integer from 1 to 65536"},
        {line(R"({"trainscope_setup": 1, "knobs": {"model": "no_such_model"}})"), "knobs.model: no_such_model is neither"},
        {dir + "/trace.tsetup", "not a TrainScope setup"},
        {dir + "/missing.tsetup", "cannot be read"},
    };
    for (const auto& [setup, says] : cases) {
      QVERIFY2(!w.setups()->openSetup(setup), qPrintable(setup));
      QVERIFY2(w.message().contains(says), qPrintable(w.message() + " / expected: " + says));
      QVERIFY2(!w.message().contains('\n'), qPrintable(w.message()));
      QCOMPARE(knob_text(w.runSettings()->settings(), w.modelBuilder()->spec()), before);
    }
    QApplication::clipboard()->setText("hello");
    action(w, "file.paste_setup")->trigger();
    QVERIFY(w.message().contains("no setup line"));
    QCOMPARE(knob_text(w.runSettings()->settings(), w.modelBuilder()->spec()), before);
    QVERIFY(w.setups()->openSetup(good));  // still usable
    QDir(dir).removeRecursively();
  }

  // A shared line may name any file as its model: the window asks before reading it. No keeps the
  // window as it was; Yes takes the file's model.
  void aLineNamingAFileAsksBeforeReadingIt() {
    MainWindow w;
    w.show();
    QVERIFY(w.modelBuilder()->loadPreset("simple_cnn"));
    const QString before = knob_text(w.runSettings()->settings(), w.modelBuilder()->spec());
    const QString path = QDir::tempPath() + "/ts_gui_named_model." + QString::number(QCoreApplication::applicationPid()) + ".json";
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray::fromStdString(to_json(own_model())));
    f.close();
    const QString line = QString::fromStdString(
        "trainscope:" + setups::base64url_encode("{\"trainscope_setup\": 1, \"knobs\": {\"model\": \"" + path.toStdString() + "\"}}"));
    for (const bool yes : {false, true}) {
      QString asked;
      QTimer poll;  // the box is modal: answered from the event loop its exec() runs
      QObject::connect(&poll, &QTimer::timeout, [&] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box || box->objectName() != "setup.confirm_files") return;
        poll.stop();
        asked = box->text();
        box->button(yes ? QMessageBox::Yes : QMessageBox::No)->click();
      });
      poll.start(10);
      QCOMPARE(w.setups()->openSetup(line), yes);
      QVERIFY2(asked.contains(path), qPrintable(asked));
      QVERIFY(asked.contains("knobs.model"));
      if (!yes) {
        QVERIFY2(w.message().contains("declined"), qPrintable(w.message()));
        QCOMPARE(knob_text(w.runSettings()->settings(), w.modelBuilder()->spec()), before);
      }
    }
    QCOMPARE(QString::fromStdString(w.modelBuilder()->spec().name), QString("MyCNN"));
    QFile::remove(path);
  }

  void aGpuSetupWithoutAGpuRunsOnTheCpuAndSaysSo() {
    MainWindow w;
    w.show();
    const auto line = QString::fromStdString(
        "trainscope:" + setups::base64url_encode(R"({"trainscope_setup": 1, "knobs": {"device": "cuda", "batch_size": 512,
                                                    "log_every": 5}})"));
    QVERIFY(w.setups()->openSetup(line));
    QCOMPARE(w.runSettings()->settings().batch_size, std::int64_t{512});
    QVERIFY2(!w.message().contains("log_every"), qPrintable(w.message()));  // the runner's print cadence, not the window's
    if (w.runSettings()->settings().device == Device::cpu)  // this machine has no usable GPU
      QVERIFY2(w.message().contains("device → CPU (no usable GPU here)"), qPrintable(w.message()));
  }

  void aLessonLineLandsInTheLessonsWindow() {
    MainWindow w;
    w.show();
    lessons::Lesson mine = lessons::builtin_lessons().front();
    mine.name = "my_cpu_lesson";
    mine.title = "My own CPU lesson";
    setups::Setup s;
    s.lesson = mine;
    QVERIFY(w.setups()->openSetup(QString::fromStdString(setups::to_line(s))));
    LessonsPanel* p = w.lessons()->lessonsPanel();
    QVERIFY(p);
    const int row = p->list()->currentRow();
    QVERIFY(row >= 0);
    QCOMPARE(p->lesson(row), mine);
    QVERIFY(p->list()->currentItem()->text().startsWith("Yours: "));

    // The panel's "Copy as a line" gives a line that brings the same lesson back.
    p->findChild<QPushButton*>("lessons.copy_line")->click();
    const setups::Setup back = setups::parse_setup(QApplication::clipboard()->text().toStdString(), "clipboard");
    QVERIFY(back.is_lesson());
    QCOMPARE(*back.lesson, mine);

    // A built-in lesson's line selects the built-in; no file of it is kept.
    const int before = p->lessonCount();
    s.lesson = lessons::builtin_lessons()[2];
    QVERIFY(w.setups()->openSetup(QString::fromStdString(setups::to_line(s))));
    QCOMPARE(p->lessonCount(), before);
    QCOMPARE(p->list()->currentRow(), 2);
  }

  void screenshotsWhenAsked() {
    const QString dir = qEnvironmentVariable("TS_SCREENSHOTS");
    if (dir.isEmpty()) QSKIP("TS_SCREENSHOTS not set");
    QDir().mkpath(dir);
    MainWindow w;
    w.resize(1280, 680);
    w.show();
    QString bad = w.setups()->setupLine();
    bad[60] = '!';
    QVERIFY(!w.setups()->openSetup(bad));
    QTest::qWait(500);
    QVERIFY(w.grab().save(dir + "/setup_refused_1280x680.png"));
    QMenu* file = w.findChild<QAction*>("file.open_setup")->associatedObjects().isEmpty()
                      ? nullptr
                      : qobject_cast<QMenu*>(w.findChild<QAction*>("file.open_setup")->associatedObjects().front());
    QVERIFY(file);
    file->popup(w.mapToGlobal(QPoint(0, 20)));
    QTest::qWait(300);
    QVERIFY(file->grab().save(dir + "/setup_file_menu.png"));
    file->hide();
    lessons::Lesson mine = lessons::builtin_lessons()[1];
    mine.name = "workers_for_my_class";
    mine.title = "DataLoader workers, for my class";
    setups::Setup s;
    s.lesson = mine;
    QVERIFY(w.setups()->openSetup(QString::fromStdString(setups::to_line(s))));
    w.lessons()->lessonsPanel()->resize(1000, 560);
    QTest::qWait(500);
    QVERIFY(w.lessons()->lessonsPanel()->grab().save(dir + "/setup_lesson_in_lessons_window.png"));
  }
};

QTEST_MAIN(TestSetups)
#include "test_setups.moc"
