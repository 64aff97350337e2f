// Naive double-precision reference layers (see naive_layers.h). Plain loops, no tricks: every
// formula is the textbook one so that a reader can check it against PyTorch's documentation.
#include "common/naive_layers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "kernels/dropout_hash.h"

namespace ts::ref {

namespace {

std::int64_t shape_numel(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("naive_layers: ") + what);
}

// Index into an NCHW tensor.
inline std::size_t idx4(const Shape& s, std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w) {
  return static_cast<std::size_t>(((n * s[1] + c) * s[2] + h) * s[3] + w);
}

}  // namespace

RefTensor::RefTensor(Shape s) : shape(std::move(s)), v(static_cast<std::size_t>(shape_numel(shape)), 0.0) {}
RefTensor::RefTensor(Shape s, std::vector<double> values) : shape(std::move(s)), v(std::move(values)) {
  require(static_cast<std::int64_t>(v.size()) == shape_numel(shape), "RefTensor: size does not match shape");
}

RefTensor from_host(const HostTensor& t) {
  RefTensor r(t.shape);
  for (std::size_t i = 0; i < r.v.size(); ++i) r.v[i] = t.data[i];
  return r;
}

HostTensor to_host(const RefTensor& t) {
  HostTensor h(t.shape);
  for (std::size_t i = 0; i < t.v.size(); ++i) h.data[i] = static_cast<float>(t.v[i]);
  return h;
}

// ---- Conv2d ---------------------------------------------------------------------------------------

namespace {
Shape conv_out_shape(const Shape& x, const Shape& w, const Conv2dGeometry& g) {
  require(x.size() == 4 && w.size() == 4 && x[1] == w[1], "conv2d: bad shapes");
  return {x[0], w[0], (x[2] + 2 * g.pad_h - w[2]) / g.stride_h + 1, (x[3] + 2 * g.pad_w - w[3]) / g.stride_w + 1};
}
}  // namespace

RefTensor conv2d_forward(const RefTensor& x, const RefTensor& w, const RefTensor& b, const Conv2dGeometry& g) {
  RefTensor y(conv_out_shape(x.shape, w.shape, g));
  const auto& ys = y.shape;
  for (std::int64_t n = 0; n < ys[0]; ++n)
    for (std::int64_t o = 0; o < ys[1]; ++o)
      for (std::int64_t oh = 0; oh < ys[2]; ++oh)
        for (std::int64_t ow = 0; ow < ys[3]; ++ow) {
          double acc = b.empty() ? 0.0 : b.v[static_cast<std::size_t>(o)];
          for (std::int64_t c = 0; c < w.shape[1]; ++c)
            for (std::int64_t kh = 0; kh < w.shape[2]; ++kh)
              for (std::int64_t kw = 0; kw < w.shape[3]; ++kw) {
                const std::int64_t ih = oh * g.stride_h - g.pad_h + kh, iw = ow * g.stride_w - g.pad_w + kw;
                if (ih < 0 || iw < 0 || ih >= x.shape[2] || iw >= x.shape[3]) continue;
                acc += x.v[idx4(x.shape, n, c, ih, iw)] * w.v[idx4(w.shape, o, c, kh, kw)];
              }
          y.v[idx4(ys, n, o, oh, ow)] = acc;
        }
  return y;
}

RefTensor conv2d_backward_data(const RefTensor& dy, const RefTensor& w, const Shape& x_shape,
                               const Conv2dGeometry& g) {
  RefTensor dx(x_shape);
  const auto& ys = dy.shape;
  for (std::int64_t n = 0; n < ys[0]; ++n)
    for (std::int64_t o = 0; o < ys[1]; ++o)
      for (std::int64_t oh = 0; oh < ys[2]; ++oh)
        for (std::int64_t ow = 0; ow < ys[3]; ++ow) {
          const double d = dy.v[idx4(ys, n, o, oh, ow)];
          for (std::int64_t c = 0; c < w.shape[1]; ++c)
            for (std::int64_t kh = 0; kh < w.shape[2]; ++kh)
              for (std::int64_t kw = 0; kw < w.shape[3]; ++kw) {
                const std::int64_t ih = oh * g.stride_h - g.pad_h + kh, iw = ow * g.stride_w - g.pad_w + kw;
                if (ih < 0 || iw < 0 || ih >= x_shape[2] || iw >= x_shape[3]) continue;
                dx.v[idx4(x_shape, n, c, ih, iw)] += d * w.v[idx4(w.shape, o, c, kh, kw)];
              }
        }
  return dx;
}

