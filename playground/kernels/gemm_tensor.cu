// Tensor cores through WMMA (CUDA C++ Programming Guide, "Warp Matrix Functions"): a warp computes
// a 32x32 tile of C as 2x2 fragments of 16x16, stepping K by 16 with mma_sync; fragments load
// straight from global memory (row-major A and B, fp32 accumulation, fp32 C). The first rung of the
// tensor-core ladder: no shared-memory staging, no pipelining, which is what cuBLAS adds above it.
// Kernels first, then the launchers (launch.h).
#include <mma.h>

#include <type_traits>

#include "playground/kernels/launch.h"

namespace ts::playground::k {
namespace {

namespace wmma = nvcuda::wmma;
constexpr int kWarpTile = 32, kBlockTile = 64;  // 4 warps (2x2) per block

template <class T>
__device__ void wmma_body(int m, int n, int k, const T* a, const T* b, float* c) {
  const int warp = threadIdx.x / 32;
  const int row0 = blockIdx.y * kBlockTile + (warp / 2) * kWarpTile;
  const int col0 = blockIdx.x * kBlockTile + (warp % 2) * kWarpTile;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
  for (auto& r : acc)
    for (auto& f : r) wmma::fill_fragment(f, 0.0f);
  wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa[2];
  wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> fb[2];
  for (int p = 0; p < k; p += 16) {
    for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(fa[i], a + static_cast<std::int64_t>(row0 + 16 * i) * k + p, k);
    for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(fb[j], b + static_cast<std::int64_t>(p) * n + col0 + 16 * j, n);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(c + static_cast<std::int64_t>(row0 + 16 * i) * n + col0 + 16 * j, acc[i][j], n,
                              wmma::mem_row_major);
}

// bf16 fragments exist from compute capability 8.0; built for older targets the bf16 kernel traps
// (the harness does not launch it there: families_compute.cpp).
template <class T>
__global__ void __launch_bounds__(128) wmma_gemm(int m, int n, int k, const T* a, const T* b, float* c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  if constexpr (std::is_same_v<T, __nv_bfloat16>)
    __trap();
  else
    wmma_body<T>(m, n, k, a, b, c);
#else
  wmma_body<T>(m, n, k, a, b, c);
#endif
}

}  // namespace

cudaError_t wmma_gemm_half(int m, int n, int k, const __half* a, const __half* b, float* c, cudaStream_t s) {
  wmma_gemm<__half><<<dim3(n / kBlockTile, m / kBlockTile), 128, 0, s>>>(m, n, k, a, b, c);
  return cudaGetLastError();
}

cudaError_t wmma_gemm_bf16(int m, int n, int k, const __nv_bfloat16* a, const __nv_bfloat16* b, float* c,
                           cudaStream_t s) {
  wmma_gemm<__nv_bfloat16><<<dim3(n / kBlockTile, m / kBlockTile), 128, 0, s>>>(m, n, k, a, b, c);
  return cudaGetLastError();
}

}  // namespace ts::playground::k
