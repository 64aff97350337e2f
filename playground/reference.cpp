// CPU references and checks (see reference.h).
#include "playground/reference.h"

#include <cmath>
#include <cstring>

#include "playground/kernels/pattern.h"

namespace ts::playground {

float pattern(std::uint64_t index, std::uint32_t seed) {
  return pattern_small(index, seed);
}
float pattern_signed(std::uint64_t index, std::uint32_t seed) {
  return pattern_unit(index, seed);
}

Check check_exact(const float* got, const float* want, std::int64_t n) {
  Check c;
  c.what = "exact";
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < n; ++i)
    if (got[i] != want[i]) {
      if (c.worst < 0) c.worst = i;
      ++bad;
    }
  c.max_error = static_cast<double>(bad);
  c.passed = bad == 0;
  return c;
}

void vector_add_ref(std::int64_t n, std::uint32_t seed_a, std::uint32_t seed_b, float* c) {
  for (std::int64_t i = 0; i < n; ++i) c[i] = pattern(i, seed_a) + pattern(i, seed_b);
}

void strided_read_ref(std::int64_t n, int stride, std::uint32_t seed, float* out) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = pattern(i * stride, seed);
}

void transpose_ref(const float* in, std::int64_t rows, std::int64_t cols, float* out) {
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
}

double reduce_ref(std::int64_t n, std::uint32_t seed) {
  double s = 0;
  for (std::int64_t i = 0; i < n; ++i) s += pattern(i, seed);
  return s;
}

float round_to(float x, const std::string& precision) {
  if (precision == "fp32" || !std::isfinite(x)) return x;
  if (precision == "fp16") {
    // fp16 keeps 10 mantissa bits for |x| >= 2^-14; below, a fixed step of 2^-24 (subnormals).
    const float a = std::fabs(x);
    if (a < 6.103515625e-05f) return std::nearbyint(x * 16777216.0f) / 16777216.0f;
  }
  const int drop = precision == "bf16" ? 16 : 13;  // 23 - 7 or 23 - 10 mantissa bits dropped
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  const std::uint32_t half = 1u << (drop - 1), lsb = (u >> drop) & 1u;
  u = (u + half - 1 + lsb) & ~((1u << drop) - 1);  // round to nearest, ties to even
  float r;
  std::memcpy(&r, &u, 4);
  return r;
}

std::vector<double> sgemm_ref_at(std::int64_t m, std::int64_t n, std::int64_t k, std::uint32_t seed_a,
                                 std::uint32_t seed_b, const std::vector<std::int64_t>& rows,
                                 const std::vector<std::int64_t>& cols, const std::string& round) {
  std::vector<double> out(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    double s = 0;
    for (std::int64_t p = 0; p < k; ++p)
      s += static_cast<double>(round_to(pattern_signed(rows[i] * k + p, seed_a), round)) *
           round_to(pattern_signed(p * n + cols[i], seed_b), round);
    out[i] = s;
  }
  (void)m;
  return out;
}

std::vector<double> sgemm_ref(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b) {
  std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p) {
      const double av = a[i * k + p];
      for (std::int64_t j = 0; j < n; ++j) c[i * n + j] += av * b[p * n + j];
    }
  return c;
}

namespace {
template <class R>
Check normalised(const float* got, const R* ref, std::int64_t n, double tolerance) {
  Check c;
  c.what = "max |got - ref| / max |ref|";
  c.tolerance = tolerance;
  double scale = 0, worst = -1;
  for (std::int64_t i = 0; i < n; ++i) scale = std::fmax(scale, std::fabs(static_cast<double>(ref[i])));
  for (std::int64_t i = 0; i < n; ++i) {
    const double d = std::fabs(static_cast<double>(got[i]) - static_cast<double>(ref[i]));
    if (!(d <= worst)) {  // NaN counts as the worst
      worst = std::isnan(d) ? INFINITY : d;
      c.worst = i;
    }
  }
  c.max_error = n == 0 ? 0 : worst / (scale > 0 ? scale : 1.0);
  c.passed = c.max_error <= tolerance;
  return c;
}
}  // namespace

Check check_normalised(const float* got, const double* ref, std::int64_t n, double tolerance) {
  return normalised(got, ref, n, tolerance);
}
Check check_normalised(const float* got, const float* ref, std::int64_t n, double tolerance) {
  return normalised(got, ref, n, tolerance);
}

float divergence_ref(std::int64_t i, std::uint32_t seed, int path, int iters) {
  return divergence_path(pattern(i, seed), path, iters);
}

}  // namespace ts::playground
