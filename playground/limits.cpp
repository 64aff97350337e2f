// Datasheet peaks and occupancy arithmetic (see limits.h).
#include "playground/limits.h"

#include <algorithm>
#include <climits>

namespace ts::playground {
namespace {

// The datasheets the peaks come from, one per product family.
constexpr const char* kH200Sheet = "NVIDIA H200 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/h200/";
constexpr const char* kH100Sheet = "NVIDIA H100 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/h100/";
constexpr const char* kA100Sheet = "NVIDIA A100 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/a100/";
constexpr std::int64_t kMiB = 1024 * 1024;

// Dense peaks (the datasheets print tensor-core figures "with sparsity": half of those is dense).
constexpr DatasheetPeaks kPeaks[] = {
    {"H200 NVL", "NVIDIA H200 NVL", 4800, 60, 417, 835.5, 60 * kMiB, kH200Sheet},
    {"H200", "NVIDIA H200 SXM", 4800, 67, 494.5, 989.5, 60 * kMiB, kH200Sheet},
    {"H100 PCIe", "NVIDIA H100 PCIe", 2000, 51, 378, 756, 50 * kMiB, kH100Sheet},
    {"H100 NVL", "NVIDIA H100 NVL", 3900, 60, 417, 835.5, 50 * kMiB, kH100Sheet},
    {"H100", "NVIDIA H100 SXM", 3350, 67, 494.5, 989.5, 50 * kMiB, kH100Sheet},
    {"A100-SXM4-80GB", "NVIDIA A100 SXM 80GB", 2039, 19.5, 156, 312, 40 * kMiB, kA100Sheet},
    {"A100", "NVIDIA A100 40GB", 1555, 19.5, 156, 312, 40 * kMiB, kA100Sheet},
};

int round_up(int v, int unit) {
  return (v + unit - 1) / unit * unit;
}
std::int64_t round_up64(std::int64_t v, std::int64_t unit) {
  return (v + unit - 1) / unit * unit;
}

}  // namespace

std::optional<DatasheetPeaks> datasheet_peaks(const std::string& device_name) {
  for (const auto& p : kPeaks)
    if (device_name.find(p.match) != std::string::npos) return p;
  return std::nullopt;
}

SmLimits sm90_limits() {
  return SmLimits{};
}

const char* limiter_name(OccupancyLimiter l) {
  switch (l) {
    case OccupancyLimiter::threads:
      return "threads per SM";
    case OccupancyLimiter::blocks:
      return "blocks per SM";
    case OccupancyLimiter::registers:
      return "registers";
    case OccupancyLimiter::shared_memory:
      return "shared memory";
    case OccupancyLimiter::none:
      return "none";
  }
  return "none";
}

Occupancy occupancy(const SmLimits& sm, int block_threads, int regs_per_thread, std::int64_t smem_bytes) {
  Occupancy o;
  if (block_threads <= 0 || block_threads > sm.max_threads_per_block || regs_per_thread > sm.max_regs_per_thread ||
      smem_bytes > sm.smem_per_block_optin || smem_bytes < 0)
    return o;
  const int warps_per_block = (block_threads + sm.warp_size - 1) / sm.warp_size;
  const int max_warps = sm.max_threads_per_sm / sm.warp_size;
  o.by_threads = max_warps / warps_per_block;
  o.by_blocks = sm.max_blocks_per_sm;
  // Registers: per warp, rounded up to the allocation unit; each sub-partition holds whole warps.
  const int regs_per_warp = round_up(std::max(regs_per_thread, 1) * sm.warp_size, sm.reg_alloc_unit);
  const int regs_assumed_per_block = regs_per_warp * round_up(warps_per_block, sm.sub_partitions);
  if (regs_assumed_per_block > sm.regs_per_block) {
    o.by_registers = 0;
  } else {
    const int warps_per_sub = (sm.regs_per_sm / sm.sub_partitions) / regs_per_warp;
    o.by_registers = warps_per_sub * sm.sub_partitions / warps_per_block;
  }
  // Shared memory: what the block asks for plus the reserved bytes, in allocation units.
  const std::int64_t smem_per_block = round_up64(smem_bytes + sm.reserved_smem_per_block, sm.smem_alloc_unit);
  o.by_smem = smem_bytes == 0 ? INT_MAX : static_cast<int>(sm.smem_per_sm / smem_per_block);
  o.blocks_per_sm = std::min({o.by_threads, o.by_blocks, o.by_registers, o.by_smem});
  // The limiter: the first limit that equals the minimum, in the calculator's order of report.
  if (o.blocks_per_sm == o.by_registers && o.by_registers < std::min(o.by_threads, o.by_blocks))
    o.limiter = OccupancyLimiter::registers;
  else if (o.blocks_per_sm == o.by_smem && o.by_smem < std::min(o.by_threads, o.by_blocks))
    o.limiter = OccupancyLimiter::shared_memory;
  else if (o.blocks_per_sm == o.by_blocks && o.by_blocks < o.by_threads)
    o.limiter = OccupancyLimiter::blocks;
  else
    o.limiter = OccupancyLimiter::threads;
  if (o.by_smem == INT_MAX) o.by_smem = 0;  // reported as "no limit"
  o.warps_per_sm = o.blocks_per_sm * warps_per_block;
  o.occupancy = static_cast<double>(o.warps_per_sm) / max_warps;
  return o;
}

}  // namespace ts::playground
