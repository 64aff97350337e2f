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

}  // namespace ts