RefTensor conv2d_backward_weight(const RefTensor& dy, const RefTensor& x, const Shape& w_shape,
                                 const Conv2dGeometry& g) {
  RefTensor dw(w_shape);
  const auto& ys = dy.shape;
  for (std::int64_t n = 0; n < ys[0]; ++n)
    for (std::int64_t o = 0; o < ys[1]; ++o)
      for (std::int64_t oh = 0; oh < ys[2]; ++oh)
        for (std::int64_t ow = 0; ow < ys[3]; ++ow) {
          const double d = dy.v[idx4(ys, n, o, oh, ow)];
          for (std::int64_t c = 0; c < w_shape[1]; ++c)
            for (std::int64_t kh = 0; kh < w_shape[2]; ++kh)
              for (std::int64_t kw = 0; kw < w_shape[3]; ++kw) {
                const std::int64_t ih = oh * g.stride_h - g.pad_h + kh, iw = ow * g.stride_w - g.pad_w + kw;
                if (ih < 0 || iw < 0 || ih >= x.shape[2] || iw >= x.shape[3]) continue;
                dw.v[idx4(w_shape, o, c, kh, kw)] += d * x.v[idx4(x.shape, n, c, ih, iw)];
              }
        }
  return dw;
}

RefTensor conv2d_backward_bias(const RefTensor& dy) {
  const auto& s = dy.shape;
  RefTensor db({s[1]});
  for (std::int64_t n = 0; n < s[0]; ++n)
    for (std::int64_t c = 0; c < s[1]; ++c)
      for (std::int64_t i = 0; i < s[2] * s[3]; ++i)
        db.v[static_cast<std::size_t>(c)] += dy.v[static_cast<std::size_t>((n * s[1] + c) * s[2] * s[3] + i)];
  return db;
}

// ---- ReLU -----------------------------------------------------------------------------------------

RefTensor relu_forward(const RefTensor& x) {
  RefTensor y = x;
  for (auto& e : y.v) e = e > 0 ? e : 0.0;
  return y;
}

RefTensor relu_backward(const RefTensor& dy, const RefTensor& x) {
  RefTensor dx = dy;
  for (std::size_t i = 0; i < dx.v.size(); ++i)
    if (!(x.v[i] > 0)) dx.v[i] = 0.0;
  return dx;
}

// ---- Pooling --------------------------------------------------------------------------------------

Shape pool2d_output_shape(const Shape& x, const Pool2dGeometry& g) {
  require(x.size() == 4, "pool2d: input must be NCHW");
  return {x[0], x[1], (x[2] + 2 * g.pad_h - g.kernel_h) / g.stride_h + 1,
          (x[3] + 2 * g.pad_w - g.kernel_w) / g.stride_w + 1};
}

namespace {
// Flat index of the first maximum of the window of output (n, c, oh, ow); -inf padding never wins
// unless the whole window is padding (which PyTorch forbids by requiring pad <= kernel/2).
std::size_t maxpool_argmax(const RefTensor& x, const Pool2dGeometry& g, std::int64_t n, std::int64_t c,
                           std::int64_t oh, std::int64_t ow) {
  double best = -std::numeric_limits<double>::infinity();
  std::size_t arg = 0;
  bool found = false;
  for (std::int64_t kh = 0; kh < g.kernel_h; ++kh)
    for (std::int64_t kw = 0; kw < g.kernel_w; ++kw) {
      const std::int64_t ih = oh * g.stride_h - g.pad_h + kh, iw = ow * g.stride_w - g.pad_w + kw;
      if (ih < 0 || iw < 0 || ih >= x.shape[2] || iw >= x.shape[3]) continue;
      const std::size_t i = idx4(x.shape, n, c, ih, iw);
      if (!found || x.v[i] > best) {
        best = x.v[i];
        arg = i;
        found = true;
      }
    }
  return arg;
}
}  // namespace

