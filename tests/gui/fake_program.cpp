// A stand-in for a profiled program in the GUI tests of File ▸ Profile a program… (no GPU needed):
// it does what libtrainscope_inject.so does inside a real program — writes the session named by
// TRAINSCOPE_SESSION in batches while it runs (kernels and steps, one batch per `period_ms`; with
// SessionRecorder, as the library: no overview) — and
// prints a line per step, as a training script would. SIGINT ends it after a final batch (exit 130).
//   ts_fake_program STEPS PERIOD_MS [EXIT_CODE [EXIT_CODE_AFTER_SIGINT]]  (the last: 130, or 1 as Python's
//   KeyboardInterrupt)
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "profiling/session/session_file.h"

namespace {
std::atomic<bool> g_stop{false};
void on_sigint(int) { g_stop = true; }
}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 20;
  const int period_ms = argc > 2 ? std::atoi(argv[2]) : 100;
  const int code = argc > 3 ? std::atoi(argv[3]) : 0;
  const int interrupted_code = argc > 4 ? std::atoi(argv[4]) : 130;
  const char* path = std::getenv("TRAINSCOPE_SESSION");
  if (!path || !*path) {
    std::fprintf(stderr, "fake program: TRAINSCOPE_SESSION is not set\n");
    return 2;
  }
  signal(SIGINT, on_sigint);
  ts::prof::EventStore store;
  store.set_meta("session.source", "the GUI tests' fake program");
  // As the library does: session time 0 at this steady-clock instant (the window's --live-latency
  // maps event times to its own clock through it), and the device the program runs on.
  const auto steady = [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  const long long t0 = steady();
  store.set_meta("session.start_steady_ns", std::to_string(t0));
  store.set_meta("device.name", "Fake GPU 0");
  ts::prof::SessionRecorder writer(path, store);  // as profiling/inject: no overview, a close marker
  writer.write_batch();
  for (int i = 1; i <= steps && !g_stop; ++i) {
    ts::prof::KernelRecord k;
    const long long now = steady() - t0;  // the kernel ends now, as a real one the library just received
    k.start = now - 600'000, k.end = now, k.stream = 7, k.correlation = static_cast<std::uint32_t>(i);
    k.name = store.strings.intern("fake_kernel");
    ts::prof::KernelConfig c;
    c.grid[0] = 8, c.block[0] = 256;
    k.config = store.intern_config(c);
    store.append(store.kernels, k);
    store.append(store.steps, ts::prof::StepRecord{i, 1, i, now - 900'000, now, 32, 0});
    writer.write_batch();
    std::printf("fake program: step %d\n", i);
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(period_ms));
  }
  writer.close();
  if (g_stop) {
    std::printf("fake program: interrupted\n");
    return interrupted_code;
  }
  return code;
}
