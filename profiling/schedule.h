// The profile schedule (torch.profiler.schedule's semantics): `skip_first` steps not recorded, then
// cycles of `wait` steps not recorded, `warmup` steps traced but discarded, `active` steps recorded,
// `repeat` cycles (0 = until the end); `skip_first_wait` 1 leaves out the first cycle's wait, so the
// first window opens right after the skipped steps (PyTorch 2.5's skip_first_wait).
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
  int skip_first = 0, skip_first_wait = 0;
  /// 0 not recorded, 1 warmup, 2 active, for global step `step` (1-based).
  int state(std::int64_t step) const;
};
/// Parses "wait=W,warmup=U,active=A,repeat=R,skip_first=S,skip_first_wait=0|1" (any order, each
/// optional; active >= 1). Throws InputError naming the bad part.
ProfileSchedule parse_profile_schedule(const std::string& text);
/// The text parse_profile_schedule reads back (meta session.schedule): "wait=W,warmup=U,active=A,repeat=R",
/// then skip_first and skip_first_wait where they are not 0 (the text older readers knew).
std::string schedule_text(const ProfileSchedule& s);
/// The windows a profiled trainscope-run of CUDA-graph steps records kernels in by default, with whole
/// graph replays between them (profiler.h, "hybrid"): step 1 (the capture) skipped, a window right after
/// it, then one every 200 steps; each window 21 active steps, so 20 analysed (analysed_step leaves its
/// first out). "wait=179,warmup=0,active=21,repeat=0,skip_first=1,skip_first_wait=1".
ProfileSchedule default_hybrid_schedule();
/// Whether CUPTI records during step `step` + 1 (1-based): in warm-up and active steps, and in the
/// step before them, whose first launches pay CUPTI's instrumentation after a pause (profiler.h).
bool cupti_on_for_next(const ProfileSchedule& s, std::int64_t step);
/// Whether the analysis reads global step `step` of a scheduled recording: active, and not the first
/// of a window of several, which starts on the GPU the profiler drained at the window's start (idle
/// until the step's first launches reach it) and pays CUPTI's first launches after the pause.
bool analysed_step(const ProfileSchedule& s, std::int64_t step);

/// Meta session.trace_mode's values (profiler.h): every kernel of every step; kernels in the schedule's
/// windows and nothing between; kernels in the windows and whole CUDA-graph replays between (hybrid).
inline constexpr const char* kTraceEveryKernel = "every kernel";
inline constexpr const char* kTraceWindows = "kernels in the schedule's windows";
inline constexpr const char* kTraceHybrid = "kernels in the schedule's windows, CUDA-graph replays between";
/// Whether a session's meta says it was recorded hybrid (session.trace_mode == kTraceHybrid).
bool hybrid_from_meta(const std::map<std::string, std::string>& meta);

/// The schedule a session was recorded with, from its meta (key `session.schedule`; "every step",
/// absent or unreadable: nullopt, every step recorded).
std::optional<ProfileSchedule> schedule_from_meta(const std::map<std::string, std::string>& meta);

}  // namespace ts::prof
