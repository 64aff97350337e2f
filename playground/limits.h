// The limits a ladder is held against, and the occupancy arithmetic of the warps family. Qt-free and
// CUDA-free. Datasheet peaks come from one table keyed by the device's name, each row with its
// source; a figure from it is a datasheet number, never presented as measured.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace ts::playground {

/// Datasheet peaks of one card (dense, no sparsity).
struct DatasheetPeaks {
  const char* match;      // substring of cudaDeviceProp::name, e.g. "H200"
  const char* card;       // "NVIDIA H200 SXM"
  double dram_gbps;       // memory bandwidth, GB/s (1e9 bytes/s)
  double fp32_tflops;     // FP32 (CUDA cores), TFLOP/s
  double tf32_tflops;     // TF32 tensor cores, dense, TFLOP/s
  double bf16_tflops;     // BF16/FP16 tensor cores, dense, TFLOP/s
  std::int64_t l2_bytes;  // L2 cache, bytes
  const char* source;     // the datasheet's name and address
};

/// The table's row whose `match` the device name contains (the first, most specific rows first),
/// or nullopt for a card the table does not know.
std::optional<DatasheetPeaks> datasheet_peaks(const std::string& device_name);

/// Per-SM limits for the occupancy arithmetic (CUDA C++ Programming Guide, "Compute Capabilities",
/// table "Technical Specifications per Compute Capability"; allocation rules of CUDA's occupancy
/// calculator, cuda_occupancy.h).
struct SmLimits {
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  int max_threads_per_block = 1024;
  int regs_per_sm = 65536;
  int regs_per_block = 65536;
  int max_regs_per_thread = 255;
  int reg_alloc_unit = 256;                        // registers are given to a warp in units of 256
  int sub_partitions = 4;                          // registers are split over the SM's 4 sub-partitions
  std::int64_t smem_per_sm = 228 * 1024;           // bytes, the largest carveout
  std::int64_t smem_per_block_optin = 227 * 1024;  // bytes a block may ask for (opt-in)
  std::int64_t reserved_smem_per_block = 1024;     // bytes the system keeps per block (cc >= 8.0)
  std::int64_t smem_alloc_unit = 128;              // bytes
  int warp_size = 32;
};
/// The limits of compute capability 9.0 (H100, H200).
SmLimits sm90_limits();

enum class OccupancyLimiter : std::uint8_t { threads, blocks, registers, shared_memory, none };
const char* limiter_name(OccupancyLimiter l);

struct Occupancy {
  int blocks_per_sm = 0;                              // resident blocks of this kernel per SM
  int warps_per_sm = 0;                               // blocks_per_sm x warps per block
  double occupancy = 0;                               // warps_per_sm / (max_threads_per_sm / warp_size), 0..1
  OccupancyLimiter limiter = OccupancyLimiter::none;  // the smallest of the four limits
  int by_threads = 0, by_blocks = 0, by_registers = 0, by_smem = 0;  // each limit's blocks per SM
};

/// Theoretical occupancy of a kernel with `block_threads` threads per block, `regs_per_thread`
/// registers and `smem_bytes` shared memory per block (static + dynamic, bytes), the way CUDA's
/// occupancy calculator counts it (cuda_occupancy.h: registers per warp rounded up to
/// reg_alloc_unit, warps per sub-partition; shared memory plus the reserved 1 KiB rounded up to
/// smem_alloc_unit). A kernel that cannot launch (too many threads, registers or bytes) gets 0
/// blocks. Throws nothing.
Occupancy occupancy(const SmLimits& sm, int block_threads, int regs_per_thread, std::int64_t smem_bytes);

}  // namespace ts::playground
