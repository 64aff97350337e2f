// The CUPTI side of the injection library: activity buffers (1 MiB by default, malloc'd, handed back by CUPTI
// on its own thread and queued for the recorder's writer thread, so nothing is parsed on the
// program's threads), the mode's activity kinds, the resource callback that says which device a
// context is on, the CUDA-graph nodes' capture-time launches (GRAPH_NODES: the tracker the live
// collector uses, profiling/cupti/graph_nodes.h), and the one-subscriber rule said plainly.
#include <cupti.h>
#include <dlfcn.h>
#include <link.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "profiling/clock.h"
#include "profiling/cupti/graph_node_callbacks.h"
#include "profiling/cupti/zeroed_pool.h"
#include "profiling/inject/cupti_api.h"
#include "profiling/inject/inject_internal.h"
#include "profiling/metrics/pm_api.h"
#include "profiling/metrics/pm_sampler.h"

namespace ts::prof::inject {
namespace {

// ~3.5k kernel records: a busy program fills one in well under a flush period; CUPTI returns a buffer
// only when every record in it is complete (cuptiActivityFlushAll with flag 0), so a larger buffer
// means a later timeline in the window (its effect on the cost is not measured yet:
// scripts/inject_cost.py, configuration lean-buf4m).
// Activity buffers come zeroed (CUPTI is told so: ZEROED_OUT_ACTIVITY_BUFFER; zeroed_pool.h), so CUPTI
// does not clear one on the program's thread, mid-step, each time a buffer fills. A parsed buffer has
// its filled bytes cleared on the recorder's thread and goes back to the pool (8 kept at most).
ZeroedBufferPool g_pool(1u << 20, 8);

CuptiApi g_api;
CUpti_SubscriberHandle g_subscriber = nullptr;
std::atomic<bool> g_active{false};
std::atomic<int> g_device{-1};
bool g_device_written = false;  // writer thread only
std::vector<CUpti_ActivityKind> g_enabled;
std::unique_ptr<PmSampler> g_pm;  // PM sampling, started by the writer thread once the device is known
bool g_runtime_sync = false;  // RUNTIME_SYNC: runtime records of a few calls (start_cupti)
bool g_sync_calls = false;    // SYNC_CALLS: callbacks on the blocking calls (start_cupti)
bool g_runtime_launch = false;  // RUNTIME_LAUNCH: runtime records of the launch calls (start_cupti)
bool g_graph_nodes_on = false;  // GRAPH_NODES: the graph-node callbacks are enabled (start_cupti)
GraphNodeTracker g_graph_nodes;  // drained into the store on the writer thread (cupti_before_flush)
std::int64_t g_unmapped_said = 0;  // meta graph_nodes.unmapped as last written (writer thread)
/// SYNC_CALLS's calls: the runtime calls that block the host until the GPU is done (the wait
/// behind loss.item(): cudaMemcpyAsync then cudaStreamSynchronize), through CUPTI's callback API
/// for these ids alone (cuptiEnableCallback), timed by the library (enter/exit), not CUPTI records.
constexpr CUpti_CallbackId kSyncCalls[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,           CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020};
/// RUNTIME_SYNC's calls: the ones that block the host (copies, stream/event/device syncs: the wait
/// behind loss.item()) and the allocations, each with its thread, start and end; every other runtime
/// call (launches above all) stays unrecorded (cuptiActivityEnableRuntimeApi, cupti_activity.h).
constexpr CUpti_CallbackId kRuntimeSyncCalls[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,          CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000,     CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,          CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020,      CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020,       CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020};
/// RUNTIME_LAUNCH's calls: the kernel and graph launches alone, as runtime records with their thread,
/// start, end and correlation id (what launch_bound reads in full mode), to measure whether records
/// of the launches alone are cheap enough for lean mode (docs/profile-a-program.md, "What it costs").
constexpr CUpti_CallbackId kRuntimeLaunchCalls[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,     CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,     CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000};

CUpti_ActivityKind kind_of(const std::string& n) {
  if (n == "CONCURRENT_KERNEL") return CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  if (n == "MEMCPY") return CUPTI_ACTIVITY_KIND_MEMCPY;
  if (n == "MEMSET") return CUPTI_ACTIVITY_KIND_MEMSET;
  if (n == "SYNCHRONIZATION") return CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  if (n == "MEMORY2") return CUPTI_ACTIVITY_KIND_MEMORY2;
  if (n == "OVERHEAD") return CUPTI_ACTIVITY_KIND_OVERHEAD;
  if (n == "RUNTIME") return CUPTI_ACTIVITY_KIND_RUNTIME;
  if (n == "DRIVER") return CUPTI_ACTIVITY_KIND_DRIVER;
  return CUPTI_ACTIVITY_KIND_INVALID;
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *max_records = 0;
  *size = g_pool.bytes();
  *buffer = g_pool.take();  // null: CUPTI drops and counts
}

/// The recorder's release: the pool's size is the one every buffer was handed out with (set once,
/// before the callbacks are registered).
void release_buffer(std::uint8_t* buffer, std::size_t valid) { g_pool.give_back(buffer, g_pool.bytes(), valid); }

CUptiResult next_record(std::uint8_t* b, std::size_t n, CUpti_Activity** r) { return g_api.next_record(b, n, r); }

void CUPTIAPI buffer_completed(CUcontext ctx, std::uint32_t stream, std::uint8_t* buffer, std::size_t,
                               std::size_t valid) {
  Recorder* rec = recorder();
  if (!rec) {
    std::free(buffer);
    return;
  }
  std::size_t dropped = 0;
  if (g_api.dropped_records(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
    rec->store().dropped_cupti.fetch_add(static_cast<std::int64_t>(dropped));
  if (rec->config().discard_buffers) {  // measuring CUPTI's own cost: nothing of ours runs on the records
    release_buffer(buffer, valid);
    return;
  }
  rec->buffer_completed(buffer, valid, &next_record);
}

/// A CUPTI callback name without its version suffix: "cudaLaunchKernel_v7000" -> "cudaLaunchKernel".
std::string without_version(const char* name) {
  const char* v = std::strstr(name, "_v");
  return v ? std::string(name, static_cast<std::size_t>(v - name)) : std::string(name);
}

std::int64_t steady_now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// SYNC_CALLS: one of kSyncCalls on a program thread. Enter keeps the start in CUPTI's per-call
/// slot; exit hands the finished call to the recorder's range queue (the calling thread's own
/// buffer, as NVTX events go), nothing more. The name is CUPTI's without its version suffix.
void on_sync_call(CUpti_CallbackId cbid, const CUpti_CallbackData* d) {
  if (d->callbackSite == CUPTI_API_ENTER) {
    *d->correlationData = static_cast<std::uint64_t>(steady_now());
    return;
  }
  Recorder* rec = recorder();
  if (!rec) return;
  thread_local const auto tid = static_cast<std::uint32_t>(syscall(SYS_gettid));
  RangeEvent e;
  e.type = RangeEvent::Type::call, e.tid = tid;
  e.host_ns = static_cast<std::int64_t>(*d->correlationData), e.end_ns = steady_now();
  e.name = d->functionName ? without_version(d->functionName) : "runtime cbid " + std::to_string(cbid);
  rec->ranges().append(std::move(e));
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (graph_node_api_callback(domain, cbid, data)) return;  // GRAPH_NODES' launches (none of kSyncCalls)
  if (graph_node_resource_callback(g_graph_nodes, domain, cbid, data, g_api.graph_node_id)) return;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) return on_sync_call(cbid, static_cast<const CUpti_CallbackData*>(data));
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || cbid != CUPTI_CBID_RESOURCE_CONTEXT_CREATED) return;
  const auto* r = static_cast<const CUpti_ResourceData*>(data);
  std::uint32_t dev = 0;
  if (g_device.load() < 0 && g_api.device_id(r->context, &dev) == CUPTI_SUCCESS) g_device.store(static_cast<int>(dev));
}

/// Which tool holds CUPTI, from the libraries loaded in the process.
std::string cupti_holder() {
  std::string who;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* p) -> int {
        auto& w = *static_cast<std::string*>(p);
        const char* n = info->dlpi_name ? info->dlpi_name : "";
        if (std::strstr(n, "ToolsInjection")) w = "Nsight Systems (nsys)";
        else if (std::strstr(n, "InterceptorInjection") || std::strstr(n, "nsight-compute")) w = "Nsight Compute (ncu)";
        else if (std::strstr(n, "sanitizer")) w = "compute-sanitizer";
        return w.empty() ? 0 : 1;
      },
      &who);
  return who.empty() ? "another CUPTI client (torch.profiler/Kineto, Nsight, compute-sanitizer or a second injection)"
                     : who;
}

