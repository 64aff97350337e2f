// CuptiCollector (see cupti_collector.h).
#include "profiling/cupti/cupti_collector.h"
#include "profiling/cupti/zeroed_pool.h"

#include <cuda_runtime_api.h>
#include <cupti.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "base/crash_report.h"
#include "engine/host_trace.h"
#include "engine/network.h"
#include "profiling/background_thread.h"
#include "profiling/cupti/cupti_parse.h"
#include "profiling/cupti/graph_node_callbacks.h"

namespace ts::prof {
namespace {

constexpr std::size_t kBufferBytes = 8u << 20;  // 8 MiB: ~40k kernel records, ~100 ms of a fast run
constexpr int kPoolStart = 3;  // buffers made before the run: CUPTI keeps one per thread that calls CUDA
constexpr auto kFlushPeriod = std::chrono::milliseconds(100);

constexpr auto kClockCheckPeriod = std::chrono::seconds(1);

constexpr CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,          CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_RUNTIME,           CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_MEMORY2,
    CUPTI_ACTIVITY_KIND_OVERHEAD};

/// Runtime calls that only read state — no work queued, no wait, ~20 ns each unprofiled — left
/// unrecorded (cuptiActivityEnableRuntimeApi). cuDNN and cuBLAS make ~60 of them per step (cudaGetLastError
/// alone ~34 at b128), twice the launches: recording them was most of the runtime records' cost
/// (bench/profile_cost.sh) and nothing the analysis reads.
constexpr CUpti_CallbackId kStateQueries[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,        CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetErrorString_v3020,      CUPTI_RUNTIME_TRACE_CBID_cudaGetErrorName_v6050,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,           CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetAttribute_v5000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020,      CUPTI_RUNTIME_TRACE_CBID_cudaDriverGetVersion_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaRuntimeGetVersion_v3020,   CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v2_v11030, CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v12030,
    CUPTI_RUNTIME_TRACE_CBID_cudaPointerGetAttributes_v4000};

std::string cupti_error(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : "CUPTI error " + std::to_string(static_cast<int>(r));
}

std::int64_t cupti_now() {
  std::uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return static_cast<std::int64_t>(t);
}

}  // namespace

struct CuptiCollector::Impl {
  EventStore& store;
  SessionClock clock;
  int rank;
  std::string why;
  bool active = false;
  std::vector<CUpti_ActivityKind> enabled;      // the kinds start() could enable (mode `kinds`)
  std::vector<CUpti_ActivityKind> on;           // the kinds enabled now (set_mode; the trainer's thread)
  std::unique_ptr<CuptiParser> parser;
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<std::pair<std::uint8_t*, std::size_t>> completed;
  bool stopping = false;
  std::thread thread;
  std::int64_t start_offset = 0;

  CuptiKinds kinds;
  CuptiMode mode = CuptiMode::kinds;            // what is enabled now (set_mode; the trainer's thread)
  GraphNodeTracker graph_nodes;                 // CUDA-graph node -> capture-time launch (graph_nodes.h)
  CUpti_SubscriberHandle subscriber = nullptr;  // its callbacks; null when not followed
  std::int64_t unmapped_clones_said = 0;        // meta graph_nodes.unmapped as last written

  Impl(EventStore& s, std::int64_t start, int r, CuptiKinds k) : store(s), clock(start, 0), rank(r), kinds(k) {}
  bool wanted(CUpti_ActivityKind k) const;
  /// Runtime records of kStateQueries off (again after RUNTIME is enabled: enabling the kind resets it).
  bool skip_state_queries();
  void start();
  /// Subscribes to the callbacks of graph_node_callbacks.h; says in meta graph_nodes whether it could.
  void follow_graph_nodes();
  void unfollow_graph_nodes();
  void run();
  void drain();
  void check_clock(bool first);
};

namespace {
const char* mode_note(CuptiMode mode);
std::atomic<CuptiCollector::Impl*> g_impl{nullptr};

/// Activity buffers come zeroed (zeroed_pool.h): CUPTI does not clear 8 MiB on the thread that filled
/// the last one (the trainer's, mid-step); parsed buffers are cleared on the collector's thread.
/// start() fills the pool so the trainer's thread rarely makes one.
ZeroedBufferPool g_pool(kBufferBytes, 0);

/// The subscriber's callback: only the graph-node tracker's callbacks are enabled. Launch ENTER/EXIT
/// touch thread-local state only; a node's creation or cloning (once per capture or instantiation)
/// goes to the running collector's tracker.
void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (graph_node_api_callback(domain, cbid, data)) return;
  if (auto* impl = g_impl.load()) graph_node_resource_callback(impl->graph_nodes, domain, cbid, data, &cuptiGetGraphNodeId);
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *max_records = 0;
  *size = kBufferBytes;
  *buffer = g_pool.take();  // null: CUPTI drops and counts
}

