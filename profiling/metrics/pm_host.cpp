// The profiler host side PM sampling and the range profiler share (see pm_host.h).
#include "profiling/metrics/pm_host.h"

namespace ts::prof::pm {

CUptiResult initialize_and_name_chip(const PmApi& api, int device, std::string& chip, std::string& step) {
  auto init = cupti_params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  step = "profiler initialize";
  if (CUptiResult r = api.profiler_initialize(&init); r != CUPTI_SUCCESS) return r;
  auto chip_p = cupti_params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip_p.deviceIndex = static_cast<std::size_t>(device);
  step = "chip name";
  if (CUptiResult r = api.chip_name(&chip_p); r != CUPTI_SUCCESS) return r;
  chip = chip_p.pChipName ? chip_p.pChipName : "";
  step.clear();
  return CUPTI_SUCCESS;
}

Refusal refusal_kind(CUptiResult r) {
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES: return Refusal::privileges;
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: return Refusal::busy;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED: return Refusal::unsupported;
    default: return Refusal::other;
  }
}

HostConfig::HostConfig(const PmApi& a, CUpti_ProfilerType type, const std::string& chip,
                       const std::vector<std::uint8_t>& availability)
    : api(&a) {
  auto p = cupti_params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  p.profilerType = type;
  p.pChipName = chip.c_str();
  p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
  status = api->host_initialize(&p);
  object = status == CUPTI_SUCCESS ? p.pHostObject : nullptr;
}

HostConfig::~HostConfig() {
  if (!object) return;
  auto p = cupti_params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  p.pHostObject = object;
  api->host_deinitialize(&p);
}

CUptiResult HostConfig::add(std::vector<const char*> names) {
  auto p = cupti_params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  p.pHostObject = object;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  return api->host_add_metrics(&p);
}

CUptiResult HostConfig::image(std::vector<std::uint8_t>& out, std::size_t& passes) {
  auto s = cupti_params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  s.pHostObject = object;
  if (CUptiResult r = api->host_config_image_size(&s); r != CUPTI_SUCCESS) return r;
  out.assign(s.configImageSize, 0);
  auto g = cupti_params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  g.pHostObject = object;
  g.configImageSize = out.size();
  g.pConfigImage = out.data();
  if (CUptiResult r = api->host_config_image(&g); r != CUPTI_SUCCESS) return r;
  auto n = cupti_params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  n.configImageSize = out.size();
  n.pConfigImage = out.data();
  const CUptiResult r = api->host_passes(&n);
  passes = n.numOfPasses;
  return r;
}

CUptiResult HostConfig::evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t index,
                                 std::vector<const char*> names, std::vector<double>& values) {
  values.assign(names.size(), 0.0);
  auto e = cupti_params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
      CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
  e.pHostObject = object;
  e.pCounterDataImage = counter_data.data();
  e.counterDataImageSize = counter_data.size();
  e.rangeIndex = index;
  e.ppMetricNames = names.data();
  e.numMetrics = names.size();
  e.pMetricValues = values.data();
  return api->host_evaluate(&e);
}

CounterChoice first_accepted_counter(const PmApi& api, CUpti_ProfilerType type, const std::string& chip,
                                     const std::vector<std::uint8_t>& availability,
                                     const std::vector<const char*>& candidates) {
  CounterChoice c;
  for (const char* counter : candidates) {
    HostConfig h(api, type, chip, availability);
    if (h.status != CUPTI_SUCCESS) {
      c.host_status = h.status;
      return c;
    }
    const CUptiResult r = h.add({counter});
    if (r == CUPTI_SUCCESS) {
      c.counter = counter;
      c.tried.clear();
      return c;
    }
    c.tried += (c.tried.empty() ? "" : "; ") + std::string(counter) + ": " + api.error(r);
  }
  return c;
}

}  // namespace ts::prof::pm
