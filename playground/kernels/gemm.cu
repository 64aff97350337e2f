// The SGEMM ladder, C = A B in fp32, row-major (A m x k, B k x n, C m x n), after Simon Boehm,
// "How to Optimize a CUDA Matmul Kernel for cuBLAS-like Performance: a Worklog" (2022,
// siboehm.com/articles/22/CUDA-MMM). Written here from the worklog's ideas; each step changes one thing:
//   1 naive: a thread per output, consecutive threads take consecutive *rows* (uncoalesced A and C)
//   2 global-memory coalescing: consecutive threads take consecutive columns
//   3 shared-memory tiling: 32x32 tiles of A and B staged in shared memory
//   4 1D block tiling: each thread computes a column of 8 outputs (BM = BN = 64, BK = 8)
//   5 2D block tiling: each thread computes an 8x8 block of outputs (BM = BN = 128, BK = 8)
//   6 vectorised loads: float4 global loads, A's tile stored transposed, float4 shared loads
//   7 warp tiling: a warp owns a 64x64 (or 64x32) sub-tile, threads 8x4 outputs per strip (BK = 16)
//   8 double buffering (the worklog's repository, kernels 11-12): the next tile loads while this one computes
// m, n, k must be multiples of 128. Kernels first, then the launcher (launch.h).
#include "playground/kernels/launch.h"

