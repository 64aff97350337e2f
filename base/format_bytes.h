// format_bytes(): how a byte count is written for people, in one place for the window, the lessons
// and the command line, so that one quantity reads the same wherever it is shown ("144.0 MB" in the
// lesson table and the memory track alike). Decimal units (1 MB = 10^6 bytes), as nvidia-smi's
// neighbours in the field (PyTorch's memory summary uses MiB; the window says MB everywhere).
#pragma once
#include <cmath>
#include <cstdio>
#include <string>

namespace ts {

/// `bytes` with the largest decimal unit (B, kB, MB, GB, TB) that leaves at least 1 before the
/// point, and `precision` decimals (bytes themselves: none): 144.0e6, 1 -> "144.0 MB";
/// 1.5e9, 2 -> "1.50 GB"; 512 -> "512 B". Negative values keep their sign; NaN gives "nan B".
inline std::string format_bytes(double bytes, int precision = 2) {
  const double a = std::fabs(bytes);
  const char* unit = "B";
  double v = bytes;
  if (a >= 1e12) unit = "TB", v = bytes / 1e12;
  else if (a >= 1e9) unit = "GB", v = bytes / 1e9;
  else if (a >= 1e6) unit = "MB", v = bytes / 1e6;
  else if (a >= 1e3) unit = "kB", v = bytes / 1e3;
  else precision = 0;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", precision < 0 ? 0 : precision > 6 ? 6 : precision, v, unit);
  return buf;
}

}  // namespace ts
