// What the playground's JSON writers (compare.cpp, ladder.cpp) share: a key with a string value
// on a rapidjson writer.
#pragma once
#include <rapidjson/rapidjson.h>

#include <string>

namespace ts::playground {

/// w.Key(k) then v as a JSON string (its bytes as they are, any length).
template <class W>
void key_str(W& w, const char* k, const std::string& v) {
  w.Key(k);
  w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
}

}  // namespace ts::playground
