// Host trace hooks: the engine's only tie to the profiler, and a tiny one. The trainer, the data
// loader and the backends open RAII ranges (step, data wait, H2D copy, forward/backward per layer,
// loss, optimizer, sync, eval, loader batch); a profiler installs a Sink to receive them. Qt-free and
// profiling-independent (profiling/ implements Sink; engine/ never includes profiling/).
//
// Cost. With no sink and NVTX off, a range is one relaxed atomic load (and a branch) at each end.
// With a sink, a range reads the steady clock twice and calls Sink::on_range once at its end on the
// calling thread; the sink must be cheap there (profiling's buffers are thread-local, lock-free and
// preallocated). With NVTX on (built with the CUDA backend), ranges are also pushed/popped as NVTX
// ranges so Nsight Systems shows TrainScope's steps and layers (category = RangeKind).
//
// Times are steady_clock nanoseconds (trace::now_ns); the profiler maps them to session time.
#pragma once
#include <atomic>
#include <cstdint>

namespace ts::trace {

enum class RangeKind : std::uint8_t {
  step, data_wait, h2d_copy, forward, backward, loss, optimizer, sync, eval, loader_batch, other, count
};
/// "step", "data_wait", "h2d_copy", "forward", "backward", "loss", "optimizer", "sync", "eval",
/// "loader_batch", "other". Inline: the session writer (profiling's engine-free core, which the
/// injection library links) names the kinds without linking the engine.
inline const char* range_kind_name(RangeKind k) {
  constexpr const char* kNames[] = {"step", "data_wait", "h2d_copy", "forward", "backward", "loss",
                                    "optimizer", "sync", "eval", "loader_batch", "other"};
  const auto i = static_cast<unsigned>(k);
  return i < sizeof kNames / sizeof kNames[0] ? kNames[i] : "other";
}

/// One finished range. `name` is a static string; `layer` (may be null) points to a string that lives
/// at least as long as the network that made it (sinks copy or intern it during on_range).
struct RangeEvent {
  std::int64_t start_ns = 0, end_ns = 0;  // steady_clock ns
  RangeKind kind = RangeKind::other;
  const char* name = "";
  const char* layer = nullptr;
  std::int64_t step = -1;                 // global step (1-based) the range belongs to, -1 unknown
};

/// One finished training step, reported by the trainer after train_step returned (the GPU may still
/// be running it). Times in steady_clock ns.
struct StepEvent {
  int epoch = 0;                  // 1-based
  std::int64_t step = 0;          // 1-based within the epoch
  std::int64_t global_step = 0;   // 1-based over the run
  std::int64_t start_ns = 0, end_ns = 0;
  std::int64_t images = 0;
  std::int64_t data_wait_ns = 0;  // time blocked in the loader's next() for this step
};

class Sink {
 public:
  virtual ~Sink() = default;
  /// Called on the thread that ran the range, at its end. Must not block.
  virtual void on_range(const RangeEvent& e) = 0;
  virtual void on_step(const StepEvent& e) = 0;
  /// Losses of global steps first_global_step, first_global_step+1, ... (read back from the device).
  virtual void on_losses(std::int64_t first_global_step, const float* losses, std::int64_t count) = 0;
  /// fp16 AMP: the loss scale of global steps first_global_step.. (negated: that step's optimizer
  /// update was skipped for inf/NaN gradients; 0: a micro-batch without an update). Default: ignored.
  virtual void on_loss_scales(std::int64_t /*first_global_step*/, const float* /*scales*/, std::int64_t /*count*/) {}
  /// The engine is about to time candidates against each other (cuDNN's algorithm search; begin =
  /// true) or has finished (false), on the timing thread, with the device idle. A profiler that
  /// adds to each kernel's or launch's time pauses meanwhile: otherwise the timings choose for the
  /// profiled run, not for the run (measured: profiled runs picked algorithms ~20 % slower on the GPU).
  virtual void on_measuring(bool /*begin*/) {}
};

namespace detail {
extern std::atomic<Sink*> g_sink;
extern std::atomic<bool> g_nvtx;
extern std::atomic<unsigned> g_graph_instrumentation;
}  // namespace detail

/// How a tracer instruments CUDA-graph launches: per kernel (or not at all) or as whole replays
/// (CUPTI's GRAPH_TRACE). CUPTI sets an executable graph up for one or the other when it is
/// instantiated; one instantiated under per-kernel tracing and launched under GRAPH_TRACE crashed inside
/// CUPTI's launch callback (SIGSEGV in cuGraphLaunch on an H100, CUDA 13.0, driver 580). An engine that
/// keeps instantiated graphs launches one instantiated under the current tracing (graph_tracing()).
enum class GraphTracing : unsigned { per_kernel = 0, whole_graph = 1 };
inline GraphTracing graph_tracing() {
  return static_cast<GraphTracing>(detail::g_graph_instrumentation.load(std::memory_order_acquire) & 1u);
}
/// How many times the tracing changed (set_graph_tracing with a different value) since the process began.
inline unsigned graph_tracing_changes() {
  return detail::g_graph_instrumentation.load(std::memory_order_acquire) >> 1;
}
/// Called by the tracer, on the thread that launches graphs and with none in flight, when it changes
/// how graph launches are instrumented; a call with the current value changes nothing.
void set_graph_tracing(GraphTracing tracing);

/// Installs (or, with nullptr, removes) the sink. The caller keeps it alive until it is removed and
/// every range opened while it was installed has closed (the profiler stops after training).
void set_sink(Sink* sink);
inline Sink* sink() { return detail::g_sink.load(std::memory_order_relaxed); }
/// NVTX push/pop of every range (no-op when built without the CUDA backend).
void set_nvtx_enabled(bool on);
inline bool enabled() {
  return detail::g_sink.load(std::memory_order_relaxed) != nullptr || detail::g_nvtx.load(std::memory_order_relaxed);
}

/// steady_clock now, ns.
std::int64_t now_ns();
/// Linux thread id (gettid) of the calling thread, cached.
std::uint32_t thread_id();
/// Names the calling thread ("trainer", "loader-0"): kept thread-locally for sinks (at most 31 chars),
/// given to the OS (pthread_setname_np, shown by debuggers and Nsight) and to NVTX.
void name_this_thread(const char* name);
/// The calling thread's name from name_this_thread, or "" when never named.
const char* this_thread_name();
/// The global step that ranges opened on this thread default to (the trainer sets it per step).
void set_current_step(std::int64_t global_step);

/// RAII range: [construction, destruction). `name` must be a static string.
class ScopedRange {
 public:
  explicit ScopedRange(RangeKind kind, const char* name, const char* layer = nullptr, std::int64_t step = -2) {
    if (!enabled()) return;
    begin(kind, name, layer, step);
  }
  ~ScopedRange() {
    if (active_) end();
  }
  /// Ends the range now (the destructor then does nothing).
  void close() {
    if (active_) end();
    active_ = false;
  }
  /// Drops the range without reporting it (NVTX is still popped).
  void cancel();
  ScopedRange(const ScopedRange&) = delete;
  ScopedRange& operator=(const ScopedRange&) = delete;

 private:
  void begin(RangeKind kind, const char* name, const char* layer, std::int64_t step);
  void end();
  RangeEvent e_;
  bool active_ = false, nvtx_ = false;
};

/// RAII: tells the sink that the engine times candidates from construction to destruction.
class MeasuringScope {
 public:
  MeasuringScope() : sink_(sink()) {
    if (sink_) sink_->on_measuring(true);
  }
  ~MeasuringScope() {
    if (sink_) sink_->on_measuring(false);
  }
  MeasuringScope(const MeasuringScope&) = delete;
  MeasuringScope& operator=(const MeasuringScope&) = delete;

 private:
  Sink* sink_;
};

/// Reports a finished step / read-back losses to the sink, if any.
inline void step_done(const StepEvent& e) {
  if (Sink* s = sink()) s->on_step(e);
}
inline void losses_read(std::int64_t first_global_step, const float* losses, std::int64_t count) {
  if (Sink* s = sink(); s && count > 0) s->on_losses(first_global_step, losses, count);
}
inline void loss_scales_read(std::int64_t first_global_step, const float* scales, std::int64_t count) {
  if (Sink* s = sink(); s && count > 0) s->on_loss_scales(first_global_step, scales, count);
}

}  // namespace ts::trace
