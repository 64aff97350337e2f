// The CUPTI entry points the hardware-counter metrics use, as a table: PM sampling (pm_sampler.h) and
// the range profiler (range_profiler.h) share the profiler-host and chip entries. TrainScope's own
// runs fill it with the linked CUPTI (linked_pm_api(), ts_profiling), the injection library with the
// libcupti it found in the profiled process (load_api(): dlsym, profiling/inject/cupti_api.h), so one
// sampler serves both.
#pragma once
#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <string>

namespace ts::prof::pm {

struct PmApi {
  decltype(&cuptiGetResultString) result_string = nullptr;
  decltype(&cuptiGetTimestamp) timestamp = nullptr;
  decltype(&cuptiProfilerInitialize) profiler_initialize = nullptr;
  decltype(&cuptiDeviceGetChipName) chip_name = nullptr;
  decltype(&cuptiPmSamplingEnable) enable = nullptr;
  decltype(&cuptiPmSamplingDisable) disable = nullptr;
  decltype(&cuptiPmSamplingSetConfig) set_config = nullptr;
  decltype(&cuptiPmSamplingStart) start = nullptr;
  decltype(&cuptiPmSamplingStop) stop = nullptr;
  decltype(&cuptiPmSamplingDecodeData) decode = nullptr;
  decltype(&cuptiPmSamplingGetCounterAvailability) counter_availability = nullptr;
  decltype(&cuptiPmSamplingGetCounterDataSize) counter_data_size = nullptr;
  decltype(&cuptiPmSamplingCounterDataImageInitialize) counter_data_initialize = nullptr;
  decltype(&cuptiPmSamplingGetCounterDataInfo) counter_data_info = nullptr;
  decltype(&cuptiPmSamplingCounterDataGetSampleInfo) sample_info = nullptr;
  decltype(&cuptiProfilerHostInitialize) host_initialize = nullptr;
  decltype(&cuptiProfilerHostDeinitialize) host_deinitialize = nullptr;
  decltype(&cuptiProfilerHostConfigAddMetrics) host_add_metrics = nullptr;
  decltype(&cuptiProfilerHostGetConfigImageSize) host_config_image_size = nullptr;
  decltype(&cuptiProfilerHostGetConfigImage) host_config_image = nullptr;
  decltype(&cuptiProfilerHostGetNumOfPasses) host_passes = nullptr;
  decltype(&cuptiProfilerHostEvaluateToGpuValues) host_evaluate = nullptr;
  // The range profiler (cupti_range_profiler.h, CUDA 12.6+) and the context's counter availability
  // (cupti_profiler_target.h), which the range profiler's host object needs.
  decltype(&cuptiProfilerGetCounterAvailability) profiler_counter_availability = nullptr;
  decltype(&cuptiRangeProfilerEnable) range_enable = nullptr;
  decltype(&cuptiRangeProfilerDisable) range_disable = nullptr;
  decltype(&cuptiRangeProfilerSetConfig) range_set_config = nullptr;
  decltype(&cuptiRangeProfilerStart) range_start = nullptr;
  decltype(&cuptiRangeProfilerStop) range_stop = nullptr;
  decltype(&cuptiRangeProfilerDecodeData) range_decode = nullptr;
  decltype(&cuptiRangeProfilerGetCounterDataSize) range_counter_data_size = nullptr;
  decltype(&cuptiRangeProfilerCounterDataImageInitialize) range_counter_data_initialize = nullptr;
  decltype(&cuptiRangeProfilerGetCounterDataInfo) range_counter_data_info = nullptr;
  decltype(&cuptiRangeProfilerCounterDataGetRangeInfo) range_info = nullptr;
  /// Makes `device`'s primary context current (TrainScope's own runs start the profiler before the
  /// engine touches the GPU); null where the program's own context exists (the injection library).
  bool (*ensure_context)(int device) = nullptr;
  /// The calling thread's current CUDA context (cuCtxGetCurrent), for the range profiler when it is
  /// given none; null where no such call is available.
  CUcontext (*current_context)() = nullptr;

  /// "" when every entry PM sampling uses is there, else the first missing one's name.
  std::string missing() const;
  /// The same for the entries the range profiler uses (the shared host and chip entries, range_*,
  /// profiler_counter_availability).
  std::string missing_range() const;
  /// CUPTI's name and text for `r`.
  std::string error(CUptiResult r) const;
};

/// The entry points of an opened libcupti (dlsym); a CUPTI before 12.6 lacks PM sampling (missing())
/// and the range profiler (missing_range()).
PmApi load_api(void* libcupti);

}  // namespace ts::prof::pm
