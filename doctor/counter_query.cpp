// The counter query (see counter_query.h). CUPTI's entry points are looked up in the library the
// doctor opened (dlsym), so a missing or older CUPTI is a reading, not a failure to start.
#include "doctor/counter_query.h"

#include <dlfcn.h>
#include <fmt/format.h>

#if defined(TRAINSCOPE_HAVE_CUDA)
#include <cuda_runtime_api.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <vector>
#endif

namespace ts::doctor {

Reading<bool> counters_from_query(const CounterQuery& q, const Reading<bool>& from_params,
                                  const std::string& params_detail, std::string* detail) {
  constexpr int kInsufficientPrivileges = 35, kVirtualizedInsufficientPrivileges = 40;  // cupti_result.h
  if (!q.ran) {
    *detail = params_detail + (params_detail.empty() ? "" : "; ") + "no counter query: " + q.why_not_run;
    return from_params;
  }
  if (q.result == 0) {
    *detail = fmt::format("a PM sampling config started on {}", q.chip.empty() ? "the GPU" : q.chip);
    return Reading<bool>::of(true);
  }
  *detail = fmt::format("the counter query failed at {}: {} (code {})", q.step, q.error, q.result);
  if (!params_detail.empty()) *detail += "; driver: " + params_detail;
  if (q.result == kInsufficientPrivileges || q.result == kVirtualizedInsufficientPrivileges)
    return Reading<bool>::of(false);
  return Reading<bool>::unreadable(*detail);
}

#if defined(TRAINSCOPE_HAVE_CUDA)
namespace {

/// A CUPTI parameter struct zeroed, with its structSize set (every other field set by the caller).
template <class P>
P cupti_params(std::size_t size) {
  P p{};
  p.structSize = size;
  return p;
}

template <class F>
F sym(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}

/// The steps of the query, each a CUPTI call; stops at the first failure.
struct Query {
  void* lib;
  CounterQuery q;
  bool ok(const char* step, CUptiResult r) {
    if (r == CUPTI_SUCCESS) return true;
    q.step = step;
    q.result = static_cast<int>(r);
    const char* s = nullptr;
    if (auto text = sym<CUptiResult (*)(CUptiResult, const char**)>(lib, "cuptiGetResultString")) text(r, &s);
    q.error = s ? s : "CUPTI error";
    return false;
  }
};

/// The entry points the query calls, looked up in the opened libcupti.
struct Fns {
#define TS_CUPTI_FN(name) decltype(&name) name##_fn = nullptr
  TS_CUPTI_FN(cuptiProfilerInitialize);
  TS_CUPTI_FN(cuptiDeviceGetChipName);
  TS_CUPTI_FN(cuptiPmSamplingEnable);
  TS_CUPTI_FN(cuptiPmSamplingDisable);
  TS_CUPTI_FN(cuptiPmSamplingGetCounterAvailability);
  TS_CUPTI_FN(cuptiProfilerHostInitialize);
  TS_CUPTI_FN(cuptiProfilerHostDeinitialize);
  TS_CUPTI_FN(cuptiProfilerHostConfigAddMetrics);
  TS_CUPTI_FN(cuptiProfilerHostGetConfigImageSize);
  TS_CUPTI_FN(cuptiProfilerHostGetConfigImage);
  TS_CUPTI_FN(cuptiPmSamplingSetConfig);
  TS_CUPTI_FN(cuptiPmSamplingStart);
  TS_CUPTI_FN(cuptiPmSamplingStop);
#undef TS_CUPTI_FN
  explicit Fns(void* lib) {
#define TS_CUPTI_LOAD(name) name##_fn = sym<decltype(&name)>(lib, #name)
    TS_CUPTI_LOAD(cuptiProfilerInitialize);
    TS_CUPTI_LOAD(cuptiDeviceGetChipName);
    TS_CUPTI_LOAD(cuptiPmSamplingEnable);
    TS_CUPTI_LOAD(cuptiPmSamplingDisable);
    TS_CUPTI_LOAD(cuptiPmSamplingGetCounterAvailability);
    TS_CUPTI_LOAD(cuptiProfilerHostInitialize);
    TS_CUPTI_LOAD(cuptiProfilerHostDeinitialize);
    TS_CUPTI_LOAD(cuptiProfilerHostConfigAddMetrics);
    TS_CUPTI_LOAD(cuptiProfilerHostGetConfigImageSize);
    TS_CUPTI_LOAD(cuptiProfilerHostGetConfigImage);
    TS_CUPTI_LOAD(cuptiPmSamplingSetConfig);
    TS_CUPTI_LOAD(cuptiPmSamplingStart);
    TS_CUPTI_LOAD(cuptiPmSamplingStop);
#undef TS_CUPTI_LOAD
  }
  bool complete() const {
    return cuptiProfilerInitialize_fn && cuptiDeviceGetChipName_fn && cuptiPmSamplingEnable_fn &&
           cuptiPmSamplingDisable_fn && cuptiPmSamplingGetCounterAvailability_fn && cuptiProfilerHostInitialize_fn &&
           cuptiProfilerHostDeinitialize_fn && cuptiProfilerHostConfigAddMetrics_fn &&
           cuptiProfilerHostGetConfigImageSize_fn && cuptiProfilerHostGetConfigImage_fn && cuptiPmSamplingSetConfig_fn &&
           cuptiPmSamplingStart_fn && cuptiPmSamplingStop_fn;
  }
};

/// A one-metric config for `chip`, set on `object` and started, then stopped: where a refusal for
/// privileges shows.
void config_and_start(Query& x, const Fns& f, CUpti_PmSampling_Object* object, const char* chip, int device) {
  auto av = cupti_params<CUpti_PmSampling_GetCounterAvailability_Params>(CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE);
  av.deviceIndex = static_cast<std::size_t>(device);
  std::vector<std::uint8_t> image, config;
  if (!x.ok("cuptiPmSamplingGetCounterAvailability", f.cuptiPmSamplingGetCounterAvailability_fn(&av))) return;
  image.assign(av.counterAvailabilityImageSize, 0);
  av.pCounterAvailabilityImage = image.data();
  if (!x.ok("cuptiPmSamplingGetCounterAvailability", f.cuptiPmSamplingGetCounterAvailability_fn(&av))) return;
  auto hi = cupti_params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  hi.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
  hi.pChipName = chip;
  hi.pCounterAvailabilityImage = image.data();
  if (!x.ok("cuptiProfilerHostInitialize", f.cuptiProfilerHostInitialize_fn(&hi))) return;
  const char* metric = "sm__cycles_active.avg.pct_of_peak_sustained_elapsed";  // pm_metrics.h's first
  auto add = cupti_params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = hi.pHostObject;
  add.ppMetricNames = &metric;
  add.numMetrics = 1;
  auto sz = cupti_params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  sz.pHostObject = hi.pHostObject;
  bool good = x.ok("cuptiProfilerHostConfigAddMetrics", f.cuptiProfilerHostConfigAddMetrics_fn(&add)) &&
              x.ok("cuptiProfilerHostGetConfigImageSize", f.cuptiProfilerHostGetConfigImageSize_fn(&sz));
  if (good) config.assign(sz.configImageSize, 0);
  auto ci = cupti_params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  ci.pHostObject = hi.pHostObject;
  ci.configImageSize = config.size();
  ci.pConfigImage = config.data();
  good = good && x.ok("cuptiProfilerHostGetConfigImage", f.cuptiProfilerHostGetConfigImage_fn(&ci));
  auto sc = cupti_params<CUpti_PmSampling_SetConfig_Params>(CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE);
  sc.pPmSamplingObject = object;
  sc.configSize = config.size();
  sc.pConfig = config.data();
  sc.hardwareBufferSize = std::size_t{16} << 20;
  sc.samplingInterval = 1'000'000;
  sc.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
  good = good && x.ok("cuptiPmSamplingSetConfig", f.cuptiPmSamplingSetConfig_fn(&sc));
  auto st = cupti_params<CUpti_PmSampling_Start_Params>(CUpti_PmSampling_Start_Params_STRUCT_SIZE);
  st.pPmSamplingObject = object;
  if (good && x.ok("cuptiPmSamplingStart", f.cuptiPmSamplingStart_fn(&st))) {
    auto sp = cupti_params<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
    sp.pPmSamplingObject = object;
    f.cuptiPmSamplingStop_fn(&sp);
  }
  auto d = cupti_params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  d.pHostObject = hi.pHostObject;
  f.cuptiProfilerHostDeinitialize_fn(&d);
}

}  // namespace

CounterQuery query_counters(void* lib, int device) {
  Query x{lib, {}};
  if (!lib) return x.q.why_not_run = "libcupti not loadable", x.q;
  const Fns f(lib);
  if (!f.complete()) return x.q.why_not_run = "this CUPTI has no PM sampling (CUDA 12.6 or newer)", x.q;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || device >= count || cudaSetDevice(device) != cudaSuccess ||
      cudaFree(nullptr) != cudaSuccess)
    return x.q.why_not_run = "no usable CUDA device", x.q;
  x.q.ran = true;
  auto init = cupti_params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  if (!x.ok("cuptiProfilerInitialize", f.cuptiProfilerInitialize_fn(&init))) return x.q;
  auto chip = cupti_params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = static_cast<std::size_t>(device);
  if (!x.ok("cuptiDeviceGetChipName", f.cuptiDeviceGetChipName_fn(&chip))) return x.q;
  x.q.chip = chip.pChipName ? chip.pChipName : "";
  auto en = cupti_params<CUpti_PmSampling_Enable_Params>(CUpti_PmSampling_Enable_Params_STRUCT_SIZE);
  en.deviceIndex = static_cast<std::size_t>(device);
  if (!x.ok("cuptiPmSamplingEnable", f.cuptiPmSamplingEnable_fn(&en))) return x.q;
  config_and_start(x, f, en.pPmSamplingObject, chip.pChipName, device);
  auto dis = cupti_params<CUpti_PmSampling_Disable_Params>(CUpti_PmSampling_Disable_Params_STRUCT_SIZE);
  dis.pPmSamplingObject = en.pPmSamplingObject;
  f.cuptiPmSamplingDisable_fn(&dis);
  return x.q;
}
#else
CounterQuery query_counters(void*, int) {
  CounterQuery q;
  q.why_not_run = "built without CUDA";
  return q;
}
#endif

}  // namespace ts::doctor
