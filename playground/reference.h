// CPU references of the playground's kernels, and the comparisons that check a kernel against them.
// Qt-free, CUDA-free: the unit tests run every reference on a machine without a GPU. Inputs are
// the deterministic patterns below, so the GPU side can fill its buffers on the device and the
// host can recompute any element without a copy of the input.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ts::playground {

/// The input pattern: a small integer in [0, 7] as a float, from a hash of (index, seed). Sums of
/// up to 2^21 of them are exact in fp32, any sum of them is exact in double.
float pattern(std::uint64_t index, std::uint32_t seed);
/// A float in [-1, 1) from a hash of (index, seed): GEMM inputs.
float pattern_signed(std::uint64_t index, std::uint32_t seed);

/// The result of a comparison: the largest error (in the measure the check names) and whether it
/// is within the tolerance; `worst` is the element where it occurred.
struct Check {
  bool passed = false;
  double max_error = 0, tolerance = 0;
  std::int64_t worst = -1;
  std::string what;  // "exact", "max |d| / max |ref|", ...
};

/// Exact comparison (the memory kernels move values without arithmetic): passes when every element
/// is equal. max_error = the number of elements that differ.
Check check_exact(const float* got, const float* want, std::int64_t n);

/// vector add: c[i] = a[i] + b[i] with a = pattern(i, seed_a), b = pattern(i, seed_b).
void vector_add_ref(std::int64_t n, std::uint32_t seed_a, std::uint32_t seed_b, float* c);

/// Strided read: out[i] = in[(i * stride)] for i in [0, n) with in[j] = pattern(j, seed).
void strided_read_ref(std::int64_t n, int stride, std::uint32_t seed, float* out);

/// Transpose of a rows x cols row-major matrix `in` into the cols x rows matrix `out`.
void transpose_ref(const float* in, std::int64_t rows, std::int64_t cols, float* out);

/// Sum of pattern(i, seed) over [0, n), in double (exact for this pattern).
double reduce_ref(std::int64_t n, std::uint32_t seed);

/// C (m x n) = A (m x k) B (k x n), row-major, accumulated in double, for the rows and columns
/// listed in `rows`/`cols` (one output element per (rows[i], cols[i]) pair). A is
/// pattern_signed(i, seed_a) at index r*k + c, B likewise with seed_b; `round` rounds each input
/// to the given precision first ("fp32", "tf32", "bf16", "fp16").
std::vector<double> sgemm_ref_at(std::int64_t m, std::int64_t n, std::int64_t k, std::uint32_t seed_a,
                                 std::uint32_t seed_b, const std::vector<std::int64_t>& rows,
                                 const std::vector<std::int64_t>& cols, const std::string& round = "fp32");
/// Full C = A B in double for small sizes (tests; m*n*k at most ~1e9 is reasonable).
std::vector<double> sgemm_ref(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b);

/// Normalised GEMM error: max_i |got_i - ref_i| / max_i |ref_i|, passed when <= tolerance.
/// Tolerances used (docs/playground.md): FP32 kernels 1e-4 (K = 4096 of inputs in [-1, 1): fp32
/// rounding, ~sqrt(K) eps, stays near 1e-6); TF32 and BF16/FP16 inputs compared with a reference
/// of the same rounded inputs 1e-3.
Check check_normalised(const float* got, const double* ref, std::int64_t n, double tolerance);
Check check_normalised(const float* got, const float* ref, std::int64_t n, double tolerance);

/// Rounds x to the nearest value of the named precision (round-to-nearest-even; "tf32": 10
/// mantissa bits, "bf16": 7, "fp16": 10 with fp16's range; "fp32": unchanged).
float round_to(float x, const std::string& precision);

/// Divergence kernel's per-element work: divergence_path (pattern.h) of x = pattern(i, seed) on
/// `path` (0 or 1) for `iters` fmaf. Bit-exact with the device (fmaf only).
float divergence_ref(std::int64_t i, std::uint32_t seed, int path, int iters);

}  // namespace ts::playground