std::string api_name(std::uint32_t cbid) {
  const char* name = nullptr;
  if (g_api.callback_name(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name) == CUPTI_SUCCESS && name) return without_version(name);
  return "runtime cbid " + std::to_string(cbid);
}

std::int64_t cupti_now() {
  std::uint64_t t = 0;
  g_api.timestamp(&t);
  return static_cast<std::int64_t>(t);
}

}  // namespace

void start_cupti(Recorder& rec) {
  EventStore& s = rec.store();
  const InjectConfig& c = rec.config();
  if (c.kinds.empty()) {
    s.set_meta("gpu_activity", "not collected (--inject-mode nvtx: NVTX ranges only; CUPTI left to other tools)");
    return;
  }
  const char* explicit_path = std::getenv("TRAINSCOPE_CUPTI");
  g_api = load_cupti(explicit_path ? explicit_path : "");
  if (!g_api.loaded) {
    s.set_meta("gpu_activity", "none: " + g_api.why);
    say("GPU activity is not recorded: " + g_api.why + "; NVTX ranges still are");
    return;
  }
  s.set_meta("cupti.path", g_api.path);
  g_pool.set_bytes(c.buffer_bytes);
  CUptiResult r = g_api.subscribe(&g_subscriber, &on_callback, nullptr);
  if (r != CUPTI_SUCCESS) {
    const std::string who = r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                                ? "CUPTI allows one subscriber per process and " + cupti_holder() + " holds it"
                                : "CUPTI refused (" + g_api.error(r) + ")";
    s.set_meta("gpu_activity", "none: " + who + " (CUPTI_ERROR_" +
                                   (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? "MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"
                                                                                        : std::to_string(r)) + ")");
    say("GPU activity is not recorded: " + who + "; NVTX ranges and steps still are");
    return;
  }
  g_api.enable_callback(1, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
  // Runtime records carry the Linux tid, the id NVTX ranges use (CUPTI's default is a pthread id).
  g_api.set_thread_id_type(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  const ClockOffset o = measure_offset(steady_now, cupti_now);
  rec.set_gpu(o.offset_ns, &api_name);
  s.set_meta("clock.gpu_offset_error_ns", std::to_string(o.error_ns));
  if (g_api.set_attribute) {
    std::uint8_t zeroed = 1;
    std::size_t zeroed_size = sizeof(zeroed);
    if (g_api.set_attribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &zeroed_size, &zeroed) == CUPTI_SUCCESS) {
      rec.set_release(&release_buffer);
      g_pool.fill(2);
    }
  }
  r = g_api.register_callbacks(buffer_requested, buffer_completed);
  std::string refused;
  for (const std::string& k : c.kinds) {
    if (r != CUPTI_SUCCESS) break;
    CUptiResult e = CUPTI_SUCCESS;
    if (k == "RUNTIME_SYNC") {
      if (!g_api.enable_runtime_api) e = CUPTI_ERROR_NOT_SUPPORTED;
      for (CUpti_CallbackId cb : kRuntimeSyncCalls)
        if (e == CUPTI_SUCCESS) e = g_api.enable_runtime_api(cb, 1);
      g_runtime_sync = e == CUPTI_SUCCESS;
    } else if (k == "RUNTIME_LAUNCH") {
      if (!g_api.enable_runtime_api) e = CUPTI_ERROR_NOT_SUPPORTED;
      for (CUpti_CallbackId cb : kRuntimeLaunchCalls)
        if (e == CUPTI_SUCCESS) e = g_api.enable_runtime_api(cb, 1);
      g_runtime_launch = e == CUPTI_SUCCESS;
    } else if (k == "GRAPH_NODES") {
      e = g_api.graph_node_id ? enable_graph_node_callbacks(1, g_subscriber, g_api.enable_callback)
                              : CUPTI_ERROR_NOT_SUPPORTED;
      g_graph_nodes_on = e == CUPTI_SUCCESS;
      if (!g_graph_nodes_on) enable_graph_node_callbacks(0, g_subscriber, g_api.enable_callback);
    } else if (k == "SYNC_CALLS") {
      for (CUpti_CallbackId cb : kSyncCalls)
        if (e == CUPTI_SUCCESS) e = g_api.enable_callback(1, g_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cb);
      g_sync_calls = e == CUPTI_SUCCESS;
    } else if ((e = g_api.activity_enable(kind_of(k))) == CUPTI_SUCCESS) {
      g_enabled.push_back(kind_of(k));
    }
    if (e != CUPTI_SUCCESS) refused += (refused.empty() ? "" : ", ") + k + " (" + g_api.error(e) + ")";
  }
  // Syncs come with their thread from what was enabled, not from what was asked for (a refused
  // SYNC_CALLS leaves the SYNCHRONIZATION records to be made sync ranges of the step thread).
  rec.set_syncs_have_threads(g_runtime_sync || g_sync_calls ||
                             std::count(g_enabled.begin(), g_enabled.end(), CUPTI_ACTIVITY_KIND_RUNTIME) > 0);
  if (r != CUPTI_SUCCESS || (g_enabled.empty() && !g_runtime_sync && !g_sync_calls && !g_runtime_launch)) {
    if (g_graph_nodes_on) enable_graph_node_callbacks(0, g_subscriber, g_api.enable_callback);
    g_graph_nodes_on = false;
    const std::string why = r != CUPTI_SUCCESS ? g_api.error(r) : refused;
    s.set_meta("gpu_activity", "none: CUPTI refused the activity kinds: " + why);
    say("GPU activity is not recorded: CUPTI refused (" + why + ")");
    return;
  }
  if (!refused.empty()) s.set_meta("inject.kinds_refused", refused);
  if (g_graph_nodes_on) s.set_meta("graph_nodes", "followed (CUPTI callbacks on launches and graph node creation)");
  s.set_meta("gpu_activity", "collected (CUPTI)");
  g_active.store(true);
}

/// PM sampling of the program's device through the libcupti in use (pm_api.h), once its first
/// context exists; the copy ceiling is not measured in a program (its memory is not ours to take).
void start_pm(Recorder& rec, int device) {
  EventStore& s = rec.store();
  if (!rec.config().pm) {
    s.set_meta("pm_sampling", std::string("no measured metrics: off in ") + mode_name(rec.config().mode) +
                                  " mode (trainscope-run --inject-pm on)");
    return;
  }
  s.set_meta("pm_sampling.copy_ceiling", "not measured: a recorded program's device memory is not TrainScope's to use");
  void* lib = dlopen(g_api.path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  PmSamplerOptions o;
  o.cuda_device = device;
  o.api = std::make_shared<const pm::PmApi>(pm::load_api(lib));
  g_pm = std::make_unique<PmSampler>(s, rec.start_host_ns(), o);
  if (!g_pm->active()) say("measured metrics are not recorded: " + g_pm->why());
}

/// The graph nodes mapped since the last drain into the store (the writer thread, or the thread that
/// finishes after joining it), before the buffers of this flush are parsed: a node precedes its kernels.
void drain_graph_nodes(Recorder& rec) {
  if (!g_graph_nodes_on) return;
  g_graph_nodes.drain(rec.store());
  if (const std::int64_t unmapped = g_graph_nodes.unmapped_clones(); unmapped != g_unmapped_said)
    rec.store().set_meta("graph_nodes.unmapped", std::to_string(g_unmapped_said = unmapped));
}

void cupti_before_flush(Recorder& rec) {
  if (!g_active.load()) return;
  drain_graph_nodes(rec);
  g_api.flush_all(0);  // completed buffers come back through buffer_completed, on this thread
  if (!g_device_written && g_device.load() >= 0) {
    rec.set_device(g_device.load());
    const auto meta = device_meta(g_device.load());
    for (const auto& [k, v] : meta) rec.store().set_meta(k, v);
    g_device_written = !meta.empty();
    if (!g_pm) start_pm(rec, g_device.load());
  }
}

void stop_cupti() {
  if (!g_active.exchange(false)) {
    if (g_pm) g_pm->stop();
    return;
  }
  g_api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  for (CUpti_ActivityKind k : g_enabled) g_api.activity_disable(k);
  if (g_runtime_sync)
    for (CUpti_CallbackId cb : kRuntimeSyncCalls) g_api.enable_runtime_api(cb, 0);
  if (g_runtime_launch)
    for (CUpti_CallbackId cb : kRuntimeLaunchCalls) g_api.enable_runtime_api(cb, 0);
  if (g_sync_calls)
    for (CUpti_CallbackId cb : kSyncCalls) g_api.enable_callback(0, g_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cb);
  if (g_graph_nodes_on) enable_graph_node_callbacks(0, g_subscriber, g_api.enable_callback);
  if (Recorder* rec = recorder()) drain_graph_nodes(*rec);  // before the last flush parses the last buffers
  g_graph_nodes_on = false;
  g_api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  // PM sampling last (its samples and meta still go into the last flush): disabling it may finalize CUPTI.
  if (g_pm) g_pm->stop();
}

}  // namespace ts::prof::inject
