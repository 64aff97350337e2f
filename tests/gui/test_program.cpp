// File ▸ Profile a program… with a stand-in program (fake_program.cpp: it writes the
// session named by TRAINSCOPE_SESSION in batches, as libtrainscope_inject.so does) through the real
// trainscope-run --: the dialog refuses what cannot run, with the reason; the window follows the
// session live while the program runs, shows its output and how it ended, and ends as a normal open
// with every row; Stop interrupts the program (SIGINT) and the session stays readable; the Python
// insight (off / lean / full) goes from the dialog and the command line to trainscope-run --python.
#include <QAction>
#include <algorithm>
#include <QComboBox>
#include <QCommandLineParser>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/autorun.h"
#include "app/gui/autorun_program.h"
#include "app/gui/live_latency.h"
#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "profiling/session/session_file.h"
#include "widgets/main/program_controller.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/panels/verdict_panel.h"
#include "widgets/program/program_dialog.h"
#include "widgets/program/program_pane.h"
#include "widgets/sessions/session_loader.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"

using namespace ts;
using namespace ts::gui;

class TestProgram : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    test::isolate_settings();
    qputenv("TRAINSCOPE_RUNNER", TS_RUNNER);
    // The stand-in never starts CUDA, so the injection library is never loaded: any existing file will do.
    qputenv("TRAINSCOPE_INJECT_LIB", TS_FAKE_PROGRAM);
  }

  void theDialogRefusesWhatCannotRunWithTheReason() {
    ProgramSpec bad;
    QVERIFY(check_program_spec(bad).contains("no program"));
    bad.command_line = "python3 'train.py";
    QVERIFY2(check_program_spec(bad).contains("quote"), qPrintable(check_program_spec(bad)));
    bad.command_line = "python3 train.py";
    bad.working_dir = "/no/such/folder";
    QVERIFY(check_program_spec(bad).contains("is not a folder"));
    bad.working_dir.clear();
    bad.env = {"CUDA_VISIBLE_DEVICES"};
    QVERIFY(check_program_spec(bad).contains("KEY=VALUE"));
    bad.env = {"CUDA_VISIBLE_DEVICES=0"};
    QVERIFY(check_program_spec(bad).isEmpty());
    ProgramDialog d(ProgramSpec{});
    d.commandEdit()->clear();
    d.accept();
    QVERIFY(d.result() != QDialog::Accepted);
    QVERIFY(d.problem().contains("no program"));
    // The last spec is remembered for the next dialog.
    save_program_spec(bad);
    QCOMPARE(load_program_spec().command_line, QString("python3 train.py"));
    QCOMPARE(load_program_spec().env, QStringList{"CUDA_VISIBLE_DEVICES=0"});
  }

  void aProgramIsFollowedLiveAndEndsAsANormalOpen() {
    QTemporaryDir dir;
    MainWindow w;
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QSignalSpy ended(w.program()->pane()->run(), &ProgramRun::finished);
    ProgramSpec spec;
    spec.command_line = QString("%1 15 150").arg(TS_FAKE_PROGRAM);
    spec.session = dir.filePath("fake.tsession");
    QVERIFY2(w.program()->profileProgram(spec), qPrintable(w.program()->pane()->state()));
    QVERIFY(w.program()->profileAction());
    QTRY_VERIFY_WITH_TIMEOUT(w.sessions()->loader()->isFollowing(), 10000);
    QVERIFY(w.panelHub()->isLive());
    QVERIFY(w.program()->pane()->state().contains("following"));
    // Rows arrive while the program runs, before it ends.
    QTRY_VERIFY_WITH_TIMEOUT(w.panelHub()->store()->counts().kernels >= 3, 10000);
    QVERIFY(ended.isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 30000);
    QCOMPARE(ended.at(0).at(0).toInt(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 10000);
    QVERIFY(!w.panelHub()->isLive());
    QCOMPARE(w.panelHub()->store()->counts().kernels, std::size_t{15});
    // The writer's close was seen (its marker: the library's files have no overview), so the verdicts
    // do not call the file incomplete (the H200 screenshots did before the marker).
    QVERIFY2(!w.verdictPanel()->sourceNote().contains("incomplete"), qPrintable(w.verdictPanel()->sourceNote()));
    QVERIFY2(w.program()->pane()->log().contains("fake program: step 15"), qPrintable(w.program()->pane()->log()));
    QVERIFY(w.program()->pane()->state().contains("exited with code 0"));
  }

  void theStatusBarSaysWhatTheFollowedProgramRunsOn() {
    QTemporaryDir dir;
    MainWindow w;
    auto* device = w.findChild<QLabel*>("status.device");
    QVERIFY(device);
    ProgramSpec spec;
    spec.command_line = QString("%1 100000 50").arg(TS_FAKE_PROGRAM);
    spec.session = dir.filePath("status.tsession");
    QVERIFY2(w.program()->profileProgram(spec), qPrintable(w.program()->pane()->state()));
    QTRY_VERIFY_WITH_TIMEOUT(w.sessions()->loader()->isFollowing(), 10000);
    // The fake program's meta names its device; the window's own (CPU here) must not be shown.
    QTRY_VERIFY2_WITH_TIMEOUT(device->text().contains("Fake GPU 0"), qPrintable(device->text()), 5000);
    QSignalSpy ended(w.program()->pane()->run(), &ProgramRun::finished);
    w.program()->pane()->stopButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 15000);
  }

  // `trainscope --profile-program CMD --live-latency` (scripts/program-live-check.sh on the H200) without the
  // process: every row the file holds reached the window, and the latency has samples under the
  // budget (the fake program's batches come every 100 ms, the window polls every 100 ms).
  void theProgramAutorunMeasuresLatencyAndLosesNothing() {
    QTemporaryDir dir;
    MainWindow w;
    ProgramAutorunOptions o;
    o.spec.command_line = QString("%1 30 100").arg(TS_FAKE_PROGRAM);
    o.spec.session = dir.filePath("autorun.tsession");
    o.live_latency = true;
    w.resize(1280, 720);
    w.show();  // the samples come from the timeline's paints
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* a = new ProgramAutorun(&w, o);
    a->begin();
    QTRY_VERIFY_WITH_TIMEOUT(a->done(), 40000);
    QCOMPARE(a->lost(), std::size_t{0});
    QVERIFY(a->latency());
    const auto& v = a->latency()->samples_ms();
    QVERIFY2(v.size() >= 5, qPrintable(a->latency()->summary()));
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    QVERIFY2(sorted[sorted.size() / 2] >= 0 && sorted[sorted.size() / 2] < 1000, qPrintable(a->latency()->summary()));
    QCOMPARE(w.panelHub()->store()->counts().kernels, std::size_t{30});
  }

  void commandLinesSplitAsAShellWould() {
    QCOMPARE(split_command_line("sh -c 'exit 3'"), (QStringList{"sh", "-c", "exit 3"}));
    const QString line = QString::fromUtf8("python3 \"my script.py\" --tag a\\ b \"say \\\"hi\\\"\"");
    QCOMPARE(split_command_line(line), (QStringList{"python3", "my script.py", "--tag", "a b", "say \"hi\""}));
    QCOMPARE(split_command_line("  a   ''  b "), (QStringList{"a", "", "b"}));
    QString why;
    QVERIFY(split_command_line("python3 'train.py", &why).isEmpty());
    QVERIFY2(why.contains("quote is left open"), qPrintable(why));
    ProgramSpec spec;
    spec.command_line = "sh -c 'exit 3'";
    QCOMPARE(check_program_spec(spec), QString());
    spec.inject_mode = "nvtx";
    QCOMPARE(check_program_spec(spec), QString());
  }

  void theProgramOptionsRefuseWhatCannotRun() {
    auto parse = [](const QStringList& args, QString& error) {
      QCommandLineParser p;
      add_autorun_options(p);
      add_program_autorun_options(p);
      p.parse(QStringList{"trainscope"} + args);
      ProgramAutorunOptions o;
      return parse_program_autorun(p, o, error);
    };
    QString error;
    QVERIFY(!parse({"--profile-program", ""}, error));  // given but empty: said, not a window left waiting
    QVERIFY2(error.contains("no program"), qPrintable(error));
    QVERIFY(!parse({"--profile-program", "ls", "--inject-mode", "nope"}, error));
    QVERIFY2(error.contains("lean, full or nvtx"), qPrintable(error));
    QVERIFY(!parse({"--profile-program", "ls", "--window-size", "12"}, error));
    QVERIFY(parse({"--profile-program", "sh -c 'exit 3'", "--inject-mode", "nvtx"}, error));
  }

  void theDialogPassesPython() {
    ProgramSpec initial;
    initial.command_line = "python3 train.py --epochs 1";
    QCOMPARE(initial.python, QString("lean"));  // the default
    initial.python = "off";
    ProgramDialog d(initial);
    QCOMPARE(d.pythonBox()->currentData().toString(), QString("off"));
    d.pythonBox()->setCurrentIndex(d.pythonBox()->findData("full"));
    const ProgramSpec spec = d.spec();
    QCOMPARE(spec.python, QString("full"));
    const QStringList args = runner_arguments(spec, "/tmp/s.tsession");
    const int py = args.indexOf("--python"), dashes = args.indexOf("--");
    QVERIFY(py >= 0 && py < dashes);
    QCOMPARE(args[py + 1], QString("full"));
    QCOMPARE(args.mid(dashes + 1), (QStringList{"python3", "train.py", "--epochs", "1"}));
    QCOMPARE(args.mid(0, 2), (QStringList{"--session", "/tmp/s.tsession"}));
    ProgramSpec bad = spec;
    bad.python = "loud";
    QVERIFY(check_program_spec(bad).contains("off, lean or full"));
    // The remembered spec keeps it.
    save_program_spec(spec);
    QCOMPARE(load_program_spec().python, QString("full"));
    // The dialog's items fit its width (no clipped choice at 1280x720).
    d.show();
    QVERIFY(d.width() <= 1280);
    for (int i = 0; i < d.pythonBox()->count(); ++i)
      QVERIFY2(d.pythonBox()->fontMetrics().horizontalAdvance(d.pythonBox()->itemText(i)) < d.pythonBox()->width(),
               qPrintable(d.pythonBox()->itemText(i)));
  }

  void theCommandLinePassesPython() {
    auto parse = [](const QStringList& args, ProgramAutorunOptions& o, QString& error) {
      QCommandLineParser p;
      add_autorun_options(p);
      add_program_autorun_options(p);
      p.parse(QStringList{"trainscope"} + args);
      return parse_program_autorun(p, o, error);
    };
    QString error;
    ProgramAutorunOptions o;
    QVERIFY(parse({"--profile-program", "python3 t.py"}, o, error));
    QCOMPARE(o.spec.python, QString("lean"));
    QVERIFY(parse({"--profile-program", "python3 t.py", "--python", "off"}, o, error));
    QCOMPARE(o.spec.python, QString("off"));
    QVERIFY(!parse({"--profile-program", "python3 t.py", "--python", "all"}, o, error));
    QVERIFY2(error.contains("--python: expected off, lean or full"), qPrintable(error));
  }

  // trainscope --autorun's Run settings options go through the run configuration's knob table:
  // the defaults are the form's, a given option sets its knob (and is kept to go over a loaded
  // setup's settings), a bad value is refused naming the option.
  void theAutorunOptionsSetTheRunSettings() {
    auto parse = [](const QStringList& args, AutorunOptions& o, QString& error) {
      QCommandLineParser p;
      add_autorun_options(p);
      p.parse(QStringList{"trainscope"} + args);
      return parse_autorun(p, o, error);
    };
    QString error;
    AutorunOptions d;
    QVERIFY2(parse({"--autorun"}, d, error), qPrintable(error));
    QCOMPARE(d.settings.epochs, 2);
    QCOMPARE(d.settings.batch_size, std::int64_t{128});
    QCOMPARE(d.settings.num_workers, 2);
    QCOMPARE(d.settings.lr, 0.001);
    QVERIFY(d.settings.optimizer == OptimizerType::adam);
    QVERIFY(d.settings.pin_memory);
    QVERIFY(!d.settings.augment && !d.settings.sync_every_step && !d.settings.deterministic);
    QVERIFY(d.settings.amp == AmpMode::off);
    QCOMPARE(d.settings.accumulate, 1);
    QCOMPARE(d.settings.memory_limit_gib, 0.0);
    QVERIFY(d.knobs.empty());

    AutorunOptions o;
    QVERIFY2(parse({"--epochs", "3", "--batch-size", "64", "--num-workers", "0", "--lr", "0.0125", "--optimizer", "sgd",
                    "--momentum", "0.9", "--seed", "7", "--limit-train", "512", "--augment", "--sync-every-step",
                    "--no-pin-memory", "--amp", "fp32", "--accumulate", "4", "--deterministic", "--memory-limit", "0.5",
                    "--checkpoint-every", "2", "--data", "/no/such/cifar"},
                   o, error),
             qPrintable(error));
    const RunSettings& s = o.settings;
    QCOMPARE(s.epochs, 3);
    QCOMPARE(s.batch_size, std::int64_t{64});
    QCOMPARE(s.num_workers, 0);
    QCOMPARE(s.lr, 0.0125);
    QVERIFY(s.optimizer == OptimizerType::sgd);
    QCOMPARE(s.momentum, 0.9);
    QCOMPARE(s.seed, std::uint64_t{7});
    QCOMPARE(s.limit_train, std::int64_t{512});
    QVERIFY(s.augment && s.sync_every_step && s.deterministic && !s.pin_memory);
    QVERIFY(s.amp == AmpMode::off);  // fp32 is AMP off
    QCOMPARE(s.accumulate, 4);
    QCOMPARE(s.memory_limit_gib, 0.5);
    QCOMPARE(s.checkpoint_every, 2);
    QCOMPARE(s.data_dir, QString("/no/such/cifar"));
    const auto has = [&](const char* knob, const char* value) {
      return std::find(o.knobs.begin(), o.knobs.end(), std::pair<std::string, std::string>{knob, value}) != o.knobs.end();
    };
    QVERIFY(has("batch_size", "64"));
    QVERIFY(has("images", "512"));
    QVERIFY(has("pin_memory", "false"));
    QVERIFY(has("amp", "off"));
    QVERIFY(has("optimizer", "sgd"));
    QCOMPARE(o.knobs.size(), std::size_t{15});  // the 14 knob options given and pin_memory

    AutorunOptions bad;
    QVERIFY(!parse({"--batch-size", "0"}, bad, error));
    QCOMPARE(error, QString("--batch-size: '0' is not a number >= 1"));
    QVERIFY(!parse({"--amp", "fp8"}, bad, error));
    QCOMPARE(error, QString("--amp: expected off, fp16 or bf16, got 'fp8'"));
    QVERIFY(!parse({"--optimizer", "rmsprop"}, bad, error));
    QCOMPARE(error, QString("--optimizer: expected sgd, adam or adamw, got 'rmsprop'"));
    QVERIFY(!parse({"--device", "tpu"}, bad, error));
    QVERIFY(error.startsWith("--device: expected auto, cpu, cuda or cuda:N"));
  }

  // A program that cannot start writes no session: the autorun still ends (the window would wait
  // forever for a session otherwise), with nothing shown and nothing compared.
  void theProgramAutorunEndsWhenNoSessionComes() {
    MainWindow w;
    ProgramAutorunOptions o;
    o.spec.command_line = "/no/such/program --flag";
    auto* a = new ProgramAutorun(&w, o);
    a->begin();
    QTRY_VERIFY_WITH_TIMEOUT(a->done(), 15000);
    QCOMPARE(a->lost(), std::size_t{0});
    QVERIFY2(w.program()->pane()->log().contains("cannot start /no/such/program"), qPrintable(w.program()->pane()->log()));
  }

  // A program that never starts CUDA: the runner writes an empty session saying so, and the timeline
  // says why it is empty once the program has ended (not "yet").
  void aProgramWithoutCudaIsSaidOnTheTimeline() {
    QTemporaryDir dir;
    MainWindow w;
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    ProgramSpec spec;
    spec.command_line = "/bin/sh -c 'echo no cuda here'";
    spec.session = dir.filePath("nocuda.tsession");
    QVERIFY2(w.program()->profileProgram(spec), qPrintable(w.program()->pane()->state()));
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 15000);
    const QString text = w.timelinePanel()->view()->emptyText();
    QVERIFY2(text.contains("never initialised CUDA"), qPrintable(text));
    QVERIFY2(!text.contains("yet"), qPrintable(text));
    QVERIFY2(w.program()->pane()->log().contains("no cuda here"), qPrintable(w.program()->pane()->log()));
  }

  void stopInterruptsTheProgramAndKeepsItsSession() {
    QTemporaryDir dir;
    MainWindow w;
    QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
    QSignalSpy ended(w.program()->pane()->run(), &ProgramRun::finished);
    ProgramSpec spec;
    spec.command_line = QString("%1 100000 50").arg(TS_FAKE_PROGRAM);
    spec.session = dir.filePath("stopped.tsession");
    QVERIFY(w.program()->profileProgram(spec));
    QTRY_VERIFY_WITH_TIMEOUT(w.sessions()->loader()->isFollowing(), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(w.panelHub()->store()->counts().kernels >= 5, 10000);
    QVERIFY(w.program()->pane()->stopButton()->isEnabled());
    w.program()->pane()->stopButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 15000);
    QCOMPARE(ended.at(0).at(0).toInt(), 130);  // 128 + SIGINT, as a shell reports it
    QVERIFY2(w.program()->pane()->state().contains("interrupted"), qPrintable(w.program()->pane()->state()));
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 10000);
    prof::check_session(spec.session.toStdString());  // readable: throws otherwise
    prof::EventStore s;
    prof::read_session(spec.session.toStdString(), s);
    QCOMPARE(s.kernels.size(), w.panelHub()->store()->counts().kernels);  // nothing lost to the window
  }

  // Python ends on Ctrl-C with exit 1 (KeyboardInterrupt): after Stop that is the end asked for,
  // said as such, not shown as the program's failure.
  void anExitAfterStopIsNoFailure() {
    QTemporaryDir dir;
    MainWindow w;
    QSignalSpy ended(w.program()->pane()->run(), &ProgramRun::finished);
    ProgramSpec spec;
    spec.command_line = QString("%1 100000 50 0 1").arg(TS_FAKE_PROGRAM);
    spec.session = dir.filePath("stopped1.tsession");
    QVERIFY(w.program()->profileProgram(spec));
    QTRY_VERIFY_WITH_TIMEOUT(w.panelHub()->store() && w.panelHub()->store()->counts().kernels >= 3, 10000);
    w.program()->pane()->stopButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 15000);
    QCOMPARE(ended.at(0).at(0).toInt(), 1);
    QVERIFY2(w.message().contains("was stopped"), qPrintable(w.message()));
  }

  void screenshotsWhenAsked() {
    const QString shots = qEnvironmentVariable("TS_SCREENSHOTS");
    if (shots.isEmpty()) QSKIP("TS_SCREENSHOTS not set");
    QDir().mkpath(shots);
    {
      ProgramSpec spec;
      spec.command_line = "python3 train.py --epochs 1";
      ProgramDialog d(spec);
      d.show();
      QTest::qWait(300);
      QVERIFY(d.grab().save(shots + "/program_dialog.png"));
    }
    QTemporaryDir dir;
    for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
      MainWindow w;
      w.resize(size);
      w.show();
      ProgramSpec spec;
      spec.command_line = QString("%1 100000 40").arg(TS_FAKE_PROGRAM);
      spec.session = dir.filePath(QString("shot%1.tsession").arg(size.width()));
      QVERIFY(w.program()->profileProgram(spec));
      QTRY_VERIFY_WITH_TIMEOUT(w.sessions()->loader()->isFollowing(), 10000);
      QTest::qWait(2500);
      QVERIFY(w.grab().save(QString("%1/program_live_%2x%3.png").arg(shots).arg(size.width()).arg(size.height())));
      w.program()->pane()->stopButton()->click();
      QSignalSpy opened(w.sessions(), &SessionsController::sessionOpened);
      QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 15000);
    }
  }
};

QTEST_MAIN(TestProgram)
#include "test_program.moc"
