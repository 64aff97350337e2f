// The launch knobs a user sets in the Playground workspace, checked before anything runs (the same
// rules `trainscope-run --playground` applies, playground/playground.cpp), and the
// theoretical occupancy of a hand-set launch (the warps family's calculator). Qt-free, CUDA-free.
#pragma once
#include <cstdint>
#include <string>

#include "playground/limits.h"

namespace ts::playground {

/// vector_add's threads per block: a multiple of 32 (a whole number of warps) in [32, 1024] (the
/// CUDA C++ Programming Guide's maximum block size, every compute capability). Throws ts::InputError.
void check_threads_per_block(int threads);
/// vector_add's blocks per grid: 0 (one element per thread) or 1..2^30 (the runner's cap; gridDim.x
/// allows 2^31-1). Throws ts::InputError.
void check_blocks_per_grid(std::int64_t blocks);

/// A launch to hold against the occupancy calculator (occupancy family's knobs).
struct LaunchKnobs {
  int threads_per_block = 256;
  int registers = 32;           // per thread
  std::int64_t smem_bytes = 0;  // static + dynamic shared memory per block
};
/// Throws ts::InputError with the first knob out of `sm`'s range (threads 32..max_threads_per_block in
/// warps, registers 1..max_regs_per_thread, shared memory 0..smem_per_block_optin).
void check_launch_knobs(const SmLimits& sm, const LaunchKnobs& k);
/// One line: "8 blocks of 256 threads per SM: 100 % occupancy (limited by threads)".
std::string occupancy_text(const SmLimits& sm, const LaunchKnobs& k);

}  // namespace ts::playground