void CUPTIAPI buffer_completed(CUcontext ctx, std::uint32_t stream, std::uint8_t* buffer, std::size_t size,
                               std::size_t valid) {
  auto* impl = g_impl.load();
  if (!impl) {
    std::free(buffer);
    return;
  }
  std::size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
    impl->store.dropped_cupti.fetch_add(static_cast<std::int64_t>(dropped));
  {
    std::lock_guard lock(impl->mutex);
    impl->completed.emplace_back(buffer, valid);
  }
  impl->cv.notify_one();
}
}  // namespace

void CuptiCollector::Impl::check_clock(bool first) {
  const ClockOffset o = measure_offset(trace::now_ns, cupti_now);
  if (first) {
    start_offset = o.offset_ns;
    clock.set_gpu_offset(o.offset_ns);
    store.set_meta("clock.gpu_offset_ns", std::to_string(o.offset_ns));
    store.set_meta("clock.gpu_offset_error_ns", std::to_string(o.error_ns));
  }
  const std::int64_t drift = o.offset_ns - start_offset;
  store.append(store.clock, ClockRecord{clock.from_host(o.host_ns), o.offset_ns, drift});
  if (!first) store.set_meta("clock.last_drift_ns", std::to_string(drift));
}

bool CuptiCollector::Impl::wanted(CUpti_ActivityKind k) const {
  switch (k) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return kinds.kernels;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
    case CUPTI_ACTIVITY_KIND_MEMSET: return kinds.copies;
    case CUPTI_ACTIVITY_KIND_RUNTIME: return kinds.runtime;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return kinds.syncs;
    case CUPTI_ACTIVITY_KIND_MEMORY2: return kinds.memory;
    default: return true;
  }
}

bool CuptiCollector::Impl::skip_state_queries() {
  if (std::find(enabled.begin(), enabled.end(), CUPTI_ACTIVITY_KIND_RUNTIME) == enabled.end()) return false;
  bool all = true;
  for (CUpti_CallbackId cb : kStateQueries) all = cuptiActivityEnableRuntimeApi(cb, 0) == CUPTI_SUCCESS && all;
  return all;
}

void CuptiCollector::Impl::start() {
  std::string no_gpu;
  if (!cuda_available(&no_gpu)) {
    why = "no GPU activity: " + no_gpu;
    return;
  }
  check_clock(true);
  parser = std::make_unique<CuptiParser>(store, clock, rank, [](std::uint32_t cbid) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name) == CUPTI_SUCCESS && name) {
      std::string s(name);
      const auto v = s.find("_v");  // "cudaLaunchKernel_v7000" -> "cudaLaunchKernel"
      return v == std::string::npos ? s : s.substr(0, v);
    }
    return "runtime cbid " + std::to_string(cbid);
  });
  Impl* expected = nullptr;
  if (!g_impl.compare_exchange_strong(expected, this)) {
    why = "no GPU activity: another TrainScope profiler is already collecting in this process";
    return;
  }
  // Runtime records carry the Linux tid (gettid), the id the host ranges and /proc use; CUPTI's
  // default is a pthread id that matches nothing else in the session.
  cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  std::uint8_t zeroed = 1;
  std::size_t zeroed_size = sizeof(zeroed);
  cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &zeroed_size, &zeroed);
  g_pool.fill(kPoolStart);
  CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  for (CUpti_ActivityKind k : kKinds) {
    if (r != CUPTI_SUCCESS) break;
    if (!wanted(k)) continue;
    r = cuptiActivityEnable(k);
    if (r == CUPTI_SUCCESS) enabled.push_back(k);
  }
  if (r != CUPTI_SUCCESS) {
    why = "no GPU activity: CUPTI refused (" + cupti_error(r) + ")" +
          (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ? "; run with GPU profiling permission (NVreg_RestrictProfilingToAdminUsers=0)"
           : r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? "; another profiler (e.g. Nsight) is attached"
                                                                 : "");
    for (CUpti_ActivityKind k : enabled) cuptiActivityDisable(k);
    enabled.clear();
    g_impl.store(nullptr);
    g_pool.clear();
    return;
  }
  on = enabled;
  if (skip_state_queries())
    store.set_meta("runtime_calls.unrecorded", "state queries (cudaGetLastError, cudaGetDevice, ...)");
  if (kinds.kernels && kinds.graph_nodes) follow_graph_nodes();
  active = true;
  set_crash_note(mode_note(CuptiMode::kinds));
  thread = std::thread([this] { run(); });
}

