// Writing JSON on a rapidjson-style writer (Key, Int64): named integer and string fields, one call for the
// blocks of counters that reports write (the analysis report, the compare report). Library-free:
// a template over the writer.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <utility>

namespace ts {

/// "k1": v1, "k2": v2, ... into the object `w` is writing (the caller starts and ends it).
template <class W>
void int64_fields(W& w, std::initializer_list<std::pair<const char*, std::int64_t>> fields) {
  for (const auto& [key, value] : fields) {
    w.Key(key);
    w.Int64(value);
  }
}

/// "k1": "v1", ... (NUL-terminated strings, as the writer's String(const char*) reads them).
template <class W>
void string_fields(W& w, std::initializer_list<std::pair<const char*, const char*>> fields) {
  for (const auto& [key, value] : fields) {
    w.Key(key);
    w.String(value);
  }
}

}  // namespace ts