RefTensor maxpool2d_forward(const RefTensor& x, const Pool2dGeometry& g) {
  RefTensor y(pool2d_output_shape(x.shape, g));
  const auto& s = y.shape;
  for (std::int64_t n = 0; n < s[0]; ++n)
    for (std::int64_t c = 0; c < s[1]; ++c)
      for (std::int64_t oh = 0; oh < s[2]; ++oh)
        for (std::int64_t ow = 0; ow < s[3]; ++ow)
          y.v[idx4(s, n, c, oh, ow)] = x.v[maxpool_argmax(x, g, n, c, oh, ow)];
  return y;
}

RefTensor maxpool2d_backward(const RefTensor& dy, const RefTensor& x, const Pool2dGeometry& g) {
  RefTensor dx(x.shape);
  const auto& s = dy.shape;
  for (std::int64_t n = 0; n < s[0]; ++n)
    for (std::int64_t c = 0; c < s[1]; ++c)
      for (std::int64_t oh = 0; oh < s[2]; ++oh)
        for (std::int64_t ow = 0; ow < s[3]; ++ow)
          dx.v[maxpool_argmax(x, g, n, c, oh, ow)] += dy.v[idx4(s, n, c, oh, ow)];
  return dx;
}

RefTensor avgpool2d_forward(const RefTensor& x, const Pool2dGeometry& g) {
  RefTensor y(pool2d_output_shape(x.shape, g));
  const auto& s = y.shape;
  const double inv = 1.0 / static_cast<double>(g.kernel_h * g.kernel_w);
  for (std::int64_t n = 0; n < s[0]; ++n)
    for (std::int64_t c = 0; c < s[1]; ++c)
      for (std::int64_t oh = 0; oh < s[2]; ++oh)
        for (std::int64_t ow = 0; ow < s[3]; ++ow) {
          double acc = 0;
          for (std::int64_t kh = 0; kh < g.kernel_h; ++kh)
            for (std::int64_t kw = 0; kw < g.kernel_w; ++kw) {
              const std::int64_t ih = oh * g.stride_h - g.pad_h + kh, iw = ow * g.stride_w - g.pad_w + kw;
              if (ih < 0 || iw < 0 || ih >= x.shape[2] || iw >= x.shape[3]) continue;
              acc += x.v[idx4(x.shape, n, c, ih, iw)];
            }
          y.v[idx4(s, n, c, oh, ow)] = acc * inv;
        }
  return y;
}

RefTensor avgpool2d_backward(const RefTensor& dy, const Shape& x_shape, const Pool2dGeometry& g) {
  RefTensor dx(x_shape);
  const auto& s = dy.shape;
  const double inv = 1.0 / static_cast<double>(g.kernel_h * g.kernel_w);
  for (std::int64_t n = 0; n < s[0]; ++n)
    for (std::int64_t c = 0; c < s[1]; ++c)
      for (std::int64_t oh = 0; oh < s[2]; ++oh)
        for (std::int64_t ow = 0; ow < s[3]; ++ow) {
          const double d = dy.v[idx4(s, n, c, oh, ow)] * inv;
          for (std::int64_t kh = 0; kh < g.kernel_h; ++kh)
            for (std::int64_t kw = 0; kw < g.kernel_w; ++kw) {
              const std::int64_t ih = oh * g.stride_h - g.pad_h + kh, iw = ow * g.stride_w - g.pad_w + kw;
              if (ih < 0 || iw < 0 || ih >= x_shape[2] || iw >= x_shape[3]) continue;
              dx.v[idx4(x_shape, n, c, ih, iw)] += d;
            }
        }
  return dx;
}

RefTensor adaptive_avgpool1_forward(const RefTensor& x) {
  const auto& s = x.shape;
  RefTensor y({s[0], s[1], 1, 1});
  const std::int64_t hw = s[2] * s[3];
  for (std::int64_t nc = 0; nc < s[0] * s[1]; ++nc) {
    double acc = 0;
    for (std::int64_t i = 0; i < hw; ++i) acc += x.v[static_cast<std::size_t>(nc * hw + i)];
    y.v[static_cast<std::size_t>(nc)] = acc / static_cast<double>(hw);
  }
  return y;
}

