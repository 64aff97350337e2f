// Known work for the range profiler's GPU test (tests/gpu/test_range_profiler_gpu.cpp): a grid-stride
// float4 copy that reads and writes each byte once, so its DRAM bytes are known exactly.
#include <cuda_runtime.h>

__global__ void ts_test_copy4(const float4* __restrict__ in, float4* __restrict__ out, long long n4) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n4;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

/// Copies `bytes` (a multiple of 16) from `in` to `out` on `stream`: 4 blocks of 256 threads per SM.
cudaError_t ts_launch_copy4(const void* in, void* out, long long bytes, int sms, cudaStream_t stream) {
  ts_test_copy4<<<sms * 4, 256, 0, stream>>>(static_cast<const float4*>(in), static_cast<float4*>(out), bytes / 16);
  return cudaGetLastError();
}
