// The SGEMM ladder, C = A B in fp32, row-major (A m x k, B k x n, C m x n), after Simon Boehm,
// "How to Optimize a CUDA Matmul Kernel for cuBLAS-like Performance: a Worklog" (2022,
// siboehm.com/articles/22/CUDA-MMM). Written here from the worklog's ideas; each step changes one thing:
//   1 naive: a thread per output, consecutive threads take consecutive *rows* (uncoalesced A and C)
//   2 global-memory coalescing: consecutive threads take consecutive columns
//   3 shared-memory tiling: 32x32 tiles of A and B staged in shared memory
//   4 1D block tiling: each thread computes a column of 8 outputs (BM = BN = 64, BK = 8)
//   5 2D block tiling: each thread computes an 8x8 block of outputs (BM = BN = 128, BK = 8)
//   6 vectorised loads: float4 global loads, A's tile stored transposed, float4 shared loads
//   7 warp tiling: a warp owns a 64x64 sub-tile, threads 8x4 outputs in 4 column strips (BK = 16)
// m, n, k must be multiples of 128. Kernels first, then the launcher (launch.h).
#include "kernels/playground/launch.h"

namespace ts::playground::k {
namespace {

__global__ void sgemm_naive(int m, int n, int k, const float* a, const float* b, float* c) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;  // threadIdx.x walks rows: lanes 4k bytes apart
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;
  float acc = 0;
  for (int p = 0; p < k; ++p) acc += a[static_cast<std::int64_t>(row) * k + p] * b[static_cast<std::int64_t>(p) * n + col];
  c[static_cast<std::int64_t>(row) * n + col] = acc;
}

__global__ void sgemm_coalesced(int m, int n, int k, const float* a, const float* b, float* c) {
  const int row = blockIdx.y * 32 + threadIdx.x / 32;
  const int col = blockIdx.x * 32 + threadIdx.x % 32;  // a warp: one row, 32 consecutive columns
  float acc = 0;
  for (int p = 0; p < k; ++p) acc += a[static_cast<std::int64_t>(row) * k + p] * b[static_cast<std::int64_t>(p) * n + col];
  c[static_cast<std::int64_t>(row) * n + col] = acc;
}

__global__ void sgemm_smem(int m, int n, int k, const float* a, const float* b, float* c) {
  constexpr int T = 32;
  __shared__ float as[T * T], bs[T * T];
  const int tr = threadIdx.x / T, tc = threadIdx.x % T;
  a += static_cast<std::int64_t>(blockIdx.y) * T * k;
  b += blockIdx.x * T;
  float acc = 0;
  for (int p0 = 0; p0 < k; p0 += T) {
    as[tr * T + tc] = a[static_cast<std::int64_t>(tr) * k + p0 + tc];
    bs[tr * T + tc] = b[static_cast<std::int64_t>(p0 + tr) * n + tc];
    __syncthreads();
    for (int p = 0; p < T; ++p) acc += as[tr * T + p] * bs[p * T + tc];
    __syncthreads();
  }
  c[(static_cast<std::int64_t>(blockIdx.y) * T + tr) * n + blockIdx.x * T + tc] = acc;
}

// 512 threads; thread (tr, tc) computes rows tr*8 .. tr*8+7 of column tc of the 64x64 block.
__global__ void sgemm_1d(int m, int n, int k, const float* a, const float* b, float* c) {
  constexpr int BM = 64, BN = 64, BK = 8, TM = 8;
  __shared__ float as[BM * BK], bs[BK * BN];
  const int tid = threadIdx.x, tc = tid % BN, tr = tid / BN;
  a += static_cast<std::int64_t>(blockIdx.y) * BM * k;
  b += blockIdx.x * BN;
  const int ar = tid / BK, ac = tid % BK, br = tid / BN, bc = tid % BN;
  float acc[TM] = {};
  for (int p0 = 0; p0 < k; p0 += BK) {
    as[ar * BK + ac] = a[static_cast<std::int64_t>(ar) * k + p0 + ac];
    bs[br * BN + bc] = b[static_cast<std::int64_t>(p0 + br) * n + bc];
    __syncthreads();
    for (int p = 0; p < BK; ++p) {
      const float bv = bs[p * BN + tc];
      for (int r = 0; r < TM; ++r) acc[r] += as[(tr * TM + r) * BK + p] * bv;
    }
    __syncthreads();
  }
  for (int r = 0; r < TM; ++r)
    c[(static_cast<std::int64_t>(blockIdx.y) * BM + tr * TM + r) * n + blockIdx.x * BN + tc] = acc[r];
}

constexpr int kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8;  // steps 5 and 6: 256 threads

__global__ void __launch_bounds__(256) sgemm_2d(int m, int n, int k, const float* a, const float* b, float* c) {
  __shared__ float as[kBM * kBK], bs[kBK * kBN];
  const int tid = threadIdx.x, tr = tid / (kBN / kTN), tc = tid % (kBN / kTN);
  a += static_cast<std::int64_t>(blockIdx.y) * kBM * k;
  b += blockIdx.x * kBN;
  const int ar = tid / kBK, ac = tid % kBK, br = tid / kBN, bc = tid % kBN;
  constexpr int strideA = 256 / kBK, strideB = 256 / kBN;
  float acc[kTM][kTN] = {}, rm[kTM], rn[kTN];
  for (int p0 = 0; p0 < k; p0 += kBK) {
    for (int o = 0; o < kBM; o += strideA) as[(ar + o) * kBK + ac] = a[static_cast<std::int64_t>(ar + o) * k + p0 + ac];
    for (int o = 0; o < kBK; o += strideB) bs[(br + o) * kBN + bc] = b[static_cast<std::int64_t>(p0 + br + o) * n + bc];
    __syncthreads();
    for (int p = 0; p < kBK; ++p) {
      for (int i = 0; i < kTM; ++i) rm[i] = as[(tr * kTM + i) * kBK + p];
      for (int j = 0; j < kTN; ++j) rn[j] = bs[p * kBN + tc * kTN + j];
      for (int i = 0; i < kTM; ++i)
        for (int j = 0; j < kTN; ++j) acc[i][j] += rm[i] * rn[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < kTM; ++i)
    for (int j = 0; j < kTN; ++j)
      c[(static_cast<std::int64_t>(blockIdx.y) * kBM + tr * kTM + i) * n + blockIdx.x * kBN + tc * kTN + j] = acc[i][j];
}

__global__ void __launch_bounds__(256) sgemm_vec(int m, int n, int k, const float* a, const float* b, float* c) {
  __shared__ __align__(16) float as[kBK * kBM];  // transposed: as[p * BM + row]
  __shared__ __align__(16) float bs[kBK * kBN];
  const int tid = threadIdx.x, tr = tid / (kBN / kTN), tc = tid % (kBN / kTN);
  a += static_cast<std::int64_t>(blockIdx.y) * kBM * k;
  b += blockIdx.x * kBN;
  const int ar = tid / (kBK / 4), ac = tid % (kBK / 4);  // 128 rows x 2 float4
  const int br = tid / (kBN / 4), bc = tid % (kBN / 4);  // 8 rows x 32 float4
  float acc[kTM][kTN] = {}, rm[kTM], rn[kTN];
  for (int p0 = 0; p0 < k; p0 += kBK) {
    const float4 av = *reinterpret_cast<const float4*>(&a[static_cast<std::int64_t>(ar) * k + p0 + ac * 4]);
    as[(ac * 4 + 0) * kBM + ar] = av.x;
    as[(ac * 4 + 1) * kBM + ar] = av.y;
    as[(ac * 4 + 2) * kBM + ar] = av.z;
    as[(ac * 4 + 3) * kBM + ar] = av.w;
    *reinterpret_cast<float4*>(&bs[br * kBN + bc * 4]) =
        *reinterpret_cast<const float4*>(&b[static_cast<std::int64_t>(p0 + br) * n + bc * 4]);
    __syncthreads();
    for (int p = 0; p < kBK; ++p) {
      for (int i = 0; i < kTM; i += 4) *reinterpret_cast<float4*>(&rm[i]) = *reinterpret_cast<const float4*>(&as[p * kBM + tr * kTM + i]);
      for (int j = 0; j < kTN; j += 4) *reinterpret_cast<float4*>(&rn[j]) = *reinterpret_cast<const float4*>(&bs[p * kBN + tc * kTN + j]);
      for (int i = 0; i < kTM; ++i)
        for (int j = 0; j < kTN; ++j) acc[i][j] += rm[i] * rn[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < kTM; ++i)
    for (int j = 0; j < kTN; j += 4)
      *reinterpret_cast<float4*>(&c[(static_cast<std::int64_t>(blockIdx.y) * kBM + tr * kTM + i) * n + blockIdx.x * kBN + tc * kTN + j]) =
          make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
}

// Warp tiling: 128 threads = 4 warps in 2x2 over the 128x128 block tile; a warp's 64x64 sub-tile is
// WNITER = 4 strips of 64x16; in a strip the 32 lanes form 8 rows x 4 columns of 8x4 outputs.
namespace wt {
constexpr int BM = 128, BN = 128, BK = 16, WM = 64, WN = 64, WNITER = 4, TM = 8, TN = 4, THREADS = 128;
constexpr int WSUBN = WN / WNITER;                      // 16
constexpr int WMITER = (WM * WN) / (32 * TM * TN * WNITER);  // 1
constexpr int WSUBM = WM / WMITER;                      // 64
static_assert(WMITER == 1 && (WSUBN / TN) * (WSUBM / TM) == 32, "a strip's lanes cover it once");
}  // namespace wt

__global__ void __launch_bounds__(wt::THREADS) sgemm_warptile(int m, int n, int k, const float* a, const float* b, float* c) {
  using namespace wt;
  __shared__ __align__(16) float as[BK * BM];  // transposed
  __shared__ __align__(16) float bs[BK * BN];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wr = warp / (BN / WN), wc = warp % (BN / WN);
  const int lr = lane / (WSUBN / TN), lc = lane % (WSUBN / TN);
  a += static_cast<std::int64_t>(blockIdx.y) * BM * k;
  b += blockIdx.x * BN;
  const int ar = tid / (BK / 4), ac = tid % (BK / 4);  // 32 rows x 4 float4 per pass
  const int br = tid / (BN / 4), bc = tid % (BN / 4);  // 4 rows x 32 float4 per pass
  constexpr int strideA = THREADS / (BK / 4), strideB = THREADS / (BN / 4);
  float acc[WMITER * TM][WNITER * TN] = {}, rm[WMITER * TM], rn[WNITER * TN];
  for (int p0 = 0; p0 < k; p0 += BK) {
    for (int o = 0; o < BM; o += strideA) {
      const float4 av = *reinterpret_cast<const float4*>(&a[static_cast<std::int64_t>(ar + o) * k + p0 + ac * 4]);
      as[(ac * 4 + 0) * BM + ar + o] = av.x;
      as[(ac * 4 + 1) * BM + ar + o] = av.y;
      as[(ac * 4 + 2) * BM + ar + o] = av.z;
      as[(ac * 4 + 3) * BM + ar + o] = av.w;
    }
    for (int o = 0; o < BK; o += strideB)
      *reinterpret_cast<float4*>(&bs[(br + o) * BN + bc * 4]) =
          *reinterpret_cast<const float4*>(&b[static_cast<std::int64_t>(p0 + br + o) * n + bc * 4]);
    __syncthreads();
    for (int p = 0; p < BK; ++p) {
      for (int sm = 0; sm < WMITER; ++sm)
        for (int i = 0; i < TM; ++i) rm[sm * TM + i] = as[p * BM + wr * WM + sm * WSUBM + lr * TM + i];
      for (int sn = 0; sn < WNITER; ++sn)
        for (int j = 0; j < TN; ++j) rn[sn * TN + j] = bs[p * BN + wc * WN + sn * WSUBN + lc * TN + j];
      for (int i = 0; i < WMITER * TM; ++i)
        for (int j = 0; j < WNITER * TN; ++j) acc[i][j] += rm[i] * rn[j];
    }
    __syncthreads();
  }
  for (int sm = 0; sm < WMITER; ++sm)
    for (int sn = 0; sn < WNITER; ++sn)
      for (int i = 0; i < TM; ++i) {
        const std::int64_t row = static_cast<std::int64_t>(blockIdx.y) * BM + wr * WM + sm * WSUBM + lr * TM + i;
        const int col = blockIdx.x * BN + wc * WN + sn * WSUBN + lc * TN;
        const float* v = &acc[sm * TM + i][sn * TN];
        *reinterpret_cast<float4*>(&c[row * n + col]) = make_float4(v[0], v[1], v[2], v[3]);
      }
}

}  // namespace

cudaError_t sgemm(int variant, int m, int n, int k, const float* a, const float* b, float* c, cudaStream_t s) {
  switch (variant) {
    case 1: sgemm_naive<<<dim3((m + 31) / 32, (n + 31) / 32), dim3(32, 32), 0, s>>>(m, n, k, a, b, c); break;
    case 2: sgemm_coalesced<<<dim3(n / 32, m / 32), 1024, 0, s>>>(m, n, k, a, b, c); break;
    case 3: sgemm_smem<<<dim3(n / 32, m / 32), 1024, 0, s>>>(m, n, k, a, b, c); break;
    case 4: sgemm_1d<<<dim3(n / 64, m / 64), 512, 0, s>>>(m, n, k, a, b, c); break;
    case 5: sgemm_2d<<<dim3(n / kBN, m / kBM), 256, 0, s>>>(m, n, k, a, b, c); break;
    case 6: sgemm_vec<<<dim3(n / kBN, m / kBM), 256, 0, s>>>(m, n, k, a, b, c); break;
    default: sgemm_warptile<<<dim3(n / wt::BN, m / wt::BM), wt::THREADS, 0, s>>>(m, n, k, a, b, c); break;
  }
  return cudaGetLastError();
}

}  // namespace ts::playground::k