RefTensor adaptive_avgpool1_backward(const RefTensor& dy, const Shape& x_shape) {
  RefTensor dx(x_shape);
  const std::int64_t hw = x_shape[2] * x_shape[3];
  for (std::int64_t nc = 0; nc < x_shape[0] * x_shape[1]; ++nc)
    for (std::int64_t i = 0; i < hw; ++i)
      dx.v[static_cast<std::size_t>(nc * hw + i)] = dy.v[static_cast<std::size_t>(nc)] / static_cast<double>(hw);
  return dx;
}

// ---- Linear ---------------------------------------------------------------------------------------

RefTensor linear_forward(const RefTensor& x, const RefTensor& w, const RefTensor& b) {
  require(x.shape.size() == 2 && w.shape.size() == 2 && x.shape[1] == w.shape[1], "linear: bad shapes");
  const std::int64_t N = x.shape[0], I = w.shape[1], O = w.shape[0];
  RefTensor y({N, O});
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t o = 0; o < O; ++o) {
      double acc = b.empty() ? 0.0 : b.v[static_cast<std::size_t>(o)];
      for (std::int64_t i = 0; i < I; ++i)
        acc += x.v[static_cast<std::size_t>(n * I + i)] * w.v[static_cast<std::size_t>(o * I + i)];
      y.v[static_cast<std::size_t>(n * O + o)] = acc;
    }
  return y;
}

RefTensor linear_backward_data(const RefTensor& dy, const RefTensor& w) {
  const std::int64_t N = dy.shape[0], O = w.shape[0], I = w.shape[1];
  RefTensor dx({N, I});
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t o = 0; o < O; ++o)
      for (std::int64_t i = 0; i < I; ++i)
        dx.v[static_cast<std::size_t>(n * I + i)] +=
            dy.v[static_cast<std::size_t>(n * O + o)] * w.v[static_cast<std::size_t>(o * I + i)];
  return dx;
}

RefTensor linear_backward_weight(const RefTensor& dy, const RefTensor& x) {
  const std::int64_t N = dy.shape[0], O = dy.shape[1], I = x.shape[1];
  RefTensor dw({O, I});
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t o = 0; o < O; ++o)
      for (std::int64_t i = 0; i < I; ++i)
        dw.v[static_cast<std::size_t>(o * I + i)] +=
            dy.v[static_cast<std::size_t>(n * O + o)] * x.v[static_cast<std::size_t>(n * I + i)];
  return dw;
}

RefTensor linear_backward_bias(const RefTensor& dy) {
  const std::int64_t N = dy.shape[0], O = dy.shape[1];
  RefTensor db({O});
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t o = 0; o < O; ++o) db.v[static_cast<std::size_t>(o)] += dy.v[static_cast<std::size_t>(n * O + o)];
  return db;
}

// ---- BatchNorm2d ----------------------------------------------------------------------------------

RefTensor batchnorm2d_forward_train(const RefTensor& x, const RefTensor& gamma, const RefTensor& beta,
                                    double eps, double momentum, RefTensor& running_mean,
                                    RefTensor& running_var, BatchNormCache* cache) {
  const auto& s = x.shape;
  const std::int64_t N = s[0], C = s[1], HW = s[2] * s[3], M = N * HW;
  RefTensor y(s);
  BatchNormCache local;
  local.x_hat = RefTensor(s);
  local.inv_std.assign(static_cast<std::size_t>(C), 0.0);
  for (std::int64_t c = 0; c < C; ++c) {
    double sum = 0, sq = 0;
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t i = 0; i < HW; ++i) sum += x.v[static_cast<std::size_t>((n * C + c) * HW + i)];
    const double mean = sum / static_cast<double>(M);
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t i = 0; i < HW; ++i) {
        const double d = x.v[static_cast<std::size_t>((n * C + c) * HW + i)] - mean;
        sq += d * d;
      }
    const double var_biased = sq / static_cast<double>(M);
    const double var_unbiased = M > 1 ? sq / static_cast<double>(M - 1) : var_biased;
    const double inv_std = 1.0 / std::sqrt(var_biased + eps);
    const auto cs = static_cast<std::size_t>(c);
    local.inv_std[cs] = inv_std;
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t i = 0; i < HW; ++i) {
        const auto k = static_cast<std::size_t>((n * C + c) * HW + i);
        local.x_hat.v[k] = (x.v[k] - mean) * inv_std;
        y.v[k] = gamma.v[cs] * local.x_hat.v[k] + beta.v[cs];
      }
    running_mean.v[cs] = (1 - momentum) * running_mean.v[cs] + momentum * mean;
    running_var.v[cs] = (1 - momentum) * running_var.v[cs] + momentum * var_unbiased;
  }
  if (cache) *cache = std::move(local);
  return y;
}

