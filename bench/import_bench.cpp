// import_bench: times profiling/import on one trace file. Built and driven by bench/import_bench.sh.
//   import_bench FILE [REPS]   imports FILE REPS times (default 5); prints each time, the median,
//                              the events kept, MB/s of JSON text and the peak RSS (getrusage).
// Time is wall time from the call to a loaded EventStore (what the GUI waits for before it can
// paint the first overview); writing a session file is not included.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "profiling/import/trace_import.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: import_bench FILE [REPS]\n");
    return 2;
  }
  const int reps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  std::vector<double> times;
  std::int64_t events = 0, bytes = 0, warnings = 0;
  try {
    for (int i = 0; i < reps; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      auto t = ts::prof::import::import_trace(argv[1]);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      times.push_back(s);
      events = t.summary.events_kept, bytes = t.summary.bytes, warnings = t.summary.warning_count();
      std::printf("run %d: %.3f s\n", i + 1, s);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("file: %s\njson_bytes: %lld\nevents_kept: %lld\nwarnings: %lld\n", argv[1],
              static_cast<long long>(bytes), static_cast<long long>(events), static_cast<long long>(warnings));
  std::printf("median_s: %.3f (of %d)\nmb_per_s: %.1f\npeak_rss_mb: %.1f\npeak_rss_over_json: %.3f\n", median, reps,
              bytes / 1e6 / median, ru.ru_maxrss / 1024.0, ru.ru_maxrss * 1024.0 / std::max<std::int64_t>(bytes, 1));
  return 0;
}
