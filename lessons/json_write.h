// Small helpers for rapidjson writers in lessons/: a std::string value, and a string field.
#pragma once
#include <rapidjson/rapidjson.h>

#include <string>

namespace ts::lessons {

/// Writes `v` as a JSON string (its bytes, embedded NULs included).
template <class W>
void write_string(W& w, const std::string& v) {
  w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
}

/// Writes `"key": "v"` inside an object.
template <class W>
void write_field(W& w, const char* key, const std::string& v) {
  w.Key(key);
  write_string(w, v);
}

}  // namespace ts::lessons
