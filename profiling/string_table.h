// Interned strings: each distinct string gets a small id once (id 0 is ""). intern() may be called
// from any thread (a mutex guards the map; callers cache ids so it is rare on hot paths); get()
// never blocks: the strings sit in an AppendLog whose entries never change.
#pragma once
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "profiling/append_log.h"
#include "profiling/records.h"

namespace ts::prof {

class StringTable {
 public:
  StringTable();
  StringId intern(std::string_view s);
  /// The string of `id`, or "" for an unknown id. Any thread.
  const std::string& get(StringId id) const;
  /// Strings published so far (ids 0..size-1).
  std::size_t size() const { return strings_.size(); }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, StringId> ids_;
  AppendLog<std::string> strings_;
};

}  // namespace ts::prof
