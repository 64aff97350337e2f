// cuDNN layers: convolution (algorithm cache per batch size), pooling, batch normalisation.
// See cudnn_layers.h. Uses the legacy API (deprecated in cuDNN 9, still present; the target builds
// with -Wno-deprecated-declarations).
#include "engine/cuda/cudnn_layers.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <array>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "base/cuda_check.h"
#include "engine/cuda/cudnn_check.h"

namespace ts::cuda {
namespace {

const float kOne = 1.0f, kZero = 0.0f;

cudnnHandle_t H(const CudnnHandle& h) { return static_cast<cudnnHandle_t>(h.raw()); }

int i32(std::int64_t v) { return static_cast<int>(v); }

cudnnDataType_t cudnn_type(kernels::ElemType t) {
  switch (t) {
    case kernels::ElemType::f16: return CUDNN_DATA_HALF;
    case kernels::ElemType::bf16: return CUDNN_DATA_BFLOAT16;
    default: return CUDNN_DATA_FLOAT;
  }
}

/// An NCHW tensor descriptor.
class TensorDesc {
 public:
  TensorDesc(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, cudnnDataType_t t = CUDNN_DATA_FLOAT) {
    TS_CUDNN_CHECK(cudnnCreateTensorDescriptor(&d_));
    TS_CUDNN_CHECK(cudnnSetTensor4dDescriptor(d_, CUDNN_TENSOR_NCHW, t, i32(n), i32(c), i32(h), i32(w)));
  }
  ~TensorDesc() { cudnnDestroyTensorDescriptor(d_); }
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
  cudnnTensorDescriptor_t get() const { return d_; }

 private:
  cudnnTensorDescriptor_t d_ = nullptr;
};

/// Descriptors of one per-sample shape [c, h, w] for each batch size met so far.
class DescCache {
 public:
  DescCache(std::int64_t c, std::int64_t h, std::int64_t w, cudnnDataType_t t) : c_(c), h_(h), w_(w), t_(t) {}
  cudnnTensorDescriptor_t get(std::int64_t n) {
    auto it = m_.find(n);
    if (it == m_.end()) it = m_.emplace(n, std::make_unique<TensorDesc>(n, c_, h_, w_, t_)).first;
    return it->second->get();
  }

 private:
  std::int64_t c_, h_, w_;
  cudnnDataType_t t_;
  std::map<std::int64_t, std::unique_ptr<TensorDesc>> m_;
};

template <class Perf>
bool acceptable(const Perf& p, bool deterministic, std::size_t ws_limit) {
  return p.status == CUDNN_STATUS_SUCCESS && p.memory <= ws_limit &&
         (!deterministic || p.determinism == CUDNN_DETERMINISTIC);
}

/// First acceptable result (cuDNN returns them fastest first), or nullptr.
template <class Perf>
const Perf* pick(const std::vector<Perf>& perfs, int count, bool deterministic, std::size_t ws_limit) {
  for (int i = 0; i < count; ++i)
    if (acceptable(perfs[i], deterministic, ws_limit)) return &perfs[i];
  return nullptr;
}

}  // namespace

// ---- handle ------------------------------------------------------------------------------------
CudnnHandle::CudnnHandle(cudaStream_t stream) {
  cudnnHandle_t h = nullptr;
  TS_CUDNN_CHECK(cudnnCreate(&h));
  handle_ = h;
  TS_CUDNN_CHECK(cudnnSetStream(h, stream));
}
CudnnHandle::~CudnnHandle() {
  if (handle_) cudnnDestroy(static_cast<cudnnHandle_t>(handle_));
}
std::int64_t cudnn_runtime_version() { return static_cast<std::int64_t>(cudnnGetVersion()); }
std::int64_t cudnn_build_version() { return CUDNN_VERSION; }

// ---- convolution --------------------------------------------------------------------------------
/// The algorithms a convolution runs at one batch size, with the workspace and math type of each.
struct ConvAlgos {
  cudnnConvolutionFwdAlgo_t fwd = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  cudnnConvolutionBwdDataAlgo_t bwd_data = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
  cudnnConvolutionBwdFilterAlgo_t bwd_filter = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
  std::size_t ws[3] = {0, 0, 0};
  cudnnMathType_t math[3] = {CUDNN_DEFAULT_MATH, CUDNN_DEFAULT_MATH, CUDNN_DEFAULT_MATH};
};

struct ConvLayer::Impl {
  ConvShape s;
  bool allow_tf32, deterministic, needs_data_grad;
  bool replayed = false;  // set_replayed: rank candidates by their GPU time alone
  std::string name;
  cudnnDataType_t dtype;
  cudnnFilterDescriptor_t filter = nullptr;
  cudnnConvolutionDescriptor_t conv[3] = {nullptr, nullptr, nullptr};  // fwd, bwd data, bwd filter
  DescCache x_descs, y_descs;
  using Algos = ConvAlgos;
  std::map<std::int64_t, Algos> algos;
  bool half() const { return dtype != CUDNN_DATA_FLOAT; }
  // fp32: TF32 allowed or plain FMA; fp16/bf16: tensor cores (fp32 accumulation from the compute type).
  cudnnMathType_t math_type() const {
    return half() ? CUDNN_TENSOR_OP_MATH : (allow_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH);
  }

