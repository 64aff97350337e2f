// PM sampling for TrainScope's own runs: the PmApi of the linked CUPTI, the device's context made by
// the CUDA runtime (see pm_api.h).
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
  a->ensure_context = [](int device) { return cudaSetDevice(device) == cudaSuccess && cudaFree(nullptr) == cudaSuccess; };
  return a;
}

}  // namespace ts::prof
