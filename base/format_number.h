// format_grouped() and fixed_decimals(): how a figure is written for people, in one place for the
// window's Compare view, the lessons' tables and their text, so that one quantity reads the same
// wherever it is shown ("472,658 img/s" in a lesson's table as in Compare's, not "472658").
#pragma once
#include <cmath>
#include <cstdio>
#include <string>

namespace ts {

/// `v` with `decimals` decimals (0 .. 6) and its whole part grouped by thousands with ",", as
/// QLocale(English) writes it: 472658.4 -> "472,658"; -1234.5, 1 -> "-1,234.5"; NaN -> "nan".
inline std::string format_grouped(double v, int decimals = 0) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals < 0 ? 0 : decimals > 6 ? 6 : decimals, v);
  const std::string s = buf;
  const std::size_t start = s[0] == '-' ? 1 : 0;
  std::size_t end = s.find('.');
  if (end == std::string::npos) end = s.size();
  if (s.find_first_not_of("0123456789", start) < end) return s;  // inf, nan
  std::string out = s.substr(0, start);
  for (std::size_t i = start; i < end; ++i) {
    if (i > start && (end - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out + s.substr(end);
}

/// The decimals that write every value of a row alike (one precision per row: "0.930 ms" beside
/// "0.816 ms", never "0.93 ms"): enough for 3 significant digits of the smallest nonzero |value|,
/// from 0 up to `most`. 0.816 -> 3; 12.3 -> 1; 2300 -> 0; none nonzero -> 0.
inline int fixed_decimals(double smallest_abs, int most = 3) {
  if (!(smallest_abs > 0) || !std::isfinite(smallest_abs)) return 0;
  const int d = 2 - static_cast<int>(std::floor(std::log10(smallest_abs)));
  return d < 0 ? 0 : d > most ? most : d;
}

}  // namespace ts
