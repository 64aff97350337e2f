// Hardware counters for TrainScope's own runs: the PmApi of the linked CUPTI (PM sampling and the
// range profiler), the device's context made by the CUDA runtime (see pm_api.h).
#include <cuda_runtime_api.h>

#include "profiling/metrics/pm_api.h"
#include "profiling/metrics/pm_sampler.h"

namespace ts::prof {

std::shared_ptr<const pm::PmApi> linked_pm_api() {
  auto a = std::make_shared<pm::PmApi>();
  a->result_string = &cuptiGetResultString;
  a->timestamp = &cuptiGetTimestamp;
  a->profiler_initialize = &cuptiProfilerInitialize;
  a->chip_name = &cuptiDeviceGetChipName;
  a->enable = &cuptiPmSamplingEnable;
  a->disable = &cuptiPmSamplingDisable;
  a->set_config = &cuptiPmSamplingSetConfig;
  a->start = &cuptiPmSamplingStart;
  a->stop = &cuptiPmSamplingStop;
  a->decode = &cuptiPmSamplingDecodeData;
  a->counter_availability = &cuptiPmSamplingGetCounterAvailability;
  a->counter_data_size = &cuptiPmSamplingGetCounterDataSize;
  a->counter_data_initialize = &cuptiPmSamplingCounterDataImageInitialize;
  a->counter_data_info = &cuptiPmSamplingGetCounterDataInfo;
  a->sample_info = &cuptiPmSamplingCounterDataGetSampleInfo;
  a->host_initialize = &cuptiProfilerHostInitialize;
  a->host_deinitialize = &cuptiProfilerHostDeinitialize;
  a->host_add_metrics = &cuptiProfilerHostConfigAddMetrics;
  a->host_config_image_size = &cuptiProfilerHostGetConfigImageSize;
  a->host_config_image = &cuptiProfilerHostGetConfigImage;
  a->host_passes = &cuptiProfilerHostGetNumOfPasses;
  a->host_evaluate = &cuptiProfilerHostEvaluateToGpuValues;
  a->profiler_counter_availability = &cuptiProfilerGetCounterAvailability;
  a->range_enable = &cuptiRangeProfilerEnable;
  a->range_disable = &cuptiRangeProfilerDisable;
  a->range_set_config = &cuptiRangeProfilerSetConfig;
  a->range_start = &cuptiRangeProfilerStart;
  a->range_stop = &cuptiRangeProfilerStop;
  a->range_decode = &cuptiRangeProfilerDecodeData;
  a->range_counter_data_size = &cuptiRangeProfilerGetCounterDataSize;
  a->range_counter_data_initialize = &cuptiRangeProfilerCounterDataImageInitialize;
  a->range_counter_data_info = &cuptiRangeProfilerGetCounterDataInfo;
  a->range_info = &cuptiRangeProfilerCounterDataGetRangeInfo;
  a->ensure_context = [](int device) { return cudaSetDevice(device) == cudaSuccess && cudaFree(nullptr) == cudaSuccess; };
  a->current_context = []() -> CUcontext {
    // The driver's cuCtxGetCurrent through the runtime, so that nothing links libcuda itself (the
    // unit tests run where no driver is installed).
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess || !fn)
      return nullptr;
    CUcontext ctx = nullptr;
    return reinterpret_cast<CUresult (*)(CUcontext*)>(fn)(&ctx) == CUDA_SUCCESS ? ctx : nullptr;
  };
  return a;
}

}  // namespace ts::prof
