// ProfileSchedule (see schedule.h).
#include "profiling/schedule.h"

#include <algorithm>
#include <cstdlib>

#include "base/errors.h"

namespace ts::prof {

int ProfileSchedule::state(std::int64_t step) const {
  if (!enabled) return 2;
  if (step <= skip_first) return 0;
  const std::int64_t cycle = wait + warmup + active;
  // Steps after the skipped ones; skip_first_wait starts the first cycle where its wait ends.
  const std::int64_t i = step - 1 - skip_first + (skip_first_wait ? wait : 0);
  if (repeat > 0 && i >= cycle * repeat) return 0;
  const std::int64_t pos = i % cycle;
  return pos < wait ? 0 : pos < wait + warmup ? 1 : 2;
}

ProfileSchedule parse_profile_schedule(const std::string& text) {
  ProfileSchedule s;
  s.enabled = true;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string part = text.substr(pos, comma - pos);
    const std::size_t eq = part.find('=');
    int value = -1;
    try {
      std::size_t used = 0;
      if (eq != std::string::npos) value = std::stoi(part.substr(eq + 1), &used);
      if (eq == std::string::npos || used != part.size() - eq - 1) value = -1;
    } catch (const std::exception&) {
      value = -1;
    }
    const std::string key = eq == std::string::npos ? part : part.substr(0, eq);
    if (value < 0) throw InputError("--profile-schedule: '" + part + "' is not NAME=N with N >= 0 (wait=1,warmup=1,active=3,repeat=2)");
    if (key == "skip_first_wait" && value > 1) throw InputError("--profile-schedule: skip_first_wait is 0 or 1");
    if (key == "wait") s.wait = value;
    else if (key == "warmup") s.warmup = value;
    else if (key == "active") s.active = value;
    else if (key == "repeat") s.repeat = value;
    else if (key == "skip_first") s.skip_first = value;
    else if (key == "skip_first_wait") s.skip_first_wait = value;
    else throw InputError("--profile-schedule: unknown '" + key + "' (wait, warmup, active, repeat, skip_first, skip_first_wait)");
    pos = comma + 1;
  }
  if (s.active < 1) throw InputError("--profile-schedule: active must be >= 1");
  return s;
}

std::string schedule_text(const ProfileSchedule& s) {
  std::string t = "wait=" + std::to_string(s.wait) + ",warmup=" + std::to_string(s.warmup) +
                  ",active=" + std::to_string(s.active) + ",repeat=" + std::to_string(s.repeat);
  if (s.skip_first) t += ",skip_first=" + std::to_string(s.skip_first);
  if (s.skip_first_wait) t += ",skip_first_wait=" + std::to_string(s.skip_first_wait);
  return t;
}

ProfileSchedule default_hybrid_schedule() {
  // TRAINSCOPE_HYBRID_SCHEDULE (a schedule's text) replaces it for cost measurements (bench/).
  const char* env = std::getenv("TRAINSCOPE_HYBRID_SCHEDULE");
  return parse_profile_schedule(env && *env ? env : "wait=179,warmup=0,active=21,repeat=0,skip_first=1,skip_first_wait=1");
}

bool cupti_on_for_next(const ProfileSchedule& s, std::int64_t step) {
  return !s.enabled || s.state(step + 1) != 0 || s.state(step + 2) != 0;
}

bool analysed_step(const ProfileSchedule& s, std::int64_t step) {
  return s.state(step) == 2 && (s.active < 2 || (step > 1 && s.state(step - 1) == 2));
}

std::optional<ProfileSchedule> schedule_from_meta(const std::map<std::string, std::string>& meta) {
  const auto it = meta.find("session.schedule");
  if (it == meta.end()) return std::nullopt;
  const std::string& value = it->second;
  if (value.empty() || value == "every step") return std::nullopt;
  try {
    return parse_profile_schedule(value);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

bool hybrid_from_meta(const std::map<std::string, std::string>& meta) {
  const auto it = meta.find("session.trace_mode");
  return it != meta.end() && it->second == kTraceHybrid;
}

}  // namespace ts::prof
