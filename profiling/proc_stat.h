// Per-thread CPU time from /proc, shared by the engine's samplers (profiling/samplers.cpp) and the
// injection library's (profiling/inject/sampler.cpp). Part of ts_prof_core.
#pragma once
#include <cstdint>
#include <string>

namespace ts::prof {

/// CPU time (utime + stime) of thread `tid` of this process, ns; -1 when unreadable or malformed.
/// `comm` (may be null) gets its name. Parses /proc/self/task/<tid>/stat: the name ends at the last
/// ')' (it may hold spaces and parentheses); fields 14 and 15 are in clock ticks (sysconf
/// _SC_CLK_TCK), proc(5).
std::int64_t thread_cpu_ns(std::uint32_t tid, std::string* comm);

}  // namespace ts::prof
