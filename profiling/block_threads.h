// Threads per block of a kernel's launch configuration, saturated: an imported trace's block
// dimensions are only clamped to int32 each, so their product is taken in double (no signed overflow
// on a hostile file). Its own small header, so that the few users include it alone.
#pragma once
#include <cstdint>

#include "profiling/records.h"

namespace ts::prof {

/// block x * y * z, at most 2^30 (CUDA's real limit is 1024); 0 for a non-positive dimension.
inline std::int32_t block_threads(const KernelConfig& c) {
  const double t = static_cast<double>(c.block[0]) * c.block[1] * c.block[2];
  return t <= 0 ? 0 : t >= 1073741824.0 ? 1073741824 : static_cast<std::int32_t>(t);
}

}  // namespace ts::prof
