// thread_cpu_ns (see proc_stat.h).
#include "profiling/proc_stat.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ts::prof {

std::int64_t thread_cpu_ns(std::uint32_t tid, std::string* comm) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%u/stat", tid);
  std::FILE* f = std::fopen(path, "r");
  if (!f) return -1;
  char buf[1024];
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  char* open = std::strchr(buf, '(');
  char* close = std::strrchr(buf, ')');
  if (!open || !close || close < open) return -1;
  if (comm) comm->assign(open + 1, close);
  // Fields after ')': 3 state, 4 ppid, ... 14 utime, 15 stime (1-based over the whole line).
  char* p = close + 1;
  unsigned long long utime = 0, stime = 0;
  for (int field = 3; field <= 15; ++field) {
    while (*p == ' ') ++p;
    if (!*p) return -1;
    if (field == 14) utime = std::strtoull(p, nullptr, 10);
    if (field == 15) stime = std::strtoull(p, nullptr, 10);
    while (*p && *p != ' ') ++p;
  }
  static const long hz = sysconf(_SC_CLK_TCK);
  return hz > 0 ? static_cast<std::int64_t>((utime + stime) * (1'000'000'000ull / static_cast<unsigned long long>(hz))) : -1;
}

}  // namespace ts::prof
