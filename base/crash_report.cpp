// Crash report (see crash_report.h).
#include "base/crash_report.h"

#include <atomic>
#include <cstring>

#if defined(__linux__) && defined(__GLIBC__)
#include <execinfo.h>
#include <signal.h>
#include <unistd.h>
#define TS_CRASH_REPORT 1
#endif

namespace ts {
namespace {

std::atomic<const char*> g_note{nullptr};
std::atomic<std::int64_t> g_step{-1};

#if defined(TS_CRASH_REPORT)
constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
std::atomic<bool> g_installed{false};

void say(const char* s) {
  if (!s) return;
  std::size_t n = std::strlen(s);
  while (n > 0) {
    const ssize_t w = write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w, n -= static_cast<std::size_t>(w);
  }
}

/// `v` in decimal (negative as "-N") or hex into `buf` (at least 24 bytes); no allocation, no locale.
const char* number(std::uint64_t v, bool hex, bool negative, char* buf) {
  char* p = buf + 23;
  *p = '\0';
  const unsigned base = hex ? 16 : 10;
  do {
    *--p = "0123456789abcdef"[v % base];
    v /= base;
  } while (v);
  if (hex) *--p = 'x', *--p = '0';
  if (negative) *--p = '-';
  return p;
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV (segmentation fault)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGFPE: return "SIGFPE (arithmetic exception)";
    default: return "a fatal signal";
  }
}

void on_fatal_signal(int sig, siginfo_t* info, void*) {
  char buf[24];
  say("\n*** TrainScope crashed: ");
  say(signal_name(sig));
  say(" at address ");
  say(number(reinterpret_cast<std::uint64_t>(info ? info->si_addr : nullptr), true, false, buf));
  say("\n*** last step reported: ");
  const std::int64_t step = g_step.load(std::memory_order_relaxed);
  say(step < 0 ? "none yet" : number(static_cast<std::uint64_t>(step), false, false, buf));
  say("\n*** doing: ");
  const char* note = g_note.load(std::memory_order_relaxed);
  say(note ? note : "(nothing noted)");
  say("\n*** backtrace (innermost first; resolve +0x offsets with addr2line -e BINARY):\n");
  void* frames[64];
  const int n = backtrace(frames, 64);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  say("*** end of crash report\n");
  // SA_RESETHAND put the default action back: raise it so the process dies of the signal as it would
  // have (status 128 + sig, a core where enabled). A fault raised by an instruction would also repeat
  // on return; raise() makes it so for a signal sent by kill as well.
  raise(sig);
}
#endif

}  // namespace

void install_crash_report() {
#if defined(TS_CRASH_REPORT)
  if (g_installed.exchange(true)) return;
  void* prime[2];
  backtrace(prime, 2);  // loads libgcc_s now: the first call may allocate, which a handler must not
  struct sigaction sa {};
  sa.sa_sigaction = on_fatal_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (int sig : kSignals) sigaction(sig, &sa, nullptr);
#endif
}

bool crash_report_installed() {
#if defined(TS_CRASH_REPORT)
  struct sigaction now {};
  if (sigaction(SIGSEGV, nullptr, &now) != 0) return false;
  return (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_fatal_signal;
#else
  return false;
#endif
}

void set_crash_note(const char* note) { g_note.store(note, std::memory_order_relaxed); }
void set_crash_step(std::int64_t global_step) { g_step.store(global_step, std::memory_order_relaxed); }

}  // namespace ts
