// Checks readers of outside JSON make before RapidJSON parses it: overlong_number(),
// out_of_range_number(), overdeep_nesting(), and outside_json_problem() for all three. Its own small header, like printable.h.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ts {

/// Calls `fn(i, c)` for every byte of `json` outside string literals (quotes included, escapes
/// honoured); stops at the first index for which `fn` returns true and gives it, else npos.
template <class Fn>
std::size_t scan_outside_strings(std::string_view json, Fn&& fn) {
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (fn(i, c)) return i;
    if (c == '"') in_string = true;
  }
  return std::string::npos;
}

/// The byte offset of the first number token longer than `max_chars` characters (outside strings),
/// or std::string::npos when there is none. RapidJSON 1.1's full-precision number parser
/// (kParseFullPrecisionFlag, which the model-spec and lesson readers need for exact round trips)
/// reads past its fixed-size BigInteger for a number of ~700 digits: ts_lesson_fuzzer found the
/// SEGV in internal::StrtodDiyFp. A JSON number of more than 100 characters is never a setting, so
/// the readers refuse it with its offset before parsing.
inline std::size_t overlong_number(std::string_view json, std::size_t max_chars = 100) {
  std::size_t run = 0, start = 0;
  scan_outside_strings(json, [&](std::size_t i, char c) {
    const bool numeric = (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
    if (!numeric) return run = 0, false;
    if (run++ == 0) start = i;
    return run > max_chars;
  });
  return run > max_chars ? start : std::string::npos;
}

/// The decimal order of magnitude of a JSON number token (`1.5e3` -> 3, `0.002` -> -3, `-40` -> 1), or
/// nullopt when its digits are all zero (0, 0.0e999) or it holds no digit. Out-of-int exponents clamp.
inline std::optional<long long> number_magnitude(std::string_view t) {
  std::size_t i = t.empty() || (t[0] != '-' && t[0] != '+') ? 0 : 1;
  long long first = 0;  // order of the first nonzero digit, relative to the decimal point
  bool found = false, after_point = false;
  long long int_digits = 0, frac_zeros = 0;
  for (; i < t.size() && t[i] != 'e' && t[i] != 'E'; ++i) {
    if (t[i] == '.') { after_point = true; continue; }
    if (t[i] < '0' || t[i] > '9') return std::nullopt;
    if (!found && t[i] != '0') {
      found = true;
      first = after_point ? -(frac_zeros + 1) : 0;
    }
    if (!after_point && found) ++int_digits;
    if (after_point && !found) ++frac_zeros;
  }
  if (!found) return std::nullopt;
  if (!after_point || int_digits > 0) first = int_digits - 1;
  long long exp = 0;
  if (i < t.size()) {
    ++i;
    bool neg = false;
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) neg = t[i++] == '-';
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) exp = exp > 100000 ? exp : exp * 10 + (t[i] - '0');
    if (neg) exp = -exp;
  }
  return first + exp;
}

/// The widest decimal order of magnitude a reader of outside JSON accepts: |x| in [1e-300, 1e301).
/// RapidJSON 1.1's full-precision parser returns garbage or reads out of bounds for numbers near and
/// below the smallest normal double with more than 19 significant digits (ts_lesson_fuzzer:
/// `4.888...e-334` with 70 digits: SEGV in internal::StrtodDiyFp; `1.23456789012345678901234567890e-325`
/// reads back as -2.2e+307). No TrainScope setting comes near either end.
inline constexpr long long kMaxNumberMagnitude = 300;

/// The byte offset of the first number token (outside strings) whose order of magnitude lies outside
/// +-kMaxNumberMagnitude (zero is fine), or std::string::npos.
inline std::size_t out_of_range_number(std::string_view json) {
  std::size_t start = std::string::npos, found = std::string::npos;
  const auto numeric = [](char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
  };
  const auto check = [&](std::size_t end) {
    const auto m = number_magnitude(json.substr(start, end - start));
    if (m && (*m > kMaxNumberMagnitude || *m < -kMaxNumberMagnitude)) found = start;
    start = std::string::npos;
    return found != std::string::npos;
  };
  const std::size_t at = scan_outside_strings(json, [&](std::size_t i, char c) {
    if (numeric(c)) {
      if (start == std::string::npos) start = i;
      return false;
    }
    return start != std::string::npos && check(i);
  });
  if (at == std::string::npos && start != std::string::npos) check(json.size());
  return found;
}

/// The deepest nesting of arrays and objects a reader of outside JSON accepts. TrainScope's own files
/// nest a dozen levels at most (a setup holding a lesson whose knobs hold a model spec). RapidJSON's
/// DOM parser recurses once per level, and so do Accept() and CopyFrom() on the document it built:
/// a model spec, lesson or setup nested ~160,000 levels deep (~320 KB, under the readers' 1 MiB cap)
/// overflowed the stack. kParseIterativeFlag alone would mend the parse but not the walks after it.
inline constexpr std::size_t kMaxJsonDepth = 256;

/// The byte offset of the first '[' or '{' (outside strings) that opens a level deeper than
/// `max_depth`, or std::string::npos when there is none.
inline std::size_t overdeep_nesting(std::string_view json, std::size_t max_depth = kMaxJsonDepth) {
  std::size_t depth = 0;
  return scan_outside_strings(json, [&](std::size_t, char c) {
    if (c == '[' || c == '{') return ++depth > max_depth;
    if ((c == ']' || c == '}') && depth > 0) --depth;
    return false;
  });
}

/// What a reader of outside JSON refuses before parsing: the byte offset and what is there ("a
/// number of more than 100 characters", "nested more than 256 levels deep"), or nothing.
struct JsonProblem {
  std::size_t offset = 0;
  std::string what;
};
inline std::optional<JsonProblem> outside_json_problem(std::string_view json) {
  if (const auto at = overdeep_nesting(json); at != std::string::npos)
    return JsonProblem{at, "nested more than " + std::to_string(kMaxJsonDepth) + " levels deep"};
  if (const auto at = overlong_number(json); at != std::string::npos)
    return JsonProblem{at, "a number of more than 100 characters"};
  if (const auto at = out_of_range_number(json); at != std::string::npos)
    return JsonProblem{at, "a number outside 1e-300..1e300 in magnitude"};
  return std::nullopt;
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
