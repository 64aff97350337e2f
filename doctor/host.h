// The doctor's /proc readers as pure functions of the files' text (tested with hand-written text):
// /proc/cpuinfo, /etc/os-release and /proc/driver/nvidia/params.
#pragma once
#include <optional>
#include <string>

#include "doctor/environment.h"

namespace ts::doctor {

/// Model name, logical cores (processor entries), physical cores (distinct physical id + core id; the
/// logical count when those fields are absent) and the vector extensions the CPU backend uses (avx2,
/// avx512f, avx512_bf16, amx_tile, amx_bf16, amx_int8 — those of the first processor's flags line).
/// Empty or foreign text gives unreadable readings, never a guess.
HostInfo parse_cpuinfo(const std::string& text);
/// PRETTY_NAME of an os-release file (quotes removed); nullopt when absent.
std::optional<std::string> parse_os_release(const std::string& text);
/// The value of RmProfilingAdminOnly in /proc/driver/nvidia/params ("RmProfilingAdminOnly: 1"); nullopt
/// when the line is absent.
std::optional<int> parse_profiling_admin_only(const std::string& text);
/// Whether counters are allowed given that value and the effective user id (root may always read them),
/// with the detail said in the report.
Reading<bool> counters_allowed(std::optional<int> admin_only, bool params_readable, unsigned euid, std::string* detail);

}  // namespace ts::doctor