  Impl(const ConvShape& shape, bool tf32, bool det, bool dgrad, std::string n, cudnnDataType_t t)
      : s(shape), allow_tf32(tf32), deterministic(det), needs_data_grad(dgrad), name(std::move(n)), dtype(t),
        x_descs(shape.c_in, shape.h, shape.w, t), y_descs(shape.c_out, shape.h_out, shape.w_out, t) {
    TS_CUDNN_CHECK(cudnnCreateFilterDescriptor(&filter));
    TS_CUDNN_CHECK(cudnnSetFilter4dDescriptor(filter, t, CUDNN_TENSOR_NCHW, i32(s.c_out), i32(s.c_in),
                                              i32(s.kh), i32(s.kw)));
    for (auto& c : conv) {
      TS_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&c));
      TS_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(c, i32(s.ph), i32(s.pw), i32(s.sh), i32(s.sw), 1, 1,
                                                     CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
      TS_CUDNN_CHECK(cudnnSetConvolutionMathType(c, math_type()));
    }
  }
  ~Impl() {
    for (auto c : conv) cudnnDestroyConvolutionDescriptor(c);
    cudnnDestroyFilterDescriptor(filter);
  }
  // With TF32 allowed, the descriptor takes the math type the chosen algorithm was measured with
  // (as PyTorch does); with FMA_MATH every result is FMA already.
  void apply_math(int which, cudnnMathType_t m) {
    if (allow_tf32 || half()) TS_CUDNN_CHECK(cudnnSetConvolutionMathType(conv[which], m));
  }
  Algos& heuristic(const CudnnHandle& h, std::int64_t n, std::size_t ws_limit);
  void throw_none(const char* what, std::int64_t n) const {
    throw DeviceError("cuDNN found no " + std::string(what) + " algorithm for " + name + " at batch size " +
                      std::to_string(n) + (deterministic ? " (deterministic only)" : ""));
  }
};

ConvLayer::Impl::Algos& ConvLayer::Impl::heuristic(const CudnnHandle& h, std::int64_t n, std::size_t ws_limit) {
  auto it = algos.find(n);
  if (it != algos.end()) return it->second;
  Algos a;
  cudnnTensorDescriptor_t xd = x_descs.get(n), yd = y_descs.get(n);
  int count = 0;
  std::vector<cudnnConvolutionFwdAlgoPerf_t> fwd(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  TS_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(H(h), xd, filter, conv[0], yd,
                                                        CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, fwd.data()));
  const auto* f = pick(fwd, count, deterministic, ws_limit);
  if (!f) throw_none("forward", n);
  a.fwd = f->algo, a.ws[0] = f->memory, a.math[0] = f->mathType;
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> bd(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
  if (needs_data_grad) {
    TS_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
        H(h), filter, yd, conv[1], xd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &count, bd.data()));
    const auto* d = pick(bd, count, deterministic, ws_limit);
    if (!d) throw_none("backward-data", n);
    a.bwd_data = d->algo, a.ws[1] = d->memory, a.math[1] = d->mathType;
  }
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> bf(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
  TS_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
      H(h), xd, yd, conv[2], filter, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &count, bf.data()));
  const auto* w = pick(bf, count, deterministic, ws_limit);
  if (!w) throw_none("backward-filter", n);
  a.bwd_filter = w->algo, a.ws[2] = w->memory, a.math[2] = w->mathType;
  return algos.emplace(n, a).first->second;
}

