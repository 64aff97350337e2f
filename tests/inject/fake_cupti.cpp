// A stand-in for libcupti.so.13 (loaded through TRAINSCOPE_CUPTI) so the injection library's CUPTI
// glue runs without a GPU: FAKE_CUPTI=busy refuses the subscription as CUPTI does when another
// tool holds it; otherwise every cuptiActivityFlushAll hands back one buffer holding a kernel record
// per 10 ms since the previous flush (CUpti_ActivityKernel10, packed; its own next-record walk).
// fake_cupti_stream_synchronize(ms) plays a cudaStreamSynchronize of `ms` ms: the subscriber's
// runtime-API callback (enter, exit) when that id was enabled with cuptiEnableCallback.
#include <cupti.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#define FAKE extern "C" __attribute__((visibility("default")))

namespace {
CUpti_BuffersCallbackRequestFunc g_request = nullptr;
CUpti_BuffersCallbackCompleteFunc g_complete = nullptr;
std::mutex g_mutex;
std::uint64_t g_last = 0;
std::uint32_t g_corr = 1;
bool g_kernels = false;
CUpti_CallbackFunc g_callback = nullptr;
void* g_userdata = nullptr;
bool g_sync_enabled = false;

std::uint64_t now() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}
}  // namespace

FAKE CUptiResult cuptiSubscribe(CUpti_SubscriberHandle* h, CUpti_CallbackFunc f, void* userdata) {
  g_callback = f, g_userdata = userdata;
  const char* mode = std::getenv("FAKE_CUPTI");
  if (mode && std::strcmp(mode, "busy") == 0) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  *h = reinterpret_cast<CUpti_SubscriberHandle>(0x1);
  return CUPTI_SUCCESS;
}
FAKE void fake_cupti_stream_synchronize(int ms) {
  CUpti_CallbackData d{};
  std::uint64_t slot = 0;
  d.functionName = "cudaStreamSynchronize_v3020", d.correlationData = &slot;
  const auto cbid = CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020;
  d.callbackSite = CUPTI_API_ENTER;
  if (g_sync_enabled && g_callback) g_callback(g_userdata, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &d);
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  d.callbackSite = CUPTI_API_EXIT;
  if (g_sync_enabled && g_callback) g_callback(g_userdata, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &d);
}
FAKE CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle) { return CUPTI_SUCCESS; }
FAKE CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle, CUpti_CallbackDomain domain,
                                     CUpti_CallbackId cbid) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020)
    g_sync_enabled = enable != 0;
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiActivityEnable(CUpti_ActivityKind k) {
  if (k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) g_kernels = true, g_last = now();
  return k == CUPTI_ACTIVITY_KIND_INVALID ? CUPTI_ERROR_INVALID_KIND : CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiActivityDisable(CUpti_ActivityKind k) {
  if (k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) g_kernels = false;
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc r, CUpti_BuffersCallbackCompleteFunc c) {
  g_request = r, g_complete = c;
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiActivityFlushAll(uint32_t) {
  std::lock_guard lock(g_mutex);
  if (!g_request || !g_complete || !g_kernels) return CUPTI_SUCCESS;
  const std::uint64_t t = now();
  std::size_t n = static_cast<std::size_t>((t - g_last) / 10'000'000);
  if (n == 0) return CUPTI_SUCCESS;
  std::uint8_t* buf = nullptr;
  std::size_t size = 0, max_records = 0;
  g_request(&buf, &size, &max_records);
  if (!buf) return CUPTI_SUCCESS;
  n = std::min(n, size / sizeof(CUpti_ActivityKernel10));
  for (std::size_t i = 0; i < n; ++i) {
    CUpti_ActivityKernel10 k{};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.name = "_Z10fakeKernelv";
    k.start = g_last + i * 10'000'000, k.end = k.start + 2'000'000;
    k.gridX = k.gridY = k.gridZ = 1, k.blockX = 128, k.blockY = k.blockZ = 1;
    k.streamId = 7, k.correlationId = g_corr++;
    std::memcpy(buf + i * sizeof k, &k, sizeof k);
  }
  g_last += n * 10'000'000;
  g_complete(nullptr, 0, buf, size, n * sizeof(CUpti_ActivityKernel10));
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
  std::uint8_t* next = *record ? reinterpret_cast<std::uint8_t*>(*record) + sizeof(CUpti_ActivityKernel10) : buffer;
  if (next + sizeof(CUpti_ActivityKernel10) > buffer + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(next);
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  *dropped = 0;
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiGetTimestamp(uint64_t* t) {
  *t = now();
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiGetResultString(CUptiResult r, const char** s) {
  *s = r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED" : "fake";
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain, uint32_t, const char** name) {
  *name = "cudaLaunchKernel_v7000";
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType) { return CUPTI_SUCCESS; }
FAKE CUptiResult cuptiGetGraphNodeId(CUgraphNode node, uint64_t* id) {
  *id = reinterpret_cast<std::uintptr_t>(node);
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiGetDeviceId(CUcontext, uint32_t* id) {
  *id = 0;
  return CUPTI_SUCCESS;
}