void CuptiCollector::Impl::follow_graph_nodes() {
  CUptiResult r = cuptiSubscribe(&subscriber, &on_callback, nullptr);
  if (r == CUPTI_SUCCESS) r = enable_graph_node_callbacks(1, subscriber, &cuptiEnableCallback);
  if (r != CUPTI_SUCCESS) {
    unfollow_graph_nodes();
    store.set_meta("graph_nodes", "not followed: CUPTI refused its callbacks (" + cupti_error(r) +
                                      "); kernels replayed from a CUDA graph are attributed to no layer");
    return;
  }
  store.set_meta("graph_nodes", "followed (CUPTI callbacks on launches and graph node creation)");
}

void CuptiCollector::Impl::unfollow_graph_nodes() {
  if (!subscriber) return;
  enable_graph_node_callbacks(0, subscriber, &cuptiEnableCallback);
  cuptiUnsubscribe(subscriber);
  subscriber = nullptr;
}

void CuptiCollector::Impl::drain() {
  // Graph nodes first: a replayed kernel's node is then in the store before the kernel is.
  graph_nodes.drain(store);
  if (const std::int64_t unmapped = graph_nodes.unmapped_clones(); unmapped != unmapped_clones_said) {
    store.set_meta("graph_nodes.unmapped", std::to_string(unmapped));
    unmapped_clones_said = unmapped;
  }
  std::deque<std::pair<std::uint8_t*, std::size_t>> batch;
  {
    std::lock_guard lock(mutex);
    batch.swap(completed);
  }
  for (auto& [buf, valid] : batch) {
    parser->parse_buffer(buf, valid, cuptiActivityGetNextRecord);
    g_pool.give_back(buf, kBufferBytes, valid);
  }
}

void CuptiCollector::Impl::run() {
  trace::name_this_thread("cupti-collector");
  lower_this_thread_priority();
  auto last_flush = std::chrono::steady_clock::now(), last_clock = last_flush;
  for (;;) {
    {
      std::unique_lock lock(mutex);
      cv.wait_for(lock, kFlushPeriod / 2, [&] { return stopping || !completed.empty(); });
      if (stopping) break;
    }
    drain();
    const auto now = std::chrono::steady_clock::now();
    if (now - last_flush >= kFlushPeriod) {
      cuptiActivityFlushAll(0);  // completed buffers arrive through buffer_completed on this thread
      last_flush = now;
    }
    if (now - last_clock >= kClockCheckPeriod) {
      check_clock(false);
      last_clock = now;
    }
  }
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  drain();
  check_clock(false);
}

CuptiCollector::CuptiCollector(EventStore& store, std::int64_t start_host_ns, int rank, CuptiKinds kinds)
    : impl_(std::make_unique<Impl>(store, start_host_ns, rank, kinds)) {
  impl_->start();
}

CuptiCollector::~CuptiCollector() { stop(); }

bool CuptiCollector::active() const { return impl_->active; }
const std::string& CuptiCollector::why() const { return impl_->why; }

void CuptiCollector::drain_device() {
  if (impl_->active) cudaDeviceSynchronize();
}

namespace {

/// The kinds mode `mode` has on, of `enabled` (every kind start() enabled): all of them in `kinds`;
/// GRAPH_TRACE alone in `graph_replays` (the parser keeps no other record outside the kernel windows,
/// EventStore::keep_gpu, and every kind left on costs: on an H100 at b128 fp32 the hybrid ran at 0.967
/// of the unprofiled speed with GRAPH_TRACE alone against 0.944 with copies, runtime calls, syncs and
/// memory records still on; bench/RESULTS.md); none when `off`. GRAPH_TRACE alone once crashed every
/// hybrid run: the step graphs were launched under it after being instantiated under per-kernel
/// tracing (trace::graph_tracing now keeps an executable for each).
std::vector<CUpti_ActivityKind> kinds_of(CuptiMode mode, const std::vector<CUpti_ActivityKind>& enabled) {
  if (mode == CuptiMode::kinds) return enabled;
  if (mode == CuptiMode::graph_replays) return {CUPTI_ACTIVITY_KIND_GRAPH_TRACE};
  return {};
}

bool has(const std::vector<CUpti_ActivityKind>& v, CUpti_ActivityKind k) { return std::find(v.begin(), v.end(), k) != v.end(); }

const char* mode_note(CuptiMode mode) {
  switch (mode) {
    case CuptiMode::kinds: return "CUPTI records every kind (a kernel window, or no schedule)";
    case CuptiMode::graph_replays: return "CUPTI records whole CUDA-graph replays (GRAPH_TRACE) between kernel windows";
    case CuptiMode::off: return "CUPTI records nothing (between windows, or the engine times candidates)";
  }
  return nullptr;
}

}  // namespace

