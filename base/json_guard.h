// overlong_number(): a check readers of outside JSON make before RapidJSON parses it.
// Its own small header, like printable.h.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace ts {

/// The byte offset of the first number token longer than `max_chars` characters (outside strings),
/// or std::string::npos when there is none. RapidJSON 1.1's full-precision number parser
/// (kParseFullPrecisionFlag, which the model-spec and lesson readers need for exact round trips)
/// reads past its fixed-size BigInteger for a number of ~700 digits: ts_lesson_fuzzer found the
/// SEGV in internal::StrtodDiyFp. A JSON number of more than 100 characters is never a setting, so
/// the readers refuse it with its offset before parsing.
inline std::size_t overlong_number(std::string_view json, std::size_t max_chars = 100) {
  bool in_string = false, escaped = false;
  std::size_t run = 0, start = 0;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    const bool numeric = (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
    if (numeric) {
      if (run++ == 0) start = i;
      if (run > max_chars) return start;
      continue;
    }
    run = 0;
    if (c == '"') in_string = true;
  }
  return std::string::npos;
}

/// True when `s` (a string RapidJSON decoded) holds a UTF-16 surrogate encoded as UTF-8 (ED A0..BF
/// xx). RapidJSON decodes a lone low-surrogate escape ("\udc00") that way; its encoding check never
/// sees it, yet the bytes are not UTF-8 and a file written back with them does not parse
/// (ts_lesson_fuzzer found it): readers refuse such text.
inline bool has_encoded_surrogate(std::string_view s) {
  for (std::size_t i = 0; i + 1 < s.size(); ++i)
    if (static_cast<unsigned char>(s[i]) == 0xED && (static_cast<unsigned char>(s[i + 1]) & 0xE0) == 0xA0) return true;
  return false;
}

}  // namespace ts
