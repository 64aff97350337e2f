// Device discovery for the CUDA backend: cuda_available() (any error from cudaGetDeviceCount, e.g.
// "insufficient driver" on a machine without one, counts as no GPU), the DeviceInfo record, and
// make_cuda_network, which refuses with a DeviceError that suggests --device cpu when no GPU is usable.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "base/cuda_check.h"
#include "engine/cuda/cuda_network.h"

namespace ts {

bool cuda_available(std::string* why) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();
    if (why) *why = std::string("cudaGetDeviceCount failed with ") + cudaGetErrorName(e) + " (" +
                    cudaGetErrorString(e) + ")";
    return false;
  }
  if (count == 0) {
    if (why) *why = "no CUDA device is present";
    return false;
  }
  if (why) why->clear();
  return true;
}

std::vector<DeviceInfo> list_cuda_devices() {
  std::vector<DeviceInfo> out;
  int count = 0;
  if (!cuda_available() || cudaGetDeviceCount(&count) != cudaSuccess) return out;
  for (int i = 0; i < count; ++i) {
    try {
      out.push_back(cuda::query_device_info(i));
    } catch (const Error&) {  // a device that cannot be queried is not listed
    }
  }
  return out;
}

std::unique_ptr<Network> make_cuda_network(const ModelSpec& spec, const NetworkOptions& options) {
  std::string why;
  if (!cuda_available(&why)) throw DeviceError("no usable GPU (" + why + "); use --device cpu to train on the CPU");
  int count = 0;
  TS_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (options.cuda_device < 0 || options.cuda_device >= count)
    throw DeviceError("CUDA device " + std::to_string(options.cuda_device) + " does not exist (" +
                      std::to_string(count) + " present)");
  return std::make_unique<cuda::CudaNetwork>(spec, options);
}

namespace cuda {

DeviceInfo query_device_info(int ordinal) {
  DeviceInfo info;
  info.device = Device::cuda;
  info.ordinal = ordinal;
  cudaDeviceProp prop{};
  TS_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  info.name = prop.name;
  info.total_memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
  TS_CUDA_CHECK(cudaDeviceGetAttribute(&info.compute_capability_major, cudaDevAttrComputeCapabilityMajor, ordinal));
  TS_CUDA_CHECK(cudaDeviceGetAttribute(&info.compute_capability_minor, cudaDevAttrComputeCapabilityMinor, ordinal));
  TS_CUDA_CHECK(cudaDeviceGetAttribute(&info.multiprocessors, cudaDevAttrMultiProcessorCount, ordinal));
  int clock_khz = 0, mem_clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, ordinal);
  cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, ordinal);
  TS_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  TS_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  info.cudnn_version = cudnn_runtime_version();
  int major = 0, minor = 0, patch = 0;  // no handle needed (creating one would allocate)
  cublasGetProperty(MAJOR_VERSION, &major);
  cublasGetProperty(MINOR_VERSION, &minor);
  cublasGetProperty(PATCH_LEVEL, &patch);
  const int cublas_version = major * 10000 + minor * 100 + patch;
  info.cublas_version = cublas_version;
  info.library_versions = "CUDA runtime " + std::to_string(info.runtime_version) + ", driver " +
                          std::to_string(info.driver_version) + ", cuDNN " + std::to_string(info.cudnn_version) +
                          " (built with " + std::to_string(cudnn_build_version()) + "), cuBLAS " +
                          std::to_string(cublas_version) + ", SM clock " + std::to_string(clock_khz / 1000) +
                          " MHz, memory clock " + std::to_string(mem_clock_khz / 1000) + " MHz";
  return info;
}

}  // namespace cuda
}  // namespace ts
