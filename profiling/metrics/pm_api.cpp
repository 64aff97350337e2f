// PmApi (see pm_api.h): the table from an opened libcupti, and what is missing from it.
#include "profiling/metrics/pm_api.h"

#include <dlfcn.h>

namespace ts::prof::pm {

namespace {

/// Each entry with its CUPTI name, for load_api and missing().
template <class F>
void for_each_entry(PmApi& a, F f) {
  f(a.result_string, "cuptiGetResultString");
  f(a.timestamp, "cuptiGetTimestamp");
  f(a.profiler_initialize, "cuptiProfilerInitialize");
  f(a.chip_name, "cuptiDeviceGetChipName");
  f(a.enable, "cuptiPmSamplingEnable");
  f(a.disable, "cuptiPmSamplingDisable");
  f(a.set_config, "cuptiPmSamplingSetConfig");
  f(a.start, "cuptiPmSamplingStart");
  f(a.stop, "cuptiPmSamplingStop");
  f(a.decode, "cuptiPmSamplingDecodeData");
  f(a.counter_availability, "cuptiPmSamplingGetCounterAvailability");
  f(a.counter_data_size, "cuptiPmSamplingGetCounterDataSize");
  f(a.counter_data_initialize, "cuptiPmSamplingCounterDataImageInitialize");
  f(a.counter_data_info, "cuptiPmSamplingGetCounterDataInfo");
  f(a.sample_info, "cuptiPmSamplingCounterDataGetSampleInfo");
  f(a.host_initialize, "cuptiProfilerHostInitialize");
  f(a.host_deinitialize, "cuptiProfilerHostDeinitialize");
  f(a.host_add_metrics, "cuptiProfilerHostConfigAddMetrics");
  f(a.host_config_image_size, "cuptiProfilerHostGetConfigImageSize");
  f(a.host_config_image, "cuptiProfilerHostGetConfigImage");
  f(a.host_passes, "cuptiProfilerHostGetNumOfPasses");
  f(a.host_evaluate, "cuptiProfilerHostEvaluateToGpuValues");
}

}  // namespace

std::string PmApi::missing() const {
  std::string first;
  PmApi copy = *this;
  for_each_entry(copy, [&](auto& fn, const char* name) {
    if (!fn && first.empty()) first = name;
  });
  return first;
}

std::string PmApi::error(CUptiResult r) const {
  const char* s = nullptr;
  if (result_string) result_string(r, &s);
  return s ? s : "CUPTI error " + std::to_string(static_cast<int>(r));
}

PmApi load_api(void* lib) {
  PmApi a;
  if (!lib) return a;
  for_each_entry(a, [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
  });
  return a;
}

}  // namespace ts::prof::pm
