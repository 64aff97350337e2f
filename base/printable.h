// printable(): how a string read from a file (a layer key, a tensor name) is quoted in a one-line
// error message. Its own small header so that the many users of errors.h do not depend on it.
#pragma once
#include <string>

namespace ts {

/// A string read from a file as it may be quoted in a one-line message: control characters escaped
/// (\n, \t, \xHH) and at most 64 characters kept (then "..."). The fuzzers found names and keys
/// holding newlines that split model-spec and checkpoint errors.
inline std::string printable(const std::string& s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (out.size() >= 64) return out + "...";
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) out += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
    else out += ch;
  }
  return out;
}

}  // namespace ts
