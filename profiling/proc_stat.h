// Per-thread CPU time from /proc, shared by the engine's samplers (profiling/samplers.cpp) and the
// injection library's (profiling/inject/sampler.cpp). Part of ts_prof_core.
#pragma once
#include <dirent.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace ts::prof {

/// CPU time (utime + stime) of thread `tid` of this process, ns; -1 when unreadable or malformed.
/// `comm` (may be null) gets its name. Parses /proc/self/task/<tid>/stat: the name ends at the last
/// ')' (it may hold spaces and parentheses); fields 14 and 15 are in clock ticks (sysconf
/// _SC_CLK_TCK), proc(5).
std::int64_t thread_cpu_ns(std::uint32_t tid, std::string* comm);

/// Calls f(tid, comm, cpu_ns) for each thread of this process (/proc/self/task) whose CPU time
/// reads (thread_cpu_ns); nothing when the folder cannot be opened.
template <class F>
void for_each_thread_cpu(F&& f) {
  DIR* d = opendir("/proc/self/task");
  if (!d) return;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const auto tid = static_cast<std::uint32_t>(std::strtoul(e->d_name, nullptr, 10));
    std::string comm;
    const std::int64_t cpu = thread_cpu_ns(tid, &comm);
    if (cpu < 0) continue;
    f(tid, comm, cpu);
  }
  closedir(d);
}

}  // namespace ts::prof
