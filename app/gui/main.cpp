// trainscope: the TrainScope window. `--autorun` starts a run from the command line (see autorun.h);
// `trainscope FILE.tsession` opens a recorded session.
#include <QApplication>
#include <QCommandLineParser>
#include <cstdio>

#include "app/gui/autorun.h"
#include "app/gui/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName("TrainScope");
  QApplication::setApplicationName("TrainScope");
  QApplication::setApplicationVersion(TRAINSCOPE_VERSION);
  QCommandLineParser parser;
  parser.setApplicationDescription("TrainScope: build a CNN, train it and watch the training live.");
  parser.addHelpOption();
  parser.addVersionOption();
  ts::gui::add_autorun_options(parser);
  parser.addPositionalArgument("session", "a session file (*.tsession) to open", "[FILE.tsession]");
  parser.process(app);
  ts::gui::AutorunOptions options;
  QString error;
  if (!ts::gui::parse_autorun(parser, options, error)) {
    std::fprintf(stderr, "trainscope: %s\n", qPrintable(error));
    return 2;
  }
  ts::gui::MainWindow window;
  window.show();
  if (!parser.positionalArguments().isEmpty()) window.openSession(parser.positionalArguments().first());
  if (options.autorun) {
    auto* autorun = new ts::gui::Autorun(&window, options);
    autorun->begin();
  }
  return QApplication::exec();
}
