// ProgramAutorun (see autorun_program.h).
#include "app/gui/autorun_program.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QPushButton>
#include <QTimer>
#include <cstdio>

#include "app/gui/autorun.h"
#include "app/gui/live_latency.h"
#include "app/gui/main_window.h"
#include "widgets/main/program_controller.h"
#include "widgets/main/sessions_controller.h"
#include "profiling/event_store.h"
#include "profiling/session/session_file.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/program/program_pane.h"

namespace ts::gui {

void add_program_autorun_options(QCommandLineParser& p) {
  p.addOptions({
      {"profile-program", "Profile this program as File ▸ Profile a program… does, following its session live: its "
                          "command line as one argument, split as a shell would ('single' and \"double\" quotes "
                          "group words).", "command"},
      {"program-dir", "The profiled program's working folder (default: the current one).", "dir"},
      {"program-env", "KEY=VALUE added to the profiled program's environment (repeatable).", "KEY=VALUE"},
      {"program-session", "The session file the profiled program writes (default: a new one in the sessions folder).",
       "file"},
      {"inject-mode", "lean (default), full or nvtx: what is recorded in the profiled program "
                      "(docs/profile-a-program.md).", "mode", "lean"},
      {"python", "off, lean (default) or full: the Python insight of a Python program (trainscope-run --python; "
                 "docs/profile-a-program.md).", "mode", "lean"},
      {"step-range", "Ranges that are steps in the profiled program (default: step).", "pattern", "step"},
      {"window-size", "With --profile-program: the window's size first, e.g. 1280x720 (screenshots offscreen).", "WxH"},
  });
}

bool parse_program_autorun(const QCommandLineParser& p, ProgramAutorunOptions& o, QString& error) {
  o.spec.command_line = p.value("profile-program");
  o.spec.working_dir = p.isSet("program-dir") ? p.value("program-dir") : QDir::currentPath();
  o.spec.env = p.values("program-env");
  o.spec.session = p.value("program-session");
  o.spec.inject_mode = p.value("inject-mode");
  o.spec.python = p.value("python");
  o.spec.step_range = p.value("step-range");
  o.live_latency = p.isSet("live-latency");
  o.quit_when_done = p.isSet("quit-when-done");
  o.screenshots = p.value("screenshots");
  o.stop_after_s = p.value("stop-after").toDouble();
  if (p.isSet("window-size")) {
    const QStringList wh = p.value("window-size").split('x');
    const int w = wh.size() == 2 ? wh[0].toInt() : 0, h = wh.size() == 2 ? wh[1].toInt() : 0;
    if (w < 320 || h < 240) {
      error = "--window-size: expected WIDTHxHEIGHT of at least 320x240, got '" + p.value("window-size") + "'";
      return false;
    }
    o.window_size = QSize(w, h);
  }
  if (o.spec.inject_mode != "lean" && o.spec.inject_mode != "full" && o.spec.inject_mode != "nvtx") {
    error = "--inject-mode: expected lean, full or nvtx, got '" + o.spec.inject_mode + "'";
    return false;
  }
  if (o.spec.python != "off" && o.spec.python != "lean" && o.spec.python != "full") {
    error = "--python: expected off, lean or full, got '" + o.spec.python + "'";
    return false;
  }
  o.given = p.isSet("profile-program");
  if (o.given) {
    if (const QString why = check_program_spec(o.spec); !why.isEmpty()) {
      error = "--profile-program: " + why;
      return false;
    }
  }
  return true;
}

ProgramAutorun::ProgramAutorun(MainWindow* window, ProgramAutorunOptions options)
    : QObject(window), window_(window), o_(std::move(options)) {}

void ProgramAutorun::grab(const QString& name) { save_screenshot(window_, o_.screenshots, name); }

void ProgramAutorun::begin() {
  if (o_.window_size.isValid()) window_->resize(o_.window_size);
  if (o_.live_latency) latency_ = new LiveLatency(window_);
  ProgramRun* run = window_->program()->pane()->run();
  connect(run, &ProgramRun::output, this, [](const QString& line) {
    std::printf("program| %s\n", qPrintable(line));
    std::fflush(stdout);
  });
  connect(run, &ProgramRun::sessionAppeared, this, [this](const QString& s) {
    appeared_ = true;
    std::printf("following %s\n", qPrintable(s));
    std::fflush(stdout);
    QTimer::singleShot(6000, this, [this] {
      if (!ended_) grab("program-during");
    });
  });
  connect(run, &ProgramRun::finished, this, &ProgramAutorun::programEnded);
  connect(window_->sessions(), &SessionsController::sessionOpened, this, &ProgramAutorun::sessionShown);
  connect(window_->sessions(), &SessionsController::sessionFailed, this, [this](const QString& message, bool) {
    std::fprintf(stderr, "trainscope: %s\n", qPrintable(message));
    if (o_.quit_when_done && ended_) QCoreApplication::exit(2);
  });
  QTimer::singleShot(o_.screenshots.isEmpty() ? 0 : 800, this, [this] {
    if (!window_->program()->profileProgram(o_.spec)) {
      std::fprintf(stderr, "trainscope: --profile-program: %s\n", qPrintable(window_->message()));
      if (o_.quit_when_done) QCoreApplication::exit(2);
      return;
    }
    if (o_.stop_after_s > 0)
      QTimer::singleShot(static_cast<int>(o_.stop_after_s * 1000), window_->program()->pane()->stopButton(), &QPushButton::click);
  });
}

void ProgramAutorun::programEnded(int code, const QString& how) {
  ended_ = true;
  program_code_ = code;
  std::printf("the profiled program %s\n", qPrintable(how));
  std::fflush(stdout);
  if (!shown_.isEmpty()) {
    finish();  // the file's close reached the window before the process' end
    return;
  }
  // A program that could not start or never wrote a readable session: nothing will be shown; a
  // session that appeared gets the follow's end (the window stops following 2.5 s after the exit).
  QTimer::singleShot(appeared_ ? 20000 : 1500, this, [this] {
    if (!done_) finish();
  });
}

std::size_t ProgramAutorun::compareWithFile(const QString& path) {
  const auto shown = window_->panelHub()->store();
  prof::EventStore file;
  try {
    prof::read_session(path.toStdString(), file);
  } catch (const std::exception& e) {
    std::printf("the finished file does not read: %s\n", e.what());
    return 1;
  }
  if (!shown) return 1;
  const prof::StoreCounts a = shown->counts(), b = file.counts();
  std::size_t lost = 0;
  QString line = "followed / in the file:";
  auto row = [&](const char* name, std::size_t got, std::size_t want) {
    line += QString(" %1 %2/%3").arg(name).arg(got).arg(want);
    if (got < want) lost += want - got;
  };
  row("kernels", a.kernels, b.kernels);
  row("memcpys", a.memcpys, b.memcpys);
  row("memsets", a.memsets, b.memsets);
  row("runtime", a.runtime, b.runtime);
  row("syncs", a.syncs, b.syncs);
  row("memory", a.memory, b.memory);
  row("host_ranges", a.host_ranges, b.host_ranges);
  row("steps", a.steps, b.steps);
  row("samples", a.samples, b.samples);
  std::printf("%s; lost %zu\n", qPrintable(line), lost);
  return lost;
}

void ProgramAutorun::sessionShown(const QString& path) {
  shown_ = path;
  if (ended_) finish();
}

void ProgramAutorun::finish() {
  if (done_) return;
  done_ = true;
  if (latency_) std::printf("%s\n", qPrintable(latency_->summary()));
  if (shown_.isEmpty()) std::printf("no session was shown: the program wrote none that reads (see its output above)\n");
  const std::size_t lost = lost_ = shown_.isEmpty() ? 0 : compareWithFile(shown_);
  std::fflush(stdout);
  QTimer::singleShot(1000, this, [this, lost] {
    grab("program-after");
    if (o_.quit_when_done)
      QCoreApplication::exit(program_code_ != 0 ? program_code_ : lost > 0 || shown_.isEmpty() ? 1 : 0);
  });
}

}  // namespace ts::gui