RefTensor batchnorm2d_forward_eval(const RefTensor& x, const RefTensor& gamma, const RefTensor& beta,
                                   double eps, const RefTensor& running_mean, const RefTensor& running_var) {
  const auto& s = x.shape;
  const std::int64_t N = s[0], C = s[1], HW = s[2] * s[3];
  RefTensor y(s);
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t c = 0; c < C; ++c) {
      const auto cs = static_cast<std::size_t>(c);
      const double inv_std = 1.0 / std::sqrt(running_var.v[cs] + eps);
      for (std::int64_t i = 0; i < HW; ++i) {
        const auto k = static_cast<std::size_t>((n * C + c) * HW + i);
        y.v[k] = gamma.v[cs] * (x.v[k] - running_mean.v[cs]) * inv_std + beta.v[cs];
      }
    }
  return y;
}

RefTensor batchnorm2d_backward(const RefTensor& dy, const RefTensor& gamma, const BatchNormCache& cache,
                               RefTensor* dgamma, RefTensor* dbeta) {
  const auto& s = dy.shape;
  const std::int64_t N = s[0], C = s[1], HW = s[2] * s[3];
  const double M = static_cast<double>(N * HW);
  RefTensor dx(s), dg({C}), db({C});
  for (std::int64_t c = 0; c < C; ++c) {
    const auto cs = static_cast<std::size_t>(c);
    double sum_dy = 0, sum_dy_xhat = 0;
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t i = 0; i < HW; ++i) {
        const auto k = static_cast<std::size_t>((n * C + c) * HW + i);
        sum_dy += dy.v[k];
        sum_dy_xhat += dy.v[k] * cache.x_hat.v[k];
      }
    dg.v[cs] = sum_dy_xhat;
    db.v[cs] = sum_dy;
    // dx = gamma * inv_std * (dy - mean(dy) - x_hat * mean(dy * x_hat))
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t i = 0; i < HW; ++i) {
        const auto k = static_cast<std::size_t>((n * C + c) * HW + i);
        dx.v[k] = gamma.v[cs] * cache.inv_std[cs] * (dy.v[k] - sum_dy / M - cache.x_hat.v[k] * sum_dy_xhat / M);
      }
  }
  if (dgamma) *dgamma = std::move(dg);
  if (dbeta) *dbeta = std::move(db);
  return dx;
}

// ---- Dropout, Flatten -------------------------------------------------------------------------------

std::vector<double> dropout_scale(std::int64_t n, double p, std::uint64_t key) {
  std::vector<double> scale(static_cast<std::size_t>(n), 0.0);
  if (p >= 1.0) return scale;
  const double keep_scale = 1.0 / (1.0 - p);
  for (std::int64_t i = 0; i < n; ++i)
    if (dropout_uniform(key, static_cast<std::uint64_t>(i)) >= static_cast<float>(p))
      scale[static_cast<std::size_t>(i)] = keep_scale;
  return scale;
}

RefTensor apply_scale(const RefTensor& x, const std::vector<double>& scale) {
  RefTensor y = x;
  for (std::size_t i = 0; i < y.v.size(); ++i) y.v[i] *= scale[i];
  return y;
}

RefTensor flatten(const RefTensor& x, std::int64_t start_dim) {
  Shape s(x.shape.begin(), x.shape.begin() + start_dim);
  std::int64_t rest = 1;
  for (std::size_t d = static_cast<std::size_t>(start_dim); d < x.shape.size(); ++d) rest *= x.shape[d];
  s.push_back(rest);
  return RefTensor(s, x.v);
}

// ---- Cross-entropy ------------------------------------------------------------------------------------

