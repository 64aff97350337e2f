// trainscope: the TrainScope window. `--autorun` starts a run from the command line (see autorun.h);
// `trainscope FILE.tsession` opens a recorded session; `trainscope SETUP` (a .tsetup file or a
// trainscope: line, docs/setups.md) loads a setup.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTimer>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "app/gui/autorun.h"
#include "app/gui/autorun_program.h"
#include "app/gui/main_window.h"
#include "setups/setup.h"
#include "widgets/main/job_controller.h"
#include "widgets/main/sessions_controller.h"
#include "widgets/main/setups_controller.h"

namespace {

/// `trainscope SETUP`: a .tsetup file, a setup line (also in quotes or a sentence), or a JSON file
/// that holds a setup or a lesson (its first 64 KiB name "trainscope_setup" or "trainscope_lesson").
bool is_setup_arg(const QString& arg) {
  if (arg.endsWith(".tsetup", Qt::CaseInsensitive)) return true;
  if (!QFileInfo(arg).isFile()) return ts::setups::is_setup_line(arg.toStdString());
  if (!arg.endsWith(".json", Qt::CaseInsensitive)) return false;
  QFile f(arg);
  if (!f.open(QIODevice::ReadOnly)) return false;
  const QByteArray head = f.read(64 * 1024);
  return head.contains("\"trainscope_setup\"") || head.contains("\"trainscope_lesson\"");
}

/// No display and no platform chosen: Qt would abort on its xcb plugin. --help and --version need no
/// screen (offscreen); anything else gets one line saying what to do (false: exit 2).
bool choose_platform(int argc, char** argv) {
  const auto set = [](const char* v) { return v && *v; };
  if (set(std::getenv("QT_QPA_PLATFORM")) || set(std::getenv("DISPLAY")) || set(std::getenv("WAYLAND_DISPLAY")))
    return true;
  for (int i = 1; i < argc; ++i)
    for (const char* a : {"-h", "--help", "--help-all", "-v", "--version"})
      if (std::strcmp(argv[i], a) == 0) return qputenv("QT_QPA_PLATFORM", "offscreen"), true;
  std::fprintf(stderr, "trainscope: no display (DISPLAY and WAYLAND_DISPLAY are not set): run it on a desktop, under "
                       "xvfb-run, or with QT_QPA_PLATFORM=offscreen (--autorun, --profile-program, --screenshots); "
                       "trainscope-run is the headless runner\n");
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (!choose_platform(argc, argv)) return 2;
  QApplication app(argc, argv);
  QApplication::setOrganizationName("TrainScope");
  QApplication::setApplicationName("TrainScope");
  QApplication::setApplicationVersion(TRAINSCOPE_VERSION);
  QCommandLineParser parser;
  parser.setApplicationDescription("TrainScope: build a CNN, train it and watch the training live.");
  parser.addHelpOption();
  parser.addVersionOption();
  ts::gui::add_autorun_options(parser);
  ts::gui::add_program_autorun_options(parser);
  parser.addPositionalArgument("file", "a session file (*.tsession, or compressed *.tsession.zst), a PyTorch profiler trace (*.json, *.json.gz) or an "
                               "Nsight Systems export (*.sqlite) or a distributed job's folder to open, or a setup (*.tsetup, or a 'trainscope:...' line) to "
                               "load", "[FILE|SETUP]");
  parser.process(app);
  ts::gui::AutorunOptions options;
  QString error;
  ts::gui::ProgramAutorunOptions program;
  if (!ts::gui::parse_autorun(parser, options, error) || !ts::gui::parse_program_autorun(parser, program, error)) {
    std::fprintf(stderr, "trainscope: %s\n", qPrintable(error));
    return 2;
  }
  ts::gui::MainWindow window;
  window.show();
  const QString arg = parser.positionalArguments().isEmpty() ? QString() : parser.positionalArguments().first();
  if (!arg.isEmpty() && is_setup_arg(arg)) {
    // A setup: loaded into the Train workspace before --autorun (which then runs it, with the
    // options given beside it over the setup's) starts.
    options.on_window_settings = true;
    if (!window.setups()->openSetup(arg) && options.quit_when_done) {
      std::fprintf(stderr, "trainscope: %s\n", qPrintable(window.message()));
      return 2;
    }
    if (!options.autorun && !options.screenshots.isEmpty())
      QTimer::singleShot(1000, &window, [&window, options] {
        ts::gui::save_screenshot(&window, options.screenshots, "setup");
        if (options.quit_when_done) QApplication::exit(0);
      });
  } else if (!arg.isEmpty()) {
    // --screenshots without --autorun: a picture of the opened session ("session.png"), then quit
    // with --quit-when-done (scripts/screenshots.sh, the README's screenshots).
    if (!options.autorun && !options.screenshots.isEmpty())
      QObject::connect(window.sessions(), &ts::gui::SessionsController::sessionOpened, &window, [&window, options] {
        QTimer::singleShot(1500, &window, [&window, options] {
          ts::gui::save_screenshot(&window, options.screenshots, "session");
          if (options.quit_when_done) QApplication::exit(0);
        });
      });
    // With --quit-when-done a file that cannot be opened says why on stderr and exits 2, whether the
    // check before the load refuses it or the load fails later.
    if (options.quit_when_done)
      QObject::connect(window.sessions(), &ts::gui::SessionsController::sessionFailed, &window, [](const QString& message, bool) {
        std::fprintf(stderr, "trainscope: %s\n", qPrintable(message));
        QApplication::exit(2);
      });
    // A folder: a distributed job's ranks (docs/profile-a-program.md, "Distributed jobs").
    if (QFileInfo(arg).isDir()) {
      if (options.quit_when_done)
        QObject::connect(window.jobs(), &ts::gui::JobController::jobFailed, &window, [](const QString& message, bool) {
          std::fprintf(stderr, "trainscope: %s\n", qPrintable(message));
          QApplication::exit(2);
        });
      if (!options.autorun && !options.screenshots.isEmpty())
        QObject::connect(window.jobs(), &ts::gui::JobController::jobOpened, &window, [&window, options] {
          QTimer::singleShot(1500, &window, [&window, options] {
            ts::gui::save_screenshot(&window, options.screenshots, "job");
            if (options.quit_when_done) QApplication::exit(0);
          });
        });
      // The job loads on a worker: jobOpened or jobFailed follows.
      if (!window.jobs()->openJob({arg}) && options.quit_when_done) {
        std::fprintf(stderr, "trainscope: %s\n", qPrintable(window.message()));
        return 2;
      }
    } else if (!window.sessions()->openSession(arg) && options.quit_when_done) {
      std::fprintf(stderr, "trainscope: %s\n", qPrintable(window.message()));
      return 2;
    }
  }
  if (program.given) {
    if (options.autorun) {
      std::fprintf(stderr, "trainscope: --profile-program and --autorun: one at a time\n");
      return 2;
    }
    (new ts::gui::ProgramAutorun(&window, program))->begin();
  } else if (options.autorun) {
    auto* autorun = new ts::gui::Autorun(&window, options);
    autorun->begin();
  }
  return QApplication::exec();
}
