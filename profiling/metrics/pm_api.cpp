// PmApi (see pm_api.h): the table from an opened libcupti, and what is missing from it.
#include "profiling/metrics/pm_api.h"

#include <dlfcn.h>

namespace ts::prof::pm {

namespace {

/// Which of the two profilers uses an entry.
constexpr unsigned kPm = 1, kRange = 2, kBoth = kPm | kRange;

/// Each entry with its CUPTI name and its users, for load_api, missing() and missing_range().
template <class F>
void for_each_entry(PmApi& a, F g) {
  auto f = [&g](auto& fn, const char* name, unsigned users = kPm) { g(fn, name, users); };
  f(a.result_string, "cuptiGetResultString", kBoth);
  f(a.timestamp, "cuptiGetTimestamp");
  f(a.profiler_initialize, "cuptiProfilerInitialize", kBoth);
  f(a.chip_name, "cuptiDeviceGetChipName", kBoth);
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
  f(a.host_initialize, "cuptiProfilerHostInitialize", kBoth);
  f(a.host_deinitialize, "cuptiProfilerHostDeinitialize", kBoth);
  f(a.host_add_metrics, "cuptiProfilerHostConfigAddMetrics", kBoth);
  f(a.host_config_image_size, "cuptiProfilerHostGetConfigImageSize", kBoth);
  f(a.host_config_image, "cuptiProfilerHostGetConfigImage", kBoth);
  f(a.host_passes, "cuptiProfilerHostGetNumOfPasses", kBoth);
  f(a.host_evaluate, "cuptiProfilerHostEvaluateToGpuValues", kBoth);
  f(a.profiler_counter_availability, "cuptiProfilerGetCounterAvailability", kRange);
  f(a.range_enable, "cuptiRangeProfilerEnable", kRange);
  f(a.range_disable, "cuptiRangeProfilerDisable", kRange);
  f(a.range_set_config, "cuptiRangeProfilerSetConfig", kRange);
  f(a.range_start, "cuptiRangeProfilerStart", kRange);
  f(a.range_stop, "cuptiRangeProfilerStop", kRange);
  f(a.range_decode, "cuptiRangeProfilerDecodeData", kRange);
  f(a.range_counter_data_size, "cuptiRangeProfilerGetCounterDataSize", kRange);
  f(a.range_counter_data_initialize, "cuptiRangeProfilerCounterDataImageInitialize", kRange);
  f(a.range_counter_data_info, "cuptiRangeProfilerGetCounterDataInfo", kRange);
  f(a.range_info, "cuptiRangeProfilerCounterDataGetRangeInfo", kRange);
}

/// The first entry used by `users` that is missing, "" when none.
std::string first_missing(const PmApi& api, unsigned users) {
  std::string first;
  PmApi copy = api;
  for_each_entry(copy, [&](auto& fn, const char* name, unsigned u) {
    if ((u & users) && !fn && first.empty()) first = name;
  });
  return first;
}

}  // namespace

std::string PmApi::missing() const { return first_missing(*this, kPm); }
std::string PmApi::missing_range() const { return first_missing(*this, kRange); }

std::string PmApi::error(CUptiResult r) const {
  const char* s = nullptr;
  if (result_string) result_string(r, &s);
  return s ? s : "CUPTI error " + std::to_string(static_cast<int>(r));
}

PmApi load_api(void* lib) {
  PmApi a;
  if (!lib) return a;
  for_each_entry(a, [&](auto& fn, const char* name, unsigned) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
  });
  return a;
}

}  // namespace ts::prof::pm