double cross_entropy(const RefTensor& logits, const std::vector<std::int32_t>& labels, RefTensor* grad,
                     std::vector<double>* per_sample) {
  require(logits.shape.size() == 2 && static_cast<std::int64_t>(labels.size()) == logits.shape[0],
          "cross_entropy: logits must be [N, K] with N labels");
  const std::int64_t N = logits.shape[0], K = logits.shape[1];
  if (grad) *grad = RefTensor(logits.shape);
  if (per_sample) per_sample->assign(static_cast<std::size_t>(N), 0.0);
  double total = 0;
  for (std::int64_t n = 0; n < N; ++n) {
    const double* z = logits.v.data() + n * K;
    const double mx = *std::max_element(z, z + K);
    double se = 0;
    for (std::int64_t k = 0; k < K; ++k) se += std::exp(z[k] - mx);
    const double lse = mx + std::log(se);
    const double loss = lse - z[labels[static_cast<std::size_t>(n)]];
    total += loss;
    if (per_sample) (*per_sample)[static_cast<std::size_t>(n)] = loss;
    if (grad)
      for (std::int64_t k = 0; k < K; ++k)
        grad->v[static_cast<std::size_t>(n * K + k)] =
            (std::exp(z[k] - lse) - (k == labels[static_cast<std::size_t>(n)] ? 1.0 : 0.0)) / static_cast<double>(N);
  }
  return total / static_cast<double>(N);
}

// ---- A whole model ---------------------------------------------------------------------------------------

std::string layer_name(const ModelSpec& spec, std::size_t index) {
  const auto& n = spec.layers[index].name;
  return n.empty() ? std::to_string(index) : n;
}

RefModel::RefModel(ModelSpec spec) : spec_(std::move(spec)) {
  inputs_.resize(spec_.layers.size());
  bn_caches_.resize(spec_.layers.size());
  dropout_.resize(spec_.layers.size());
}

void RefModel::set(const std::vector<NamedTensor>& tensors) {
  for (const auto& t : tensors) {
    const bool is_buffer = t.name.find("running_") != std::string::npos;
    (is_buffer ? buffers : params)[t.name] = from_host(t.tensor);
  }
}

RefTensor RefModel::forward(const RefTensor& x, bool training) {
  RefTensor cur = x;
  for (std::size_t i = 0; i < spec_.layers.size(); ++i) {
    inputs_[i] = cur;
    cur = forward_layer(i, cur, training);
  }
  return cur;
}

RefTensor RefModel::backward(const RefTensor& dy) {
  grads.clear();
  RefTensor cur = dy;
  for (std::size_t i = spec_.layers.size(); i-- > 0;) cur = backward_layer(i, cur);
  return cur;
}

namespace {
Conv2dGeometry conv_geometry(const LayerSpec& l) {
  return {l.stride[0], l.stride[1], l.padding[0], l.padding[1]};
}
Pool2dGeometry pool_geometry(const LayerSpec& l) {
  return {l.kernel_size[0], l.kernel_size[1], l.stride[0], l.stride[1], l.padding[0], l.padding[1]};
}
const RefTensor& find(const std::map<std::string, RefTensor>& m, const std::string& name) {
  static const RefTensor kEmpty;
  auto it = m.find(name);
  return it == m.end() ? kEmpty : it->second;
}
}  // namespace

RefTensor RefModel::forward_layer(std::size_t i, const RefTensor& x, bool training) {
  const LayerSpec& l = spec_.layers[i];
  const std::string nm = layer_name(spec_, i);
  switch (l.type) {
    case LayerType::Conv2d:
      return conv2d_forward(x, find(params, nm + ".weight"), find(params, nm + ".bias"), conv_geometry(l));
    case LayerType::ReLU: return relu_forward(x);
    case LayerType::MaxPool2d: return maxpool2d_forward(x, pool_geometry(l));
    case LayerType::AvgPool2d: return avgpool2d_forward(x, pool_geometry(l));
    case LayerType::AdaptiveAvgPool2d: return adaptive_avgpool1_forward(x);
    case LayerType::Flatten: return flatten(x, l.start_dim);
    case LayerType::Linear:
      return linear_forward(x, find(params, nm + ".weight"), find(params, nm + ".bias"));
    case LayerType::BatchNorm2d:
      if (!training)
        return batchnorm2d_forward_eval(x, params.at(nm + ".weight"), params.at(nm + ".bias"), l.eps,
                                        buffers.at(nm + ".running_mean"), buffers.at(nm + ".running_var"));
      return batchnorm2d_forward_train(x, params.at(nm + ".weight"), params.at(nm + ".bias"), l.eps, l.momentum,
                                       buffers.at(nm + ".running_mean"), buffers.at(nm + ".running_var"),
                                       &bn_caches_[i]);
    case LayerType::Dropout:
      if (!training || !dropout_enabled) {
        dropout_[i].assign(x.v.size(), 1.0);
        return x;
      }
      dropout_[i] = dropout_scale(x.numel(), l.p, dropout_key(seed, dropout_step, i));
      return apply_scale(x, dropout_[i]);
  }
  throw std::invalid_argument("naive_layers: unknown layer type");
}

