// The CUPTI callbacks that feed a GraphNodeTracker (graph_nodes.h), shared by the live collector
// (CUPTI linked) and the injection library (CUPTI found at run time): which callback ids to enable,
// and what each one does. Header-only over CUPTI's headers; the caller passes its own entry points.
//
// Followed launch calls: the runtime's kernel launches (cudaLaunchKernel, CUDA 13's
// __cudaLaunchKernel behind <<<...>>>, cudaLaunchKernelExC, cooperative launches), its stream copies
// and memsets (cudaMemcpyAsync, cudaMemsetAsync), and the driver's kernel launches (cuLaunchKernel,
// cuLaunchKernelEx: cuBLAS's CUTLASS kernels, Triton). Each costs an ENTER and an EXIT callback per
// call (two thread-local stores), eager or captured; a node made by another call (a graph built
// with cudaGraphAddKernelNode, cudaMemcpy2DAsync captured) stays unmapped.
#pragma once
#include <cupti.h>

#include <cstdint>
#include <span>

#include "profiling/cupti/graph_nodes.h"

namespace ts::prof {

inline constexpr CUpti_CallbackId kGraphRuntimeLaunches[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000};

inline constexpr CUpti_CallbackId kGraphDriverLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,       CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz};

inline constexpr CUpti_CallbackId kGraphResources[] = {CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED,
                                                       CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED};

using EnableCallbackFn = CUptiResult (*)(std::uint32_t enable, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                         CUpti_CallbackId);
using GraphNodeIdFn = CUptiResult (*)(CUgraphNode node, std::uint64_t* id);

/// Enables (`enable` 1) or disables (0) every callback the tracker needs on `subscriber`. Returns
/// the first failure (the rest are still tried) or CUPTI_SUCCESS.
inline CUptiResult enable_graph_node_callbacks(std::uint32_t enable, CUpti_SubscriberHandle subscriber,
                                               EnableCallbackFn enable_callback) {
  CUptiResult first = CUPTI_SUCCESS;
  auto one = [&](CUpti_CallbackDomain d, CUpti_CallbackId id) {
    const CUptiResult r = enable_callback(enable, subscriber, d, id);
    if (first == CUPTI_SUCCESS) first = r;
  };
  for (CUpti_CallbackId id : kGraphResources) one(CUPTI_CB_DOMAIN_RESOURCE, id);
  for (CUpti_CallbackId id : kGraphRuntimeLaunches) one(CUPTI_CB_DOMAIN_RUNTIME_API, id);
  for (CUpti_CallbackId id : kGraphDriverLaunches) one(CUPTI_CB_DOMAIN_DRIVER_API, id);
  return first;
}

/// A followed launch's ENTER or EXIT (`data`: CUpti_CallbackData) kept as the calling thread's call
/// in progress (GraphNodeTracker::api_enter/api_exit). Returns false for any other callback.
inline bool graph_node_api_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return false;
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  bool followed = false;
  for (CUpti_CallbackId id : runtime ? std::span<const CUpti_CallbackId>(kGraphRuntimeLaunches)
                                     : std::span<const CUpti_CallbackId>(kGraphDriverLaunches))
    followed = followed || id == cbid;
  if (!followed) return false;
  const auto* d = static_cast<const CUpti_CallbackData*>(data);
  const auto api = runtime ? GraphNodeTracker::Api::runtime : GraphNodeTracker::Api::driver;
  if (d->callbackSite == CUPTI_API_ENTER) GraphNodeTracker::api_enter(api, d->correlationId);
  else GraphNodeTracker::api_exit(api);
  return true;
}

/// GRAPHNODE_CREATED or GRAPHNODE_CLONED (`data`: CUpti_ResourceData whose resourceDescriptor is a
/// CUpti_GraphData) given to `tracker`, the node ids from `node_id` (cuptiGetGraphNodeId). Returns
/// false for any other callback.
inline bool graph_node_resource_callback(GraphNodeTracker& tracker, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                         const void* data, GraphNodeIdFn node_id) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE ||
      (cbid != CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED && cbid != CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED))
    return false;
  const auto* r = static_cast<const CUpti_ResourceData*>(data);
  const auto* g = r ? static_cast<const CUpti_GraphData*>(r->resourceDescriptor) : nullptr;
  if (!g || !node_id) return true;
  std::uint64_t node = 0, original = 0;
  if (node_id(g->node, &node) != CUPTI_SUCCESS) return true;
  if (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED) tracker.node_created(node);
  else if (node_id(g->originalNode, &original) == CUPTI_SUCCESS) tracker.node_cloned(node, original);
  return true;
}

}  // namespace ts::prof
