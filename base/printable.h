// printable(): how a string read from a file (a layer key, a tensor name, a kernel's name) is quoted
// in a one-line error message or printed to a terminal. Its own small header so that the many users
// of errors.h do not depend on it.
#pragma once
#include <cstddef>
#include <string>

namespace ts {

/// A string read from a file as it may be quoted in a one-line message or printed to a terminal:
/// control characters escaped (\n, \t, \xHH; ESC too, so no escape sequence, carriage return or
/// line feed reaches the terminal) and at most `max_chars` characters kept (then "...";
/// std::string::npos: all). The fuzzers found names and keys holding newlines that split model-spec
/// and checkpoint errors; --compare printed kernel and device names whose escape sequences set the
/// terminal's title, cleared it and forged lines.
inline std::string printable(const std::string& s, std::size_t max_chars = 64) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (out.size() >= max_chars) return out + "...";
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) out += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
    else out += ch;
  }
  return out;
}

}  // namespace ts
