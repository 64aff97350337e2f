// Known work for the PM sampling GPU test (tests/gpu/test_pm_sampling_gpu.cpp): an FMA loop that
// keeps every SM busy with arithmetic and touches no memory until its one store.
#include <cuda_runtime.h>

__global__ void ts_test_fma_loop(float* out, int iterations) {
  float a = threadIdx.x * 1e-3f, b = 1.0001f, c = 0.9999f, d = blockIdx.x * 1e-3f;
  for (int i = 0; i < iterations; ++i) {  // four independent chains: the FMA pipe stays issued
    a = fmaf(a, b, c);
    d = fmaf(d, c, b);
    b = fmaf(b, c, a) * 0.5f;
    c = fmaf(c, b, d) * 0.5f;
  }
  if (a + b + c + d == 12345.0f) out[0] = a;  // almost never: keeps the loop from being removed
}

/// Launches the FMA loop on `blocks` x 256 threads, `iterations` iterations of 4 FMAs per thread.
cudaError_t ts_launch_fma_loop(float* out, int blocks, int iterations, cudaStream_t stream) {
  ts_test_fma_loop<<<blocks, 256, 0, stream>>>(out, iterations);
  return cudaGetLastError();
}
