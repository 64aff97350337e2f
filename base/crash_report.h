// A crash report on stderr for the headless runner: on SIGSEGV, SIGBUS, SIGILL or SIGFPE the handler
// writes the signal, the faulting address, what the process said it was doing (set_crash_note: the
// profiler's CUPTI mode switches and the last step it saw) and a backtrace (backtrace_symbols_fd;
// frames of CUPTI or the driver show as libcupti.so+0x..., the runner's own by name), then lets the
// signal kill the process as before (exit status 139 for SIGSEGV, core dump where enabled). A crash
// that happens only on a GPU machine then says where it happened in the run's own output.
//
// Everything the handler does is async-signal-safe: write(2), backtrace() (primed at install, so it
// does not load libgcc_s inside the handler) and backtrace_symbols_fd(), and atomic loads of the
// notes. Linux (glibc); elsewhere install_crash_report() does nothing.
#pragma once
#include <cstdint>

namespace ts {

/// Installs the handler for SIGSEGV, SIGBUS, SIGILL and SIGFPE (once; later calls do nothing).
void install_crash_report();
/// Whether this process's SIGSEGV handler is the crash report's.
bool crash_report_installed();

/// What the process is doing now, for the report: `note` must be a string literal (or otherwise live
/// for the whole run); nullptr clears it. Any thread; one word, no lock.
void set_crash_note(const char* note);
/// The last training step the process reported (global, 1-based), for the report; any thread.
void set_crash_step(std::int64_t global_step);

}  // namespace ts