namespace ts::playground::k {
namespace {

__global__ void sgemm_naive(int m, int n, int k, const float* a, const float* b, float* c) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;  // threadIdx.x walks rows: lanes 4k bytes apart
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;
  float acc = 0;
  for (int p = 0; p < k; ++p)
    acc += a[static_cast<std::int64_t>(row) * k + p] * b[static_cast<std::int64_t>(p) * n + col];
  c[static_cast<std::int64_t>(row) * n + col] = acc;
}

__global__ void sgemm_coalesced(int m, int n, int k, const float* a, const float* b, float* c) {
  const int row = blockIdx.y * 32 + threadIdx.x / 32;
  const int col = blockIdx.x * 32 + threadIdx.x % 32;  // a warp: one row, 32 consecutive columns
  float acc = 0;
  for (int p = 0; p < k; ++p)
    acc += a[static_cast<std::int64_t>(row) * k + p] * b[static_cast<std::int64_t>(p) * n + col];
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
      for (int i = 0; i < kTM; i += 4)
        *reinterpret_cast<float4*>(&rm[i]) = *reinterpret_cast<const float4*>(&as[p * kBM + tr * kTM + i]);
      for (int j = 0; j < kTN; j += 4)
        *reinterpret_cast<float4*>(&rn[j]) = *reinterpret_cast<const float4*>(&bs[p * kBN + tc * kTN + j]);
      for (int i = 0; i < kTM; ++i)
        for (int j = 0; j < kTN; ++j) acc[i][j] += rm[i] * rn[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < kTM; ++i)
    for (int j = 0; j < kTN; j += 4)
      *reinterpret_cast<float4*>(
          &c[(static_cast<std::int64_t>(blockIdx.y) * kBM + tr * kTM + i) * n + blockIdx.x * kBN + tc * kTN + j]) =
          make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
}

// Warp tiling: warps in a (BM/WM) x (BN/WN) grid over the block tile; a warp's WM x WN sub-tile is
// WMITER x WNITER strips of WSUBM x WSUBN, in which the 32 lanes form (WSUBM/TM) x (WSUBN/TN) cells
// of TM x TN outputs. Two tile configurations (128 or 256 threads; run_sgemm times both and keeps
// the faster), and step 8, double buffering: the next tile's global loads are issued into
// registers before the current tile is computed, and stored into the other of two shared buffers
// afterwards, so one __syncthreads per tile remains and the loads' latency hides behind the FMAs.
// __launch_bounds__(THREADS, 2): two blocks per SM must fit, which caps the 256-thread configuration at
// 128 registers (double buffering's extra registers would otherwise leave one block per SM).
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int THREADS, bool DB>
__global__ void __launch_bounds__(THREADS, 2)
    sgemm_warptile(int m, int n, int k, const float* a, const float* b, float* c) {
  constexpr int WMITER = (WM * WN) / (32 * TM * TN * WNITER), WSUBM = WM / WMITER, WSUBN = WN / WNITER;
  static_assert((WSUBN / TN) * (WSUBM / TM) == 32, "a strip's lanes cover it once");
  static_assert((BM / WM) * (BN / WN) * 32 == THREADS, "one warp per sub-tile");
  constexpr int NBUF = DB ? 2 : 1;
  constexpr int strideA = THREADS / (BK / 4), strideB = THREADS / (BN / 4);
  constexpr int passesA = BM / strideA, passesB = BK / strideB;
  __shared__ __align__(16) float as[NBUF][BK * BM];  // transposed: as[p * BM + row]
  __shared__ __align__(16) float bs[NBUF][BK * BN];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wr = warp / (BN / WN), wc = warp % (BN / WN);
  const int lr = lane / (WSUBN / TN), lc = lane % (WSUBN / TN);
  a += static_cast<std::int64_t>(blockIdx.y) * BM * k;
  b += blockIdx.x * BN;
  const int ar = tid / (BK / 4), ac = tid % (BK / 4);
  const int br = tid / (BN / 4), bc = tid % (BN / 4);
  float4 ra[passesA], rb[passesB];
  auto load = [&](int p0) {
#pragma unroll
    for (int q = 0; q < passesA; ++q)
      ra[q] = *reinterpret_cast<const float4*>(&a[static_cast<std::int64_t>(ar + q * strideA) * k + p0 + ac * 4]);
#pragma unroll
    for (int q = 0; q < passesB; ++q)
      rb[q] = *reinterpret_cast<const float4*>(&b[static_cast<std::int64_t>(p0 + br + q * strideB) * n + bc * 4]);
  };
  auto store = [&](int buf) {
#pragma unroll
    for (int q = 0; q < passesA; ++q) {
      const int row = ar + q * strideA;
      as[buf][(ac * 4 + 0) * BM + row] = ra[q].x;
      as[buf][(ac * 4 + 1) * BM + row] = ra[q].y;
      as[buf][(ac * 4 + 2) * BM + row] = ra[q].z;
      as[buf][(ac * 4 + 3) * BM + row] = ra[q].w;
    }
#pragma unroll
    for (int q = 0; q < passesB; ++q) *reinterpret_cast<float4*>(&bs[buf][(br + q * strideB) * BN + bc * 4]) = rb[q];
  };
  float acc[WMITER * TM][WNITER * TN] = {}, rm[WMITER * TM], rn[WNITER * TN];
  auto compute = [&](int buf) {
#pragma unroll
    for (int p = 0; p < BK; ++p) {
#pragma unroll
      for (int sm = 0; sm < WMITER; ++sm)
#pragma unroll
        for (int i = 0; i < TM; ++i) rm[sm * TM + i] = as[buf][p * BM + wr * WM + sm * WSUBM + lr * TM + i];
#pragma unroll
      for (int sn = 0; sn < WNITER; ++sn)
#pragma unroll
        for (int j = 0; j < TN; ++j) rn[sn * TN + j] = bs[buf][p * BN + wc * WN + sn * WSUBN + lc * TN + j];
#pragma unroll
      for (int i = 0; i < WMITER * TM; ++i)
#pragma unroll
        for (int j = 0; j < WNITER * TN; ++j) acc[i][j] += rm[i] * rn[j];
    }
  };
  if constexpr (DB) {
    load(0);
    store(0);
    __syncthreads();
    int cur = 0;
    for (int p0 = 0; p0 < k; p0 += BK) {
      const bool more = p0 + BK < k;
      if (more) load(p0 + BK);
      compute(cur);
      if (more) store(cur ^ 1);
      __syncthreads();
      cur ^= 1;
    }
  } else {
    for (int p0 = 0; p0 < k; p0 += BK) {
      load(p0);
      store(0);
      __syncthreads();
      compute(0);
      __syncthreads();
    }
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
    case 1:
      sgemm_naive<<<dim3((m + 31) / 32, (n + 31) / 32), dim3(32, 32), 0, s>>>(m, n, k, a, b, c);
      break;
    case 2:
      sgemm_coalesced<<<dim3(n / 32, m / 32), 1024, 0, s>>>(m, n, k, a, b, c);
      break;
    case 3:
      sgemm_smem<<<dim3(n / 32, m / 32), 1024, 0, s>>>(m, n, k, a, b, c);
      break;
    case 4:
      sgemm_1d<<<dim3(n / 64, m / 64), 512, 0, s>>>(m, n, k, a, b, c);
      break;
    case 5:
      sgemm_2d<<<dim3(n / kBN, m / kBM), 256, 0, s>>>(m, n, k, a, b, c);
      break;
    case 6:
      sgemm_vec<<<dim3(n / kBN, m / kBM), 256, 0, s>>>(m, n, k, a, b, c);
      break;
    default:
      return sgemm_warptile(0, false, m, n, k, a, b, c, s);
  }
  return cudaGetLastError();
}

cudaError_t sgemm_warptile(int config, bool double_buffer, int m, int n, int k, const float* a, const float* b,
                           float* c, cudaStream_t s) {
  const dim3 grid(n / 128, m / 128);
  if (config == 0) {
    if (double_buffer)
      sgemm_warptile<128, 128, 16, 64, 64, 4, 8, 4, 128, true><<<grid, 128, 0, s>>>(m, n, k, a, b, c);
    else
      sgemm_warptile<128, 128, 16, 64, 64, 4, 8, 4, 128, false><<<grid, 128, 0, s>>>(m, n, k, a, b, c);
  } else {
    if (double_buffer)
      sgemm_warptile<128, 128, 16, 64, 32, 2, 8, 4, 256, true><<<grid, 256, 0, s>>>(m, n, k, a, b, c);
    else
      sgemm_warptile<128, 128, 16, 64, 32, 2, 8, 4, 256, false><<<grid, 256, 0, s>>>(m, n, k, a, b, c);
  }
  return cudaGetLastError();
}

}  // namespace ts::playground::k