ConvLayer::ConvLayer(const ConvShape& s, bool allow_tf32, bool deterministic, bool needs_data_grad, std::string name,
                     kernels::ElemType dtype)
    : impl_(std::make_unique<Impl>(s, allow_tf32, deterministic, needs_data_grad, std::move(name),
                                   cudnn_type(dtype))) {}
ConvLayer::~ConvLayer() = default;
void ConvLayer::set_replayed(bool replayed) { impl_->replayed = replayed; }

namespace {

/// What one call of a candidate algorithm costs in a step: the host's time to enqueue it and the
/// wall time from an event before to an event after it, each the mean of kTimedCalls calls after
/// one untimed call (cuDNN builds its plan and compiles any runtime kernel at the first). The host
/// runs ahead of the GPU in a step, so a call costs the larger of the two; cudnnFind* times the GPU
/// alone, and an algorithm whose enqueue takes milliseconds (seen under bf16 at batch 256-512 on
/// the H200: GPU busy 4.7 %, the host inside the launch 94 % of the step) would otherwise win.
struct CallCost {
  double host_us = 0, wall_us = 0;
  double cost() const { return std::max(host_us, wall_us); }
};
constexpr int kTimedCalls = 3;

template <class Call>
CallCost time_call(cudaStream_t stream, Call&& call) {
  call();
  TS_CUDA_CHECK(cudaStreamSynchronize(stream));
  cudaEvent_t start = nullptr, stop = nullptr;
  TS_CUDA_CHECK(cudaEventCreate(&start));
  TS_CUDA_CHECK(cudaEventCreate(&stop));
  TS_CUDA_CHECK(cudaEventRecord(start, stream));
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kTimedCalls; ++i) call();
  const auto t1 = std::chrono::steady_clock::now();
  TS_CUDA_CHECK(cudaEventRecord(stop, stream));
  TS_CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  TS_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return {std::chrono::duration<double, std::micro>(t1 - t0).count() / kTimedCalls, 1000.0 * ms / kTimedCalls};
}

/// The GPU time of one call of a candidate as a CUDA graph replays it (host_us 0): kTimedCalls calls
/// captured into a graph, replayed once untimed and once between events. Under a graph the host's
/// enqueue is paid once, at capture, and the wall time of eager calls is mostly that enqueue for the
/// small convolutions of a b128 step (host 28-83 us against 20-60 us on the GPU, H100), so eager
/// timing ranks candidates by a cost the replayed step never pays. nullopt when the stream cannot be
/// captured (the legacy default stream) or a capture call fails; the caller then times eager calls.
template <class Call>
std::optional<CallCost> time_replayed_call(cudaStream_t stream, Call&& call) {
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) return std::nullopt;
  call();
  if (cudaStreamSynchronize(stream) != cudaSuccess) return std::nullopt;
  cudaGraph_t graph = nullptr;
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) return std::nullopt;
  for (int i = 0; i < kTimedCalls; ++i) call();
  if (cudaStreamEndCapture(stream, &graph) != cudaSuccess || graph == nullptr) {
    cudaGetLastError();
    return std::nullopt;
  }
  cudaGraphExec_t exec = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  float ms = -1;
  if (cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess && cudaGraphLaunch(exec, stream) == cudaSuccess &&
      cudaEventCreate(&start) == cudaSuccess && cudaEventCreate(&stop) == cudaSuccess &&
      cudaEventRecord(start, stream) == cudaSuccess && cudaGraphLaunch(exec, stream) == cudaSuccess &&
      cudaEventRecord(stop, stream) == cudaSuccess && cudaEventSynchronize(stop) == cudaSuccess)
    cudaEventElapsedTime(&ms, start, stop);
  if (start) cudaEventDestroy(start);
  if (stop) cudaEventDestroy(stop);
  if (exec) cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  if (ms < 0) {
    cudaGetLastError();
    return std::nullopt;
  }
  return CallCost{0, 1000.0 * ms / kTimedCalls};
}