RefTensor RefModel::backward_layer(std::size_t i, const RefTensor& dy) {
  const LayerSpec& l = spec_.layers[i];
  const std::string nm = layer_name(spec_, i);
  const RefTensor& x = inputs_[i];
  switch (l.type) {
    case LayerType::Conv2d: {
      const RefTensor& w = params.at(nm + ".weight");
      grads[nm + ".weight"] = conv2d_backward_weight(dy, x, w.shape, conv_geometry(l));
      if (l.bias) grads[nm + ".bias"] = conv2d_backward_bias(dy);
      return conv2d_backward_data(dy, w, x.shape, conv_geometry(l));
    }
    case LayerType::ReLU: return relu_backward(dy, x);
    case LayerType::MaxPool2d: return maxpool2d_backward(dy, x, pool_geometry(l));
    case LayerType::AvgPool2d: return avgpool2d_backward(dy, x.shape, pool_geometry(l));
    case LayerType::AdaptiveAvgPool2d: return adaptive_avgpool1_backward(dy, x.shape);
    case LayerType::Flatten: return RefTensor(x.shape, dy.v);
    case LayerType::Linear: {
      const RefTensor& w = params.at(nm + ".weight");
      grads[nm + ".weight"] = linear_backward_weight(dy, x);
      if (l.bias) grads[nm + ".bias"] = linear_backward_bias(dy);
      return linear_backward_data(dy, w);
    }
    case LayerType::BatchNorm2d:
      return batchnorm2d_backward(dy, params.at(nm + ".weight"), bn_caches_[i], &grads[nm + ".weight"],
                                  &grads[nm + ".bias"]);
    case LayerType::Dropout: return apply_scale(dy, dropout_[i]);
  }
  throw std::invalid_argument("naive_layers: unknown layer type");
}

// ---- Finite differences, comparison, random inputs -----------------------------------------------------

RefTensor numerical_gradient(const std::function<double(const RefTensor&)>& f, const RefTensor& x, double h) {
  RefTensor g(x.shape);
  RefTensor xp = x;
  for (std::size_t i = 0; i < x.v.size(); ++i) {
    xp.v[i] = x.v[i] + h;
    const double fp = f(xp);
    xp.v[i] = x.v[i] - h;
    const double fm = f(xp);
    xp.v[i] = x.v[i];
    g.v[i] = (fp - fm) / (2 * h);
  }
  return g;
}

Comparison compare(const std::vector<double>& a, const std::vector<double>& b, double atol_floor) {
  Comparison c;
  if (a.size() != b.size()) {
    c.shape_ok = false;
    c.max_rel = std::numeric_limits<double>::infinity();
    return c;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = std::abs(a[i] - b[i]);
    const double r = d / std::max(atol_floor, std::abs(b[i]));
    if (!(d <= c.max_abs)) c.max_abs = d;
    if (!(r <= c.max_rel)) {
      c.max_rel = r;
      c.worst_index = static_cast<std::int64_t>(i);
    }
  }
  return c;
}

Comparison compare(const HostTensor& a, const RefTensor& b, double atol_floor) {
  if (a.shape != b.shape) {
    Comparison c;
    c.shape_ok = false;
    c.max_rel = std::numeric_limits<double>::infinity();
    return c;
  }
  return compare(std::vector<double>(a.data.begin(), a.data.end()), b.v, atol_floor);
}

RefTensor random_tensor(Shape shape, std::uint64_t seed, double lo, double hi) {
  RefTensor t(std::move(shape));
  for (std::size_t i = 0; i < t.v.size(); ++i) {
    const double u = static_cast<double>(splitmix64(seed * 0x9E3779B97F4A7C15ull + i) >> 11) * 0x1.0p-53;
    t.v[i] = lo + (hi - lo) * u;
  }
  return t;
}

}  // namespace ts::ref
