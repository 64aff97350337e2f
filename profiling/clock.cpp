// Clock alignment (see clock.h).
#include "profiling/clock.h"

#include <limits>

namespace ts::prof {

ClockOffset measure_offset(const std::function<std::int64_t()>& host, const std::function<std::int64_t()>& other,
                           int rounds) {
  ClockOffset best;
  std::int64_t best_bracket = std::numeric_limits<std::int64_t>::max();
  for (int i = 0; i < rounds; ++i) {
    const std::int64_t h0 = host();
    const std::int64_t o = other();
    const std::int64_t h1 = host();
    if (h1 - h0 < best_bracket) {
      best_bracket = h1 - h0;
      best.host_ns = h0 + (h1 - h0) / 2;
      best.offset_ns = o - best.host_ns;
      best.error_ns = (h1 - h0) / 2;
    }
  }
  return best;
}

}  // namespace ts::prof
