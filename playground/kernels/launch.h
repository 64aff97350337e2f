// Launchers of the playground's kernels (playground/kernels/*.cu), callable from host C++. Each one
// enqueues its kernel(s) on `stream` and returns cudaGetLastError() (the launch error; execution
// errors surface at the next synchronisation). Shapes: counts are elements, matrices row-major.
// Inputs are filled on the device with the patterns of pattern.h.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace ts::playground::k {

// --- memory.cu ---------------------------------------------------------------------------------
/// p[i] = pattern_small(i, seed) (kind 0) or pattern_unit(i, seed) (kind 1), i in [0, n).
cudaError_t fill(float* p, std::int64_t n, std::uint32_t seed, int kind, cudaStream_t s);
/// Converts n floats to half / bf16 (round to nearest).
cudaError_t to_half(const float* in, __half* out, std::int64_t n, cudaStream_t s);
cudaError_t to_bf16(const float* in, __nv_bfloat16* out, std::int64_t n, cudaStream_t s);
/// c = a + b, grid-stride, with the caller's block and grid (threads_per_block <= 1024).
cudaError_t vector_add(const float* a, const float* b, float* c, std::int64_t n, int threads_per_block,
                       int blocks_per_grid, cudaStream_t s);
/// out = in, one float (vec 1) or one float4 (vec 4; n a multiple of 4) per thread.
cudaError_t copy(const float* in, float* out, std::int64_t n, int vec, cudaStream_t s);
/// out[i] = in[i * stride], i in [0, n): in holds n * stride floats.
cudaError_t strided_read(const float* in, float* out, std::int64_t n, int stride, cudaStream_t s);
/// out (cols x rows) = in (rows x cols)^T; rows and cols multiples of 32. variant 0: naive (one
/// element per thread, coalesced reads, strided writes), 1: 32x32 shared tile, 2: tile padded to 33.
cudaError_t transpose(const float* in, float* out, int rows, int cols, int variant, cudaStream_t s);

// --- reduction.cu ------------------------------------------------------------------------------
/// Harris's reduction step `step` (1..6) of n floats into per-block partial sums: writes
/// *blocks partial sums to `partial` (at least reduction_blocks(n, step, sms) floats). n a multiple
/// of 2048.
cudaError_t reduce(const float* in, float* partial, std::int64_t n, int step, int sms, cudaStream_t s);
/// The number of partial sums step `step` writes.
std::int64_t reduction_blocks(std::int64_t n, int step, int sms);

// --- gemm.cu -----------------------------------------------------------------------------------
/// C (m x n) = A (m x k) B (k x n), fp32, row-major. variant 1 naive, 2 global-memory coalescing,
/// 3 shared-memory tiling, 4 1D block tiling, 5 2D block tiling, 6 vectorised (float4) loads,
/// 7 warp tiling. m, n, k multiples of 128 (every variant's tile divides 128).
cudaError_t sgemm(int variant, int m, int n, int k, const float* a, const float* b, float* c, cudaStream_t s);
/// Step 7 (and 8 with double_buffer): warp tiling with a 128x128x16 block tile; config 0: 128
/// threads, 64x64 per warp; config 1: 256 threads, 64x32 per warp. m, n multiples of 128, k of 16.
cudaError_t sgemm_warptile(int config, bool double_buffer, int m, int n, int k, const float* a, const float* b,
                           float* c, cudaStream_t s);

// --- gemm_tensor.cu ----------------------------------------------------------------------------
/// C (fp32) = A B with fp16 / bf16 inputs through WMMA 16x16x16 fragments, fp32 accumulation;
/// m, n multiples of 64, k of 16.
cudaError_t wmma_gemm_half(int m, int n, int k, const __half* a, const __half* b, float* c, cudaStream_t s);
cudaError_t wmma_gemm_bf16(int m, int n, int k, const __nv_bfloat16* a, const __nv_bfloat16* b, float* c,
                           cudaStream_t s);

// --- warps.cu ----------------------------------------------------------------------------------
/// out[i] = `iters` divergence_step()s from pattern_small(i, seed); the path is 0 for every thread
/// (mode 0), the warp's parity (mode 1: a branch per warp) or the lane's parity (mode 2: per lane).
cudaError_t divergence(float* out, std::int64_t n, std::uint32_t seed, int iters, int mode, cudaStream_t s);
/// Occupancy kernel variants: sums n floats (n a multiple of 4 * 1024) into *total (an integer
/// count, exact for pattern_small), grid-stride, float4 loads. variant 0: ILP 1 (one float4 in
/// flight per thread); 1: ILP 16, registers as the compiler likes; 2: ILP 16 under
/// __launch_bounds__(256, 8) on cc 8.0/9.0 (<= 32 registers; 6 or 4 blocks where the SM holds
/// fewer threads). `blocks` from the caller (a full wave: SMs x resident blocks), dynamic shared
/// memory `dyn_smem` bytes (opted in above 48 KiB).
cudaError_t occupancy_read(int variant, const float* in, std::int64_t n, unsigned long long* total, int threads,
                           int blocks, int dyn_smem, cudaStream_t s);
/// The kernel function of an occupancy variant (for cudaFuncGetAttributes and the occupancy API).
const void* occupancy_kernel(int variant);

}  // namespace ts::playground::k