void CuptiCollector::set_mode(CuptiMode mode) {
  Impl& m = *impl_;
  if (!m.active || mode == m.mode) return;
  if (m.mode != CuptiMode::off) {
    // The GPU finishes the work recorded so far, then CUPTI hands over its records of it, before
    // anything is disabled (see the header: made-up end times otherwise).
    set_crash_note("CUPTI mode switch: draining the device (cudaDeviceSynchronize)");
    drain_device();
    set_crash_note("CUPTI mode switch: cuptiActivityFlushAll");
    cuptiActivityFlushAll(0);
  }
  const std::vector<CUpti_ActivityKind> want = kinds_of(mode, m.enabled);
  // Off first, then on: CUPTI refuses GRAPH_TRACE while CONCURRENT_KERNEL is on.
  set_crash_note("CUPTI mode switch: disabling activity kinds");
  for (CUpti_ActivityKind k : m.on)
    if (!has(want, k)) cuptiActivityDisable(k);
  std::vector<CUpti_ActivityKind> now;
  for (CUpti_ActivityKind k : m.on)
    if (has(want, k)) now.push_back(k);
  bool runtime_on = false;
  for (CUpti_ActivityKind k : want) {
    if (has(now, k)) continue;
    set_crash_note(k == CUPTI_ACTIVITY_KIND_GRAPH_TRACE ? "CUPTI mode switch: enabling GRAPH_TRACE"
                                                        : "CUPTI mode switch: enabling activity kinds");
    const CUptiResult r = cuptiActivityEnable(k);
    if (r == CUPTI_SUCCESS) {
      now.push_back(k);
      runtime_on |= k == CUPTI_ACTIVITY_KIND_RUNTIME;
      continue;
    }
    if (k != CUPTI_ACTIVITY_KIND_GRAPH_TRACE) continue;  // as start(): a kind it took once, it takes again
    // No graph replays: nothing at all between the windows, as a schedule without them.
    m.store.set_meta("graph_replays", "not recorded: CUPTI refused GRAPH_TRACE (" + cupti_error(r) +
                                          "); steps between the kernel windows are not traced");
    for (CUpti_ActivityKind o : now) cuptiActivityDisable(o);
    now.clear();
    runtime_on = false;
    mode = CuptiMode::off;
    break;
  }
  if (runtime_on) m.skip_state_queries();  // enabling RUNTIME resets it
  // Graphs instantiated with GRAPH_TRACE off must not be launched with it on, nor the other way
  // (trace::graph_tracing): the engine launches a step graph instantiated under the tracing now on.
  trace::set_graph_tracing(has(now, CUPTI_ACTIVITY_KIND_GRAPH_TRACE) ? trace::GraphTracing::whole_graph
                                                                     : trace::GraphTracing::per_kernel);
  m.on = std::move(now);
  m.mode = mode;
  set_crash_note(mode_note(mode));
}

CuptiMode CuptiCollector::mode() const { return impl_->mode; }

void CuptiCollector::stop() {
  if (!impl_->active) return;
  // Nothing left running on the device when the kinds go off (made-up end times otherwise).
  drain_device();
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->cv.notify_one();
  impl_->thread.join();
  impl_->unfollow_graph_nodes();
  for (CUpti_ActivityKind k : impl_->on) cuptiActivityDisable(k);
  impl_->on.clear();
  impl_->mode = CuptiMode::off;
  trace::set_graph_tracing(trace::GraphTracing::per_kernel);  // graphs launched after this: as unprofiled
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  impl_->drain();
  if (const auto& c = impl_->parser->counts(); c.graph_replays_untimed)
    impl_->store.set_meta("graph_replays.untimed", std::to_string(c.graph_replays_untimed) + " of " +
                                                       std::to_string(c.graph_replays) +
                                                       " graph replays CUPTI could not time (not stored)");
  impl_->active = false;
  g_impl.store(nullptr);
  g_pool.clear();
  set_crash_note(nullptr);
}

bool cupti_built() { return true; }

}  // namespace ts::prof
