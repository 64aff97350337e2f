// TunedBf16Gemm (see cublaslt_tuned.h).
#include "playground/cublaslt_tuned.h"

#include <cublasLt.h>
#include <fmt/core.h>

#include <algorithm>
#include <vector>

#include "base/errors.h"

namespace ts::playground {

struct TunedBf16Gemm::Impl {
  int m = 0, n = 0, k = 0;
  cublasLtHandle_t lt = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  std::vector<cublasLtMatmulHeuristicResult_t> algos;
  int kept = 0;
};

namespace {
void lt_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw DeviceError(fmt::format("{} failed: {}", what, cublasGetStatusString(s)));
}
}  // namespace

TunedBf16Gemm::TunedBf16Gemm(int m, int n, int k, bool bf16_out, std::size_t workspace_bytes) : impl_(new Impl) {
  Impl& d = *impl_;
  d.m = m, d.n = n, d.k = k, d.workspace_bytes = workspace_bytes;
  try {
    lt_check(cublasLtCreate(&d.lt), "cublasLtCreate");
    lt_check(cublasLtMatmulDescCreate(&d.op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    const cublasOperation_t no = CUBLAS_OP_N;
    lt_check(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSA, &no, sizeof no), "TRANSA");
    lt_check(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSB, &no, sizeof no), "TRANSB");
    // Column-major C^T (n x m) = B^T (n x k) A^T (k x m): cuBLASLt's A is our B, its B our A.
    lt_check(cublasLtMatrixLayoutCreate(&d.la, CUDA_R_16BF, n, k, n), "layout A");
    lt_check(cublasLtMatrixLayoutCreate(&d.lb, CUDA_R_16BF, k, m, k), "layout B");
    lt_check(cublasLtMatrixLayoutCreate(&d.lc, bf16_out ? CUDA_R_16BF : CUDA_R_32F, n, m, n), "layout C");
    if (cudaMalloc(&d.workspace, workspace_bytes) != cudaSuccess) {
      cudaGetLastError();
      d.workspace = nullptr;
      throw DeviceError(fmt::format("cuBLASLt workspace: cudaMalloc of {} bytes failed", workspace_bytes));
    }
    cublasLtMatmulPreference_t pref = nullptr;
    lt_check(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                                         sizeof workspace_bytes);
    d.algos.resize(32);
    int got = 0;
    const cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(d.lt, d.op, d.la, d.lb, d.lc, d.lc, pref,
                                                            static_cast<int>(d.algos.size()), d.algos.data(), &got);
    cublasLtMatmulPreferenceDestroy(pref);
    lt_check(s, "cublasLtMatmulAlgoGetHeuristic");
    if (got <= 0) throw DeviceError(fmt::format("cuBLASLt has no BF16 algorithm for {}x{}x{}", m, n, k));
    d.algos.resize(static_cast<std::size_t>(got));
  } catch (...) {
    release();
    throw;
  }
}

TunedBf16Gemm::~TunedBf16Gemm() {
  release();
}

void TunedBf16Gemm::release() {
  if (!impl_) return;
  Impl& d = *impl_;
  if (d.workspace) cudaFree(d.workspace);
  if (d.lc) cublasLtMatrixLayoutDestroy(d.lc);
  if (d.lb) cublasLtMatrixLayoutDestroy(d.lb);
  if (d.la) cublasLtMatrixLayoutDestroy(d.la);
  if (d.op) cublasLtMatmulDescDestroy(d.op);
  if (d.lt) cublasLtDestroy(d.lt);
  delete impl_;
  impl_ = nullptr;
}

cudaError_t TunedBf16Gemm::run_algo(int index, const void* a, const void* b, void* c) {
  Impl& d = *impl_;
  const float one = 1, zero = 0;
  const auto& r = d.algos[static_cast<std::size_t>(index)];
  const cublasStatus_t s = cublasLtMatmul(d.lt, d.op, &one, b, d.la, a, d.lb, &zero, c, d.lc, c, d.lc, &r.algo,
                                          d.workspace, d.workspace_bytes, nullptr);
  if (s != CUBLAS_STATUS_SUCCESS) {
    last_ = cublasGetStatusString(s);
    return cudaErrorUnknown;
  }
  return cudaGetLastError();
}

cudaError_t TunedBf16Gemm::run(const void* a, const void* b, void* c) {
  return run_algo(impl_->kept, a, b, c);
}

std::string TunedBf16Gemm::tune(const void* a, const void* b, void* c, int candidates, int launches) {
  Impl& d = *impl_;
  const int count = std::min(candidates, static_cast<int>(d.algos.size()));
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<double> ms(static_cast<std::size_t>(count), -1);
  for (int i = 0; i < count; ++i) {
    if (run_algo(i, a, b, c) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
      cudaGetLastError();
      continue;  // an algorithm the heuristic offered but that does not run here: not a candidate
    }
    cudaEventRecord(e0);
    for (int j = 0; j < launches; ++j) run_algo(i, a, b, c);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float t = 0;
    cudaEventElapsedTime(&t, e0, e1);
    ms[static_cast<std::size_t>(i)] = static_cast<double>(t) / launches;
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  int best = -1;
  for (int i = 0; i < count; ++i)
    if (ms[static_cast<std::size_t>(i)] > 0 && (best < 0 || ms[static_cast<std::size_t>(i)] < ms[static_cast<std::size_t>(best)]))
      best = i;
  if (best < 0) throw DeviceError(fmt::format("cuBLASLt: none of {} BF16 algorithms ran", count));
  d.kept = best;
  const double first = ms[0];
  return fmt::format(
      "best of {} cuBLASLt heuristic algorithms ({} CUDA-event-timed launches each): #{} kept, {:.3f} ms vs the "
      "heuristic's first {}",
      count, launches, best + 1, ms[static_cast<std::size_t>(best)],
      first > 0 ? fmt::format("{:.3f} ms", first) : std::string("(did not run)"));
}

}  // namespace ts::playground
