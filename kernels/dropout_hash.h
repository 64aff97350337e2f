// Counter-based dropout mask shared by the CPU and CUDA backends, so that both draw the same mask
// for the same (seed, step, layer, element): keep element i when uniform(hash) >= p.
// The mix is SplitMix64's finaliser (Steele, Lea, Flood 2014, "Fast splittable pseudorandom number
// generators"), which passes BigCrush on sequential counters.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define TS_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define TS_HOST_DEVICE inline
#endif

namespace ts {

TS_HOST_DEVICE std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Uniform in [0, 1) with 24 bits, for element `i` of the mask keyed by `key`
/// (key = splitmix64(seed ^ splitmix64(step * 1024 + layer))).
TS_HOST_DEVICE float dropout_uniform(std::uint64_t key, std::uint64_t i) {
  return static_cast<float>(splitmix64(key ^ (i * 0xD1B54A32D192ED03ull)) >> 40) * (1.0f / 16777216.0f);
}

TS_HOST_DEVICE std::uint64_t dropout_key(std::uint64_t seed, std::uint64_t step, std::uint64_t layer) {
  return splitmix64(seed ^ splitmix64(step * 1024u + layer));
}

}  // namespace ts
