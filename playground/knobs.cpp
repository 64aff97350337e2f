// The Playground workspace's launch knobs (knobs.h).
#include "playground/knobs.h"

#include <fmt/core.h>

#include "base/errors.h"

namespace ts::playground {

void check_threads_per_block(int threads) {
  if (threads < 32 || threads > 1024 || threads % 32 != 0)
    throw InputError(fmt::format("threads per block {}: a multiple of 32 (whole warps) in [32, 1024]", threads));
}

void check_blocks_per_grid(std::int64_t blocks) {
  if (blocks < 0 || blocks > (1ll << 30))
    throw InputError(fmt::format("blocks per grid {}: 0 (one element per thread) or 1..2^30", blocks));
}

void check_launch_knobs(const SmLimits& sm, const LaunchKnobs& k) {
  if (k.threads_per_block < sm.warp_size || k.threads_per_block > sm.max_threads_per_block ||
      k.threads_per_block % sm.warp_size != 0)
    throw InputError(fmt::format("threads per block {}: a multiple of {} in [{}, {}]", k.threads_per_block,
                                 sm.warp_size, sm.warp_size, sm.max_threads_per_block));
  if (k.registers < 1 || k.registers > sm.max_regs_per_thread)
    throw InputError(fmt::format("registers {}: 1..{} per thread", k.registers, sm.max_regs_per_thread));
  if (k.smem_bytes < 0 || k.smem_bytes > sm.smem_per_block_optin)
    throw InputError(fmt::format("shared memory {} bytes: at most {} KiB per block (the opt-in maximum)", k.smem_bytes,
                                 sm.smem_per_block_optin / 1024));
}

std::string occupancy_text(const SmLimits& sm, const LaunchKnobs& k) {
  const Occupancy o = occupancy(sm, k.threads_per_block, k.registers, k.smem_bytes);
  if (o.blocks_per_sm == 0) return "does not launch: the block needs more registers or shared memory than an SM has";
  return fmt::format("{} block{} of {} threads per SM: {:.0f} % occupancy (limited by {})", o.blocks_per_sm,
                     o.blocks_per_sm == 1 ? "" : "s", k.threads_per_block, 100 * o.occupancy, limiter_name(o.limiter));
}

}  // namespace ts::playground
