// The memory family: the first kernel (vector add), the device copy that measures this card's
// bandwidth ceiling, strided reads (coalescing: 32-byte sectors fetched for 4 useful bytes), and the
// transpose ladder (naive -> shared-memory tile -> tile padded against bank conflicts; Harris,
// "An Efficient Matrix Transpose in CUDA C/C++", NVIDIA developer blog, 2013).
// Kernels first, then their launchers (launch.h).
#include "playground/kernels/launch.h"
#include "playground/kernels/pattern.h"

namespace ts::playground::k {
namespace {

constexpr int kTile = 32, kRowsPerPass = 8;  // the transpose's 32x32 tile, walked by 32x8 threads

__global__ void fill_kernel(float* p, std::int64_t n, std::uint32_t seed, int kind) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    p[i] = kind == 0 ? pattern_small(i, seed) : pattern_unit(i, seed);
}

template <class T>
__global__ void convert_kernel(const float* in, T* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    if constexpr (sizeof(T) == 2 && std::is_same_v<T, __half>)
      out[i] = __float2half_rn(in[i]);
    else
      out[i] = __float2bfloat16_rn(in[i]);
  }
}

// Each thread adds elements i, i + (grid x block), ...: any grid covers any n.
__global__ void vector_add_kernel(const float* a, const float* b, float* c, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    c[i] = a[i] + b[i];
}

__global__ void copy_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = in[i];
}

__global__ void copy4_kernel(const float4* __restrict__ in, float4* __restrict__ out, std::int64_t n4) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n4) out[i] = in[i];
}

// A warp reads 32 floats `stride` apart: stride >= 8 puts every one in its own 32-byte sector.
__global__ void strided_read_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n, int stride) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = in[i * stride];
}

// Naive: reads along a row (coalesced), writes down a column (each lane's write in its own sector).
__global__ void transpose_naive_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y0 = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRowsPerPass)
    out[static_cast<std::int64_t>(x) * rows + y0 + j] = in[static_cast<std::int64_t>(y0 + j) * cols + x];
}

// Through a shared tile: both the global read and the global write run along rows. Without padding
// the tile's column reads hit one bank 32 times; a 33-float row puts them in 32 different banks.
template <int Pad>
__global__ void transpose_tile_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + Pad];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRowsPerPass)
    tile[threadIdx.y + j][threadIdx.x] = in[static_cast<std::int64_t>(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;  // the output's column: the input's row block
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRowsPerPass)
    out[static_cast<std::int64_t>(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

unsigned grid_for(std::int64_t n, int block) {
  return static_cast<unsigned>((n + block - 1) / block);
}
unsigned capped_grid(std::int64_t n, int block) {  // grid-stride kernels: at most 64k blocks
  const std::int64_t g = (n + block - 1) / block;
  return static_cast<unsigned>(g < 65536 ? (g > 0 ? g : 1) : 65536);
}

}  // namespace

cudaError_t fill(float* p, std::int64_t n, std::uint32_t seed, int kind, cudaStream_t s) {
  fill_kernel<<<capped_grid(n, 256), 256, 0, s>>>(p, n, seed, kind);
  return cudaGetLastError();
}

cudaError_t to_half(const float* in, __half* out, std::int64_t n, cudaStream_t s) {
  convert_kernel<__half><<<capped_grid(n, 256), 256, 0, s>>>(in, out, n);
  return cudaGetLastError();
}

cudaError_t to_bf16(const float* in, __nv_bfloat16* out, std::int64_t n, cudaStream_t s) {
  convert_kernel<__nv_bfloat16><<<capped_grid(n, 256), 256, 0, s>>>(in, out, n);
  return cudaGetLastError();
}

cudaError_t vector_add(const float* a, const float* b, float* c, std::int64_t n, int threads_per_block,
                       int blocks_per_grid, cudaStream_t s) {
  vector_add_kernel<<<blocks_per_grid, threads_per_block, 0, s>>>(a, b, c, n);
  return cudaGetLastError();
}

cudaError_t copy(const float* in, float* out, std::int64_t n, int vec, cudaStream_t s) {
  if (vec == 4)
    copy4_kernel<<<grid_for(n / 4, 256), 256, 0, s>>>(reinterpret_cast<const float4*>(in),
                                                      reinterpret_cast<float4*>(out), n / 4);
  else
    copy_kernel<<<grid_for(n, 256), 256, 0, s>>>(in, out, n);
  return cudaGetLastError();
}

cudaError_t strided_read(const float* in, float* out, std::int64_t n, int stride, cudaStream_t s) {
  strided_read_kernel<<<grid_for(n, 256), 256, 0, s>>>(in, out, n, stride);
  return cudaGetLastError();
}

cudaError_t transpose(const float* in, float* out, int rows, int cols, int variant, cudaStream_t s) {
  const dim3 block(kTile, kRowsPerPass), grid(cols / kTile, rows / kTile);
  if (variant == 0)
    transpose_naive_kernel<<<grid, block, 0, s>>>(in, out, rows, cols);
  else if (variant == 1)
    transpose_tile_kernel<0><<<grid, block, 0, s>>>(in, out, rows, cols);
  else
    transpose_tile_kernel<1><<<grid, block, 0, s>>>(in, out, rows, cols);
  return cudaGetLastError();
}

}  // namespace ts::playground::k
