// Where a lesson can run and where its recording is: shared by `trainscope-run --lesson` and the
// window's Lessons menu, so that both decide alike.
#pragma once
#include <string>
#include <vector>

#include "lessons/lesson_eval.h"

namespace ts::lessons {

/// Whether this machine has every device the runs in `ids` use (all runs when `ids` is empty): CUDA
/// (a GPU and driver) for device "cuda" or a run without a device knob, the CPU backend (oneDNN) for
/// "cpu". `why` (optional) gets the first one missing: "run gpu needs a GPU: no CUDA driver".
bool can_run_here(const Lesson& l, const std::vector<std::string>& ids, std::string* why = nullptr);

/// The recording folder of lesson `name` (a folder holding NAME/manifest.json): `first_root` when
/// given, then ../share/trainscope/lessons/recorded beside the running program, then the source
/// tree's resources/lessons/recorded. "" when none has it; `tried` (optional) lists the roots looked in.
std::string find_recording(const std::string& first_root, const std::string& name, std::string* tried = nullptr);

/// The recording of `lesson` itself: as above, but a folder counts only when its manifest's lesson
/// trains the same runs (same base knobs, same run ids and knobs; title, story and expectations may
/// differ). So a user's lesson that shares a built-in's name is not shown the built-in's recording.
/// `tried` also says when a recording of another lesson with this name was passed over.
std::string find_recording(const std::string& first_root, const Lesson& lesson, std::string* tried = nullptr);

/// Where and when each run of a recording was made: "before recorded on NVIDIA H200, 2026-12-02; after …".
std::string recorded_where(const LessonRecord& rec);

}  // namespace ts::lessons
