// Where a lesson can run and where its recording is (lesson_where.h).
#include "lessons/lesson_where.h"

#include <algorithm>
#include <filesystem>

#include "base/errors.h"
#include "engine/network.h"

namespace ts::lessons {

namespace fs = std::filesystem;

bool can_run_here(const Lesson& l, const std::vector<std::string>& ids, std::string* why) {
  for (std::size_t i = 0; i < l.runs.size(); ++i) {
    if (!ids.empty() && std::find(ids.begin(), ids.end(), l.runs[i].id) == ids.end()) continue;
    const std::string d = l.knob(i, "device").empty() ? "cuda" : l.knob(i, "device");
    std::string reason;
    if (d == "cuda" && !cuda_available(&reason)) {
      if (why) *why = "run " + l.runs[i].id + " needs a GPU: " + reason;
      return false;
    }
    if (d == "cpu" && !cpu_backend_available(&reason)) {
      if (why) *why = "run " + l.runs[i].id + " needs the CPU backend: " + reason;
      return false;
    }
  }
  return true;
}

std::string find_recording(const std::string& first_root, const std::string& name, std::string* tried) {
  std::vector<fs::path> roots;
  if (!first_root.empty()) roots.emplace_back(first_root);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) roots.push_back(exe.parent_path().parent_path() / "share" / "trainscope" / "lessons" / "recorded");
  roots.emplace_back(TRAINSCOPE_LESSON_RECORDINGS);
  std::string looked;
  for (const fs::path& r : roots) {
    looked += (looked.empty() ? "" : ", ") + r.string();
    if (fs::exists(r / name / "manifest.json", ec)) return (r / name).string();
  }
  if (tried) *tried = looked;
  return {};
}

std::string find_recording(const std::string& first_root, const Lesson& lesson, std::string* tried) {
  std::string looked;
  const std::string dir = find_recording(first_root, lesson.name, &looked);
  if (dir.empty()) {
    if (tried) *tried = looked;
    return {};
  }
  try {
    const LessonRecord rec = read_record(dir);
    const auto& a = rec.lesson.runs;
    const auto& b = lesson.runs;
    bool same = rec.lesson.base == lesson.base && a.size() == b.size();
    for (std::size_t i = 0; same && i < a.size(); ++i) same = a[i].id == b[i].id && a[i].knobs == b[i].knobs;
    if (same) return dir;
  } catch (const Error&) {
    // A damaged manifest is said where the recording is opened; here it is simply not this lesson's.
  }
  if (tried) *tried = dir + " (a recording of another lesson named " + lesson.name + ": its runs differ)";
  return {};
}

std::string recorded_where(const LessonRecord& rec) {
  std::string where;
  for (const auto& r : rec.runs)
    where += (where.empty() ? "" : "; ") + r.id + " recorded on " + r.device_name + ", " + r.recorded_at;
  return where;
}

}  // namespace ts::lessons