/// Every acceptable result (there are at most 8 algorithms per direction) whose cudnnFind time is within
/// kCandidateSpan of the fastest's is timed with the host: cudnnFind's ranking of small convolutions is
/// not the step's. On an H100 at b128 fp32, conv2's forward algorithm 1 took 50 us a call in the search's
/// timing against 70 us for algorithm 0, while cudnnFind ranked it 4th or 5th (122-146 us against 83 us);
/// runs that did not time it chose algorithm 0 and ran at 233k img/s against 276k (bench/RESULTS.md).
constexpr int kTimedCandidates = 8;
constexpr double kCandidateSpan = 4.0;
/// Timed calls per candidate are bounded to about this much GPU time (by cudnnFind's time of the
/// fastest): small convolutions get every round, a b2048 one fewer, so the search stays under a second.
constexpr double kSearchBudgetUs = 2000;

/// TRAINSCOPE_CONV_LOG=1 prints every timed candidate to stderr (which algorithm won and why).
bool conv_log() {
  static const bool on = [] {
    const char* v = std::getenv("TRAINSCOPE_CONV_LOG");
    return v && *v && std::string(v) != "0";
  }();
  return on;
}

/// Rounds of timing per search: each round times every candidate once (kTimedCalls calls), so that the
/// GPU's clocks, which ramp up while the search runs after an idle start, fall on every candidate alike;
/// a candidate's cost is its median over the rounds. One pass (TRAINSCOPE_CONV_ROUNDS=1, what the search
/// did before) chose differently from run to run: unprofiled b128 fp32 runs on an H100 came out at 233k to
/// 278k img/s in discrete levels, one per mix of algorithms (bench/RESULTS.md, "Convolution choice").
int conv_rounds() {
  static const int rounds = [] {
    const char* v = std::getenv("TRAINSCOPE_CONV_ROUNDS");
    const int n = v && *v ? std::atoi(v) : 5;
    return std::clamp(n, 1, 50);
  }();
  return rounds;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/// Of cuDNN's results (fastest GPU time first), the acceptable candidate (kTimedCandidates, kCandidateSpan)
/// with the lowest CallCost, each cost the median of up to conv_rounds() interleaved rounds (the wall time alone when
/// `replayed`: a CUDA graph pays the host's enqueue once, at capture); `run(perf)` sets the math type and
/// makes one call with that candidate. nullptr when none is acceptable.
template <class Perf, class Run>
const Perf* choose(const std::vector<Perf>& perfs, int count, bool deterministic, bool replayed, std::size_t ws_limit,
                   cudaStream_t stream, const std::string& what, Run&& run) {
  std::vector<const Perf*> candidates;
  for (int i = 0; i < count && static_cast<int>(candidates.size()) < kTimedCandidates; ++i)
    if (acceptable(perfs[i], deterministic, ws_limit) &&
        (candidates.empty() || perfs[i].time <= kCandidateSpan * candidates.front()->time))
      candidates.push_back(&perfs[i]);
  if (candidates.size() < 2) return candidates.empty() ? nullptr : candidates[0];
  const double fastest_us = std::max(1.0, 1000.0 * candidates.front()->time);
  const int rounds = std::clamp(static_cast<int>(kSearchBudgetUs / (fastest_us * (kTimedCalls + 1))), 1, conv_rounds());
  std::vector<std::vector<double>> host(candidates.size()), wall(candidates.size());
  for (int r = 0; r < rounds; ++r)
    for (std::size_t j = 0; j < candidates.size(); ++j) {
      const auto one = [&] { run(*candidates[j]); };
      std::optional<CallCost> replay = replayed ? time_replayed_call(stream, one) : std::nullopt;
      const CallCost c = replay ? *replay : time_call(stream, one);
      host[j].push_back(c.host_us);
      wall[j].push_back(c.wall_us);
    }
  const Perf* best = nullptr;
  double best_cost = 0;
  for (std::size_t j = 0; j < candidates.size(); ++j) {
    const CallCost c{median_of(host[j]), median_of(wall[j])};
    if (conv_log())
      std::fprintf(stderr, "conv %s: algo %d math %d: cudnnFind %.1f us, host %.1f us, wall %.1f us (median of %d)\n",
                   what.c_str(), static_cast<int>(candidates[j]->algo), static_cast<int>(candidates[j]->mathType),
                   1000.0 * candidates[j]->time, c.host_us, c.wall_us, rounds);
    const double cost = replayed ? c.wall_us : c.cost();
    if (!best || cost < best_cost) best = candidates[j], best_cost = cost;
  }
  if (conv_log())
    std::fprintf(stderr, "conv %s: chose algo %d math %d (%s)\n", what.c_str(), static_cast<int>(best->algo),
                 static_cast<int>(best->mathType), replayed ? "GPU time of replayed calls" : "host or wall time, the larger");
  return best;
}

}  // namespace

