// ProfileSchedule (see schedule.h).
#include "profiling/schedule.h"

#include <algorithm>
#include <cstdlib>

#include "base/errors.h"

namespace ts::prof {

int ProfileSchedule::state(std::int64_t step) const {
  if (!enabled) return 2;
  const std::int64_t cycle = wait + warmup + active;
  const std::int64_t i = step - 1;
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
    if (key == "wait") s.wait = value;
    else if (key == "warmup") s.warmup = value;
    else if (key == "active") s.active = value;
    else if (key == "repeat") s.repeat = value;
    else throw InputError("--profile-schedule: unknown '" + key + "' (wait, warmup, active, repeat)");
    pos = comma + 1;
  }
  if (s.active < 1) throw InputError("--profile-schedule: active must be >= 1");
  return s;
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

}  // namespace ts::prof
