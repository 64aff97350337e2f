// The fused epilogue (kernels/epilogue.cu) element for element against the host: forward (bias, ReLU,
// dropout) and backward (dropout and ReLU masks, the bias gradient) in fp32 and bf16, through the
// packed path (4 elements a thread: planes a multiple of 4, aligned pointers) and the scalar one (a
// plane of 7, or a pointer one element off): both must give the host's values, bit for bit where the
// maths is per element.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "base/cuda_check.h"
#include "gpu/gpu_test_util.h"
#include "kernels/dropout_hash.h"
#include "kernels/kernels.h"

namespace ts::gputest {
namespace {

using kernels::ElemType;

template <class T> T from_float(float v);
template <> float from_float<float>(float v) { return v; }
template <> __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
float to_float(float v) { return v; }
float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T> constexpr ElemType elem_type() { return sizeof(T) == 4 ? ElemType::f32 : ElemType::bf16; }

struct Case {
  std::int64_t n, channels, hw;
  int offset;  // elements the tensors start after a 256-byte boundary (1: the scalar path)
};

template <class T>
void check(const Case& k) {
  const std::int64_t total = k.n * k.channels * k.hw;
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<T> y(total), dy(total);
  std::vector<float> bias(k.channels);
  for (auto& v : y) v = from_float<T>(dist(rng));
  for (auto& v : dy) v = from_float<T>(dist(rng));
  for (auto& v : bias) v = dist(rng);
  kernels::Epilogue e;
  e.relu = true, e.dropout = true, e.dropout_p = 0.3f, e.dropout_key = 0x1234abcdULL;
  const float scale = 1.0f / (1.0f - e.dropout_p);
  auto keep = [&](std::int64_t i) { return ts::dropout_uniform(e.dropout_key, static_cast<std::uint64_t>(i)) >= e.dropout_p; };

  T *dy_base = nullptr, *y_base = nullptr;
  float *d_bias = nullptr, *grad_bias = nullptr, *partials = nullptr;
  unsigned* counters = nullptr;
  TS_CUDA_CHECK(cudaMalloc(&y_base, sizeof(T) * (total + 8)));
  TS_CUDA_CHECK(cudaMalloc(&dy_base, sizeof(T) * (total + 8)));
  TS_CUDA_CHECK(cudaMalloc(&d_bias, sizeof(float) * k.channels));
  TS_CUDA_CHECK(cudaMalloc(&grad_bias, sizeof(float) * k.channels));
  TS_CUDA_CHECK(cudaMalloc(&partials, sizeof(float) * kernels::epilogue_partials_count(k.n, k.channels, k.hw)));
  TS_CUDA_CHECK(cudaMalloc(&counters, sizeof(unsigned) * k.channels));
  TS_CUDA_CHECK(cudaMemset(counters, 0, sizeof(unsigned) * k.channels));
  T* d_y = y_base + k.offset;
  T* d_dy = dy_base + k.offset;
  TS_CUDA_CHECK(cudaMemcpy(d_y, y.data(), sizeof(T) * total, cudaMemcpyHostToDevice));
  TS_CUDA_CHECK(cudaMemcpy(d_dy, dy.data(), sizeof(T) * total, cudaMemcpyHostToDevice));
  TS_CUDA_CHECK(cudaMemcpy(d_bias, bias.data(), sizeof(float) * k.channels, cudaMemcpyHostToDevice));
  e.bias = d_bias;

  kernels::epilogue_forward(d_y, elem_type<T>(), k.n, k.channels, k.hw, e, nullptr);
  std::vector<T> out(total);
  TS_CUDA_CHECK(cudaMemcpy(out.data(), d_y, sizeof(T) * total, cudaMemcpyDeviceToHost));
  std::vector<T> want(total);
  for (std::int64_t i = 0; i < total; ++i) {
    float v = to_float(y[i]) + bias[(i / k.hw) % k.channels];
    v = std::fmax(v, 0.0f);
    v *= keep(i) ? scale : 0.0f;
    want[i] = from_float<T>(v);
    ASSERT_EQ(to_float(out[i]), to_float(want[i])) << "forward element " << i;
  }

  kernels::epilogue_backward(d_dy, d_y, elem_type<T>(), k.n, k.channels, k.hw, e, grad_bias, partials, counters, nullptr);
  std::vector<T> dout(total);
  std::vector<float> gb(k.channels);
  TS_CUDA_CHECK(cudaMemcpy(dout.data(), d_dy, sizeof(T) * total, cudaMemcpyDeviceToHost));
  TS_CUDA_CHECK(cudaMemcpy(gb.data(), grad_bias, sizeof(float) * k.channels, cudaMemcpyDeviceToHost));
  std::vector<double> gb_want(k.channels, 0.0);
  double gb_scale = 0;
  for (std::int64_t i = 0; i < total; ++i) {
    float g = to_float(dy[i]) * (keep(i) ? scale : 0.0f);
    if (!(to_float(want[i]) > 0.0f)) g = 0.0f;
    ASSERT_EQ(to_float(dout[i]), to_float(from_float<T>(g))) << "backward element " << i;
    gb_want[(i / k.hw) % k.channels] += g;
    gb_scale = std::max(gb_scale, std::fabs(static_cast<double>(g)));
  }
  for (std::int64_t c = 0; c < k.channels; ++c)
    EXPECT_NEAR(gb[c], gb_want[c], 1e-5 * gb_scale * static_cast<double>(k.n * k.hw)) << "bias gradient " << c;

  // Without a bias: the flat backward pass, the same masks.
  TS_CUDA_CHECK(cudaMemcpy(d_dy, dy.data(), sizeof(T) * total, cudaMemcpyHostToDevice));
  kernels::Epilogue nb = e;
  nb.bias = nullptr;
  kernels::epilogue_backward(d_dy, d_y, elem_type<T>(), k.n, k.channels, k.hw, nb, nullptr, nullptr, nullptr, nullptr);
  TS_CUDA_CHECK(cudaMemcpy(dout.data(), d_dy, sizeof(T) * total, cudaMemcpyDeviceToHost));
  for (std::int64_t i = 0; i < total; ++i) {
    float g = to_float(dy[i]) * (keep(i) ? scale : 0.0f);
    if (!(to_float(want[i]) > 0.0f)) g = 0.0f;
    ASSERT_EQ(to_float(dout[i]), to_float(from_float<T>(g))) << "flat backward element " << i;
  }
  for (void* p : {static_cast<void*>(y_base), static_cast<void*>(dy_base), static_cast<void*>(d_bias),
                  static_cast<void*>(grad_bias), static_cast<void*>(partials), static_cast<void*>(counters)})
    cudaFree(p);
}

const Case kCases[] = {
    {5, 6, 64, 0},     // packed: planes of 64, aligned
    {5, 6, 64, 1},     // scalar: one element off
    {3, 5, 7, 0},      // scalar: planes of 7
    {64, 32, 256, 0},  // packed, several splits a channel
    {17, 10, 1, 0},    // a Linear layer's output (hw 1)
};

TEST(EpilogueGpu, Fp32PackedAndScalarMatchTheHost) {
  TS_SKIP_WITHOUT_GPU();
  for (const Case& k : kCases) {
    SCOPED_TRACE(testing::Message() << "n " << k.n << " channels " << k.channels << " hw " << k.hw << " offset " << k.offset);
    check<float>(k);
  }
}

TEST(EpilogueGpu, Bf16PackedAndScalarMatchTheHost) {
  TS_SKIP_WITHOUT_GPU();
  for (const Case& k : kCases) {
    SCOPED_TRACE(testing::Message() << "n " << k.n << " channels " << k.channels << " hw " << k.hw << " offset " << k.offset);
    check<__nv_bfloat16>(k);
  }
}

}  // namespace
}  // namespace ts::gputest
