// The counter-access probe and the measured copy ceiling (see pm_sampler.h).
#include <cuda_runtime_api.h>

#include <algorithm>

#include "profiling/event_store.h"
#include "profiling/metrics/pm_metrics.h"
#include "profiling/metrics/pm_sampler.h"

namespace ts::prof {

std::string probe_counter_access(int cuda_device) {
  // The real thing, briefly: a sampler on a scratch store with the one most basic metric, stopped at
  // once. Whatever refuses a run's sampling (privileges, another profiler, the GPU) refuses this.
  EventStore scratch;
  PmSamplerOptions o;
  o.cuda_device = cuda_device;
  o.metrics = {"sm_active"};
  o.hardware_buffer_bytes = std::size_t{16} << 20;
  o.api = linked_pm_api();
  PmSampler probe(scratch, 0, o);
  const std::string why = probe.why();
  probe.stop();
  return why;
}

std::optional<double> measure_copy_ceiling(int cuda_device, std::string* why) {
  constexpr std::size_t kBytes = std::size_t{256} << 20;
  auto failed = [&](const char* what, cudaError_t e) -> std::optional<double> {
    if (why) *why = std::string(what) + ": " + cudaGetErrorString(e);
    cudaGetLastError();  // clear a sticky-free error so the run goes on
    return std::nullopt;
  };
  if (cudaError_t e = cudaSetDevice(cuda_device); e != cudaSuccess) return failed("cudaSetDevice", e);
  void *a = nullptr, *b = nullptr;
  if (cudaError_t e = cudaMalloc(&a, kBytes); e != cudaSuccess) return failed("cudaMalloc", e);
  if (cudaError_t e = cudaMalloc(&b, kBytes); e != cudaSuccess) {
    cudaFree(a);
    return failed("cudaMalloc", e);
  }
  cudaEvent_t t0 = nullptr, t1 = nullptr;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  float best_ms = 0;
  cudaError_t err = cudaMemset(a, 1, kBytes);
  for (int i = 0; i < 6 && err == cudaSuccess; ++i) {  // one warm-up, then the best of 5
    cudaEventRecord(t0);
    cudaMemcpyAsync(b, a, kBytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(t1);
    err = cudaEventSynchronize(t1);
    float ms = 0;
    if (err == cudaSuccess) err = cudaEventElapsedTime(&ms, t0, t1);
    if (i > 0 && ms > 0) best_ms = best_ms == 0 ? ms : std::min(best_ms, ms);
  }
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  cudaFree(a);
  cudaFree(b);
  if (err != cudaSuccess) return failed("device-to-device copy", err);
  if (best_ms <= 0) {
    if (why) *why = "the copy took no measurable time";
    return std::nullopt;
  }
  return 2.0 * static_cast<double>(kBytes) / (static_cast<double>(best_ms) * 1e-3);
}

}  // namespace ts::prof
