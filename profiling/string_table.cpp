// Interned strings (see string_table.h).
#include "profiling/string_table.h"

namespace ts::prof {

StringTable::StringTable() {
  ids_.emplace(std::string(), 0);
  strings_.push(std::string());
}

StringId StringTable::intern(std::string_view s) {
  if (s.empty()) return kNoString;
  std::lock_guard lock(mutex_);
  auto it = ids_.find(std::string(s));
  if (it != ids_.end()) return it->second;
  const auto id = static_cast<StringId>(strings_.size());
  strings_.push(std::string(s));
  ids_.emplace(std::string(s), id);
  return id;
}

const std::string& StringTable::get(StringId id) const {
  static const std::string empty;
  return id < strings_.size() ? strings_[id] : empty;
}

}  // namespace ts::prof
