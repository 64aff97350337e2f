// The crash report (base/crash_report.h): installed, it writes the signal, the last step, the note and
// a backtrace to stderr, then the process still dies of the signal.
#include <gtest/gtest.h>
#include <signal.h>

#include "base/crash_report.h"

namespace ts {
namespace {

#if defined(__linux__) && defined(__GLIBC__)
TEST(CrashReportDeathTest, ASegfaultPrintsTheStepTheNoteAndABacktraceThenDiesOfIt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: the handler stays out of this one
  EXPECT_EXIT(
      {
        install_crash_report();
        if (!crash_report_installed()) std::_Exit(3);
        set_crash_step(42);
        set_crash_note("testing the crash report");
        raise(SIGSEGV);
      },
      testing::KilledBySignal(SIGSEGV),
      "TrainScope crashed: SIGSEGV.*last step reported: 42.*doing: testing the crash report.*backtrace.*end of crash report");
}

TEST(CrashReportDeathTest, WithoutANoteItSaysSo) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        install_crash_report();
        set_crash_note(nullptr);
        raise(SIGBUS);
      },
      testing::KilledBySignal(SIGBUS), "SIGBUS.*last step reported: none yet.*nothing noted");
}
#endif

}  // namespace
}  // namespace ts
