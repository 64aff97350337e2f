// The profile schedule (torch.profiler.schedule's semantics): cycles of `wait` steps not recorded,
// `warmup` steps traced but discarded, `active` steps recorded, `repeat` cycles (0 = until the end).
// The profiler follows it while recording (profiler.h); the analysis reads it back from the session's
// meta `session.schedule` to analyse the active steps alone (analysis/timeline.cpp).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace ts::prof {

struct ProfileSchedule {
  bool enabled = false;  // false: every step recorded
  int wait = 0, warmup = 0, active = 1, repeat = 0;
  /// 0 not recorded, 1 warmup, 2 active, for global step `step` (1-based).
  int state(std::int64_t step) const;
};
/// Parses "wait=W,warmup=U,active=A,repeat=R" (any order, each optional except active >= 1).
/// Throws InputError naming the bad part.
ProfileSchedule parse_profile_schedule(const std::string& text);
/// Whether CUPTI records during step `step` + 1 (1-based): in warm-up and active steps, and in the
/// step before them, whose first launches pay CUPTI's instrumentation after a pause (profiler.h).
bool cupti_on_for_next(const ProfileSchedule& s, std::int64_t step);
/// Whether the analysis reads global step `step` of a scheduled recording: active, and not the first
/// of a window of several, which starts on the GPU the profiler drained at the window's start (idle
/// until the step's first launches reach it) and pays CUPTI's first launches after the pause.
bool analysed_step(const ProfileSchedule& s, std::int64_t step);

/// The schedule a session was recorded with, from its meta (key `session.schedule`; "every step",
/// absent or unreadable: nullopt, every step recorded).
std::optional<ProfileSchedule> schedule_from_meta(const std::map<std::string, std::string>& meta);

}  // namespace ts::prof