namespace {
/// What a search's result depends on: the device, the convolution's shape and batch, its data type and math,
/// the deterministic, data-gradient and replayed choices and the workspace it may use.
using SearchKey = std::array<std::int64_t, 18>;
/// Searches made by this process, as cudnn.benchmark keeps its results: a second network of the same
/// convolutions (a lesson's warm-up and then its run, a run again from the window) takes them instead of
/// searching again (~2.5 s for a b32768 bf16 network on an H100, counted in its first step).
std::mutex g_searches_mutex;
std::int64_t g_searches_made = 0;  // under g_searches_mutex
std::map<SearchKey, ConvAlgos>& searches() {
  static std::map<SearchKey, ConvAlgos> done;
  return done;
}
}  // namespace

void ConvLayer::find_algorithms(const CudnnHandle& h, std::int64_t n, const ConvSearchBuffers& b) {
  Impl& m = *impl_;
  int device = -1;
  TS_CUDA_CHECK(cudaGetDevice(&device));
  const SearchKey key{device, m.s.c_in, m.s.h, m.s.w, m.s.c_out, m.s.kh, m.s.kw, m.s.sh, m.s.sw, m.s.ph, m.s.pw, n,
                      static_cast<std::int64_t>(m.dtype), m.allow_tf32, m.deterministic,
                      m.needs_data_grad && b.dx != nullptr, m.replayed, static_cast<std::int64_t>(b.workspace_bytes)};
  {
    std::lock_guard lock(g_searches_mutex);
    if (auto it = searches().find(key); it != searches().end()) {
      m.algos[n] = it->second;
      if (conv_log()) std::fprintf(stderr, "conv %s b%lld: this process's earlier search\n", m.name.c_str(), static_cast<long long>(n));
      return;
    }
  }
  Impl::Algos a;
  cudnnTensorDescriptor_t xd = m.x_descs.get(n), yd = m.y_descs.get(n);
  cudaStream_t stream = nullptr;
  TS_CUDNN_CHECK(cudnnGetStream(H(h), &stream));
  const std::string tag = m.name + " b" + std::to_string(n);
  int count = 0;
  std::vector<cudnnConvolutionFwdAlgoPerf_t> fwd(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  TS_CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(H(h), xd, b.x, m.filter, b.w, m.conv[0], yd, b.y,
                                                        CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, fwd.data(),
                                                        b.workspace, b.workspace_bytes));
  const auto* f = choose(fwd, count, m.deterministic, m.replayed, b.workspace_bytes, stream, tag + " fwd", [&](const auto& p) {
    m.apply_math(0, p.mathType);
    TS_CUDNN_CHECK(cudnnConvolutionForward(H(h), &kOne, xd, b.x, m.filter, b.w, m.conv[0], p.algo, b.workspace,
                                           p.memory, &kZero, yd, b.y));
  });
  if (!f) m.throw_none("forward", n);
  a.fwd = f->algo, a.ws[0] = f->memory, a.math[0] = f->mathType;
  if (m.needs_data_grad && b.dx) {
    std::vector<cudnnConvolutionBwdDataAlgoPerf_t> bd(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
    TS_CUDNN_CHECK(cudnnFindConvolutionBackwardDataAlgorithmEx(H(h), m.filter, b.w, yd, b.y, m.conv[1], xd, b.dx,
                                                               CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &count, bd.data(),
                                                               b.workspace, b.workspace_bytes));
    const auto* d =
        choose(bd, count, m.deterministic, m.replayed, b.workspace_bytes, stream, tag + " bwd-data", [&](const auto& p) {
          m.apply_math(1, p.mathType);
          TS_CUDNN_CHECK(cudnnConvolutionBackwardData(H(h), &kOne, m.filter, b.w, yd, b.y, m.conv[1], p.algo,
                                                      b.workspace, p.memory, &kZero, xd, b.dx));
        });
    if (!d) m.throw_none("backward-data", n);
    a.bwd_data = d->algo, a.ws[1] = d->memory, a.math[1] = d->mathType;
  }
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> bf(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
  TS_CUDNN_CHECK(cudnnFindConvolutionBackwardFilterAlgorithmEx(H(h), xd, b.x, yd, b.y, m.conv[2], m.filter, b.dw,
                                                               CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &count,
                                                               bf.data(), b.workspace, b.workspace_bytes));
  const auto* w =
      choose(bf, count, m.deterministic, m.replayed, b.workspace_bytes, stream, tag + " bwd-filter", [&](const auto& p) {
        m.apply_math(2, p.mathType);
        TS_CUDNN_CHECK(cudnnConvolutionBackwardFilter(H(h), &kOne, xd, b.x, yd, b.y, m.conv[2], p.algo, b.workspace,
                                                      p.memory, &kZero, m.filter, b.dw));
      });
  if (!w) m.throw_none("backward-filter", n);
  a.bwd_filter = w->algo, a.ws[2] = w->memory, a.math[2] = w->mathType;
  m.algos[n] = a;
  std::lock_guard lock(g_searches_mutex);
  searches()[key] = a;
  ++g_searches_made;
}

std::int64_t conv_algorithm_searches() {
  std::lock_guard lock(g_searches_mutex);
  return g_searches_made;
}

void ConvLayer::forward(const CudnnHandle& h, std::int64_t n, const void* x, const void* w, void* y, void* ws,
                        std::size_t ws_bytes) {
  Impl& m = *impl_;
  const auto& a = m.heuristic(h, n, ws_bytes);
  m.apply_math(0, a.math[0]);
  TS_CUDNN_CHECK(cudnnConvolutionForward(H(h), &kOne, m.x_descs.get(n), x, m.filter, w, m.conv[0], a.fwd, ws,
                                         a.ws[0], &kZero, m.y_descs.get(n), y));
}

void ConvLayer::backward_data(const CudnnHandle& h, std::int64_t n, const void* dy, const void* w, void* dx,
                              void* ws, std::size_t ws_bytes) {
  Impl& m = *impl_;
  const auto& a = m.heuristic(h, n, ws_bytes);
  m.apply_math(1, a.math[1]);
  TS_CUDNN_CHECK(cudnnConvolutionBackwardData(H(h), &kOne, m.filter, w, m.y_descs.get(n), dy, m.conv[1], a.bwd_data,
                                              ws, a.ws[1], &kZero, m.x_descs.get(n), dx));
}

void ConvLayer::backward_filter(const CudnnHandle& h, std::int64_t n, const void* x, const void* dy, void* dw,
                                void* ws, std::size_t ws_bytes) {
  Impl& m = *impl_;
  const auto& a = m.heuristic(h, n, ws_bytes);
  m.apply_math(2, a.math[2]);
  TS_CUDNN_CHECK(cudnnConvolutionBackwardFilter(H(h), &kOne, m.x_descs.get(n), x, m.y_descs.get(n), dy, m.conv[2],
                                                a.bwd_filter, ws, a.ws[2], &kZero, m.filter, dw));
}

std::size_t ConvLayer::workspace_bytes(std::int64_t n) const {
  auto it = impl_->algos.find(n);
  if (it == impl_->algos.end()) return 0;
  const auto& w = it->second.ws;
  return std::max(w[0], std::max(w[1], w[2]));
}

std::string ConvLayer::describe(std::int64_t n) const {
  auto it = impl_->algos.find(n);
  if (it == impl_->algos.end()) return impl_->name + ": no algorithms chosen for batch " + std::to_string(n);
  const auto& a = it->second;
  auto math = [](cudnnMathType_t t) { return t == CUDNN_FMA_MATH ? "fma" : (t == CUDNN_DEFAULT_MATH ? "default" : "tensor-op"); };
  return impl_->name + " batch " + std::to_string(n) + ": fwd algo " + std::to_string(a.fwd) + " (" + math(a.math[0]) +
         ", " + std::to_string(a.ws[0]) + " B), bwd-data algo " + std::to_string(a.bwd_data) + " (" +
         math(a.math[1]) + ", " + std::to_string(a.ws[1]) + " B), bwd-filter algo " + std::to_string(a.bwd_filter) +
         " (" + math(a.math[2]) + ", " + std::to_string(a.ws[2]) + " B)";
}

// ---- pooling ----------------------------------------------------------------------------------------
struct PoolLayer::Impl {
  cudnnPoolingDescriptor_t desc = nullptr;
  DescCache x_descs, y_descs;
  Impl(PoolMode mode, const PoolShape& s, bool deterministic, cudnnDataType_t t)
      : x_descs(s.c, s.h, s.w, t), y_descs(s.c, s.h_out, s.w_out, t) {
    cudnnPoolingMode_t m = mode == PoolMode::average
                               ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                               : (deterministic ? CUDNN_POOLING_MAX_DETERMINISTIC : CUDNN_POOLING_MAX);
    TS_CUDNN_CHECK(cudnnCreatePoolingDescriptor(&desc));
    TS_CUDNN_CHECK(cudnnSetPooling2dDescriptor(desc, m, CUDNN_PROPAGATE_NAN, i32(s.kh), i32(s.kw), i32(s.ph),
                                               i32(s.pw), i32(s.sh), i32(s.sw)));
  }
  ~Impl() { cudnnDestroyPoolingDescriptor(desc); }
};

PoolLayer::PoolLayer(PoolMode mode, const PoolShape& s, bool deterministic, kernels::ElemType dtype)
    : impl_(std::make_unique<Impl>(mode, s, deterministic, cudnn_type(dtype))) {}
PoolLayer::~PoolLayer() = default;

void PoolLayer::forward(const CudnnHandle& h, std::int64_t n, const void* x, void* y) {
  TS_CUDNN_CHECK(cudnnPoolingForward(H(h), impl_->desc, &kOne, impl_->x_descs.get(n), x, &kZero,
                                     impl_->y_descs.get(n), y));
}

void PoolLayer::backward(const CudnnHandle& h, std::int64_t n, const void* y, const void* dy, const void* x,
                         void* dx) {
  auto yd = impl_->y_descs.get(n), xd = impl_->x_descs.get(n);
  TS_CUDNN_CHECK(cudnnPoolingBackward(H(h), impl_->desc, &kOne, yd, y, yd, dy, xd, x, &kZero, xd, dx));
}

// ---- batch normalisation ---------------------------------------------------------------------------
struct BatchNormLayer::Impl {
  DescCache x_descs;
  TensorDesc param;  // [1, c, 1, 1]
  double eps, momentum;
  Impl(std::int64_t c, std::int64_t h, std::int64_t w, double e, double m, cudnnDataType_t t)
      : x_descs(c, h, w, t), param(1, c, 1, 1), eps(e < CUDNN_BN_MIN_EPSILON ? CUDNN_BN_MIN_EPSILON : e), momentum(m) {}
};

BatchNormLayer::BatchNormLayer(std::int64_t c, std::int64_t h, std::int64_t w, double eps, double momentum,
                               kernels::ElemType dtype)
    : impl_(std::make_unique<Impl>(c, h, w, eps, momentum, cudnn_type(dtype))) {}
BatchNormLayer::~BatchNormLayer() = default;

void BatchNormLayer::forward_train(const CudnnHandle& h, std::int64_t n, const void* x, void* y, const float* gamma,
                                   const float* beta, float* running_mean, float* running_var, float* save_mean,
                                   float* save_inv_std) {
  auto xd = impl_->x_descs.get(n);
  TS_CUDNN_CHECK(cudnnBatchNormalizationForwardTraining(H(h), CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero, xd, x, xd, y,
                                                        impl_->param.get(), gamma, beta, impl_->momentum,
                                                        running_mean, running_var, impl_->eps, save_mean,
                                                        save_inv_std));
}

void BatchNormLayer::forward_eval(const CudnnHandle& h, std::int64_t n, const void* x, void* y, const float* gamma,
                                  const float* beta, const float* running_mean, const float* running_var) {
  auto xd = impl_->x_descs.get(n);
  TS_CUDNN_CHECK(cudnnBatchNormalizationForwardInference(H(h), CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero, xd, x, xd, y,
                                                         impl_->param.get(), gamma, beta, running_mean, running_var,
                                                         impl_->eps));
}

void BatchNormLayer::backward(const CudnnHandle& h, std::int64_t n, const void* x, const void* dy, void* dx,
                              const float* gamma, float* dgamma, float* dbeta, const float* save_mean,
                              const float* save_inv_std) {
  auto xd = impl_->x_descs.get(n);
  TS_CUDNN_CHECK(cudnnBatchNormalizationBackward(H(h), CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero, &kOne, &kZero, xd, x,
                                                 xd, dy, xd, dx, impl_->param.get(), gamma, dgamma, dbeta,
                                                 impl_->eps, save_mean, save_inv_std));
}

}  // namespace ts::cuda
