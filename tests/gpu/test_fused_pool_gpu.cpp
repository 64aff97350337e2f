// The fused ReLU + 2x2 max pool (kernels/pool/fused_pool.h) against the host (fused_pool_reference.h)
// in fp32, fp16 and bf16: forward values and indices bit for bit (ties, all-negative windows, NaN,
// infinities, values equal only after rounding), the evaluation forward, the backward's full-size
// gradient with every element written, and the bias gradient against a double sum and bit-identical
// across launches. Shapes take every path: two windows a thread (width % 4 == 0, aligned), one window a
// thread (width 6 or 14, or pointers off alignment), N = 1, channels not a multiple of 4, no bias,
// several splits a channel, and one tensor of 2^31 elements (64-bit indices). Then the same inputs
// through the unfused path the engine runs without the fusion (epilogue_forward, cuDNN's max pooling
// forward and backward, epilogue_backward): the same bits.
#include <cuda_runtime.h>

#include <cstring>
#include <string>

#include "base/cuda_check.h"
#include "engine/cuda/cudnn_layers.h"
#include "gpu/fused_pool_reference.h"
#include "gpu/gpu_test_util.h"
#include "kernels/dropout_hash.h"

namespace ts::gputest {
namespace {

using namespace fused_ref;  // NOLINT: the reference's helpers

struct Case {
  Geometry g;
  int offset;  // elements (bytes for the index) every tensor starts after a 256-byte boundary
  bool bias;
};

const Case kCases[] = {
    {{2, 3, 8, 8}, 0, true},      // two windows a thread; backward rows of 4
    {{2, 3, 8, 8}, 1, true},      // one element off: scalar forward, backward packs of 1
    {{1, 5, 6, 6}, 0, true},      // N 1, width 6: scalar forward; backward packs of 4 across rows
    {{3, 4, 2, 2}, 0, true},      // the smallest windows: a pack of 4 spans both rows of a plane
    {{1, 1, 2, 6}, 0, false},     // no bias, one channel
    {{4, 6, 4, 12}, 0, false},    // no bias, two windows a thread
    {{5, 7, 10, 14}, 0, true},    // width 14, 7 channels
    {{2, 3, 6, 8}, 2, true},      // two elements off (8 bytes of fp32, 4 of half): scalar paths
    {{64, 8, 32, 32}, 0, true},   // 32 splits a channel
    {{16, 64, 16, 16}, 0, true},  // conv2-like
};

template <class T>
struct DeviceResult {
  std::vector<T> y, y_eval, dx, dx_again;
  std::vector<std::uint8_t> index;
  std::vector<float> grad_bias, grad_bias_again;
};

template <class T>
std::vector<T> download(const T* p, std::int64_t count) {
  std::vector<T> out(static_cast<std::size_t>(count));
  TS_CUDA_CHECK(cudaMemcpy(out.data(), p, sizeof(T) * out.size(), cudaMemcpyDeviceToHost));
  return out;
}

/// Forward (training, then evaluation into another buffer), backward twice; outputs start as 0xFF bytes
/// (NaN, index 255) so that an element left unwritten shows.
template <class T>
DeviceResult<T> run_fused(const Case& k, const Inputs<T>& in) {
  const Geometry& g = k.g;
  DeviceBytes x(sizeof(T) * g.conv()), dx(sizeof(T) * g.conv()), y(sizeof(T) * g.pooled()),
      y_eval(sizeof(T) * g.pooled()), dy(sizeof(T) * g.pooled()), index(g.pooled()), bias(sizeof(float) * g.c),
      grad_bias(sizeof(float) * g.c), counters(sizeof(unsigned) * g.c),
      partials(sizeof(float) * kernels::relu_max_pool_partials_count(g.shape()));
  const int o = k.offset;
  TS_CUDA_CHECK(cudaMemcpy(x.at<T>(o), in.x.data(), sizeof(T) * g.conv(), cudaMemcpyHostToDevice));
  TS_CUDA_CHECK(cudaMemcpy(dy.at<T>(o), in.dy.data(), sizeof(T) * g.pooled(), cudaMemcpyHostToDevice));
  TS_CUDA_CHECK(cudaMemcpy(bias.at<float>(), in.bias.data(), sizeof(float) * g.c, cudaMemcpyHostToDevice));
  TS_CUDA_CHECK(cudaMemset(counters.at<unsigned>(), 0, sizeof(unsigned) * g.c));
  TS_CUDA_CHECK(cudaMemset(dx.at<char>(), 0xFF, sizeof(T) * g.conv() + 64));
  TS_CUDA_CHECK(cudaMemset(y.at<char>(), 0xFF, sizeof(T) * g.pooled() + 64));
  TS_CUDA_CHECK(cudaMemset(y_eval.at<char>(), 0xFF, sizeof(T) * g.pooled() + 64));
  TS_CUDA_CHECK(cudaMemset(index.at<char>(), 0xFF, g.pooled() + 64));
  const float* b = in.has_bias ? bias.at<float>() : nullptr;
  kernels::relu_max_pool_forward(x.at<T>(o), b, elem_type<T>(), g.shape(), y.at<T>(o), index.at<std::uint8_t>(o),
                                 nullptr);
  kernels::relu_max_pool_forward(x.at<T>(o), b, elem_type<T>(), g.shape(), y_eval.at<T>(o), nullptr, nullptr);
  float* gb = in.has_bias ? grad_bias.at<float>() : nullptr;
  auto backward = [&] {
    kernels::relu_max_pool_backward(dy.at<T>(o), y.at<T>(o), index.at<std::uint8_t>(o), elem_type<T>(), g.shape(),
                                    dx.at<T>(o), gb, partials.at<float>(), counters.at<unsigned>(), nullptr);
  };
  DeviceResult<T> r;
  backward();
  r.dx = download(dx.at<T>(o), g.conv());
  if (gb) r.grad_bias = download(gb, g.c);
  TS_CUDA_CHECK(cudaMemset(dx.at<char>(), 0xFF, sizeof(T) * g.conv() + 64));
  backward();
  r.dx_again = download(dx.at<T>(o), g.conv());
  if (gb) r.grad_bias_again = download(gb, g.c);
  r.y = download(y.at<T>(o), g.pooled());
  r.y_eval = download(y_eval.at<T>(o), g.pooled());
  r.index = download(index.at<std::uint8_t>(o), g.pooled());
  TS_CUDA_CHECK(cudaDeviceSynchronize());
  return r;
}

/// "window q (channel c) x [a, b, c, d] ReLU [..]: " for a failure message.
template <class T>
std::string describe_window(const Geometry& g, const Inputs<T>& in, const HostForward<T>& f, std::int64_t q) {
  auto four = [&](const std::vector<T>& v) {
    std::string s = "[";
    for (int k = 0; k < 4; ++k)
      s += std::to_string(to_float(v[static_cast<std::size_t>(g.element(q, k))])) + (k < 3 ? ", " : "]");
    return s;
  };
  return "window " + std::to_string(q) + " (channel " + std::to_string(g.channel_of_window(q)) + ") x " + four(in.x) +
         " ReLU " + four(f.relu) + ": ";
}

template <class T>
void check_case(const Case& k) {
  SCOPED_TRACE(testing::Message() << type_name<T>() << " [" << k.g.n << ", " << k.g.c << ", " << k.g.h << ", " << k.g.w
                                  << "] offset " << k.offset << (k.bias ? "" : " no bias"));
  const Geometry& g = k.g;
  const Inputs<T> in = make_inputs<T>(g, k.bias, 11);
  const HostForward<T> f = host_forward(g, in);
  const HostBackward<T> b = host_backward(g, f, in.dy);
  const DeviceResult<T> r = run_fused(k, in);
  for (std::int64_t q = 0; q < g.pooled(); ++q) {
    const auto i = static_cast<std::size_t>(q);
    ASSERT_TRUE(same(to_float(r.y[i]), to_float(f.y[i])))
        << describe_window(g, in, f, q) << "y " << to_float(r.y[i]) << ", want " << to_float(f.y[i]);
    ASSERT_EQ(r.index[i], f.index[i]) << describe_window(g, in, f, q) << "index";
    ASSERT_TRUE(same(to_float(r.y_eval[i]), to_float(f.y[i]))) << describe_window(g, in, f, q) << "evaluation y";
  }
  for (std::int64_t e = 0; e < g.conv(); ++e) {
    const auto i = static_cast<std::size_t>(e);
    ASSERT_TRUE(same(to_float(r.dx[i]), to_float(b.dx[i])))
        << "dx element " << e << ": " << to_float(r.dx[i]) << ", want " << to_float(b.dx[i]);
    ASSERT_EQ(std::memcmp(&r.dx[i], &r.dx_again[i], sizeof(T)), 0) << "dx element " << e << " of the second launch";
  }
  if (!k.bias) return;
  for (std::int64_t c = 0; c < g.c; ++c) {
    const auto i = static_cast<std::size_t>(c);
    // fp32 sums of at most a few hundred terms a thread, then trees and <= 256 partials: 1e-5 of the
    // absolute sum is far above their rounding and far below any routing error (one |dy| ~ 1).
    EXPECT_NEAR(r.grad_bias[i], b.grad_bias[i], 1e-5 * b.abs_sum[i] + 1e-30) << "bias gradient " << c;
  }
  EXPECT_EQ(std::memcmp(r.grad_bias.data(), r.grad_bias_again.data(), sizeof(float) * r.grad_bias.size()), 0)
      << "the bias gradient differs between two launches";
  EXPECT_EQ(r.grad_bias[0], 0.0f) << "channel 0's ReLU is 0 everywhere";
}

TEST(FusedPoolGpu, Fp32MatchesTheHost) {
  TS_SKIP_WITHOUT_GPU();
  for (const Case& k : kCases) check_case<float>(k);
}

TEST(FusedPoolGpu, Bf16MatchesTheHost) {
  TS_SKIP_WITHOUT_GPU();
  for (const Case& k : kCases) check_case<__nv_bfloat16>(k);
}

TEST(FusedPoolGpu, Fp16MatchesTheHost) {
  TS_SKIP_WITHOUT_GPU();
  for (const Case& k : kCases) check_case<__half>(k);
}

// The shape check runs before any CUDA call: this test needs no GPU.
TEST(FusedPoolGpu, RejectsShapesItCannotPool) {
  const kernels::PoolTailShape bad[] = {{2, 3, 7, 8}, {2, 3, 8, 7},  {2, 3, 0, 8},
                                        {2, 0, 8, 8}, {-1, 3, 8, 8}, {1, 70000, 2, 2}};
  for (const auto& s : bad) {
    EXPECT_THROW(kernels::relu_max_pool_forward(nullptr, nullptr, kernels::ElemType::f32, s, nullptr, nullptr, nullptr),
                 InputError);
    EXPECT_THROW(kernels::relu_max_pool_backward(nullptr, nullptr, nullptr, kernels::ElemType::f32, s, nullptr, nullptr,
                                                 nullptr, nullptr, nullptr),
                 InputError);
  }
}

// ---- the unfused path on the same inputs ------------------------------------------------------------

/// The engine's tail without the fusion, on the device: epilogue_forward (bias + ReLU in place),
/// cuDNN's max pooling forward and backward (its deterministic variant when asked, as the engine picks
/// it), epilogue_backward (ReLU mask + bias gradient); and the fused kernels beside it.
template <class T>
void check_same_as_unfused(const Geometry& g, bool deterministic) {
  SCOPED_TRACE(testing::Message() << type_name<T>() << " [" << g.n << ", " << g.c << ", " << g.h << ", " << g.w << "]"
                                  << (deterministic ? " deterministic" : ""));
  const Inputs<T> in = make_inputs<T>(g, true, 23);
  const HostForward<T> f = host_forward(g, in);
  const std::int64_t hw = g.h * g.w;
  const std::size_t full = sizeof(T) * g.conv(), pooled = sizeof(T) * g.pooled();
  DeviceBytes x(full), relu(full), dx_u(full), dx_f(full), y_u(pooled), y_f(pooled), dy(pooled), index(g.pooled()),
      bias(sizeof(float) * g.c), gb_u(sizeof(float) * g.c), gb_f(sizeof(float) * g.c),
      counters(2 * sizeof(unsigned) * g.c),
      partials(2 * sizeof(float) * kernels::relu_max_pool_partials_count(g.shape()));
  TS_CUDA_CHECK(cudaMemcpy(x.at<T>(), in.x.data(), full, cudaMemcpyHostToDevice));
  TS_CUDA_CHECK(cudaMemcpy(relu.at<T>(), in.x.data(), full, cudaMemcpyHostToDevice));
  TS_CUDA_CHECK(cudaMemcpy(dy.at<T>(), in.dy.data(), pooled, cudaMemcpyHostToDevice));
  TS_CUDA_CHECK(cudaMemcpy(bias.at<float>(), in.bias.data(), sizeof(float) * g.c, cudaMemcpyHostToDevice));
  TS_CUDA_CHECK(cudaMemset(counters.at<unsigned>(), 0, 2 * sizeof(unsigned) * g.c));
  unsigned* counters_f = counters.at<unsigned>() + g.c;
  float* partials_f = partials.at<float>() + kernels::relu_max_pool_partials_count(g.shape());
  kernels::Epilogue e;
  e.bias = bias.at<float>();
  e.relu = true;
  cuda::CudnnHandle handle(nullptr);
  cuda::PoolLayer max_pool(cuda::PoolMode::max, cuda::PoolShape{g.c, g.h, g.w, 2, 2, 2, 2, 0, 0, g.h / 2, g.w / 2},
                           deterministic, elem_type<T>());
  kernels::epilogue_forward(relu.at<T>(), elem_type<T>(), g.n, g.c, hw, e, nullptr);
  max_pool.forward(handle, g.n, relu.at<T>(), y_u.at<T>());
  kernels::relu_max_pool_forward(x.at<T>(), e.bias, elem_type<T>(), g.shape(), y_f.at<T>(), index.at<std::uint8_t>(),
                                 nullptr);
  max_pool.backward(handle, g.n, y_u.at<T>(), dy.at<T>(), relu.at<T>(), dx_u.at<T>());
  kernels::epilogue_backward(dx_u.at<T>(), relu.at<T>(), elem_type<T>(), g.n, g.c, hw, e, gb_u.at<float>(),
                             partials.at<float>(), counters.at<unsigned>(), nullptr);
  kernels::relu_max_pool_backward(dy.at<T>(), y_f.at<T>(), index.at<std::uint8_t>(), elem_type<T>(), g.shape(),
                                  dx_f.at<T>(), gb_f.at<float>(), partials_f, counters_f, nullptr);
  // The host's ReLU outputs are the epilogue's, bit for bit (the reference's rounding is the kernels').
  const auto relu_dev = download(relu.at<T>(), g.conv());
  ASSERT_EQ(std::memcmp(relu_dev.data(), f.relu.data(), full), 0) << "the epilogue's ReLU differs from the host's";
  const auto yu = download(y_u.at<T>(), g.pooled()), yf = download(y_f.at<T>(), g.pooled());
  for (std::int64_t q = 0; q < g.pooled(); ++q)
    ASSERT_EQ(std::memcmp(&yu[q], &yf[q], sizeof(T)), 0)
        << describe_window(g, in, f, q) << "cuDNN's y " << to_float(yu[q]) << ", fused " << to_float(yf[q]);
  const auto du = download(dx_u.at<T>(), g.conv()), df = download(dx_f.at<T>(), g.conv());
  for (std::int64_t i = 0; i < g.conv(); ++i)
    ASSERT_TRUE(same(to_float(du[i]), to_float(df[i])))
        << describe_window(g, in, f, g.window_of(i)) << "element " << i << " of dx: unfused " << to_float(du[i])
        << ", fused " << to_float(df[i]) << " (fused index " << int(f.index[g.window_of(i)])
        << "; a tie routed elsewhere by cuDNN?)";
  const auto bu = download(gb_u.at<float>(), g.c), bf = download(gb_f.at<float>(), g.c);
  for (std::int64_t c = 0; c < g.c; ++c)
    EXPECT_EQ(std::memcmp(&bu[c], &bf[c], sizeof(float)), 0)
        << "bias gradient " << c << ": unfused " << bu[c] << ", fused " << bf[c];
}

TEST(FusedPoolGpu, SameBitsAsEpilogueAndCudnnPooling) {
  TS_SKIP_WITHOUT_GPU();
  const Geometry shapes[] = {{2, 3, 8, 8},   {1, 5, 6, 6},    {3, 4, 2, 2},
                             {5, 7, 10, 14}, {64, 8, 32, 32}, {16, 64, 16, 16}};
  for (bool deterministic : {true, false})
    for (const Geometry& g : shapes) {
      check_same_as_unfused<float>(g, deterministic);
      check_same_as_unfused<__nv_bfloat16>(g, deterministic);
      check_same_as_unfused<__half>(g, deterministic);
    }
}

// ---- 2^31 elements: 64-bit indices ----------------------------------------------------------------

/// bf16 [2048, 256, 64, 64] (2^31 elements; ~10.5 GiB on the device and as much on the host), values
/// from a hash (coarse bf16 values: many ties): both kernels on their 64-bit path, every element
/// checked against the host.
TEST(FusedPoolGpu, TwoToThe31ElementsTakeTheWidePath) {
  TS_SKIP_WITHOUT_GPU();
  using T = __nv_bfloat16;
  const Geometry g{2048, 256, 64, 64};
  std::size_t free_b = 0, total_b = 0;
  TS_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  if (free_b < (std::size_t{16} << 30)) GTEST_SKIP() << "needs 16 GiB of free GPU memory";
  ASSERT_GE(g.conv(), std::int64_t{1} << 31);
  const std::size_t full = sizeof(T) * g.conv(), pooled = sizeof(T) * g.pooled();
  std::vector<T> x(static_cast<std::size_t>(g.conv())), dy(static_cast<std::size_t>(g.pooled()));
  auto value = [](std::uint64_t i, float scale) {  // uniform in [-scale, scale), 24 bits of a hash
    return (static_cast<float>(ts::splitmix64(i) >> 40) * (1.0f / 16777216.0f) * 2.0f - 1.0f) * scale;
  };
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = from_float<T>(value(i, 4.0f));
  for (std::size_t i = 0; i < dy.size(); ++i) dy[i] = from_float<T>(value(i + (std::uint64_t{1} << 40), 1.0f));
  std::vector<float> bias(static_cast<std::size_t>(g.c));
  for (std::size_t c = 0; c < bias.size(); ++c) bias[c] = value(c + (std::uint64_t{1} << 50), 0.5f);
  DeviceBytes dx_d(full), x_d(full), y_d(pooled), dy_d(pooled), index_d(g.pooled()), bias_d(sizeof(float) * g.c),
      gb_d(sizeof(float) * g.c), counters_d(sizeof(unsigned) * g.c),
      partials_d(sizeof(float) * kernels::relu_max_pool_partials_count(g.shape()));
  ASSERT_TRUE(dx_d.ok() && x_d.ok() && y_d.ok() && dy_d.ok() && index_d.ok()) << "cudaMalloc failed";
  TS_CUDA_CHECK(cudaMemcpy(x_d.at<T>(), x.data(), full, cudaMemcpyHostToDevice));
  TS_CUDA_CHECK(cudaMemcpy(dy_d.at<T>(), dy.data(), pooled, cudaMemcpyHostToDevice));
  TS_CUDA_CHECK(cudaMemcpy(bias_d.at<float>(), bias.data(), sizeof(float) * g.c, cudaMemcpyHostToDevice));
  TS_CUDA_CHECK(cudaMemset(counters_d.at<unsigned>(), 0, sizeof(unsigned) * g.c));
  TS_CUDA_CHECK(cudaMemset(dx_d.at<T>(), 0xFF, full));
  kernels::relu_max_pool_forward(x_d.at<T>(), bias_d.at<float>(), kernels::ElemType::bf16, g.shape(), y_d.at<T>(),
                                 index_d.at<std::uint8_t>(), nullptr);
  kernels::relu_max_pool_backward(dy_d.at<T>(), y_d.at<T>(), index_d.at<std::uint8_t>(), kernels::ElemType::bf16,
                                  g.shape(), dx_d.at<T>(), gb_d.at<float>(), partials_d.at<float>(),
                                  counters_d.at<unsigned>(), nullptr);
  const auto y = download(y_d.at<T>(), g.pooled());
  const auto index = download(index_d.at<std::uint8_t>(), g.pooled());
  const auto gb = download(gb_d.at<float>(), g.c);
  const auto dx = download(dx_d.at<T>(), g.conv());
  std::vector<double> want(static_cast<std::size_t>(g.c), 0.0), abs_sum(want.size(), 0.0);
  for (std::int64_t q = 0; q < g.pooled(); ++q) {
    const std::int64_t c = g.channel_of_window(q);
    T t[4];
    for (int k = 0; k < 4; ++k)
      t[k] = from_float<T>(std::fmax(to_float(x[static_cast<std::size_t>(g.element(q, k))]) + bias[c], 0.0f));
    const kernels::WindowMax m = kernels::window_max4(to_float(t[0]), to_float(t[1]), to_float(t[2]), to_float(t[3]));
    ASSERT_EQ(index[q], m.index) << "window " << q;
    ASSERT_EQ(to_float(y[q]), to_float(t[m.index])) << "window " << q;
    const bool live = to_float(t[m.index]) > 0.0f;
    for (int k = 0; k < 4; ++k) {
      const float want_dx = live && k == m.index ? to_float(dy[q]) : 0.0f;
      ASSERT_EQ(to_float(dx[static_cast<std::size_t>(g.element(q, k))]), want_dx) << "dx of window " << q << ", " << k;
    }
    if (live) want[c] += to_float(dy[q]), abs_sum[c] += std::fabs(to_float(dy[q]));
  }
  for (std::int64_t c = 0; c < g.c; ++c)
    EXPECT_NEAR(gb[c], want[c], 1e-5 * abs_sum[c] + 1e-30) << "bias gradient " << c;
}

}  // namespace
}  // namespace ts::gputest
