// Host trace hooks (see host_trace.h): the sink pointer, thread names, NVTX push/pop.
#include "engine/host_trace.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#if defined(TRAINSCOPE_HAVE_CUDA)
#include <nvtx3/nvToolsExt.h>
#define TS_HAVE_NVTX 1
#endif

namespace ts::trace {
namespace detail {
std::atomic<Sink*> g_sink{nullptr};
std::atomic<bool> g_nvtx{false};
std::atomic<unsigned> g_graph_instrumentation{0};
}  // namespace detail

namespace {
thread_local char t_name[32] = "";
thread_local std::uint32_t t_tid = 0;
thread_local std::int64_t t_step = -1;

#if defined(TS_HAVE_NVTX)
void name_nvtx_categories() {
  for (int k = 0; k < static_cast<int>(RangeKind::count); ++k)
    nvtxNameCategoryA(static_cast<std::uint32_t>(k) + 1, range_kind_name(static_cast<RangeKind>(k)));
}
#endif
}  // namespace

void set_sink(Sink* sink) { detail::g_sink.store(sink, std::memory_order_release); }

// g_graph_instrumentation: the number of changes in bits 1.., the current GraphTracing in bit 0.
void set_graph_tracing(GraphTracing tracing) {
  const unsigned want = static_cast<unsigned>(tracing);
  unsigned v = detail::g_graph_instrumentation.load(std::memory_order_acquire);
  while ((v & 1u) != want &&
         !detail::g_graph_instrumentation.compare_exchange_weak(v, (((v >> 1) + 1) << 1) | want, std::memory_order_acq_rel)) {
  }
}

void set_nvtx_enabled(bool on) {
#if defined(TS_HAVE_NVTX)
  if (on) name_nvtx_categories();
  detail::g_nvtx.store(on, std::memory_order_relaxed);
#else
  (void)on;
#endif
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::uint32_t thread_id() {
  if (t_tid == 0) t_tid = static_cast<std::uint32_t>(::syscall(SYS_gettid));
  return t_tid;
}

void name_this_thread(const char* name) {
  std::strncpy(t_name, name, sizeof(t_name) - 1);
  t_name[sizeof(t_name) - 1] = '\0';
  char os_name[16];  // the kernel keeps 15 characters
  std::strncpy(os_name, name, sizeof(os_name) - 1);
  os_name[sizeof(os_name) - 1] = '\0';
  pthread_setname_np(pthread_self(), os_name);
#if defined(TS_HAVE_NVTX)
  nvtxNameOsThreadA(thread_id(), t_name);
#endif
}

const char* this_thread_name() { return t_name; }
void set_current_step(std::int64_t global_step) { t_step = global_step; }

void ScopedRange::begin(RangeKind kind, const char* name, const char* layer, std::int64_t step) {
  e_.kind = kind;
  e_.name = name;
  e_.layer = layer;
  e_.step = step == -2 ? t_step : step;
  active_ = true;
#if defined(TS_HAVE_NVTX)
  if (detail::g_nvtx.load(std::memory_order_relaxed)) {
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.category = static_cast<std::uint32_t>(kind) + 1;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = layer ? layer : name;
    nvtxRangePushEx(&a);
    nvtx_ = true;
  }
#endif
  e_.start_ns = now_ns();
}

void ScopedRange::cancel() {
#if defined(TS_HAVE_NVTX)
  if (active_ && nvtx_) nvtxRangePop();
#endif
  active_ = false;
}

void ScopedRange::end() {
  e_.end_ns = now_ns();
#if defined(TS_HAVE_NVTX)
  if (nvtx_) nvtxRangePop();
#endif
  if (Sink* s = sink()) s->on_range(e_);
}

}  // namespace ts::trace
