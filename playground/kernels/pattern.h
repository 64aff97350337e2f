// The playground's input patterns, the same on the host (CPU references) and on the device (fill
// kernels): a 64-bit mix of (index, seed), after splitmix64's finaliser (Steele, Lea, Flood,
// "Fast splittable pseudorandom number generators", OOPSLA 2014).
#pragma once
#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define TS_PG_HD __host__ __device__
#else
#define TS_PG_HD
#endif

namespace ts::playground {

TS_PG_HD inline std::uint64_t pattern_mix(std::uint64_t index, std::uint32_t seed) {
  std::uint64_t x = index * 0x9E3779B97F4A7C15ull + (static_cast<std::uint64_t>(seed) << 32 | seed);
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}
/// An integer in [0, 7] as a float.
TS_PG_HD inline float pattern_small(std::uint64_t index, std::uint32_t seed) {
  return static_cast<float>((pattern_mix(index, seed) >> 40) & 7u);
}
/// A multiple of 2^-15 in [-1, 1).
TS_PG_HD inline float pattern_unit(std::uint64_t index, std::uint32_t seed) {
  return static_cast<float>(static_cast<int>((pattern_mix(index, seed) >> 40) & 0xFFFFu) - 32768) * (1.0f / 32768.0f);
}
/// The divergence kernel's work on one element: `iters` fmaf steps of one of two recurrences. The
/// paths differ in shape (path 1 runs iters/2 steps of two fmaf), so the compiler cannot fold the
/// branch into one loop with selected constants. fmaf only: host and device agree bit for bit.
TS_PG_HD inline float divergence_path(float x, int path, int iters) {
  if (path == 0) {
    for (int t = 0; t < iters; ++t) x = fmaf(x, 0.9990234375f, 0.5f);
  } else {
    for (int t = 0; t < iters / 2; ++t) x = fmaf(fmaf(x, -0.4990234375f, 1.25f), 0.998046875f, -0.25f);
  }
  return x;
}

}  // namespace ts::playground
