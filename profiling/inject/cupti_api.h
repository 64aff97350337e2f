// CUPTI and the CUDA driver, found at run time inside the profiled process: the library never
// links libcupti or libcuda, so it loads (and records NVTX) where CUPTI is missing, and it uses the
// copy the process already has. Order: a libcupti.so.13 already loaded (PyTorch's Kineto loads its
// own), TRAINSCOPE_CUPTI (a path), the folder of the process's loaded libcudart.so.13 (PyTorch's
// nvidia/cu13/lib holds both), the loader's search path (LD_LIBRARY_PATH), then the toolkit's
// folders under /usr/local/cuda. Never a second CUDA runtime: CUPTI needs only the driver.
#pragma once
#include <cupti.h>

#include <string>
#include <vector>

namespace ts::prof::inject {

struct CuptiApi {
  bool loaded = false;
  std::string path;  // the libcupti file in use
  std::string why;   // why it is not loaded ("" when loaded)
  CUptiResult (*subscribe)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*) = nullptr;
  CUptiResult (*unsubscribe)(CUpti_SubscriberHandle) = nullptr;
  CUptiResult (*enable_callback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId) = nullptr;
  CUptiResult (*activity_enable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*activity_disable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult (*flush_all)(uint32_t) = nullptr;
  CUptiResult (*next_record)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
  CUptiResult (*dropped_records)(CUcontext, uint32_t, size_t*) = nullptr;
  CUptiResult (*timestamp)(uint64_t*) = nullptr;
  CUptiResult (*result_string)(CUptiResult, const char**) = nullptr;
  CUptiResult (*callback_name)(CUpti_CallbackDomain, uint32_t, const char**) = nullptr;
  CUptiResult (*set_thread_id_type)(CUpti_ActivityThreadIdType) = nullptr;
  CUptiResult (*device_id)(CUcontext, uint32_t*) = nullptr;
  CUptiResult (*enable_runtime_api)(CUpti_CallbackId, uint8_t) = nullptr;  // optional (CUPTI 12.4+)
  CUptiResult (*set_attribute)(CUpti_ActivityAttribute, size_t*, void*) = nullptr;  // optional
  CUptiResult (*graph_node_id)(CUgraphNode, uint64_t*) = nullptr;  // optional: cuptiGetGraphNodeId
  /// The CUPTI error string of `r` ("CUPTI error N" when CUPTI cannot say).
  std::string error(CUptiResult r) const;
};

/// Finds and loads CUPTI (see the file comment); `explicit_path` is TRAINSCOPE_CUPTI or "".
/// Never throws: a missing library or symbol leaves loaded false and `why` set.
CuptiApi load_cupti(const std::string& explicit_path);

/// Device properties from the driver already in the process (libcuda.so.1, dlopen RTLD_NOLOAD),
/// as session meta (device.*, versions.cuda_driver). Empty when the driver cannot answer.
struct MetaPair {
  std::string key, value;
};
std::vector<MetaPair> device_meta(int ordinal);

}  // namespace ts::prof::inject
