// A known kernel for the profiler's GPU tests (tests/gpu/test_profiling_gpu.cpp).
#include <cuda_runtime.h>

__global__ void ts_test_scale(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

/// Launches ts_test_scale over n floats: grid ceil(n/128) x 128 threads.
cudaError_t ts_launch_test_scale(float* x, int n, cudaStream_t stream) {
  ts_test_scale<<<(n + 127) / 128, 128, 0, stream>>>(x, n);
  return cudaGetLastError();
}
